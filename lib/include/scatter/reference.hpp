#pragma once
/// The CPU reference's scatter, called directly: the oracle the judge compares with, the ref
/// backend's work, and the tests'.

#include <cstdint>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/tensor.hpp"

namespace scatter {

/// Runs the CPU reference directly (the oracle used by compare and tests).
Tensor reference_scatter(const Case& c);
/// The reference's scatter into `out`, which already holds a copy of data.
void reference_scatter_into(const Case& c, Tensor& out);
/// The same with the case's indices already normalized (CaseFacts::indices), so that a
/// large case's 8 bytes an index are not made again.
Tensor reference_scatter(const Case& c, const std::vector<std::int64_t>& normalized);

}  // namespace scatter
