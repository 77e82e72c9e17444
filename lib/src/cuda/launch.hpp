#pragma once
// The host's call into the kernels (kernels.cu): plain C++ types only, so the
// backend is compiled by the C++ compiler and only kernels.cu by nvcc.

#include <cstddef>
#include <string_view>
#include <cuda_runtime_api.h>

#include "plan.hpp"

namespace scatter::cuda {

/// Device buffers the launch works in; scratch sizes come from scratch_bytes().
struct Buffers {
  void* out = nullptr;            ///< holds data, unless the plan fuses the copy
  const void* data = nullptr;     ///< data, where the plan fuses the copy (out of place); else null
  const void* updates = nullptr;
  const void* indices = nullptr;
  void* scratch = nullptr;        ///< winners, counts, sort keys and values, CUB temp
  int* guard = nullptr;           ///< set to 1 by a kernel that met an out-of-range target
};

/// The kernels one enqueue_scatter launched, in order, so that a fault can name them;
/// with `check` (--check-launches) each is waited for and checked as it is launched,
/// and `failed` names the one whose check failed.
struct LaunchTrace {
  static constexpr int kMax = 16;
  bool check = false;
  const char* kernels[kMax] = {};
  int count = 0;
  const char* failed = nullptr;

  /// A kernel launched again right after itself (the chunked path's steps) is listed once.
  void record(const char* kernel) {
    if (count > 0 && std::string_view(kernels[count - 1]) == kernel) return;
    if (count < kMax) kernels[count++] = kernel;
  }
};

/// Scratch bytes a launch needs (queried before allocating, 256-byte aligned parts).
std::size_t scratch_bytes(const Launch& launch);

/// Enqueues the op on `stream`: no host synchronization (unless trace.check), no
/// host-to-device metadata copies (the geometry travels by value). Returns the first
/// CUDA error; `trace` names the kernels enqueued.
cudaError_t enqueue_scatter(const Launch& launch, const Buffers& buffers, cudaStream_t stream, LaunchTrace& trace);

/// Reads `bytes` of `buffer` (16-byte aligned, a multiple of 16) on `stream`, so that
/// the L2 holds that buffer's clean lines and nothing else: lines the previous work left
/// dirty are written back now, before a timed region, not inside it. `sink` (one int)
/// is written only if the bytes xor to a value no zeroed buffer gives.
cudaError_t enqueue_l2_flush(const void* buffer, std::size_t bytes, int* sink, int sm_count, cudaStream_t stream);

/// Times `stores` 4-byte stores to random 32-byte sectors of `buffer` (`bytes` long) on
/// `stream` between the two events (the sector-write ceiling of element scatter).
cudaError_t enqueue_sector_writes(void* buffer, std::size_t bytes, std::int64_t stores, int sm_count,
                                  cudaStream_t stream);

}  // namespace scatter::cuda
