#pragma once
// What the cpu backend's run (cpu_backend.cpp) prepares before its timed region, and the
// scatter it then times, compiled for each dtype in one of two files (scatter_typed.hpp):
// the backend's instantiations are the build's longest part, and two files keep both cores
// busy.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "buckets.hpp"
#include "platform/pool.hpp"
#include "runs.hpp"
#include "scatter/tensor.hpp"
#include "scatter_range.hpp"

namespace scatter::detail::cpu {

/// A laned histogram's copies per task (Prepared::lanes).
inline constexpr int kLanes = 4;

/// Everything a run needs that is allocated before its timed region.
struct Prepared {
  Geometry geometry;
  std::vector<std::int64_t> bounds;   // the tasks' ranges of the output
  std::vector<std::int64_t> columns;  // the tasks' columns (elements_columns); empty: ranges alone
  std::int64_t align = 1;             // elements the bounds and columns are rounded down to
  std::unique_ptr<std::uint32_t[]> counts32;  // mean, up to 2^32 - 1 runs
  std::unique_ptr<std::uint64_t[]> counts64;  // mean, beyond
  int tasks = 1;
  bool sorted = false;  // the counting-sort path (buckets.hpp)
  Buckets buckets;
  std::vector<std::uint8_t> last;  // ScatterUpdate `none`: the winning indices (runs.hpp)
  std::vector<std::int32_t> seen;
  std::unique_ptr<std::byte[]> parts;  // privatized: `lanes` copies of the output per task
  std::int64_t part_stride = 0;        // elements from one copy to the next
  int lanes = 1;                       // a histogram's copies per task (scatter_privatized)
};

/// The timed scatter of a case of element type T into out, every reduction and index type
/// (scatter_typed.hpp; instantiated in scatter_dtypes_1.cpp and scatter_dtypes_2.cpp).
template <class T>
void scatter_typed(const Case& c, Prepared& p, Tensor& out, bool in_place, Pool& pool, std::vector<Scratch>& scratch);

}  // namespace scatter::detail::cpu
