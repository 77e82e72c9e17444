#pragma once
// The fuzzed cases that take the cuda backend's chunked path under a pretend L2
// (SCATTER_CUDA_L2_BYTES): on a real device only outputs of hundreds of MiB take it, so
// tests/test_cuda_backend.cpp runs these on a GPU, and tests/test_cuda_plan.cpp counts them
// without one.

#include <cstdint>
#include <optional>
#include <string>

#include "../lib/src/cuda/plan.hpp"

namespace scatter::testing {

/// 16 bytes: 64-byte chunks (kChunkMinBytes) of outputs of 64 bytes or more.
inline constexpr std::int64_t kPretendL2Bytes = 16;
inline constexpr std::uint64_t kChunkedFuzzSeed = 20261126;
inline constexpr std::int64_t kChunkedFuzzElements = 4096;

/// The chunks a case takes, out of place, under the pretend L2; nullopt where it takes another path.
inline std::optional<cuda::ChunkShape> chunks_under_pretend_l2(const Case& c) {
  std::string why;
  const auto g = cuda::make_geometry(c, why);
  if (!g) return std::nullopt;
  const auto plan = cuda::plan_of(cuda::make_launch(c, *g, RunFlags{}, 132, kPretendL2Bytes));
  if (plan.path != cuda::Path::chunked) return std::nullopt;
  return plan.chunks;
}

}  // namespace scatter::testing
