// The cuda backend on a GPU, against the CPU reference. Without a usable device every
// test here is skipped with the backend's reason; SCATTER_REQUIRE_GPU=1 turns the skip
// into a failure (scripts/gpu-check.sh sets it, so a GPU run cannot pass vacuously).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "scatter/backend.hpp"
#include "scatter/compare.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "chunked_cases.hpp"
#include "test_util.hpp"

namespace {

using scatter::Case;

bool gpu_required() {
  const char* v = std::getenv("SCATTER_REQUIRE_GPU");
  return v != nullptr && std::string(v) == "1";
}

// The backend, or nullptr after skipping (or failing, when a GPU is required).
#define CUDA_OR_SKIP(backend)                                                                  \
  auto backend = scatter::make_cuda_backend();                                                 \
  if (const auto a = backend->availability(); !a.available) {                                  \
    if (gpu_required()) FAIL() << "SCATTER_REQUIRE_GPU=1 but cuda is unavailable: " << a.reason; \
    GTEST_SKIP() << "cuda unavailable: " << a.reason;                                          \
  }

scatter::LoadOptions load_options() {
  scatter::LoadOptions options;
  options.max_bytes = scatter::default_max_bytes();
  return options;
}

Case materialize(const std::string& text) {
  const auto loaded = scatter::load_text(text, "gpu.json", load_options());
  EXPECT_TRUE(loaded.cases.front().decl) << text;
  return scatter::materialize(*loaded.cases.front().decl);
}

TEST(CudaBackend, UnavailableSaysWhyAndRefusesToRun) {
  auto backend = scatter::make_cuda_backend();
  EXPECT_EQ(backend->name(), "cuda");
  const auto a = backend->availability();
  if (a.available) GTEST_SKIP() << "cuda is available on " << backend->device();
  EXPECT_FALSE(a.reason.empty());
  const auto c = materialize(R"({"name": "u", "op": "scatter_elements", "inputs": {
    "data": {"dtype": "float32", "shape": [2], "values": [1, 2]},
    "indices": {"dtype": "int64", "shape": [1], "values": [0]},
    "updates": {"dtype": "float32", "shape": [1], "values": [5]}}})");
  try {
    backend->run(c, {});
    FAIL() << "an unavailable backend ran";
  } catch (const scatter::Error& e) {
    EXPECT_NE(e.message().find("unavailable"), std::string::npos) << e.message();
  }
}

// Every bundled case (large ones included: they are the documents' big examples)
// out of place, in place and deterministic.
TEST(CudaBackend, EveryBundledCaseMatchesTheReference) {
  CUDA_OR_SKIP(cuda);
  const auto loaded = scatter::load_paths({scatter::testing::cases_dir()}, load_options());
  int checked = 0;
  for (const auto& entry : loaded.cases) {
    if (!entry.decl || entry.expect_error) continue;
    Case c;
    try {
      c = scatter::materialize(*entry.decl);
    } catch (const scatter::Error&) {
      continue;
    }
    const auto want = scatter::reference_scatter(c);
    for (const scatter::RunFlags flags : {scatter::RunFlags{false, false}, scatter::RunFlags{true, false},
                                          scatter::RunFlags{false, true}}) {
      const auto out = cuda->run(c, flags);
      EXPECT_EQ(scatter::fuzz_verdict(c, out.output, want, flags), "")
          << entry.name << (flags.in_place ? " in place" : "") << (flags.deterministic ? " deterministic" : "");
      if (c.expected) {
        EXPECT_TRUE(scatter::compare_outputs(c, out.output, *c.expected, true).passed) << entry.name;
      }
    }
    ++checked;
  }
  EXPECT_GT(checked, 250);
}

TEST(CudaBackend, FuzzedCasesMatchTheReference) {
  CUDA_OR_SKIP(cuda);
  for (const bool deterministic : {false, true}) {
    scatter::FuzzOptions options;
    options.seed = 20261123;
    options.iterations = 2000;
    options.flags.deterministic = deterministic;
    options.out_dir = ::testing::TempDir() + "cuda-fuzz";
    std::string first;
    const auto summary = scatter::run_fuzz(options, {cuda.get()}, [&](const std::string& line) {
      if (first.empty() && line.rfind("FAIL", 0) == 0) first = line;
    });
    EXPECT_EQ(summary.failed, 0) << first;
  }
}

// SCATTER_CUDA_L2_BYTES for one test: the backend reads it when it is made.
struct PretendL2 {
  explicit PretendL2(std::int64_t bytes) { setenv("SCATTER_CUDA_L2_BYTES", std::to_string(bytes).c_str(), 1); }
  ~PretendL2() { unsetenv("SCATTER_CUDA_L2_BYTES"); }
};

// The chunked path is sized by L2, so on a real device only cases of hundreds of MiB take
// it. Under SCATTER_CUDA_L2_BYTES=16 the planner takes a 16-byte L2: the fuzzed cases that
// then take it (chunked_cases.hpp; CudaPlan.FuzzedCasesReachTheChunksUnderAPretendL2 counts
// them) run the count, the partition and the steps in 64-byte chunks, out of place and in place.
TEST(CudaBackend, TheChunkedPathPassesFuzzedCasesUnderAPretendL2) {
  const PretendL2 pretend(scatter::testing::kPretendL2Bytes);
  CUDA_OR_SKIP(cuda);
  int ran = 0;
  for (std::int64_t i = 0; i < 20000 && !::testing::Test::HasFailure(); ++i) {
    const auto text = scatter::fuzz_case(scatter::testing::kChunkedFuzzSeed, i, scatter::testing::kChunkedFuzzElements);
    const auto c = materialize(text);
    if (!scatter::testing::chunks_under_pretend_l2(c, scatter::testing::kPretendL2Bytes)) continue;
    const auto want = scatter::reference_scatter(c);
    for (const scatter::RunFlags flags : {scatter::RunFlags{false, false}, scatter::RunFlags{true, false}}) {
      EXPECT_EQ(scatter::fuzz_verdict(c, cuda->run(c, flags).output, want, flags), "")
          << (flags.in_place ? "in place: " : "") << text;
    }
    ++ran;
  }
  EXPECT_GT(ran, 600);
}

// Outputs of 4 MiB in 256 chunks of 16 KiB (chunked_cases.hpp): many blocks reserve runs in
// each chunk, and each step copies and applies on several blocks. An index past the host's
// check is the guard's: an index error, nothing written outside the output.
TEST(CudaBackend, TheChunkedPathPassesMultiBlockCasesUnderAPretendL2) {
  const PretendL2 pretend(scatter::testing::kPretendL2BytesMultiBlock);
  CUDA_OR_SKIP(cuda);
  for (const auto& text : scatter::testing::multi_block_chunked_cases()) {
    const auto c = materialize(text);
    const auto want = scatter::reference_scatter(c);
    for (const scatter::RunFlags flags : {scatter::RunFlags{false, false}, scatter::RunFlags{true, false}}) {
      EXPECT_EQ(scatter::fuzz_verdict(c, cuda->run(c, flags).output, want, flags), "")
          << (flags.in_place ? "in place: " : "") << text;
    }
  }
  auto c = materialize(scatter::testing::multi_block_chunked_cases().front());
  c.indices.data<std::int64_t>()[7] = std::int64_t{1} << 30;  // past the host's check
  try {
    cuda->run(c, {});
    ADD_FAILURE() << "an out-of-range target went unreported";
  } catch (const scatter::Error& e) {
    EXPECT_EQ(e.code(), scatter::ErrorCode::index) << e.message();
  }
}

// The device-side guard: indices the host would have rejected never reach memory.
// The backend reports a target past the data (one the host's check never saw) as an index error.
void expect_index_error(scatter::Backend& backend, const scatter::Case& c, const std::string& what) {
  try {
    backend.run(c, {});
    ADD_FAILURE() << what << ": an out-of-range target went unreported";
  } catch (const scatter::Error& e) {
    EXPECT_EQ(e.code(), scatter::ErrorCode::index) << e.message();
  }
}

TEST(CudaBackend, TheDeviceGuardStopsOutOfRangeTargets) {
  CUDA_OR_SKIP(cuda);
  for (const char* reduction : {"none", "add", "mul"}) {
    auto c = materialize(std::string(R"({"name": "g", "op": "scatter_elements", "reduction": ")") + reduction +
                         R"(", "inputs": {
      "data": {"dtype": "float32", "shape": [4], "values": [1, 2, 3, 4]},
      "indices": {"dtype": "int64", "shape": [2], "values": [0, 1]},
      "updates": {"dtype": "float32", "shape": [2], "values": [5, 6]}}})");
    c.indices.data<std::int64_t>()[1] = 1 << 20;  // past the host's check
    expect_index_error(*cuda, c, reduction);
  }
}

// The small-output contention path (k_reduce_bins): no atomic orders a float there, so a
// float sum of 2^20 updates onto 1000 elements is the same bits on every run, out of place
// and in place, and within the comparison's rules; its guard stops an out-of-range target.
TEST(CudaBackend, TheBinsRepeatFloatSumsBitForBit) {
  CUDA_OR_SKIP(cuda);
  for (const char* reduction : {"add", "mean"}) {
    auto c = materialize(std::string(R"({"name": "bins", "op": "scatter_elements", "reduction": ")") + reduction +
                         R"(", "inputs": {
      "data": {"dtype": "float32", "shape": [1000], "generate": {"kind": "uniform", "low": -4, "high": 4, "seed": 1}},
      "indices": {"dtype": "int64", "shape": [1048576], "generate": {"kind": "indices", "seed": 2}},
      "updates": {"dtype": "float32", "shape": [1048576], "generate": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}}}})");
    const auto want = scatter::reference_scatter(c);
    const auto first = cuda->run(c, {});
    EXPECT_EQ(scatter::fuzz_verdict(c, first.output, want, {}), "") << reduction;
    for (const bool in_place : {false, true, false}) {
      const auto again = cuda->run(c, scatter::RunFlags{in_place, false});
      EXPECT_EQ(std::memcmp(again.output.bytes(), first.output.bytes(), first.output.nbytes()), 0)
          << reduction << (in_place ? " in place" : "") << ": another run gave other bits";
    }
    c.indices.data<std::int64_t>()[777] = 1 << 20;  // past the host's check
    expect_index_error(*cuda, c, reduction);
  }
}

// 64-bit offsets: an int8 tensor of 2^31 + 64 elements, updates past element 2^31.
TEST(CudaBackend, OffsetsPast2To31Elements) {
  CUDA_OR_SKIP(cuda);
  const auto c = materialize(R"({"name": "big", "op": "scatter_elements", "reduction": "add", "inputs": {
    "data": {"dtype": "int8", "shape": [2147483712], "generate": {"kind": "fill", "value": 1}},
    "indices": {"dtype": "int64", "shape": [4], "values": [2147483648, 2147483711, -1, 5]},
    "updates": {"dtype": "int8", "shape": [4], "values": [2, 3, 4, 5]}}})");
  const auto out = cuda->run(c, {});
  const auto* o = out.output.data<std::int8_t>();
  EXPECT_EQ(o[2147483648LL], 3);
  EXPECT_EQ(o[2147483711LL], 1 + 3 + 4);  // -1 is the last element too
  EXPECT_EQ(o[5], 6);
  EXPECT_EQ(o[2147483647LL], 1);
  EXPECT_EQ(o[0], 1);
}

}  // namespace
