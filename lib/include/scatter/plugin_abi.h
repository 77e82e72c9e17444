/* scatterctl native plugin ABI, version 1.1: run your own scatter kernel through scatterctl.
 *
 * A plugin is a shared library that exports one symbol, scatter_plugin_get_api(). scatterctl
 * dlopens it (`--backend plugin:path/lib.so`, or in a child process with `--isolate`), asks
 * it what it supports, and calls run() for each case. scatterctl owns every buffer: the
 * inputs are read-only views, the output is allocated by scatterctl (data's shape and
 * dtype) and already holds a copy of data, unless SP_FLAG_IN_PLACE says it *is* data's own
 * buffer. No memory crosses the boundary, so there is no free(). The host times run().
 *
 * Tensors are described by sp_tensor, which has the layout of DLPack's DLTensor (v0.8 and
 * later): a plugin that includes dlpack.h may cast `const sp_tensor*` to `const DLTensor*`.
 * strides is always filled (row-major, in elements), lanes is always 1, byte_offset is 0.
 *
 * Rules for plugins: C linkage; never throw across the boundary; never write outside `out`;
 * on a CUDA tensor (device_type == SP_DEVICE_CUDA), launch only on `stream` and return without
 * waiting (scatterctl waits for the whole device, inside the timed region). Versioning: the
 * major version changes with any layout change; minor versions only append fields at the end
 * of structs (struct_size says what each side knows). 1.1 appended sp_plugin_api.memory.
 *
 * capabilities_json, every key (examples/plugin/README.md has the table):
 *   "ops"                {op: {reduction: [dtypes] or "*"}}; default {}: nothing is supported
 *   "index_dtypes"       default ["int32", "int64"]
 *   "negative_indices"   default true
 *   "empty_index_tuple"  scatter_nd with k = 0; default true
 *   "max_rank"           default 64
 *   "use_init_val_false" reductions with use_init_val false; default true
 *   "checks_indices"     default TRUE: the plugin also gets cases whose indices are out of
 *                        range and must return SP_REJECTED, code "index"; declare false if it
 *                        does not check (it must still never write out of bounds)
 *   "exclude"            [{"op", "reduction", "dtype", "index_dtype", "feature", "reason"}]
 * A case outside them is skipped, and `fuzz` draws only cases inside them.
 *
 * Flags: SP_FLAG_IN_PLACE: out is data (out->data == data->data), holding data's values;
 * without it out is a separate copy of data and data must not be written. SP_FLAG_DETERMINISTIC:
 * the same bits every run, and the reference's wherever an element takes <= 1024 updates; a
 * kernel with no fixed order declines such cases in supports() (SP_UNSUPPORTED), never ignores it.
 */
#ifndef SCATTER_PLUGIN_ABI_H
#define SCATTER_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_ABI_MAJOR 1
#define SP_ABI_MINOR 1

/* DLPack-compatible tensor description (same layout and codes as DLTensor). */
typedef enum { SP_DEVICE_CPU = 1, SP_DEVICE_CUDA = 2 } sp_device_type;
typedef enum { SP_CODE_INT = 0, SP_CODE_UINT = 1, SP_CODE_FLOAT = 2, SP_CODE_BFLOAT = 4, SP_CODE_BOOL = 6 } sp_type_code;

typedef struct {
  int32_t device_type; /* sp_device_type */
  int32_t device_id;
} sp_device;

typedef struct {
  uint8_t code;   /* sp_type_code */
  uint8_t bits;   /* 8, 16, 32 or 64; bool is 8 */
  uint16_t lanes; /* always 1 */
} sp_dtype;

typedef struct {
  void* data;
  sp_device device;
  int32_t ndim;
  sp_dtype dtype;
  int64_t* shape;
  int64_t* strides; /* in elements, row-major; never NULL */
  uint64_t byte_offset;
} sp_tensor;

/* What a call returns. */
typedef enum {
  SP_OK = 0,
  SP_UNSUPPORTED = 1, /* outside what the plugin implements: the case is skipped with the reason */
  SP_REJECTED = 2,    /* invalid input detected: last_error_code() names the spec's error code */
  SP_ERROR = 3,       /* the plugin's own failure (CUDA error, out of memory, internal) */
} sp_status;

/* The case-format spec's names, in its order. */
typedef enum { SP_OP_SCATTER_ELEMENTS = 0, SP_OP_SCATTER_ND = 1, SP_OP_SCATTER_UPDATE = 2 } sp_op;
typedef enum {
  SP_REDUCTION_NONE = 0,
  SP_REDUCTION_ADD = 1,
  SP_REDUCTION_SUB = 2,
  SP_REDUCTION_MUL = 3,
  SP_REDUCTION_MIN = 4,
  SP_REDUCTION_MAX = 5,
  SP_REDUCTION_MEAN = 6,
} sp_reduction;

/* Where a plugin wants its tensors (sp_plugin_api.memory, ABI 1.1). */
typedef enum {
  SP_MEMORY_HOST = 0, /* host memory, stream NULL: what every ABI 1.0 plugin gets */
  SP_MEMORY_CUDA = 1, /* device memory on scatterctl's GPU (device 0); stream is scatterctl's cudaStream_t */
} sp_memory;

#define SP_FLAG_IN_PLACE 1u      /* out is data's own buffer (out->data == data->data) */
#define SP_FLAG_DETERMINISTIC 2u /* a fixed reduction order is asked for */

typedef struct {
  uint32_t struct_size; /* sizeof(sp_case) as the host knows it */
  int32_t op;           /* sp_op */
  int32_t reduction;    /* sp_reduction */
  int32_t axis;         /* normalized to [0, rank); 0 for scatter_nd */
  int32_t use_init_val; /* 0 or 1 */
  uint32_t flags;       /* SP_FLAG_* */
  const sp_tensor* data;
  const sp_tensor* indices; /* int32 or int64; may hold negative or (for expect_error cases) out-of-range values */
  const sp_tensor* updates;
  sp_tensor* out;     /* data's shape and dtype; holds a copy of data (or is data, in place) */
  void* stream;       /* cudaStream_t for CUDA tensors, NULL on the CPU */
  const char* name;   /* the case's name, for the plugin's messages */
} sp_case;

typedef struct {
  uint32_t struct_size; /* sizeof(sp_plugin_api) as the plugin knows it */
  uint32_t abi_major;   /* SP_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;
  const char* name;    /* short, e.g. "mykernel" */
  const char* version; /* free text, reported */
  /* The capabilities document (JSON, docs/backends.md "Capabilities"); static, owned by the plugin. */
  const char* capabilities_json;
  /* Optional (may be NULL): a cheap check with no device work. SP_UNSUPPORTED writes the
   * reason into reason[0..reason_len). A case it accepts and run() then calls unsupported is an error.
   * It sees shapes, dtypes and attributes only: every tensor's data pointer is NULL (a plugin built
   * before this note that reads no data here runs as it did). */
  sp_status (*supports)(const sp_case* c, char* reason, size_t reason_len);
  /* Runs one case: writes the result into c->out. */
  sp_status (*run)(const sp_case* c);
  /* The message of the last non-OK status on this thread (may return NULL). */
  const char* (*last_error)(void);
  /* For SP_REJECTED: the spec's error code as text ("index", "shape", "axis", "dtype", ...). */
  const char* (*last_error_code)(void);
  /* ---- ABI 1.1 ---- */
  /* sp_memory: SP_MEMORY_HOST (0, and what a table that ends before this field gets) or
   * SP_MEMORY_CUDA. With CUDA, scatterctl uploads the inputs and out (a copy of data), calls run()
   * with device tensors (device_type SP_DEVICE_CUDA) and its stream, times from before run() to
   * after the whole device is idle, and downloads out. */
  uint32_t memory;
} sp_plugin_api;

/* The one exported symbol. Returns NULL when the plugin cannot serve host_abi_major. */
typedef const sp_plugin_api* (*sp_get_api_fn)(uint32_t host_abi_major, uint32_t host_abi_minor);
#define SP_ENTRY_POINT "scatter_plugin_get_api"

/* Exported whatever the plugin's default visibility (-fvisibility=hidden). The declaration
 * gives a plugin's definition C linkage even in a C++ file that forgets extern "C". */
#if defined(_WIN32)
#define SP_EXPORT __declspec(dllexport)
#else
#define SP_EXPORT __attribute__((visibility("default")))
#endif
SP_EXPORT const sp_plugin_api* scatter_plugin_get_api(uint32_t host_abi_major, uint32_t host_abi_minor);

#ifdef __cplusplus
}
#endif

#endif /* SCATTER_PLUGIN_ABI_H */
