// The cpu backend against the reference: the same bytes, for every bundled case and
// thousands of fuzzed ones, on 1 to 7 threads split at any element (grain 1), in place
// and out of place; and its pool: a failing task, a cancelled run.

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "../lib/src/cpu/step.hpp"
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
// one thread over the whole output, every update through scatter_vector, which holds a run of
// one target in a register, in blocks of kPollBlock updates (scatter_range.hpp); or privatized,
// in four lanes a thread (scatter_typed.hpp). 200,000 updates cross the blocks' ends. Values of
// mixed magnitude, so that any change in the order of one element's updates changes its float sum.
void put(scatter::Tensor& t, std::int64_t i, double v) {
  switch (t.dtype()) {
    case scatter::DType::float32: t.data<float>()[i] = static_cast<float>(v); break;
    case scatter::DType::float64: t.data<double>()[i] = v; break;
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
    // float32 min and max: NaNs of either sign and many payloads, one update in 41. The first to
    // reach an element must win, bit for bit, however the updates are split into private copies.
    const bool picks = r == scatter::Reduction::min || r == scatter::Reduction::max;
    if (dtype == scatter::DType::float32 && picks && x % 41 == 0) {
      const std::uint32_t nan = 0x7FC00000u | static_cast<std::uint32_t>(i & 0x3FFFFF) | (i % 2 == 0 ? 0x80000000u : 0u);
      std::memcpy(c.updates.data<float>() + i, &nan, sizeof nan);
    }
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
// without use_init_val, since then each task starts its own columns' targets. Two rows in
// three share one index along the row (GNN's expanded index: a contiguous run, whose float
// min and max choose without a branch, step.hpp), and the float values include both zeros and
// both infinities, and NaN for min, max and none, where that choice differs from a plain compare.
TEST(CpuBackend, ScatterElementsSplitByColumnKeepsTheReferencesOrder) {
  using scatter::DType;
  using scatter::Reduction;
  struct Layout {
    scatter::Shape data, indices;
    std::int64_t axis;
  } layouts[] = {{{512, 48}, {1500, 48}, 0},
                 {{6, 40, 64}, {30, 40, 64}, 0},
                 {{6, 40, 64}, {6, 200, 60}, 1},
                 // Fewer updates than elements: no private copies, so min and max split by column
                 // with use_init_val too, on 3 tasks where there are 3 threads.
                 {{3000, 64}, {1200, 64}, 0}};
  for (const auto& layout : layouts) {
    const auto row = layout.indices.back();
    for (const auto dtype : {DType::float32, DType::float64, DType::float16, DType::int32}) {
      for (const auto r :
           {Reduction::add, Reduction::mean, Reduction::max, Reduction::min, Reduction::mul, Reduction::none}) {
        for (const bool use_init_val : {true, false}) {
          Case c;
          c.name = "columns";
          c.attrs = {scatter::Op::scatter_elements, layout.axis, r, use_init_val};
          c.data = scatter::Tensor(dtype, layout.data);
          c.indices = scatter::Tensor(DType::int64, layout.indices);
          c.updates = scatter::Tensor(dtype, layout.indices);
          const auto extent = layout.data[static_cast<std::size_t>(layout.axis)];
          const bool floats = dtype != DType::int32;
          for (std::int64_t i = 0; i < c.data.numel(); ++i) {
            put(c.data, i, floats && i % 13 == 0 ? -0.0 : 0.5 + static_cast<double>(i % 7));
          }
          const double specials[] = {std::numeric_limits<double>::quiet_NaN(), -0.0, 0.0,
                                     std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
          std::uint64_t x = 88172645463325252ull;
          std::int64_t shared_at = 0;
          for (std::int64_t i = 0; i < c.indices.numel(); ++i) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const auto at = static_cast<std::int64_t>(x % static_cast<std::uint64_t>(extent));
            if (i % row == 0) shared_at = at;
            const bool shared = (i / row) % 3 != 2;
            c.indices.data<std::int64_t>()[i] = shared ? shared_at - ((i / row) % 5 == 0 ? extent : 0)
                                                       : i % 5 == 0 ? at - extent : at;
            const double big = dtype == DType::float16 ? 1.0e2 : 1.0e7;
            const double magnitude = i % 3 == 0 ? big : i % 3 == 1 ? -big : 1.0;
            // NaN only where the step picks an operand: two NaNs of different sign added or
            // multiplied give the first operand's, and the compiler may swap the operands.
            const bool picks = r == Reduction::max || r == Reduction::min || r == Reduction::none;
            const double value = floats && x % 29 == 0 ? specials[picks ? (x >> 8) % 5 : 1 + (x >> 8) % 4]
                                                       : magnitude * (1.0 + static_cast<double>(x % 1000) / 997.0);
            put(c.updates, i, floats ? value : static_cast<double>(x % 7) - 3.0);
          }
          expect_reference_bytes_at_default_grain(c, scatter::format_shape(layout.data) + " axis " +
                                                         std::to_string(layout.axis) + ", " + describe(c));
        }
      }
    }
  }
}

// The branch-free min and max (step.hpp: float and double in a contiguous run, float16 and
// bfloat16 everywhere) against the reference's step, bit for bit: both zeros, subnormals, infinities, NaNs of either sign with different payloads (the
// first operand's must win), and random bit patterns, every ordered pair.
template <class T, class Bits>
void expect_ordered_min_max_is_the_references(std::vector<Bits> patterns) {
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 64; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    patterns.push_back(static_cast<Bits>(x));
  }
  auto value = [](Bits b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
  };
  auto bits = [](T v) {
    Bits b;
    std::memcpy(&b, &v, sizeof(T));
    return b;
  };
  for (const Bits a : patterns) {
    for (const Bits b : patterns) {
      EXPECT_EQ(bits(scatter::detail::cpu::ordered_min_max<true>(value(a), value(b))),
                bits(scatter::detail::ieee_min_max(value(a), value(b), true)))
          << "min of " << std::hex << a << " and " << b;
      EXPECT_EQ(bits(scatter::detail::cpu::ordered_min_max<false>(value(a), value(b))),
                bits(scatter::detail::ieee_min_max(value(a), value(b), false)))
          << "max of " << std::hex << a << " and " << b;
    }
  }
}

TEST(CpuStep, BranchFreeMinAndMaxAreTheReferencesStepBitForBit) {
  expect_ordered_min_max_is_the_references<float, std::uint32_t>(
      {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
       0xFF800000, 0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7F800001, 0xFFFFFFFF});
  expect_ordered_min_max_is_the_references<double, std::uint64_t>(
      {0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x8000000000000001, 0x3FF0000000000000,
       0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000,
       0x7FF8000000000000, 0xFFF8000000000000, 0x7FF8000000000001, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF});
  expect_ordered_min_max_is_the_references<scatter::Float16, std::uint16_t>(
      {0x0000, 0x8000, 0x0001, 0x8001, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7E01, 0x7C01, 0xFFFF});
  expect_ordered_min_max_is_the_references<scatter::BFloat16, std::uint16_t>(
      {0x0000, 0x8000, 0x0001, 0x8001, 0x3F80, 0xBF80, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7FC1, 0x7F81, 0xFFFF});
}

// mean's division in 32 bits (step.hpp) against the reference's, for every integer type it takes:
// sums of either sign at the type's ends, counts that divide them or not, and counts past int32.
template <class T>
void expect_mean_step_is_the_references() {
  const std::int64_t lowest = std::numeric_limits<T>::lowest();
  const std::int64_t highest = std::numeric_limits<T>::max();
  std::vector<std::int64_t> sums{lowest, lowest + 1, -7, -6, -1, 0, 1, 6, 7, highest - 1, highest};
  std::vector<std::int64_t> counts{1, 2, 3, 7, 1000, std::int64_t{INT32_MAX}, std::int64_t{INT32_MAX} + 1,
                                   std::int64_t{1} << 40};
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 200; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    sums.push_back(lowest + static_cast<std::int64_t>(x % static_cast<std::uint64_t>(highest - lowest + 1)));
    counts.push_back(1 + static_cast<std::int64_t>(x >> 40) % 5000);
  }
  for (const auto sum : sums) {
    for (const auto count : counts) {
      EXPECT_EQ(scatter::detail::cpu::mean_step(static_cast<T>(sum), count),
                scatter::detail::mean_of(static_cast<T>(sum), count))
          << sum << " / " << count;
    }
  }
}

TEST(CpuStep, MeanInThirtyTwoBitsIsTheReferencesDivision) {
  expect_mean_step_is_the_references<std::int8_t>();
  expect_mean_step_is_the_references<std::uint8_t>();
  expect_mean_step_is_the_references<std::int16_t>();
  expect_mean_step_is_the_references<std::int32_t>();
}

// The 16-bit floats' steps in float (step.hpp) against the reference's, which widens to double and
// rounds back in software. Every float16 and bfloat16 as the first operand against a spread of
// second ones (zeros, subnormals, the largest finite, infinities, NaNs, random patterns); the
// arithmetic steps, which may differ from it only in which NaN comes out (docs/backends.md), may
// give any NaN for a NaN. DISABLED_ ...EveryPair runs every one of the 2^32 pairs (minutes; run once by hand).
template <class T>
bool is_nan16(T v) {
  const unsigned exponent = __is_same(T, scatter::Float16) ? 0x7C00u : 0x7F80u;
  return (v.bits & exponent) == exponent && (v.bits & ~exponent & 0x7FFFu) != 0;
}

template <class T, scatter::Reduction R>
std::int64_t sixteen_bit_step_differences(std::uint32_t first, std::uint32_t last, const std::vector<std::uint16_t>& seconds) {
  std::int64_t differences = 0;
  for (std::uint32_t a = first; a <= last; ++a) {
    const T x{static_cast<std::uint16_t>(a)};
    for (const std::uint16_t b : seconds) {
      const T y{b};
      const T got = scatter::detail::cpu::step<R>(x, y);
      const T want = scatter::detail::combine(R, x, y);
      // Only an add, sub or mul may give another NaN (docs/backends.md); min and max keep the very bits.
      constexpr bool kAnyNaN = R == scatter::Reduction::add || R == scatter::Reduction::sub || R == scatter::Reduction::mul;
      if (got.bits == want.bits || (kAnyNaN && is_nan16(got) && is_nan16(want))) continue;
      if (++differences <= 5) {
        ADD_FAILURE() << scatter::to_string(R) << " of 0x" << std::hex << a << " and 0x" << b << ": got 0x" << got.bits
                      << ", want 0x" << want.bits;
      }
    }
  }
  return differences;
}

template <class T>
void expect_sixteen_bit_steps_are_the_references(const std::vector<std::uint16_t>& seconds) {
  using scatter::Reduction;
  EXPECT_EQ((sixteen_bit_step_differences<T, Reduction::add>(0, 0xFFFF, seconds)), 0);
  EXPECT_EQ((sixteen_bit_step_differences<T, Reduction::sub>(0, 0xFFFF, seconds)), 0);
  EXPECT_EQ((sixteen_bit_step_differences<T, Reduction::mul>(0, 0xFFFF, seconds)), 0);
  EXPECT_EQ((sixteen_bit_step_differences<T, Reduction::min>(0, 0xFFFF, seconds)), 0);
  EXPECT_EQ((sixteen_bit_step_differences<T, Reduction::max>(0, 0xFFFF, seconds)), 0);
}

std::vector<std::uint16_t> second_operands(std::vector<std::uint16_t> specials) {
  std::uint64_t x = 0x2545F4914F6CDD1Dull;
  for (int i = 0; i < 200; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    specials.push_back(static_cast<std::uint16_t>(x));
  }
  return specials;
}

TEST(CpuStep, SixteenBitFloatStepsInFloatAreTheReferencesBitForBit) {
  // float16: zeros, the smallest and largest subnormals, the smallest normal, 1, 1 + ulp, 2048 (where
  // 1 is half an ulp), the largest finite, infinities, NaNs of either sign with payloads.
  expect_sixteen_bit_steps_are_the_references<scatter::Float16>(second_operands(
      {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0x3C01, 0xBC00, 0x6800, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
       0x7E00, 0xFE01, 0x7C01}));
  // bfloat16: as float16's, and products that fall below float's smallest normal (2^-64 x 2^-63).
  expect_sixteen_bit_steps_are_the_references<scatter::BFloat16>(second_operands(
      {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0x3F81, 0xBF80, 0x1F80, 0x2000, 0x7F7F, 0xFF7F, 0x7F80,
       0xFF80, 0x7FC0, 0xFFC1, 0x7F81}));
}

TEST(CpuStep, DISABLED_SixteenBitFloatStepsInFloatAreTheReferencesForEveryPair) {
  std::vector<std::uint16_t> every(1 << 16);
  for (std::uint32_t b = 0; b < every.size(); ++b) every[b] = static_cast<std::uint16_t>(b);
  expect_sixteen_bit_steps_are_the_references<scatter::Float16>(every);
  expect_sixteen_bit_steps_are_the_references<scatter::BFloat16>(every);
}

// The float16 conversions against the reference's: every float16 widened, and the floats where
// rounding decides (each float16, the midpoints to its neighbours and a float ulp either side of
// them) plus a stride through every float, narrowed.
TEST(CpuStep, FloatSixteenConversionsAreTheReferences) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float got = scatter::detail::cpu::half_to_float(scatter::Float16{static_cast<std::uint16_t>(h)});
    const double want = scatter::bits::half_bits_to_double(static_cast<std::uint16_t>(h));
    if (want != want) {  // widening to double would quiet a signalling NaN: its bits, from the format
      const auto placed = (h & 0x8000u) << 16 | 0x7F800000u | (h & 0x3FFu) << 13;
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got), placed) << std::hex << h;
    } else {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(static_cast<double>(got)), std::bit_cast<std::uint64_t>(want)) << std::hex << h;
    }
  }
  auto expect_narrowed = [](float f) {
    const auto got = scatter::detail::cpu::float_to_half(f).bits;
    const auto want = scatter::bits::round_double_bits<5, 10>(static_cast<double>(f));
    EXPECT_EQ(got, want) << std::hex << "float 0x" << std::bit_cast<std::uint32_t>(f);
    return got == want;
  };
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const double low = scatter::bits::half_bits_to_double(static_cast<std::uint16_t>(h));
    const double high = scatter::bits::half_bits_to_double(static_cast<std::uint16_t>(h + 1));
    const float middle = static_cast<float>((low + high) / 2);  // exact: 12 bits
    for (const float f : {static_cast<float>(low), middle, std::nextafter(middle, 0.0f), std::nextafter(middle, 1e30f)}) {
      ASSERT_TRUE(expect_narrowed(f));
      ASSERT_TRUE(expect_narrowed(-f));
    }
  }
  for (std::uint64_t b = 0; b <= 0xFFFFFFFFu; b += 65521) ASSERT_TRUE(expect_narrowed(std::bit_cast<float>(static_cast<std::uint32_t>(b))));
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

// Two boxes' checks flush the caches side by side through one static pool (bench --gate with two
// exe: rows): each caller's run must run its own tasks, every one once, never the other's.
TEST(CpuPool, CallersOnTwoThreadsEachRunTheirOwnTasks) {
  scatter::detail::cpu::Pool pool(3);
  constexpr int kRuns = 2000;
  const auto caller = [&pool](std::vector<int>& ran) {
    for (int r = 0; r < kRuns; ++r) pool.run(3, [&](int t) { ++ran[static_cast<std::size_t>(t)]; });
  };
  std::vector<int> first(3, 0), second(3, 0);
  std::thread other(caller, std::ref(second));
  caller(first);
  other.join();
  EXPECT_EQ(first, (std::vector<int>{kRuns, kRuns, kRuns}));
  EXPECT_EQ(second, (std::vector<int>{kRuns, kRuns, kRuns}));
}

// The calling thread's CPUs, as a set.
std::vector<int> affinity_of_this_thread() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// A woken worker put on its caller's CPU ran after it, not beside it (docs/backends.md, "cpu").
TEST(CpuPool, EachTaskRunsOnACpuOfItsOwnAndTheCallerGetsItsCpusBack) {
  using scatter::detail::cpu::Pool;
  const auto allowed = affinity_of_this_thread();
  if (allowed.size() < 2) GTEST_SKIP() << "one CPU allowed: nothing to place";
  Pool pool(2);
  std::vector<std::vector<int>> cpus_of_task(2);
  {
    const Pool::Placement placed(pool, false);
    pool.run(2, [&](int t) { cpus_of_task[static_cast<std::size_t>(t)] = affinity_of_this_thread(); });
  }
  EXPECT_EQ(cpus_of_task[0], std::vector<int>{allowed[0]});
  EXPECT_EQ(cpus_of_task[1], std::vector<int>{allowed[1]});
  EXPECT_EQ(affinity_of_this_thread(), allowed) << "the caller's CPUs were not given back";

  // Beside a neighbour that keeps a CPU busy, nothing is pinned (a pinned task would share that
  // CPU slice by slice): the same pool, its worker unpinned, then pinned again.
  {
    const Pool::Placement placed(pool, true);
    pool.run(2, [&](int t) { cpus_of_task[static_cast<std::size_t>(t)] = affinity_of_this_thread(); });
  }
  EXPECT_EQ(cpus_of_task[0], allowed);
  EXPECT_EQ(cpus_of_task[1], allowed);
  {
    const Pool::Placement placed(pool, false);
    pool.run(2, [&](int t) { cpus_of_task[static_cast<std::size_t>(t)] = affinity_of_this_thread(); });
  }
  EXPECT_EQ(cpus_of_task[1], std::vector<int>{allowed[1]});

  // More threads than CPUs: nobody is pinned, and a Placement moves nothing.
  Pool crowded(static_cast<int>(allowed.size()) + 1);
  std::vector<std::vector<int>> crowded_cpus(allowed.size() + 1);
  const Pool::Placement placed(crowded, false);
  crowded.run(crowded.size(), [&](int t) { crowded_cpus[static_cast<std::size_t>(t)] = affinity_of_this_thread(); });
  for (const auto& cpus : crowded_cpus) EXPECT_EQ(cpus, allowed);
}

}  // namespace
