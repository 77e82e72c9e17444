#pragma once
// What one thread does for one update element, as __host__ __device__ functions of
// plain integers and bits, so that the CPU tests compile this header with g++ and
// check it against the reference (tests/test_cuda_elements.cpp). No CUDA headers.

#include <cstdint>

#include "../float_bits.hpp"

namespace scatter::cuda {

/// Device ranks above this are refused by the backend (the reference has no limit).
inline constexpr int kMaxDeviceRank = 16;

enum class DevOp : int { elements = 0, nd = 1, update = 2 };
enum class DevReduction : int { none = 0, add, sub, mul, min, max, mean };

/// Shapes and strides passed to kernels by value: no per-call metadata copies.
struct Geometry {
  DevOp op = DevOp::elements;
  int rank = 0;          ///< rank of data
  int axis = 0;
  int k = 0;             ///< scatter_nd tuple length
  std::int64_t n = 0;    ///< data elements
  std::int64_t u = 0;    ///< update elements
  std::int64_t slice = 1;  ///< scatter_nd: prod(data.shape[k:]); scatter_update: prod(data.shape[axis+1:])
  std::int64_t extent = 0;  ///< scatter_update: data.shape[axis]; scatter_elements: data.shape[axis]
  std::int64_t count = 0;   ///< scatter_update: numel(indices)
  std::int64_t ushape[kMaxDeviceRank] = {};   ///< scatter_elements: updates' shape
  std::int64_t dshape[kMaxDeviceRank] = {};   ///< data's shape
  std::int64_t ostride[kMaxDeviceRank] = {};  ///< data's row-major strides
};

/// An index as the case wrote it, made non-negative against `extent`.
SCATTER_HD std::int64_t normalize(std::int64_t v, std::int64_t extent) { return v < 0 ? v + extent : v; }

/// For the slice ops (scatter_nd, scatter_update): the output row (of g.slice
/// elements) that update row `m` lands in, or -1 when an index is out of range.
/// Off is the offset arithmetic: int when every offset of the case fits (the fast
/// path: 32-bit division), std::int64_t otherwise. Indices are checked in 64 bits.
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off row_target_of(const Geometry& g, const IndexT* idx, Off m) {
  if (g.op == DevOp::nd) {
    // Row-major position of the tuple in data.shape[:k] (its offset divided by the slice).
    Off row = 0;
    for (int c = 0; c < g.k; ++c) {
      const std::int64_t v = normalize(static_cast<std::int64_t>(idx[m * g.k + c]), g.dshape[c]);
      if (v < 0 || v >= g.dshape[c]) return -1;
      row = row * static_cast<Off>(g.dshape[c]) + static_cast<Off>(v);
    }
    return row;
  }
  // scatter_update: update row m = (outer, i) goes to data row (outer, indices[i]).
  const Off count = static_cast<Off>(g.count);
  const Off i = m % count;
  const Off outer = m / count;
  const std::int64_t v = static_cast<std::int64_t>(idx[i]);
  if (v < 0 || v >= g.extent) return -1;
  return outer * static_cast<Off>(g.extent) + static_cast<Off>(v);
}

/// The output offset update element `u` targets, or -1 when an index is out of range
/// (the device-side guard: the host checked already, the kernel still never writes).
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off target_of(const Geometry& g, const IndexT* idx, Off u) {
  if (g.op != DevOp::elements) {
    const Off slice = static_cast<Off>(g.slice);  // u exists, so slice > 0
    const Off row = row_target_of<Off>(g, idx, u / slice);
    return row < 0 ? Off{-1} : row * slice + u % slice;
  }
  // Peel u's row-major coordinates in the updates' shape from the last dim.
  Off rest = u;
  Off o = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const Off extent = static_cast<Off>(g.ushape[d]);
    const Off c = rest % extent;
    rest /= extent;
    if (d == g.axis) {
      const std::int64_t v = normalize(static_cast<std::int64_t>(idx[u]), g.extent);
      if (v < 0 || v >= g.extent) return -1;
      o += static_cast<Off>(v) * static_cast<Off>(g.ostride[d]);
    } else {
      o += c * static_cast<Off>(g.ostride[d]);
    }
  }
  return o;
}

/// Whether a case's offsets fit the 32-bit path: elements, updates (each with room for
/// a grid's stride past the end) and, for scatter_nd, the index elements (tuples x k).
SCATTER_HD bool offsets_fit_32(const Geometry& g) {
  constexpr std::int64_t kLimit = 2147483647LL - (std::int64_t{1} << 24);  // room for a grid stride
  const std::int64_t index_elements = g.op == DevOp::nd && g.slice > 0 ? (g.u / g.slice) * g.k : 0;
  return g.n <= kLimit && g.u <= kLimit && index_elements <= kLimit;
}

/// Storage tags for the 16-bit floats and bool, so templates tell them apart.
struct Half {
  std::uint16_t bits;
};
struct BF16 {
  std::uint16_t bits;
};
struct Bool8 {
  std::uint8_t value;
};

template <class T>
struct Num {  // double view of the numeric types
  SCATTER_HD static double to(T v) { return static_cast<double>(v); }
  SCATTER_HD static T from(double v) { return static_cast<T>(v); }
};
template <>
struct Num<Half> {
  SCATTER_HD static double to(Half v) { return bits::half_bits_to_double(v.bits); }
  SCATTER_HD static Half from(double v) { return Half{bits::round_double_bits<5, 10>(v)}; }
};
template <>
struct Num<BF16> {
  SCATTER_HD static double to(BF16 v) { return bits::bf16_bits_to_double(v.bits); }
  SCATTER_HD static BF16 from(double v) { return BF16{bits::round_double_bits<8, 7>(v)}; }
};

template <class T>
inline constexpr bool kDevFloat = __is_same(T, double) || __is_same(T, float) || __is_same(T, Half) || __is_same(T, BF16);

template <class T>
struct Unsigned {
  using type = std::uint32_t;
};
template <>
struct Unsigned<std::int64_t> {
  using type = std::uint64_t;
};

/// IEEE 754-2019 minimum/maximum: NaN wins, -0 < +0.
template <class T>
SCATTER_HD T ieee_min_max(T a, T b, bool min) {
  const double x = Num<T>::to(a);
  const double y = Num<T>::to(b);
  if (x != x) return a;
  if (y != y) return b;
  if (x == y) return (__builtin_signbit(x) != 0) == min ? a : b;
  return (x < y) == min ? a : b;
}

/// out = f(out, u), one step in the data's own type (floats: exact in double, then
/// rounded once; 16-bit floats included; integers wrap; bool is logic).
template <class T>
SCATTER_HD T combine(DevReduction r, T out, T u) {
  if constexpr (__is_same(T, Bool8)) {
    switch (r) {
      case DevReduction::add:
      case DevReduction::max:
        return Bool8{static_cast<std::uint8_t>(out.value | u.value)};
      case DevReduction::sub:
        return Bool8{static_cast<std::uint8_t>(out.value ^ u.value)};
      case DevReduction::mul:
      case DevReduction::min:
        return Bool8{static_cast<std::uint8_t>(out.value & u.value)};
      default:
        return u;
    }
  } else if constexpr (kDevFloat<T>) {
    const double a = Num<T>::to(out);
    const double b = Num<T>::to(u);
    switch (r) {
      case DevReduction::add:
      case DevReduction::mean:
        if constexpr (__is_same(T, double) || __is_same(T, float)) return out + u;
        else return Num<T>::from(a + b);
      case DevReduction::sub:
        if constexpr (__is_same(T, double) || __is_same(T, float)) return out - u;
        else return Num<T>::from(a - b);
      case DevReduction::mul:
        if constexpr (__is_same(T, double) || __is_same(T, float)) return out * u;
        else return Num<T>::from(a * b);
      case DevReduction::min:
        return ieee_min_max(out, u, true);
      case DevReduction::max:
        return ieee_min_max(out, u, false);
      default:
        return u;
    }
  } else {
    using W = typename Unsigned<T>::type;
    switch (r) {
      case DevReduction::add:
      case DevReduction::mean:
        return static_cast<T>(static_cast<W>(out) + static_cast<W>(u));
      case DevReduction::sub:
        return static_cast<T>(static_cast<W>(out) - static_cast<W>(u));
      case DevReduction::mul:
        return static_cast<T>(static_cast<W>(out) * static_cast<W>(u));
      case DevReduction::min:
        return out < u ? out : u;
      case DevReduction::max:
        return out < u ? u : out;
      default:
        return u;
    }
  }
}

/// How two updates to one target merge before they meet the output (warp aggregation):
/// f(f(out, a), b) = f(out, merge(a, b)). The reduction itself for every associative one;
/// for sub, a + b (out - a - b = out - (a + b)), except bool, whose sub (XOR) is its own
/// merge.
template <class T>
SCATTER_HD DevReduction merge_of(DevReduction r) {
  if constexpr (__is_same(T, Bool8)) {
    return r;
  } else {
    return r == DevReduction::sub ? DevReduction::add : r;
  }
}

/// Where use_init_val = false starts: 0, 1, +inf/max/true, -inf/lowest/false.
template <class T>
SCATTER_HD T identity(DevReduction r) {
  if constexpr (__is_same(T, Bool8)) {
    return Bool8{static_cast<std::uint8_t>(r == DevReduction::mul || r == DevReduction::min)};
  } else if constexpr (kDevFloat<T>) {
    const double inf = __builtin_inf();
    return Num<T>::from(r == DevReduction::mul ? 1.0 : r == DevReduction::min ? inf : r == DevReduction::max ? -inf : 0.0);
  } else {
    constexpr bool is_signed = static_cast<T>(-1) < static_cast<T>(0);
    constexpr int bits = 8 * static_cast<int>(sizeof(T));
    const T max_v = is_signed ? static_cast<T>((std::uint64_t{1} << (bits - 1)) - 1) : static_cast<T>(~T{0});
    const T low_v = is_signed ? static_cast<T>(-static_cast<std::int64_t>(max_v) - 1) : T{0};
    return r == DevReduction::mul ? T{1} : r == DevReduction::min ? max_v : r == DevReduction::max ? low_v : T{0};
  }
}

/// mean = sum / count: floats correctly rounded, integers toward negative infinity.
template <class T>
SCATTER_HD T mean_of(T sum, std::int64_t count) {
  if constexpr (__is_same(T, double)) {
    return sum / static_cast<double>(count);
  } else if constexpr (kDevFloat<T>) {
    return Num<T>::from(Num<T>::to(sum) / static_cast<double>(count));
  } else {
    const std::int64_t s = static_cast<std::int64_t>(sum);
    std::int64_t q = s / count;
    if (s % count != 0 && s < 0) --q;
    return static_cast<T>(q);
  }
}

/// Whether float32 `bits` keeps the native atomicAdd exact. atom.add.f32 flushes
/// subnormal inputs and results to zero (PTX ISA), where the reference keeps them. Zeros,
/// inf, NaN and magnitudes of at least 2^-103 (exponent field >= 24) are multiples of
/// 2^-126, and so is every sum of them, rounded or not: never subnormal. When every update
/// (and every initial value) passes, atomicAdd gives the reference's steps bit for bit;
/// otherwise the kernels add with a CAS loop (device adds keep subnormals).
SCATTER_HD bool f32_native_add_exact(std::uint32_t bits) {
  return (bits & 0x7FFFFFFFu) == 0 || ((bits >> 23) & 0xFFu) >= 24;
}

// ---- 1-byte elements live in 32-bit words for the atomics ----

/// `word` with byte lane `shift` (0, 8, 16, 24) replaced by `next`.
SCATTER_HD std::uint32_t with_lane(std::uint32_t word, unsigned shift, std::uint8_t next) {
  return (word & ~(0xFFu << shift)) | (static_cast<std::uint32_t>(next) << shift);
}

/// The mask that atomicAnd applies for a bool AND (mul, min) of `value` into lane
/// `shift`: the other lanes keep their bits.
SCATTER_HD std::uint32_t and_mask(unsigned shift, std::uint8_t value) {
  return ~(0xFFu << shift) | (static_cast<std::uint32_t>(value) << shift);
}

}  // namespace scatter::cuda
