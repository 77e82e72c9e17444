#pragma once
/// Shapes and tensors: row-major, owning, move-only buffers with overflow-checked sizes.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "scatter/dtype.hpp"

namespace scatter {

using Shape = std::vector<std::int64_t>;

/// Largest rank a case may use (deeper nesting is refused with a `shape` error).
inline constexpr std::size_t kMaxRank = 64;

/// "[2, 3, 4]".
std::string format_shape(const Shape& shape);
/// "[1,0,3]": a coordinate, as used in field names like "indices[1,0]".
std::string format_coord(std::span<const std::int64_t> coord);

/// Element count, or -1 when the product of the dimensions overflows int64. A zero dimension
/// makes the count 0, but the product of the others must still fit: strides and the counts
/// of sub-shapes are made of them.
std::int64_t checked_numel(const Shape& shape);
/// Element count of a shape already known not to overflow.
std::int64_t numel(const Shape& shape);
/// Row-major strides in elements (meaningful when numel(shape) > 0).
std::vector<std::int64_t> strides_of(const Shape& shape);
/// The row-major coordinate of a flat offset.
std::vector<std::int64_t> unravel(std::int64_t offset, const Shape& shape);

namespace detail {
/// Frees what a tensor allocated, and nothing of a view.
struct TensorRelease {
  bool owned = true;
  void operator()(std::byte* p) const {
    if (owned) delete[] p;
  }
};
}  // namespace detail

/// A dense row-major tensor owning its bytes, or a view of bytes someone else owns (the box's
/// shared memory, view()). Move-only; copy with clone(), which always owns.
class Tensor {
 public:
  Tensor() = default;
  /// Allocates uninitialized storage; the caller has checked the size.
  Tensor(DType dtype, Shape shape);
  /// A tensor over `bytes`, which must hold its elements and outlive it; never freed by it.
  static Tensor view(DType dtype, Shape shape, std::byte* bytes);

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  std::int64_t rank() const { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t numel() const { return numel_; }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * size_of(dtype_); }

  std::byte* bytes() { return data_.get(); }
  const std::byte* bytes() const { return data_.get(); }

  template <class T>
  T* data() {
    return reinterpret_cast<T*>(data_.get());
  }
  template <class T>
  const T* data() const {
    return reinterpret_cast<const T*>(data_.get());
  }

  Tensor clone() const;

 private:
  DType dtype_ = DType::float32;
  Shape shape_;
  std::int64_t numel_ = 0;
  std::unique_ptr<std::byte[], detail::TensorRelease> data_;
};

/// FNV-1a over the tensor's bytes, 8 at a time in four chains, and over 64 MiB slices on every
/// core: every step is a bijection of the state, so a change to any single word always changes
/// the result (a check that inputs stayed put). Its values are compared within a process only.
std::uint64_t fingerprint(const Tensor& tensor);

/// Reads any integer tensor's element as int64 (indices are int32 or int64).
std::int64_t index_at(const Tensor& indices, std::int64_t offset);

/// The element as text in the tensor's dtype ("nan", "-0", "3.5", "true", "-7").
std::string format_element(const Tensor& tensor, std::int64_t offset);
/// The element widened to double (NaN and infinities kept).
double element_as_double(const Tensor& tensor, std::int64_t offset);

}  // namespace scatter
