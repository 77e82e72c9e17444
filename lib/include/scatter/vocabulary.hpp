#pragma once
/// The ops, reductions and dtypes of the case-format spec, each named once, with the
/// properties the rest of the code asks about. Plain constexpr C++ with no library
/// dependencies: the loader, the reference, compare, fuzz, capabilities and the CUDA
/// kernels (host and device code) all read these, so a new reduction or dtype is a row
/// here plus its arithmetic in reduce_step.hpp.
///
/// The property functions are switches, not table lookups, so that device code may call
/// them (nvcc lets device code read a constexpr array only in constant expressions).

#include <string_view>

namespace scatter {

// ---- ops ----

/// tensor_scatter is ONNX TensorScatter-24, the KV-cache write: each batch row's update
/// lands at its write position along `axis` (linear, or circular modulo the axis's extent).
enum class Op { scatter_elements, scatter_nd, scatter_update, tensor_scatter };
inline constexpr Op kOps[] = {Op::scatter_elements, Op::scatter_nd, Op::scatter_update, Op::tensor_scatter};

/// The canonical name and the names other frameworks use (the spec's aliases),
/// matched case-insensitively: "ScatterNDUpdate" is scatter_nd.
struct OpNames {
  std::string_view name;
  std::string_view aliases[3];
};

constexpr OpNames op_names(Op op) {
  switch (op) {
    case Op::scatter_elements: return {"scatter_elements", {"scatterelements", "scatter", "scatterelementsupdate"}};
    case Op::scatter_nd: return {"scatter_nd", {"scatternd", "scatterndupdate", {}}};
    case Op::scatter_update: return {"scatter_update", {"scatterupdate", {}, {}}};
    case Op::tensor_scatter: return {"tensor_scatter", {"tensorscatter", {}, {}}};
  }
  return {"unknown", {}};
}

/// tensor_scatter's `mode`: where sequence position s of batch row b lands along the axis,
/// write_indices[b] + s (linear, which must stay below the extent) or that modulo the extent.
enum class WriteMode { linear, circular };

constexpr std::string_view write_mode_name(WriteMode m) { return m == WriteMode::circular ? "circular" : "linear"; }

// ---- reductions ----

enum class Reduction { none, add, sub, mul, min, max, mean };
inline constexpr Reduction kReductions[] = {Reduction::none, Reduction::add, Reduction::sub, Reduction::mul,
                                            Reduction::min,  Reduction::max, Reduction::mean};

/// Where use_init_val = false starts a targeted element.
enum class Identity {
  none,     ///< `none` has no start: the update replaces the element
  zero,     ///< 0 (false for bool)
  one,      ///< 1 (true for bool)
  highest,  ///< +inf, the type's maximum, true
  lowest,   ///< -inf, the type's lowest, false
};

/// The identity alone, as a plain switch with no strings: device code calls this one.
/// (Device code must not call info_of: with --expt-relaxed-constexpr, nvcc compiles a
/// run-time call of it, string_views and all, to nothing, and the caller's stores with
/// it; tests/cuda/ptx_kernels_store.py checks every kernel still stores.)
constexpr Identity identity_of(Reduction r) {
  switch (r) {
    case Reduction::add:
    case Reduction::sub:
    case Reduction::mean: return Identity::zero;
    case Reduction::mul: return Identity::one;
    case Reduction::min: return Identity::highest;
    case Reduction::max: return Identity::lowest;
    case Reduction::none:
      break;
  }
  return Identity::none;
}

struct ReductionInfo {
  std::string_view name;
  std::string_view aliases[2];  ///< exact spellings the spec also accepts ("sum", "prod")
  std::string_view formula;     ///< f(out, u), as `scatterctl explain` prints it
  Identity identity;
  /// On float dtypes, whether the result depends on the order the updates are applied
  /// in (rounding): such results are compared with a tolerance, and the GPU's free
  /// order needs a sort under --deterministic.
  bool order_dependent_on_floats;
  bool on_bool;  ///< the spec defines it for bool (mean: no)
};

constexpr ReductionInfo info_of(Reduction r) {
  switch (r) {
    case Reduction::none: return {"none", {}, "u", identity_of(r), false, true};
    case Reduction::add: return {"add", {"sum", {}}, "out + u", identity_of(r), true, true};
    case Reduction::sub: return {"sub", {}, "out - u", identity_of(r), true, true};
    case Reduction::mul: return {"mul", {"prod", "multiply"}, "out * u", identity_of(r), true, true};
    case Reduction::min: return {"min", {}, "min(out, u)", identity_of(r), false, true};
    case Reduction::max: return {"max", {}, "max(out, u)", identity_of(r), false, true};
    case Reduction::mean:
      return {"mean", {}, "out + u (a sum; divided by the count at the end)", identity_of(r), true, false};
  }
  return {"unknown", {}, "", Identity::none, false, false};
}

/// The spec's table of reductions per op: sub only for scatter_nd, mean only for
/// scatter_elements, scatter_update and tensor_scatter only none.
constexpr bool op_allows(Op op, Reduction r) {
  switch (op) {
    case Op::scatter_elements: return r != Reduction::sub;
    case Op::scatter_nd: return r != Reduction::mean;
    case Op::scatter_update:
    case Op::tensor_scatter: return r == Reduction::none;
  }
  return false;
}

// ---- dtypes ----

enum class DType { float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, boolean };
inline constexpr DType kDTypes[] = {DType::float64, DType::float32, DType::float16, DType::bfloat16, DType::int64,
                                    DType::int32,   DType::int16,   DType::int8,    DType::uint8,    DType::boolean};

enum class DTypeKind { floating, signed_integer, unsigned_integer, boolean };

struct DTypeInfo {
  std::string_view name;        ///< the spec's spelling ("bool" for DType::boolean)
  std::string_view short_name;  ///< in benchmark names ("f32")
  std::string_view npy;         ///< the .npy descr (NumPy has no bfloat16: raw 2-byte records)
  int bytes;
  DTypeKind kind;
};

constexpr DTypeInfo info_of(DType d) {
  switch (d) {
    case DType::float64: return {"float64", "f64", "<f8", 8, DTypeKind::floating};
    case DType::float32: return {"float32", "f32", "<f4", 4, DTypeKind::floating};
    case DType::float16: return {"float16", "f16", "<f2", 2, DTypeKind::floating};
    case DType::bfloat16: return {"bfloat16", "bf16", "<V2", 2, DTypeKind::floating};
    case DType::int64: return {"int64", "i64", "<i8", 8, DTypeKind::signed_integer};
    case DType::int32: return {"int32", "i32", "<i4", 4, DTypeKind::signed_integer};
    case DType::int16: return {"int16", "i16", "<i2", 2, DTypeKind::signed_integer};
    case DType::int8: return {"int8", "i8", "|i1", 1, DTypeKind::signed_integer};
    case DType::uint8: return {"uint8", "u8", "|u1", 1, DTypeKind::unsigned_integer};
    case DType::boolean: return {"bool", "bool", "|b1", 1, DTypeKind::boolean};
  }
  return {"unknown", "?", "", 1, DTypeKind::boolean};
}

constexpr bool is_float(DType d) { return info_of(d).kind == DTypeKind::floating; }
/// Integer types, bool excluded.
constexpr bool is_integer(DType d) {
  return info_of(d).kind == DTypeKind::signed_integer || info_of(d).kind == DTypeKind::unsigned_integer;
}

// ---- across the tables ----

/// Whether the spec allows `r` on `op` with data of `dtype`.
constexpr bool allows(Op op, Reduction r, DType dtype) {
  return op_allows(op, r) && (dtype != DType::boolean || info_of(r).on_bool);
}

/// Whether the result may depend on the order the updates are applied in: float
/// add, sub, mul and mean (rounding). The reference applies them in update order;
/// the comparison gives such results a tolerance, fuzz needs --deterministic to
/// compare them exactly, and the kernels sort under --deterministic.
constexpr bool is_order_dependent(Reduction r, DType dtype) {
  return is_float(dtype) && info_of(r).order_dependent_on_floats;
}

}  // namespace scatter
