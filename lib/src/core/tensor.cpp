#include "scatter/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "dispatch.hpp"
#include "on_cores.hpp"
#include "scatter/error.hpp"

namespace scatter {

std::string format_shape(const Shape& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

std::string format_coord(std::span<const std::int64_t> coord) { return fmt::format("[{}]", fmt::join(coord, ",")); }

std::int64_t checked_numel(const Shape& shape) {
  // The product of the other dimensions must fit even beside a zero: the strides and the
  // element counts of sub-shapes (a ScatterND slice, an index prefix) are those products.
  std::int64_t n = 1;
  bool empty = false;
  for (auto d : shape) {
    if (d < 0) return -1;
    if (d == 0) empty = true;
    else if (__builtin_mul_overflow(n, d, &n)) return -1;
  }
  return empty ? 0 : n;
}

std::int64_t numel(const Shape& shape) {
  const auto n = checked_numel(shape);
  SCATTER_ASSERT(n >= 0);
  return n;
}

std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  // Unsigned arithmetic: an empty tensor's strides may be meaningless but never UB.
  std::uint64_t s = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    strides[i] = static_cast<std::int64_t>(s);
    s *= static_cast<std::uint64_t>(shape[i]);
  }
  return strides;
}

std::vector<std::int64_t> unravel(std::int64_t offset, const Shape& shape) {
  std::vector<std::int64_t> coord(shape.size(), 0);
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0) continue;
    coord[i] = offset % shape[i];
    offset /= shape[i];
  }
  return coord;
}

Tensor::Tensor(DType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)), numel_(scatter::numel(shape_)) {
  // One spare byte keeps bytes() non-null for empty tensors.
  data_.reset(new std::byte[nbytes() + 1]);
}

Tensor Tensor::view(DType dtype, Shape shape, std::byte* bytes) {
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.numel_ = scatter::numel(t.shape_);
  t.data_ = std::unique_ptr<std::byte[], detail::TensorRelease>(bytes, detail::TensorRelease{false});
  return t;
}

Tensor Tensor::clone() const {
  Tensor copy(dtype_, shape_);
  if (nbytes() > 0) std::memcpy(copy.bytes(), bytes(), nbytes());
  return copy;
}

std::int64_t index_at(const Tensor& indices, std::int64_t offset) {
  if (indices.dtype() == DType::int32) return indices.data<std::int32_t>()[offset];
  SCATTER_ASSERT(indices.dtype() == DType::int64);
  return indices.data<std::int64_t>()[offset];
}

double element_as_double(const Tensor& t, std::int64_t i) {
  return detail::dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return detail::widen(t.data<T>()[i]);
  });
}

namespace {

// Shortest text that reads back to the same value in its type (digits = 0), or
// enough significant digits for the 16-bit types.
template <class T>
std::string format_float(T v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  if (digits == 0) return fmt::format("{}", v);
  return fmt::format("{:.{}g}", v, digits);
}

}  // namespace

std::string format_element(const Tensor& t, std::int64_t i) {
  switch (t.dtype()) {
    case DType::float64:
      return format_float(t.data<double>()[i], 0);
    case DType::float32:
      return format_float(t.data<float>()[i], 0);
    case DType::float16:
      return format_float(to_double(t.data<Float16>()[i]), 5);
    case DType::bfloat16:
      return format_float(to_double(t.data<BFloat16>()[i]), 4);
    case DType::int64:
      return fmt::format("{}", t.data<std::int64_t>()[i]);
    case DType::boolean:
      return t.data<std::uint8_t>()[i] ? "true" : "false";
    default:
      return fmt::format("{}", static_cast<std::int64_t>(element_as_double(t, i)));
  }
}

namespace {

constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;
constexpr std::uint64_t fnv_step(std::uint64_t h, std::uint64_t word) { return (h ^ word) * kFnvPrime; }

// FNV-1a over 8-byte words, in four interleaved chains: one chain waits on a multiply per word
// (some 2.5 GB/s), four keep the core busy. A changed word changes its chain's value, since each
// step is a bijection of the chain's value for a given word and of the word for a given value.
std::uint64_t fingerprint_bytes(const std::byte* p, std::size_t n) {
  std::uint64_t lane[4] = {kFnvOffset, kFnvOffset ^ 1, kFnvOffset ^ 2, kFnvOffset ^ 3};
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    for (int j = 0; j < 4; ++j) {
      std::uint64_t word;
      std::memcpy(&word, p + i + 8 * j, 8);
      lane[j] = fnv_step(lane[j], word);
    }
  }
  std::uint64_t h = kFnvOffset;
  for (const auto v : lane) h = fnv_step(h, v);
  for (; i < n; ++i) h = fnv_step(h, static_cast<std::uint8_t>(p[i]));
  return fnv_step(h, n);
}

}  // namespace

// Slices of 64 MiB hashed on every core, their values folded in order: bench fingerprints a
// large case's inputs (GBs) before and after its timed calls.
std::uint64_t fingerprint(const Tensor& tensor) {
  constexpr std::size_t kSlice = std::size_t{64} << 20;
  const std::size_t n = tensor.nbytes();
  const std::byte* p = tensor.bytes();
  const std::size_t slices = (n + kSlice - 1) / kSlice;
  if (slices <= 1) return fingerprint_bytes(p, n);
  std::vector<std::uint64_t> value(slices);
  detail::for_each_part_on_cores(slices, [&](std::size_t s) {
    value[s] = fingerprint_bytes(p + s * kSlice, std::min(kSlice, n - s * kSlice));
  });
  std::uint64_t h = kFnvOffset;
  for (const auto v : value) h = fnv_step(h, v);
  return h;
}

}  // namespace scatter
