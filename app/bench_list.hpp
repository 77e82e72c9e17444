#pragma once
// `scatterctl bench --list`: the benchmarks a bench would run, as a table or as JSON;
// nothing is run.

#include <string>
#include <vector>

#include "scatter/bench.hpp"

namespace scatter::cli {

/// What the list is of: the built-in suite's mode and size, or "cases".
struct BenchListContext {
  std::string mode;
  std::string size;
};

/// Prints `items` on stdout, or with `json_path` writes them as JSON there ("-": stdout).
/// Returns 0, or 4 when `items` is empty.
int list_bench(const std::vector<BenchItem>& items, const BenchListContext& context, const std::string& json_path);

}  // namespace scatter::cli
