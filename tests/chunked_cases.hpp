#pragma once
// Cases that take the cuda backend's chunked path under a pretend L2
// (SCATTER_CUDA_L2_BYTES): on a real device only outputs of hundreds of MiB take it, so
// tests/test_cuda_backend.cpp runs these on a GPU, and tests/test_cuda_plan.cpp checks,
// without one, that they take it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../lib/src/cuda/plan.hpp"
#include "test_util.hpp"

namespace scatter::testing {

/// Fuzzed cases under a 16-byte L2: 64-byte chunks (kChunkMinBytes) of outputs of 64 bytes
/// or more, one or two blocks each.
inline constexpr std::int64_t kPretendL2Bytes = 16;
inline constexpr std::uint64_t kChunkedFuzzSeed = 20261126;
inline constexpr std::int64_t kChunkedFuzzElements = 4096;

/// Outputs of 4 MiB under a 48 KiB L2: 256 chunks of 16 KiB, so the count and the partition
/// run on 64 to 512 blocks and each step on 4, copy and apply on several blocks at once.
inline constexpr std::int64_t kPretendL2BytesMultiBlock = 48 << 10;

inline std::vector<std::string> multi_block_chunked_cases() {
  auto text = [](const std::string& name, const std::string& op, const std::string& attrs, const std::string& data,
                 const std::string& indices, const std::string& updates) {
    return renamed(make_case(R"("op": ")" + op + "\"" + attrs, data, indices, updates), name);
  };
  auto uniform = [](const std::string& dtype, const std::string& shape, int seed) {
    const std::string range = dtype == "uint8" ? R"("low": 0, "high": 255)" : R"("low": -8, "high": 8)";
    return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "generate": {"kind": "uniform", )" + range +
           R"(, "seed": )" + std::to_string(seed) + "}}";
  };
  auto indices = [](const std::string& dtype, const std::string& shape, bool unique, int seed) {
    return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "generate": {"kind": "indices", "unique": )" +
           (unique ? "true" : "false") + R"(, "seed": )" + std::to_string(seed) + "}}";
  };
  return {
      text("nd_element_unique", "ScatterND", "", uniform("float32", "[1048576]", 1),
           indices("int64", "[262144, 1]", true, 2), uniform("float32", "[262144]", 3)),
      text("nd_element_duplicates", "ScatterND", "", uniform("float32", "[1048576]", 4),
           indices("int64", "[1048576, 1]", false, 5), uniform("float32", "[1048576]", 6)),
      text("nd_rows_16B", "ScatterND", "", uniform("float32", "[262144, 4]", 7), indices("int32", "[131072, 1]", false, 8),
           uniform("float32", "[131072, 4]", 9)),
      text("update_rows_16B", "ScatterUpdate", R"(, "axis": 0)", uniform("float32", "[262144, 4]", 10),
           indices("int64", "[131072]", true, 11), uniform("float32", "[131072, 4]", 12)),
      text("nd_add_f32", "ScatterND", R"(, "reduction": "add")", uniform("float32", "[1048576]", 13),
           indices("int64", "[262144, 1]", false, 14), uniform("float32", "[262144]", 15)),
      text("nd_max_f16", "ScatterND", R"(, "reduction": "max")", uniform("float16", "[2097152]", 16),
           indices("int64", "[524288, 1]", false, 17), uniform("float16", "[524288]", 18)),
      text("nd_mul_i32", "ScatterND", R"(, "reduction": "mul")", uniform("int32", "[1048576]", 19),
           indices("int32", "[262144, 1]", false, 20), uniform("int32", "[262144]", 21)),
      text("elements_u8_axis0", "ScatterElements", R"(, "axis": 0)", uniform("uint8", "[1024, 4096]", 22),
           indices("int32", "[256, 4096]", false, 23), uniform("uint8", "[256, 4096]", 24)),
  };
}

/// The chunks a case takes under a pretend L2 of `l2_bytes`; nullopt where it takes another path.
inline std::optional<cuda::ChunkShape> chunks_under_pretend_l2(const Case& c, std::int64_t l2_bytes,
                                                               bool in_place = false) {
  std::string why;
  const auto g = cuda::make_geometry(c, why);
  if (!g) return std::nullopt;
  RunFlags flags;
  flags.in_place = in_place;
  const auto plan = cuda::plan_of(cuda::make_launch(c, *g, flags, 132, l2_bytes));
  if (plan.path != cuda::Path::chunked) return std::nullopt;
  return plan.chunks;
}

}  // namespace scatter::testing
