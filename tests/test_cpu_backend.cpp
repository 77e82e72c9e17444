// The cpu backend against the reference: the same bytes, for every bundled case and
// thousands of fuzzed ones, on 1 to 7 threads split at any element (grain 1), in place
// and out of place; and its pool: a failing task, a cancelled run.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "../lib/src/platform/pool.hpp"
#include "scatter/backend.hpp"
#include "scatter/cancel.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

using scatter::Case;

bool same_bytes(const scatter::Tensor& a, const scatter::Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && std::memcmp(a.bytes(), b.bytes(), a.nbytes()) == 0;
}

// The first differing element, for the failure message.
std::string first_difference(const scatter::Tensor& got, const scatter::Tensor& want) {
  for (std::int64_t i = 0; i < want.numel(); ++i) {
    const auto e = scatter::size_of(want.dtype());
    if (std::memcmp(got.bytes() + i * e, want.bytes() + i * e, e) != 0) {
      return "element " + std::to_string(i) + ": got " + scatter::format_element(got, i) + ", want " +
             scatter::format_element(want, i);
    }
  }
  return "shape or dtype";
}

// Runs c on cpu backends of 1, 2, 3 and 7 threads split at every element, both ways, on
// each path: grain 1 sorts every element run that can land anywhere (buckets.hpp, blocks
// of 4 elements, chunks of 7 runs), grain 2 filters them by range (scatter_range.hpp).
void expect_reference_bytes(const Case& c, const std::string& what) {
  const auto want = scatter::reference_scatter(c);
  for (const int threads : {1, 2, 3, 7}) {
    for (const std::int64_t grain : {1, 2}) {
    auto cpu = scatter::make_cpu_backend(threads, grain);
    for (const bool in_place : {false, true}) {
      scatter::RunFlags flags;
      flags.in_place = in_place;
      const auto got = cpu->run(c, flags).output;
      EXPECT_TRUE(same_bytes(got, want)) << what << ", " << threads << " threads, grain " << grain
                                         << (in_place ? ", in place" : "") << ": " << first_difference(got, want);
    }
    }
  }
}

TEST(CpuBackend, EveryBundledCaseGivesTheReferencesBytes) {
  const auto cases = scatter::testing::bundled_cases();
  for (const auto& bundled : cases) expect_reference_bytes(bundled.c, bundled.what);
  EXPECT_GT(cases.size(), 250u);  // the bundled suite, not an empty directory
}

TEST(CpuBackend, FuzzedCasesGiveTheReferencesBytes) {
  int by_op[std::size(scatter::kOps)] = {};
  scatter::testing::for_each_fuzzed_case(23, 1500, 4096, [&](const std::string& text, const Case& c) {
    ++by_op[static_cast<int>(c.attrs.op)];
    expect_reference_bytes(c, text);
  });
  if (HasFailure()) return;
  for (int n : by_op) EXPECT_GT(n, 300);
}

// A case of `n` float32 elements, each updated once (index i -> i), reduction add.
Case big_add_case(std::int64_t n) {
  Case c;
  c.name = "big";
  c.attrs = {scatter::Op::scatter_elements, 0, scatter::Reduction::add, true};
  c.data = scatter::Tensor(scatter::DType::float32, {n});
  c.indices = scatter::Tensor(scatter::DType::int64, {n});
  c.updates = scatter::Tensor(scatter::DType::float32, {n});
  for (std::int64_t i = 0; i < n; ++i) {
    c.data.data<float>()[i] = 1.0f;
    c.indices.data<std::int64_t>()[i] = n - 1 - i;
    c.updates.data<float>()[i] = static_cast<float>(i);
  }
  return c;
}

TEST(CpuBackend, SplitsALargeCaseOverItsThreadsAndStaysExact) {
  const auto c = big_add_case(1 << 20);
  auto cpu = scatter::make_cpu_backend(2);  // the default grain
  const auto got = cpu->run(c, {}).output;
  for (std::int64_t o = 0; o < c.data.numel(); o += 4099) {
    ASSERT_EQ(got.data<float>()[o], 1.0f + static_cast<float>(c.data.numel() - 1 - o)) << o;
  }
  EXPECT_NE(cpu->device().find("(2 threads)"), std::string::npos) << cpu->device();
}

// Contention on a small output at the default grain (the tests above use grains 1 and 2):
// one thread over the whole output, every update through the batch loop, which holds a run
// of one target in a register (scatter_range.hpp). Values of mixed magnitude, so that any
// change in the order of one element's updates changes its float sum.
void put(scatter::Tensor& t, std::int64_t i, double v) {
  switch (t.dtype()) {
    case scatter::DType::float32: t.data<float>()[i] = static_cast<float>(v); break;
    case scatter::DType::float16: t.data<scatter::Float16>()[i] = scatter::to_float16(v); break;
    case scatter::DType::int32: t.data<std::int32_t>()[i] = static_cast<std::int32_t>(v); break;
    default: FAIL() << "no values for " << scatter::to_string(t.dtype());
  }
}

Case contention_case(scatter::DType dtype, scatter::Reduction r, std::int64_t numel, std::int64_t bins,
                     std::int64_t updates) {
  Case c;
  c.name = "contention";
  c.attrs = {scatter::Op::scatter_elements, 0, r, true};
  c.data = scatter::Tensor(dtype, {numel});
  c.indices = scatter::Tensor(scatter::DType::int64, {updates});
  c.updates = scatter::Tensor(dtype, {updates});
  const bool integer = dtype == scatter::DType::int32;
  for (std::int64_t i = 0; i < numel; ++i) put(c.data, i, (integer ? 0.0 : 0.5) + static_cast<double>(i % 7));
  std::uint64_t x = 88172645463325252ull;
  for (std::int64_t i = 0; i < updates; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c.indices.data<std::int64_t>()[i] = static_cast<std::int64_t>(x % static_cast<std::uint64_t>(bins)) - (i % 5 == 0 ? numel : 0);
    const double big = dtype == scatter::DType::float16 ? 1.0e2 : 1.0e7;  // float16 sums stay finite
    const double magnitude = integer ? 1.0 : i % 3 == 0 ? big : i % 3 == 1 ? -big : 1.0;
    put(c.updates, i, integer ? static_cast<double>(x % 2001) - 1000.0 : magnitude * (1.0 + static_cast<double>(x % 1000) / 997.0));
  }
  return c;
}

// "float32, add" (", use_init_val false").
std::string describe(const Case& c) {
  return std::string(scatter::to_string(c.data.dtype())) + ", " + std::string(scatter::to_string(c.attrs.reduction)) +
         (c.attrs.use_init_val ? "" : ", use_init_val false");
}

// c on cpu backends of 2 and 3 threads at the default grain, both ways: the reference's bytes.
void expect_reference_bytes_at_default_grain(const Case& c, const std::string& what) {
  const auto want = scatter::reference_scatter(c);
  for (const int threads : {2, 3}) {
    auto cpu = scatter::make_cpu_backend(threads);
    for (const bool in_place : {false, true}) {
      scatter::RunFlags flags;
      flags.in_place = in_place;
      const auto got = cpu->run(c, flags).output;
      EXPECT_TRUE(same_bytes(got, want)) << what << ", " << threads << " threads" << (in_place ? ", in place" : "")
                                         << ": " << first_difference(got, want);
    }
  }
}

TEST(CpuBackend, ContentionOnASmallOutputKeepsTheReferencesOrder) {
  using scatter::DType;
  using scatter::Reduction;
  struct Shape {
    std::int64_t numel, bins;
  } shapes[] = {{100, 100}, {4096, 4096}, {1, 1}, {4096, 300}};
  for (const auto& shape : shapes) {
    // int32 add, mul, min and max, and float min and max, take the privatized path (a copy of the
    // output per thread, folded in thread order); the float add and mean keep one thread.
    for (const auto dtype : {DType::float32, DType::float16, DType::int32}) {
      for (const auto r : {Reduction::add, Reduction::mean, Reduction::max, Reduction::min, Reduction::mul,
                           Reduction::none}) {
        const auto c = contention_case(dtype, r, shape.numel, shape.bins, 200000);
        expect_reference_bytes_at_default_grain(c, std::to_string(shape.numel) + " elements, " +
                                                       std::to_string(shape.bins) + " bins, " + describe(c));
      }
    }
  }
}

// ScatterElements with the axis before the last dimension (GNN aggregation): at the default
// grain the tasks split the columns (runs.hpp, elements_columns) unless they privatize. Rows
// that land anywhere along the axis, negative indices among them, values of mixed magnitude
// so that any change in the order of one element's updates changes a float sum; with and
// without use_init_val, since then each task starts its own columns' targets.
TEST(CpuBackend, ScatterElementsSplitByColumnKeepsTheReferencesOrder) {
  using scatter::DType;
  using scatter::Reduction;
  struct Layout {
    scatter::Shape data, indices;
    std::int64_t axis;
  } layouts[] = {{{512, 48}, {1500, 48}, 0}, {{6, 40, 64}, {30, 40, 64}, 0}, {{6, 40, 64}, {6, 200, 60}, 1}};
  for (const auto& layout : layouts) {
    for (const auto dtype : {DType::float32, DType::float16, DType::int32}) {
      for (const auto r : {Reduction::add, Reduction::mean, Reduction::max, Reduction::mul, Reduction::none}) {
        for (const bool use_init_val : {true, false}) {
          Case c;
          c.name = "columns";
          c.attrs = {scatter::Op::scatter_elements, layout.axis, r, use_init_val};
          c.data = scatter::Tensor(dtype, layout.data);
          c.indices = scatter::Tensor(DType::int64, layout.indices);
          c.updates = scatter::Tensor(dtype, layout.indices);
          const auto extent = layout.data[static_cast<std::size_t>(layout.axis)];
          for (std::int64_t i = 0; i < c.data.numel(); ++i) put(c.data, i, 0.5 + static_cast<double>(i % 7));
          std::uint64_t x = 88172645463325252ull;
          for (std::int64_t i = 0; i < c.indices.numel(); ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const auto at = static_cast<std::int64_t>(x % static_cast<std::uint64_t>(extent));
            c.indices.data<std::int64_t>()[i] = i % 5 == 0 ? at - extent : at;
            const double big = dtype == DType::float16 ? 1.0e2 : 1.0e7;
            const double magnitude = i % 3 == 0 ? big : i % 3 == 1 ? -big : 1.0;
            put(c.updates, i, dtype == DType::int32 ? static_cast<double>(x % 7) - 3.0
                                                    : magnitude * (1.0 + static_cast<double>(x % 1000) / 997.0));
          }
          expect_reference_bytes_at_default_grain(c, scatter::format_shape(layout.data) + " axis " +
                                                         std::to_string(layout.axis) + ", " + describe(c));
        }
      }
    }
  }
}

TEST(CpuBackend, AnExpiredDeadlineStopsEveryThreadWithATimeout) {
  const auto c = big_add_case(1 << 21);
  auto cpu = scatter::make_cpu_backend(3);
  scatter::set_case_deadline(0.0);
  try {
    cpu->run(c, {});
    ADD_FAILURE() << "no timeout";
  } catch (const scatter::Error& e) {
    EXPECT_EQ(e.code(), scatter::ErrorCode::timeout) << e.what();
  }
  scatter::set_case_deadline(std::nullopt);
  // The pool is usable again, and right.
  const auto got = cpu->run(c, {}).output;
  EXPECT_EQ(got.data<float>()[0], 1.0f + static_cast<float>(c.data.numel() - 1));
}

// ScatterUpdate `none` with each row written about 5 times per block (negative indices
// among them): the cpu backend copies only each row's last writer (runs.hpp,
// mark_last_indices). Expected: the operator's definition, written out here.
TEST(CpuBackend, ScatterUpdateDuplicatesKeepTheirLastWriterInEveryBlock) {
  const std::int64_t outer = 8, extent = 6, len = 40, count = 30;
  Case c;
  c.name = "update_duplicates";
  c.attrs = {scatter::Op::scatter_update, 1, scatter::Reduction::none, true};
  c.data = scatter::Tensor(scatter::DType::float32, {outer, extent, len});
  c.indices = scatter::Tensor(scatter::DType::int64, {count});
  c.updates = scatter::Tensor(scatter::DType::float32, {outer, count, len});
  for (std::int64_t e = 0; e < c.data.numel(); ++e) c.data.data<float>()[e] = -1.0f - static_cast<float>(e);
  for (std::int64_t e = 0; e < c.updates.numel(); ++e) c.updates.data<float>()[e] = static_cast<float>(e);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t row = (i * 7 + i / 4) % 5;  // rows 0..4 (row 5 keeps data), out of order
    c.indices.data<std::int64_t>()[i] = i % 3 == 0 ? row - extent : row;
  }
  scatter::Tensor want = c.data.clone();
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < count; ++i) {
      auto row = c.indices.data<std::int64_t>()[i];
      if (row < 0) row += extent;
      for (std::int64_t j = 0; j < len; ++j) {
        want.data<float>()[(o * extent + row) * len + j] = c.updates.data<float>()[(o * count + i) * len + j];
      }
    }
  }
  for (const int threads : {1, 2, 3}) {
    auto cpu = scatter::make_cpu_backend(threads, 1);
    for (const bool in_place : {false, true}) {
      scatter::RunFlags flags;
      flags.in_place = in_place;
      const auto got = cpu->run(c, flags).output;
      EXPECT_TRUE(same_bytes(got, want)) << threads << " threads" << (in_place ? ", in place" : "") << ": "
                                         << first_difference(got, want);
    }
  }
  expect_reference_bytes(c, "update_duplicates");
}

TEST(CpuPool, ATasksExceptionReachesTheCallerAfterEveryTaskReturned) {
  scatter::detail::cpu::Pool pool(4);
  ASSERT_EQ(pool.size(), 4);
  std::atomic<int> returned{0};
  EXPECT_THROW(pool.run(4,
                        [&](int t) {
                          ++returned;
                          if (t == 2) throw std::runtime_error("task 2");
                        }),
               std::runtime_error);
  EXPECT_EQ(returned.load(), 4);
  std::vector<int> ran(4, 0);
  pool.run(3, [&](int t) { ran[static_cast<std::size_t>(t)] = 1; });
  EXPECT_EQ(ran, (std::vector<int>{1, 1, 1, 0}));
}

}  // namespace
