#pragma once
/// Explaining a case step by step, as the TensorRT cookbook does: which update goes
/// to which output element, what each step computes, and the output tensor.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "scatter/case.hpp"

namespace scatter {

struct ExplainOptions {
  std::int64_t limit = 100;        ///< update lines printed at most
  std::int64_t max_printed = 1000; ///< tensors with more elements are not printed
};

/// Prints one line per update (per slice for slice updates), e.g.
/// `indices[0,1] = [1,0,3,2] -> output[1,0,3,2] = f(58, updates[0,1] = -1) = -1`,
/// the final mean division per element for `mean`, then the output tensor.
void explain(const Case& c, std::ostream& out, const ExplainOptions& options = {});

/// A tensor as nested brackets ("[[1, 2], [3, 4]]").
std::string format_tensor(const Tensor& t);

}  // namespace scatter
