#pragma once
/// A case: what the case-format spec declares (CaseDecl) and, once its tensors are
/// materialized, what a backend runs (Case).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "scatter/error.hpp"
#include "scatter/tensor.hpp"
#include "scatter/vocabulary.hpp"

namespace scatter {

std::string_view to_string(Op op);
std::string_view to_string(Reduction reduction);
/// Canonical names and the spec's aliases; ops case-insensitively ("ScatterNDUpdate").
std::optional<Op> parse_op(std::string_view name);
std::optional<Reduction> parse_reduction(std::string_view name);
/// "none, add, ...": the reductions the spec allows on `op`, for messages.
std::string allowed_reductions(Op op);

/// A number as written in a case file: integers stay exact, never through double.
struct Scalar {
  enum class Kind { integer, real, boolean };
  Kind kind = Kind::integer;
  std::int64_t integer = 0;
  double real = 0.0;
  bool boolean = false;

  static Scalar of(std::int64_t v) { return {Kind::integer, v, 0.0, false}; }
  static Scalar of_real(double v) { return {Kind::real, 0, v, false}; }
  double as_double() const;
};

/// A `generate` object of the spec.
struct Generator {
  enum class Kind { arange, fill, uniform, randint, indices };
  Kind kind = Kind::fill;
  Scalar start = Scalar::of(0);
  Scalar step = Scalar::of(1);
  Scalar value = Scalar::of(0);
  Scalar low = Scalar::of(0);
  Scalar high = Scalar::of(1);
  std::uint64_t seed = 0;
  bool unique = false;
  double negative = 0.0;
  /// indices: how the targets are drawn (docs/case-format.md, "Generators"). uniform: each
  /// target equally likely; zipf: the r-th hottest target taken with weight r^-alpha (word and
  /// embedding-row frequencies, power-law graph in-degrees); balanced: every target hit the same
  /// number of times, give or take one (MoE combine: each token row exactly k times).
  enum class Distribution { uniform, zipf, balanced };
  Distribution distribution = Distribution::uniform;
  double alpha = 1.0;  ///< zipf's exponent
  /// scatter_elements: an index depends only on its coordinate along the axis, the same across
  /// the other dimensions (PyG's `index.view(-1, 1).expand(-1, F)`: whole rows aggregated).
  bool broadcast = false;
};

/// Where a tensor's elements come from: literal values (already parsed), a
/// generator, or a .npy file (path resolved against the case file).
using TensorSource = std::variant<std::shared_ptr<const Tensor>, Generator, std::string>;

struct TensorDecl {
  DType dtype = DType::float32;
  Shape shape;
  TensorSource source;
};

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

/// The op's attributes, axis already normalized to [0, r).
struct Attributes {
  Op op = Op::scatter_elements;
  std::int64_t axis = 0;
  Reduction reduction = Reduction::none;
  bool use_init_val = true;
  WriteMode mode = WriteMode::linear;  ///< tensor_scatter only
};

/// A case whose fields, dtypes and shapes passed validation; tensors not yet built.
struct CaseDecl {
  std::string file;
  std::string name;
  std::string description;
  std::string source;
  std::vector<std::string> tags;
  Attributes attrs;
  TensorDecl data;
  TensorDecl indices;
  TensorDecl updates;
  std::optional<TensorDecl> expected;
  std::optional<Tolerance> tolerance;
};

/// A runnable case: tensors materialized and every index checked.
struct Case {
  std::string file;
  std::string name;
  Attributes attrs;
  Tensor data;
  Tensor indices;
  Tensor updates;
  std::optional<Tensor> expected;
  std::optional<Tolerance> tolerance;
};

}  // namespace scatter
