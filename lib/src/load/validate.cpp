// The spec's rules on a declared case (reductions, dtypes, axis, shapes, where a
// tolerance can apply), and on a materialized one (every index in range; then, where
// updates land: `expected` at `none` duplicates, a tolerance with no element hit twice).
// Checking lives here; computing elsewhere.

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/targets.hpp"
#include "detail.hpp"

namespace scatter {
namespace detail {
namespace {

Shape slice(const Shape& s, std::size_t begin, std::size_t end) {
  return Shape(s.begin() + static_cast<std::ptrdiff_t>(begin), s.begin() + static_cast<std::ptrdiff_t>(end));
}

Shape concat(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void check_dtypes(const CaseDecl& d) {
  const auto& a = d.attrs;
  if (!op_allows(a.op, a.reduction)) {
    throw Error(ErrorCode::op, "reduction",
                fmt::format("'{}' is not allowed for {} (allowed: {})", to_string(a.reduction), to_string(a.op),
                            allowed_reductions(a.op)));
  }
  if (d.indices.dtype != DType::int32 && d.indices.dtype != DType::int64) {
    throw Error(ErrorCode::dtype, "inputs.indices.dtype",
                fmt::format("= {}; indices must be int32 or int64", to_string(d.indices.dtype)));
  }
  if (d.updates.dtype != d.data.dtype) {
    throw Error(ErrorCode::dtype, "inputs.updates.dtype",
                fmt::format("= {} differs from inputs.data.dtype = {}", to_string(d.updates.dtype),
                            to_string(d.data.dtype)));
  }
  if (d.expected && d.expected->dtype != d.data.dtype) {
    throw Error(ErrorCode::dtype, "expected.dtype",
                fmt::format("= {} differs from inputs.data.dtype = {}", to_string(d.expected->dtype),
                            to_string(d.data.dtype)));
  }
  if (d.data.dtype == DType::boolean && !info_of(a.reduction).on_bool) {
    throw Error(ErrorCode::dtype, "reduction", fmt::format("'{}' is not defined for bool data", to_string(a.reduction)));
  }
}

void check_elements_shapes(const CaseDecl& d) {
  const auto& data = d.data.shape;
  const auto& ind = d.indices.shape;
  if (ind.size() != data.size()) {
    throw Error(ErrorCode::shape, "inputs.indices.shape",
                fmt::format("= {} has rank {}, but scatter_elements needs rank(data) = {} (data.shape {})",
                            format_shape(ind), ind.size(), data.size(), format_shape(data)));
  }
  if (d.updates.shape != ind) {
    throw Error(ErrorCode::shape, "inputs.updates.shape",
                fmt::format("= {} differs from inputs.indices.shape = {}", format_shape(d.updates.shape),
                            format_shape(ind)));
  }
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (static_cast<std::int64_t>(i) != d.attrs.axis && ind[i] > data[i]) {
      throw Error(ErrorCode::shape, fmt::format("inputs.indices.shape[{}]", i),
                  fmt::format("= {} exceeds data.shape[{}] = {} (only the axis dimension, {}, may exceed data)",
                              ind[i], i, data[i], d.attrs.axis));
    }
  }
}

void check_nd_shapes(const CaseDecl& d) {
  const auto& data = d.data.shape;
  const auto& ind = d.indices.shape;
  if (ind.empty()) {
    throw Error(ErrorCode::shape, "inputs.indices.shape", "= [] but scatter_nd needs indices of rank >= 1");
  }
  const auto k = ind.back();
  if (k > static_cast<std::int64_t>(data.size())) {
    throw Error(ErrorCode::shape, fmt::format("inputs.indices.shape[{}]", ind.size() - 1),
                fmt::format("= {} (the tuple length k) exceeds rank(data) = {}", k, data.size()));
  }
  const auto want = concat(slice(ind, 0, ind.size() - 1), slice(data, static_cast<std::size_t>(k), data.size()));
  if (d.updates.shape != want) {
    throw Error(ErrorCode::shape, "inputs.updates.shape",
                fmt::format("= {} but scatter_nd needs indices.shape[:-1] + data.shape[{}:] = {} (k = {})",
                            format_shape(d.updates.shape), k, format_shape(want), k));
  }
}

void check_update_shapes(const CaseDecl& d) {
  const auto& data = d.data.shape;
  const auto axis = static_cast<std::size_t>(d.attrs.axis);
  const auto want = concat(concat(slice(data, 0, axis), d.indices.shape), slice(data, axis + 1, data.size()));
  if (d.updates.shape != want) {
    throw Error(ErrorCode::shape, "inputs.updates.shape",
                fmt::format("= {} but scatter_update needs data.shape[:{}] + indices.shape + data.shape[{}:] = {}",
                            format_shape(d.updates.shape), axis, axis + 1, format_shape(want)));
  }
}

// ONNX TensorScatter: updates is data with a shorter (or equal) axis, the sequence; one write
// position per batch row (data.shape[0]), and the batch axis is never the sequence axis.
void check_tensor_scatter_shapes(const CaseDecl& d) {
  const auto& data = d.data.shape;
  const auto& upd = d.updates.shape;
  const auto axis = static_cast<std::size_t>(d.attrs.axis);
  if (axis == 0) {
    throw Error(ErrorCode::axis, "axis",
                fmt::format("= 0 (after normalization) is the batch axis; tensor_scatter's sequence axis is in [1, {}]",
                            data.size() - 1));
  }
  bool fits = upd.size() == data.size();
  for (std::size_t i = 0; fits && i < data.size(); ++i) fits = i == axis ? upd[i] <= data[i] : upd[i] == data[i];
  if (!fits) {
    throw Error(ErrorCode::shape, "inputs.updates.shape",
                fmt::format("= {} but tensor_scatter needs data.shape = {} with data.shape[{}] replaced by a sequence "
                            "length of at most {}",
                            format_shape(upd), format_shape(data), axis, data[axis]));
  }
  if (d.indices.shape != Shape{data[0]}) {
    throw Error(ErrorCode::shape, "inputs.indices.shape",
                fmt::format("= {} but tensor_scatter's write indices are one per batch row: [data.shape[0]] = [{}]",
                            format_shape(d.indices.shape), data[0]));
  }
}

// Why a `tolerance` can never apply to the case, from its declaration alone; empty if it
// may (float add, sub, mul, mean; whether an element is hit twice is checked later).
std::string tolerance_never_applies(const CaseDecl& d) {
  const auto red = d.attrs.reduction;
  if (!is_float(d.data.dtype)) {
    return fmt::format("{} outputs are compared exactly, bit for bit", to_string(d.data.dtype));
  }
  if (!is_order_dependent(red, d.data.dtype)) {
    return fmt::format("float outputs of reduction '{}' are compared exactly, bit for bit",
                       to_string(red));
  }
  return {};
}

constexpr const char* kToleranceRule =
    "; a tolerance applies only to float add, sub, mul and mean, on elements that two or more updates hit";

// Equal under the comparison's exact rule: same bits, or both NaN.
bool exact_equal(const Tensor& a, std::int64_t i, const Tensor& b, std::int64_t j) {
  const auto size = size_of(a.dtype());
  if (std::memcmp(a.bytes() + i * size, b.bytes() + j * size, size) == 0) return true;
  return is_float(a.dtype()) && std::isnan(element_as_double(a, i)) && std::isnan(element_as_double(b, j));
}

// Per output element: how many updates hit it (saturating at 2), and, with kMatched,
// whether one of them equals `expected` there (only when `expected` is given).
constexpr std::uint8_t kHitCount = 3;
constexpr std::uint8_t kMatched = 4;

std::vector<std::uint8_t> hit_marks(const Case& c, const std::vector<std::int64_t>& idx, const Tensor* expected) {
  std::vector<std::uint8_t> marks(static_cast<std::size_t>(c.data.numel()), 0);
  visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
    for (std::int64_t j = 0; j < len; ++j) {
      auto& m = marks[static_cast<std::size_t>(o + j)];
      if ((m & kHitCount) < 2) ++m;
      if (expected && !(m & kMatched) && exact_equal(c.updates, u + j, *expected, o + j)) m |= kMatched;
    }
  });
  return marks;
}

// `none` with duplicate targets: the comparison accepts any one of an element's updates,
// so an expected value that is none of them cannot be right under any update order.
// Elements hit once are left to the comparison (exact there).
void check_none_expected(const Case& c, const std::vector<std::uint8_t>& marks, const std::vector<std::int64_t>& idx) {
  for (std::size_t i = 0; i < marks.size(); ++i) {
    if ((marks[i] & kHitCount) < 2 || (marks[i] & kMatched)) continue;
    const auto offset = static_cast<std::int64_t>(i);
    constexpr std::size_t kMaxListed = 8;
    std::vector<std::string> candidates;
    std::int64_t count = 0;
    visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
      if (offset < o || offset >= o + len) return;
      ++count;
      if (candidates.size() < kMaxListed) candidates.push_back(format_element(c.updates, u + (offset - o)));
    });
    if (count > static_cast<std::int64_t>(candidates.size())) {
      candidates.push_back(fmt::format("and {} more", count - static_cast<std::int64_t>(candidates.size())));
    }
    throw Error(ErrorCode::values, "expected" + format_coord(unravel(offset, c.data.shape())),
                fmt::format("= {} is none of the values of the {} updates that target it ({}); with reduction "
                            "'none' a duplicate target holds one of them",
                            format_element(*c.expected, offset), count, fmt::join(candidates, ", ")));
  }
}

// Checks that need the indices in range: expected values under `none` with duplicate
// targets, and a `tolerance` on a case where no element is hit twice.
void check_targets(const Case& c) {
  const bool none_expected = c.attrs.reduction == Reduction::none && c.expected.has_value();
  const bool tolerance = c.tolerance.has_value();
  if ((!none_expected && !tolerance) || c.updates.numel() == 0) {
    if (tolerance) throw Error(ErrorCode::schema, "tolerance", std::string("no update targets any element") + kToleranceRule);
    return;
  }
  const auto idx = normalized_indices(c);
  const auto marks = hit_marks(c, idx, none_expected ? &*c.expected : nullptr);
  if (none_expected) check_none_expected(c, marks, idx);
  if (tolerance) {
    for (const auto m : marks) {
      if ((m & kHitCount) >= 2) return;
    }
    throw Error(ErrorCode::schema, "tolerance",
                std::string("no output element is hit by two or more updates, so every element is "
                            "compared exactly") +
                    kToleranceRule);
  }
}

}  // namespace

void validate_decl(CaseDecl& d, bool axis_given) {
  check_dtypes(d);
  const auto r = static_cast<std::int64_t>(d.data.shape.size());
  if (r == 0) {
    throw Error(ErrorCode::shape, "inputs.data.shape", fmt::format("= [] but {} needs data of rank >= 1", to_string(d.attrs.op)));
  }
  if (d.attrs.op == Op::tensor_scatter && r < 2) {
    throw Error(ErrorCode::shape, "inputs.data.shape",
                fmt::format("= {} but tensor_scatter needs data of rank >= 2 (batch, ..., sequence, ...)",
                            format_shape(d.data.shape)));
  }
  if (d.attrs.op != Op::scatter_nd) {
    const auto axis = d.attrs.axis;
    if (axis < -r || axis >= r) {
      throw Error(ErrorCode::axis, "axis",
                  fmt::format("= {} is out of range [{}, {}] for rank(data) = {}", axis, -r, r - 1, r));
    }
    if (axis < 0) d.attrs.axis = axis + r;
  } else if (axis_given) {
    throw Error(ErrorCode::schema, "axis", "does not apply to scatter_nd (its tuples index the leading dimensions)");
  }
  switch (d.attrs.op) {
    case Op::scatter_elements: check_elements_shapes(d); break;
    case Op::scatter_nd: check_nd_shapes(d); break;
    case Op::scatter_update: check_update_shapes(d); break;
    case Op::tensor_scatter: check_tensor_scatter_shapes(d); break;
  }
  if (d.expected && d.expected->shape != d.data.shape) {
    throw Error(ErrorCode::shape, "expected.shape",
                fmt::format("= {} differs from inputs.data.shape = {}", format_shape(d.expected->shape),
                            format_shape(d.data.shape)));
  }
  if (d.tolerance) {
    if (const auto why = tolerance_never_applies(d); !why.empty()) {
      throw Error(ErrorCode::schema, "tolerance", why + kToleranceRule);
    }
  }
}

// A write position is never negative (ONNX leaves it unsaid; onnxruntime refuses one, and the
// ONNX reference's Python indexing would wrap it); linear, the whole sequence must fit.
void check_write_positions(const Case& c) {
  const auto axis = static_cast<std::size_t>(c.attrs.axis);
  const auto extent = c.data.shape()[axis];
  const auto length = c.updates.shape()[axis];
  const bool linear = c.attrs.mode == WriteMode::linear;
  const auto last = last_write_position(c);
  for (std::int64_t b = 0; b < c.indices.numel(); ++b) {
    const auto v = index_at(c.indices, b);
    const auto field = fmt::format("inputs.indices[{}]", b);
    if (v < 0) {
      throw Error(ErrorCode::index, field,
                  linear ? fmt::format("= {} is negative; a linear write position is in [0, {}]", v, last)
                         : fmt::format("= {} is negative; a circular write position is >= 0 (taken modulo {})", v, extent));
    }
    if (v > last) {
      throw Error(ErrorCode::index, field,
                  fmt::format("= {}: positions {}..{} pass the end of data.shape[{}] = {} (mode linear; circular wraps)",
                              v, v, v + length - 1, axis, extent));
    }
  }
}

void check_indices(const Case& c) {
  if (c.attrs.op == Op::tensor_scatter) return check_write_positions(c);
  const auto& ind = c.indices;
  const auto& data = c.data.shape();
  const auto n = ind.numel();
  const auto k = ind.rank() == 0 ? 1 : ind.shape().back();
  for (std::int64_t i = 0; i < n; ++i) {
    const auto v = index_at(ind, i);
    const auto dim = c.attrs.op == Op::scatter_nd ? i % k : c.attrs.axis;
    const auto s = data[static_cast<std::size_t>(dim)];
    const auto lo = c.attrs.op == Op::scatter_update ? 0 : -s;
    if (v >= lo && v < s) continue;
    const auto field = ind.rank() == 0 ? std::string("inputs.indices") : "inputs.indices" + format_coord(unravel(i, ind.shape()));
    if (c.attrs.op == Op::scatter_update && v < 0 && v >= -s) {
      throw Error(ErrorCode::index, field,
                  fmt::format("= {} is negative; scatter_update takes indices in [0, {}] for data.shape[{}] = {}", v,
                              s - 1, dim, s));
    }
    throw Error(ErrorCode::index, field,
                fmt::format("= {} is out of range [{}, {}] for data.shape[{}] = {}", v, lo, s - 1, dim, s));
  }
}

}  // namespace detail

// Saturating: a sum that would wrap is "more than any memory" (UINT64_MAX).
std::uint64_t case_bytes(const CaseDecl& d) {
  std::uint64_t total = 0;
  auto add = [&](const TensorDecl& t, std::uint64_t copies) {
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<std::uint64_t>(numel(t.shape)), size_of(t.dtype) * copies, &bytes) ||
        __builtin_add_overflow(total, bytes, &total)) {
      total = UINT64_MAX;
    }
  };
  add(d.data, 3);  // data, the output, a reference output
  add(d.indices, 1);
  add(d.updates, 1);
  if (d.expected) add(*d.expected, 1);
  if (const auto* gen = std::get_if<Generator>(&d.indices.source)) {
    if (__builtin_add_overflow(total, detail::indices_scratch_bytes(*gen, numel(d.indices.shape)), &total)) {
      total = UINT64_MAX;
    }
  }
  return total;
}

Tensor materialize_tensor(const TensorDecl& t, const std::string& field, const CaseDecl& decl) {
  try {
    if (const auto* values = std::get_if<std::shared_ptr<const Tensor>>(&t.source)) return (*values)->clone();
    if (const auto* gen = std::get_if<Generator>(&t.source)) {
      return detail::run_generator(*gen, t.dtype, t.shape, decl, "generate");
    }
    return detail::read_npy(std::get<std::string>(t.source), t.dtype, t.shape);
  } catch (Error& e) {
    e.within(field);
    throw;
  }
}

namespace {

// materialize() and materialize_unchecked() differ only in the last step.
Case build_case(const CaseDecl& decl, bool check_index_values) {
  try {
    Case c;
    c.file = decl.file;
    c.name = decl.name;
    c.attrs = decl.attrs;
    c.tolerance = decl.tolerance;
    c.data = materialize_tensor(decl.data, "inputs.data", decl);
    c.indices = materialize_tensor(decl.indices, "inputs.indices", decl);
    c.updates = materialize_tensor(decl.updates, "inputs.updates", decl);
    if (decl.expected) c.expected = materialize_tensor(*decl.expected, "expected", decl);
    if (check_index_values) {
      detail::check_indices(c);
      detail::check_targets(c);
    }
    return c;
  } catch (Error& e) {
    e.at(decl.file, decl.name);
    throw;
  }
}

}  // namespace

Case materialize(const CaseDecl& decl) { return build_case(decl, true); }

Case materialize_unchecked(const CaseDecl& decl) { return build_case(decl, false); }

}  // namespace scatter
