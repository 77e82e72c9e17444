// The cuda backend's planner (lib/src/cuda/plan.hpp) and its row tile, without a GPU:
// which path each kind of case takes and how many stream operations it makes, the fast
// division the tile uses, and the tile's algorithm run on the host with the kernel's own
// helpers (tile_place, FastDivide, combine, identity, mean_of) in the GPU's possible
// orders, against the CPU reference. What this cannot check is the device itself:
// shared-memory atomics, barriers and 16-byte copies run only in tests/test_cuda_backend.cpp.

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../lib/src/cuda/plan.hpp"
#include "chunked_cases.hpp"
#include "../lib/src/core/dispatch.hpp"
#include "scatter/compare.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "test_util.hpp"

namespace {

namespace cu = scatter::cuda;
using scatter::Case;
using scatter::DType;
using scatter::Op;
using scatter::Reduction;
using scatter::Tensor;

// A scatter_elements launch of the large suite's shape: data [rows, columns], updates and
// indices [rows, row_updates], along the last axis.
cu::Launch rows_launch(std::int64_t rows, std::int64_t columns, std::int64_t row_updates, Reduction r,
                       DType type = DType::float32) {
  cu::Launch l;
  auto& g = l.geometry;
  g.op = Op::scatter_elements;
  g.rank = 2;
  g.axis = 1;
  g.dshape[0] = g.ushape[0] = rows;
  g.dshape[1] = columns;
  g.ushape[1] = row_updates;
  g.ostride[0] = columns;
  g.ostride[1] = 1;
  g.extent = columns;
  g.n = rows * columns;
  g.u = rows * row_updates;
  l.type = type;
  l.reduction = r;
  l.sm_count = 132;
  return l;
}

TEST(CudaPlan, ScatterElementsAlongTheLastAxisTakesTheRowTileInOneLaunch) {
  auto l = rows_launch(262144, 1024, 256, Reduction::none);
  auto p = cu::plan_of(l);
  EXPECT_EQ(p.path, cu::Path::row_tile);
  EXPECT_EQ(p.launches, 1);
  EXPECT_TRUE(p.fuses_copy) << "out of place, the tile reads data itself";
  EXPECT_EQ(p.tile.rows, 4);  // 16 KiB of float32 rows of 1024
  EXPECT_EQ(p.tile.groups, 65536);
  EXPECT_EQ(p.tile.data_rows, 262144);
  EXPECT_TRUE(p.tile.side) << "none keeps each element's winner beside it";
  EXPECT_EQ(p.tile.shared_bytes, 16384u + 4096u * 4u);
  l.in_place = true;
  EXPECT_FALSE(cu::plan_of(l).fuses_copy);
  // In place the tile reads and writes every row: only with an update per 32 bytes or more.
  l = rows_launch(65536, 4096, 1, Reduction::add);
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::row_tile) << "out of place the copy costs the same";
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce) << "one update per 16 KiB row";
  l = rows_launch(65536, 4096, 512, Reduction::add);
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::row_tile) << "one float32 update per 32 bytes";

  l = rows_launch(262144, 1024, 256, Reduction::add);
  p = cu::plan_of(l);
  EXPECT_EQ(p.path, cu::Path::row_tile);
  EXPECT_FALSE(p.tile.side) << "add with use_init_val needs no count";
  EXPECT_EQ(p.tile.shared_bytes, 16384u);
  l.use_init_val = false;
  EXPECT_TRUE(cu::plan_of(l).tile.side) << "use_init_val = false marks the hit elements";

  EXPECT_EQ(cu::plan_of(rows_launch(262144, 1024, 256, Reduction::mean, DType::float64)).tile.rows, 2);
  EXPECT_EQ(cu::plan_of(rows_launch(4096, 3, 2, Reduction::max, DType::uint8)).tile.rows, 1365);
  // Order-independent reductions keep the tile under --deterministic; float sums sort.
  l = rows_launch(262144, 1024, 256, Reduction::max, DType::int32);
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::row_tile);
  l = rows_launch(262144, 1024, 256, Reduction::add, DType::float32);
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::sorted);
}

TEST(CudaPlan, CasesTheTileCannotHoldKeepTheDirectPaths) {
  auto l = rows_launch(262144, 8192, 256, Reduction::none);  // a row longer than the tile
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::elements_free);
  EXPECT_EQ(cu::plan_of(l).launches, 1) << "plain stores: no bitmap, no winners";
  EXPECT_FALSE(cu::plan_of(l).fuses_copy);
  l.deterministic = true;  // the last writer, as the reference
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::elements_direct);
  EXPECT_EQ(cu::plan_of(l).launches, 5) << "the bitmap's memset and four kernels";

  l = rows_launch(262144, 1024, 256, Reduction::none);
  l.geometry.axis = 0;  // along a strided axis
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::elements_free);
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::elements_direct);

  l = rows_launch(262144, 1024, 256, Reduction::add);
  l.geometry.ushape[0] = 1000;  // indices cover only some rows: update row q is not data row q
  l.geometry.u = 1000 * 256;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);

  l = rows_launch(64, 1024, 256, Reduction::add);  // fewer tiles than SMs, but few updates
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::row_tile);
  l = rows_launch(64, 1024, 1024, Reduction::add);  // fewer tiles than SMs, and many updates
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  EXPECT_EQ(cu::plan_of(l).launches, 1);
  l.reduction = Reduction::mean;
  EXPECT_EQ(cu::plan_of(l).launches, 3) << "the counts' memset, k_reduce, k_mean";
  l.use_init_val = false;
  EXPECT_EQ(cu::plan_of(l).launches, 4) << "and k_identity first";
  l.block_aggregate = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_block);

  l = rows_launch(1, 1 << 20, 1 << 20, Reduction::add);
  l.geometry.rank = 1;  // one row of a million: not the tile
  l.geometry.axis = 0;
  l.geometry.dshape[0] = l.geometry.ushape[0] = 1 << 20;
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::sorted);
  EXPECT_EQ(cu::plan_of(l).launches, 3 + cu::run_levels(l.geometry.u, cu::kRunChunk, cu::kSerialRun) - 1);

  cu::Launch nd;
  nd.geometry.op = Op::scatter_nd;
  nd.geometry.n = 1024;
  nd.geometry.u = 64;
  nd.geometry.slice = 16;
  EXPECT_EQ(cu::plan_of(nd).path, cu::Path::tiny) << "a few KiB out of place: the copy and the stores in one launch";
  EXPECT_EQ(cu::plan_of(nd).launches, 1);
  EXPECT_TRUE(cu::plan_of(nd).fuses_copy);
  nd.in_place = true;
  EXPECT_EQ(cu::plan_of(nd).path, cu::Path::rows_free);
  EXPECT_EQ(cu::plan_of(nd).launches, 1);
  EXPECT_FALSE(cu::plan_of(nd).fuses_copy);
  nd.in_place = false;
  nd.geometry.n = cu::kTinyElements + 16;
  EXPECT_EQ(cu::plan_of(nd).path, cu::Path::rows_free);
  nd.geometry.n = 1024;
  nd.deterministic = true;
  EXPECT_EQ(cu::plan_of(nd).path, cu::Path::rows_direct);
  EXPECT_EQ(cu::plan_of(nd).launches, 5);
  nd.geometry.u = 0;
  EXPECT_EQ(cu::plan_of(nd).path, cu::Path::nothing);
  EXPECT_EQ(cu::plan_of(nd).launches, 0);
}

// ScatterUpdate with a small axis, out of place: the gather, one launch, the copy fused in.
TEST(CudaPlan, ScatterUpdateOnASmallAxisIsAGatherOutOfPlace) {
  cu::Launch l;  // OpenVINO's example 1 at the large suite's batch: data [1000, 256, 10, 15], 2500 indices
  auto& g = l.geometry;
  g.op = Op::scatter_update;
  g.extent = 256;
  g.count = 2500;
  g.slice = 150;
  g.n = 1000 * 256 * 150;
  g.u = 1000 * 2500 * 150;
  l.sm_count = 132;
  auto p = cu::plan_of(l);
  EXPECT_EQ(p.path, cu::Path::update_gather);
  EXPECT_EQ(p.launches, 1);
  EXPECT_TRUE(p.fuses_copy);
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::update_gather) << "the gather is the last writer already";
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_direct) << "in place the row copy writes only the update rows";
  l.in_place = false;
  g.extent = cu::kGatherExtent + 1;  // the winners no longer fit the block's shared memory
  g.n = g.extent * 150;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_direct);
  g.extent = 8192;  // one outer row, 65536 indices: every block would read them all to copy 2 MB
  g.count = 65536;
  g.slice = 32;
  g.n = 8192 * 32;
  g.u = 65536 * 32;
  l.deterministic = false;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_fused);
}

// The slice ops' rows of 128 bytes or more, out of place in free order: data's rows are
// copied only where no update row lands, in the same launch as the update rows.
TEST(CudaPlan, LongRowsOutOfPlaceSkipTheRowsUpdatesOverwrite) {
  cu::Launch l;  // update/rows_256B/unique/f32 at the large size: data [2^22, 64], 2^21 rows of updates
  auto& g = l.geometry;
  g.op = Op::scatter_update;
  g.axis = 0;
  g.extent = std::int64_t{1} << 22;
  g.count = std::int64_t{1} << 21;
  g.slice = 64;
  g.n = g.extent * 64;
  g.u = g.count * 64;
  l.sm_count = 132;
  auto p = cu::plan_of(l);
  EXPECT_EQ(p.path, cu::Path::rows_fused);
  EXPECT_EQ(p.launches, 3) << "the bitmap's memset, k_mark_rows, k_rows_fused";
  EXPECT_TRUE(p.fuses_copy);
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free) << "in place there is no copy to skip";
  l.in_place = false;
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_direct) << "the last writer";
  l.deterministic = false;
  g.slice = 4;  // 16-byte rows: the bitmap would cost more than the rows it saves
  g.n = g.extent * 4;
  g.u = g.count * 4;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
}

// A scatter_nd launch of the large suite's shape on an H100 (132 SMs, 50 MiB of L2): data
// [rows, slice] float32, `updates` update rows of `slice` elements with k = 1.
cu::Launch nd_launch(std::int64_t rows, std::int64_t slice, std::int64_t updates, Reduction r) {
  cu::Launch l;
  auto& g = l.geometry;
  g.op = Op::scatter_nd;
  g.rank = slice == 1 ? 1 : 2;
  g.k = 1;
  g.dshape[0] = rows;
  g.ostride[0] = slice;
  g.slice = slice;
  g.n = rows * slice;
  g.u = updates * slice;
  l.reduction = r;
  l.sm_count = 132;
  l.l2_bytes = 50 << 20;
  return l;
}

// Random element and 16-byte-row targets over a 1 GiB output: the updates partitioned by
// 16 MiB chunks (the largest power of two within a third of 50 MiB), 64 of them, then a
// step per chunk and one more: the counters' memset, the count, the partition, 65 steps.
TEST(CudaPlan, RandomTargetsFarPastL2ArePartitionedByChunksOfTheOutput) {
  auto l = nd_launch(std::int64_t{1} << 28, 1, std::int64_t{1} << 26, Reduction::none);  // nd/element/unique
  auto p = cu::plan_of(l);
  ASSERT_EQ(p.path, cu::Path::chunked);
  EXPECT_EQ(p.chunks.unit_bytes, 4);
  EXPECT_EQ(p.chunks.shift, 22) << "2^22 float32 elements: 16 MiB";
  EXPECT_EQ(p.chunks.chunks, 64);
  EXPECT_EQ(p.chunks.updates, std::int64_t{1} << 26);
  EXPECT_EQ(p.launches, 3 + 65);
  EXPECT_TRUE(p.fuses_copy) << "out of place the steps copy data chunk by chunk";
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked);
  EXPECT_FALSE(cu::plan_of(l).fuses_copy) << "in place the steps read each chunk into L2";
  l.in_place = false;
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_direct) << "the last writer, as the reference";

  l = nd_launch(std::int64_t{1} << 26, 4, std::int64_t{1} << 25, Reduction::none);  // nd/slice_16B: 16-byte rows
  p = cu::plan_of(l);
  ASSERT_EQ(p.path, cu::Path::chunked);
  EXPECT_EQ(p.chunks.unit_bytes, 16);
  EXPECT_EQ(p.chunks.shift, 20);
  EXPECT_EQ(p.chunks.chunks, 64);
  EXPECT_EQ(p.chunks.units, std::int64_t{1} << 26) << "units are rows";
  EXPECT_EQ(p.chunks.updates, std::int64_t{1} << 25);
  l = nd_launch(std::int64_t{1} << 24, 16, std::int64_t{1} << 23, Reduction::none);  // 64-byte rows: whole sectors already
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  l = nd_launch(std::int64_t{1} << 26, 3, std::int64_t{1} << 25, Reduction::none);  // 12-byte rows: no word moves them
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);

  l = rows_launch(65536, 8192, 256, Reduction::none);  // scatter_elements whose row the tile cannot hold
  l.l2_bytes = 50 << 20;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked) << "2 GiB of float32, an update per 32 elements";
  EXPECT_EQ(cu::plan_of(l).chunks.chunks, 128);
}

// Each reduction that one atomic per update gives takes the chunks: the atomics meet their
// chunk in L2. Not mean, use_init_val = false, contention or the sorted --deterministic.
TEST(CudaPlan, ReductionsTakeTheChunksWhereTheirAtomicsNeedNoOtherPass) {
  auto l = nd_launch(std::int64_t{1} << 28, 1, std::int64_t{1} << 26, Reduction::add);  // nd/reduce/add/f32
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked);
  l.type = DType::float16;
  l.reduction = Reduction::mul;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked) << "a CAS loop is an atomic too";
  l.type = DType::int32;
  l.reduction = Reduction::max;
  l.deterministic = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked) << "integer max gives the same bits in every order";
  l.type = DType::float32;
  l.reduction = Reduction::add;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::sorted) << "--deterministic float sums keep the reference's order";
  l.deterministic = false;
  l.reduction = Reduction::mean;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l.reduction = Reduction::add;
  l.use_init_val = false;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l.use_init_val = true;
  l.block_aggregate = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_block);
  l.block_aggregate = false;
  l.reduction = Reduction::max;
  l.aggregate = true;  // warps of duplicates: k_reduce merges them, the steps would not
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l = nd_launch(std::int64_t{1} << 24, 4, std::int64_t{1} << 23, Reduction::add);  // rows of 4 elements
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce) << "a reduction combines elements, not rows";
}

// The chunks pay only far past L2 and with enough updates to fill sectors.
TEST(CudaPlan, TheChunksAreLeftOutWhereTheyCannotPay) {
  auto l = nd_launch(std::int64_t{1} << 25, 1, std::int64_t{1} << 23, Reduction::none);  // 128 MiB: under 4 L2s
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  l = nd_launch(std::int64_t{1} << 28, 1, std::int64_t{1} << 21, Reduction::none);  // an update per 32 sectors
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  l = nd_launch(std::int64_t{1} << 28, 1, std::int64_t{1} << 23, Reduction::none);  // an update per 4 sectors
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked);
  l.in_place = true;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free) << "in place, only with an update per sector or more";
  l.geometry.u = std::int64_t{1} << 25;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::chunked);
  l.in_place = false;
  l.l2_bytes = 0;  // no device told its L2
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  l = nd_launch(std::int64_t{1} << 28, 1, std::int64_t{1} << 26, Reduction::none);
  l.l2_bytes = 96 << 10;  // 32 KiB chunks: 32768 of them, past kMaxChunks
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  l = nd_launch(std::int64_t{1} << 31, 1, std::int64_t{1} << 29, Reduction::none);  // 64-bit offsets
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::rows_free);
  EXPECT_EQ(cu::chunk_bytes_for(50 << 20), std::int64_t{16} << 20);
  EXPECT_EQ(cu::chunk_bytes_for(60 << 20), std::int64_t{16} << 20);
  EXPECT_EQ(cu::chunk_bytes_for(1 << 10), 256);
  EXPECT_EQ(cu::chunk_bytes_for(64), cu::kChunkMinBytes);
}

// The fuzzed cases CudaBackend.TheChunkedPathPassesFuzzedCasesUnderAPretendL2 runs on a GPU
// (chunked_cases.hpp): enough of them take the chunks, of every unit size, for that test to
// check them.
TEST(CudaPlan, FuzzedCasesReachTheChunksUnderAPretendL2) {
  int by_unit[17] = {};
  int chunked = 0;
  for (std::int64_t i = 0; i < 20000; ++i) {
    const auto c = scatter::testing::load_case(
        scatter::fuzz_case(scatter::testing::kChunkedFuzzSeed, i, scatter::testing::kChunkedFuzzElements));
    if (const auto shape = scatter::testing::chunks_under_pretend_l2(c, scatter::testing::kPretendL2Bytes)) {
      ++by_unit[shape->unit_bytes];
      ++chunked;
    }
  }
  for (const int unit : {1, 2, 4, 8}) EXPECT_GT(by_unit[unit], 5) << unit << "-byte units";
  EXPECT_GE(by_unit[16], 1) << "16-byte rows (rarer in the stream; the emulation runs more)";
  EXPECT_GT(chunked, 600);
}

// The cases CudaBackend.TheChunkedPathPassesMultiBlockCasesUnderAPretendL2 runs on a GPU take
// 256 chunks of 16 KiB, out of place and in place.
TEST(CudaPlan, TheMultiBlockCasesTakeTheChunksUnderAPretendL2) {
  for (const auto& text : scatter::testing::multi_block_chunked_cases()) {
    const auto c = scatter::testing::load_case(text);
    for (const bool in_place : {false, true}) {
      const auto shape = scatter::testing::chunks_under_pretend_l2(c, scatter::testing::kPretendL2BytesMultiBlock, in_place);
      ASSERT_TRUE(shape.has_value()) << (in_place ? "in place: " : "") << text;
      EXPECT_EQ(shape->chunks, 256) << text;
      EXPECT_EQ(std::int64_t{shape->unit_bytes} << shape->shift, 16384) << text;
    }
  }
}

// The float16 merge overflow: 2^17 float16 ones onto one element stall at 2048 one step at
// a time, while a block's merged partial of 63 K reaches inf. So 16-bit float sums never take
// the block tables; float32 sums, and float16 max, still do.
TEST(CudaPlan, SixteenBitFloatSumsNeverMergeInBlockTables) {
  auto launch_for = [](const std::string& dtype, const std::string& reduction) {
    const auto text = R"({"name": "a", "op": "scatter_elements", "reduction": ")" + reduction + R"(",
      "inputs": {"data": {"dtype": ")" + dtype + R"(", "shape": [1], "generate": {"kind": "fill", "value": 0}},
      "indices": {"dtype": "int64", "shape": [131072], "generate": {"kind": "fill", "value": 0}},
      "updates": {"dtype": ")" + dtype + R"(", "shape": [131072], "generate": {"kind": "fill", "value": 1}}}})";
    const auto c = scatter::testing::load_case(text);
    std::string why;
    const auto g = cu::make_geometry(c, why);
    return cu::make_launch(c, *g, scatter::RunFlags{}, 132, 0);
  };
  EXPECT_TRUE(launch_for("float32", "add").block_aggregate);
  EXPECT_FALSE(launch_for("float16", "add").block_aggregate);
  EXPECT_FALSE(launch_for("bfloat16", "mean").block_aggregate);
  EXPECT_TRUE(launch_for("float16", "max").block_aggregate);
  EXPECT_EQ(cu::plan_of(launch_for("float16", "add")).path, cu::Path::reduce);
}

// The small-output contention path: every reduction that merges, past 2^16 updates, onto
// an output whose bins fit the shared memory (1251 float32 elements, 662 float64). Its
// grid comes from the update count alone: the same blocks, so the same partials and
// fold, on a GPU of any size.
TEST(CudaPlan, SmallOutputsUnderContentionTakeTheBins) {
  auto l = nd_launch(1024, 1, std::int64_t{1} << 24, Reduction::add);  // the large suite's nd/contention rows
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins);
  EXPECT_EQ(cu::plan_of(l).launches, 2) << "the ticket's memset, k_reduce_bins";
  EXPECT_EQ(cu::bin_blocks(l.geometry.u), cu::kBinBlocks);
  EXPECT_EQ(cu::bin_blocks(std::int64_t{1} << 16), 16);
  EXPECT_EQ(cu::bin_blocks(1), 1);
  l.sm_count = 16;  // another device: the same plan, and bin_blocks reads no device
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins);
  l.reduction = Reduction::mean;
  l.use_init_val = false;
  EXPECT_EQ(cu::plan_of(l).launches, 5) << "k_identity, the counts' memset, the ticket's, k_reduce_bins, k_mean";
  l.use_init_val = true;
  for (const auto r : {Reduction::sub, Reduction::min, Reduction::max}) {
    l.reduction = r;
    EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins) << scatter::to_string(r);
  }
  l.reduction = Reduction::mul;  // a partial product can overflow where no order of steps does
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l.reduction = Reduction::add;
  l.type = DType::float16;  // merged 16-bit sums overflow (SixteenBitFloatSumsNeverMergeInBlockTables)
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l.type = DType::float32;
  l.deterministic = true;  // the reference's own steps: the sort
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::sorted);
  l.type = DType::int32;  // integer sums are the same bits in any order
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins);
  l.deterministic = false;
  l.type = DType::float32;

  // The shared memory's limit: 1251 float32 bins fit, 1252 do not; float64 half as many.
  l.geometry.n = l.geometry.dshape[0] = 1251;
  EXPECT_LE(cu::bin_shared_bytes(1251, 4), cu::kBinSharedBytes);
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins);
  l.geometry.n = l.geometry.dshape[0] = 1252;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
  l.block_aggregate = true;  // the host's sample saw few targets: the keyed tables
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_block);
  l.block_aggregate = false;
  l.type = DType::float64;
  l.geometry.n = l.geometry.dshape[0] = 662;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce_bins);
  l.geometry.n = l.geometry.dshape[0] = 663;
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);

  // Below 2^16 updates the single-step atomics stay.
  l = nd_launch(100, 1, (std::int64_t{1} << 16) - 1, Reduction::add);
  EXPECT_EQ(cu::plan_of(l).path, cu::Path::reduce);
}

TEST(CudaPlan, FastDivisionEqualsDivision) {
  std::mt19937_64 random(29);
  std::vector<std::uint32_t> divisors;
  for (std::uint32_t d = 1; d <= 4100; ++d) divisors.push_back(d);
  for (int s = 12; s <= 31; ++s) {
    for (const std::int64_t delta : {-1, 0, 1}) {
      if (s < 31 || delta < 1) divisors.push_back(static_cast<std::uint32_t>((std::int64_t{1} << s) + delta));
    }
  }
  for (int k = 0; k < 2000; ++k) divisors.push_back(static_cast<std::uint32_t>(random() % 0x7FFFFFFFu) + 1);
  for (const auto d : divisors) {
    const cu::FastDivide by(d);
    std::vector<std::uint32_t> dividends{0, 1, d - 1, d, d + 1, 0x7FFFFFFFu, 0x7FFFFFFFu - 1};
    for (std::uint32_t m = 1; m < 64; ++m) dividends.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(std::uint64_t{d} * m * 977 - 1, 0x7FFFFFFF)));
    for (int k = 0; k < 32; ++k) dividends.push_back(static_cast<std::uint32_t>(random() % 0x80000000u));
    for (const auto n : dividends) {
      if (n > 0x7FFFFFFFu) continue;
      ASSERT_EQ(by.quotient(n), n / d) << n << " / " << d;
    }
  }
}

// The tile's algorithm on the host, as k_row_tile runs it: groups of shape.rows rows (last
// group first, as any block order may), each copied into a tile; `none` as the largest
// update position per element then that update's write; reductions in update order or
// reversed (shared atomics give any order); counts, identities and means in the tile.
enum class GatherOrder { update, reverse };

template <class T, class IndexT>
Tensor emulate_row_tile(const Case& c, const cu::Launch& l, const cu::TileShape& shape, GatherOrder order) {
  Tensor out = c.data.clone();
  const auto* data = reinterpret_cast<const T*>(c.data.bytes());
  const auto* idx = reinterpret_cast<const IndexT*>(c.indices.bytes());
  const auto* upd = reinterpret_cast<const T*>(c.updates.bytes());
  auto* o = reinterpret_cast<T*>(out.bytes());
  const cu::FastDivide by_row_updates(static_cast<std::uint32_t>(shape.row_updates));
  const Reduction r = l.reduction;
  for (int group = shape.groups - 1; group >= 0; --group) {
    const int row0 = group * shape.rows;
    const int rows = std::min(shape.rows, shape.data_rows - row0);
    const int elements = rows * shape.columns;
    const int base = row0 * shape.columns;
    std::vector<T> tile(data + base, data + base + elements);
    std::vector<int> side(static_cast<std::size_t>(elements), r == Reduction::none ? -1 : 0);
    const int first = row0 * shape.row_updates;
    const int updates = rows * shape.row_updates;
    auto place = [&](int f) {
      const int e = cu::tile_place(static_cast<std::int64_t>(idx[first + f]), shape.columns, by_row_updates, f);
      if (e < 0) throw std::runtime_error("update " + std::to_string(first + f) + " maps outside the tile");
      return e;
    };
    if (r == Reduction::none) {
      for (int f = 0; f < updates; ++f) side[place(f)] = std::max(side[place(f)], f);
      for (int f = updates - 1; f >= 0; --f) {  // the order of the writes does not matter: one per element
        if (side[place(f)] == f) tile[place(f)] = upd[first + f];
      }
    } else {
      const bool counts = r == Reduction::mean || !l.use_init_val;
      if (counts) {
        for (int f = 0; f < updates; ++f) ++side[place(f)];
        if (!l.use_init_val) {
          for (int e = 0; e < elements; ++e) {
            if (side[e] > 0) tile[e] = cu::identity<T>(r);
          }
        }
      }
      for (int k = 0; k < updates; ++k) {
        const int f = order == GatherOrder::update ? k : updates - 1 - k;
        tile[place(f)] = cu::combine(r, tile[place(f)], upd[first + f]);
      }
      if constexpr (!std::is_same_v<T, cu::Bool>) {
        if (r == Reduction::mean) {
          for (int e = 0; e < elements; ++e) {
            if (side[e] > 0) tile[e] = cu::mean_of(tile[e], side[e] + (l.use_init_val ? 1 : 0));
          }
        }
      }
    }
    std::copy(tile.begin(), tile.end(), o + base);
  }
  return out;
}

Tensor emulate_row_tile(const Case& c, const cu::Launch& l, const cu::TileShape& shape, GatherOrder order) {
  return scatter::detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return c.indices.dtype() == DType::int64 ? emulate_row_tile<T, std::int64_t>(c, l, shape, order)
                                             : emulate_row_tile<T, std::int32_t>(c, l, shape, order);
  });
}

const scatter::RunFlags kExactRule{false, true};

// A path's emulation against the reference: bit for bit in update order (`forward`), within
// the comparison's rules in reverse (the case's own `expected` where it has one).
void expect_both_orders(const std::string& what, const Case& c, const Tensor& want, const Tensor& forward,
                        const Tensor& reversed) {
  EXPECT_EQ(scatter::fuzz_verdict(c, forward, want, kExactRule), "") << what;
  const auto cmp = scatter::compare_outputs(c, reversed, c.expected ? *c.expected : want, c.expected.has_value());
  EXPECT_TRUE(cmp.passed) << what << " reversed: " << cmp.mismatches << " of " << cmp.elements << " differ beyond "
                          << cmp.rule;
}

// How many cases took a path: `check` (whether the case took it) over the bundled cases, then
// `fuzzed` cases of the stream `seed` (up to 1024 elements a tensor), up to the first failure.
struct Took {
  int bundled = 0;
  int fuzzed = 0;
};

template <class Check>
Took over_bundled_and_fuzzed(std::uint64_t seed, std::int64_t fuzzed, Check&& check) {
  Took took;
  for (const auto& [what, c] : scatter::testing::bundled_cases()) took.bundled += check(what, c) ? 1 : 0;
  for (std::int64_t i = 0; i < fuzzed && !::testing::Test::HasFailure(); ++i) {
    const auto text = scatter::fuzz_case(seed, i, 1024);
    took.fuzzed += check(text, scatter::testing::load_case(text)) ? 1 : 0;
  }
  return took;
}

// The tile as planned, and with 3 rows a tile (so that groups end mid-tensor and the last
// one is short): bit for bit in update order; in reverse order within the comparison's
// rules. In place and out of place run the same steps (out of place the rows come from
// data, in place from the output, which holds data). Returns whether the case took the tile.
bool check_row_tile(const std::string& what, const Case& c) {
  std::string why;
  const auto g = cu::make_geometry(c, why);
  if (!g) return false;
  scatter::RunFlags flags;
  cu::Launch l = cu::make_launch(c, *g, flags, 1, 0);
  const auto plan = cu::plan_of(l);
  if (plan.path != cu::Path::row_tile) return false;
  const auto want = scatter::reference_scatter(c);
  auto small = plan.tile;
  small.rows = std::min(small.rows, 3);
  small.groups = (small.data_rows + small.rows - 1) / small.rows;
  for (const auto& shape : {plan.tile, small}) {
    const std::string where = what + " (" + std::to_string(shape.rows) + " rows a tile)";
    expect_both_orders(where, c, want, emulate_row_tile(c, l, shape, GatherOrder::update),
                       emulate_row_tile(c, l, shape, GatherOrder::reverse));
  }
  return true;
}

// The gather on the host, as k_update_gather runs it: the winners by the largest i per
// position (update_position, as the kernel), then every output row from gather_source, with
// its chunks copied in the kernel's (row, chunk) order.
Tensor emulate_update_gather(const Case& c, const cu::Geometry& g) {
  Tensor out(c.data.dtype(), c.data.shape());
  std::memset(out.bytes(), 0xA5, out.nbytes());  // garbage: every byte must be written
  const auto element = static_cast<std::size_t>(scatter::info_of(c.data.dtype()).bytes);
  const auto row_bytes = static_cast<std::size_t>(g.slice) * element;
  std::vector<int> winner(static_cast<std::size_t>(g.extent), -1);
  for (int i = 0; i < static_cast<int>(g.count); ++i) {
    const std::int64_t index = c.indices.dtype() == DType::int64 ? c.indices.data<std::int64_t>()[i]
                                                                 : c.indices.data<std::int32_t>()[i];
    const auto e = cu::update_position(g, index);
    if (e < 0) throw std::runtime_error("index " + std::to_string(i) + " outside the axis");
    winner[static_cast<std::size_t>(e)] = std::max(winner[static_cast<std::size_t>(e)], i);
  }
  const auto by_extent = cu::fast_divide_by(g.extent);
  for (int row = 0; row < static_cast<int>(g.n / g.slice); ++row) {
    const int from = cu::gather_source(winner.data(), g, by_extent, row);
    const std::byte* source = from < 0 ? c.data.bytes() + row * row_bytes : c.updates.bytes() + from * row_bytes;
    std::memcpy(out.bytes() + row * row_bytes, source, row_bytes);
  }
  return out;
}

// Every case the planner sends to the gather (sm_count 1, out of place), bit for bit.
bool check_update_gather(const std::string& what, const Case& c) {
  std::string why;
  const auto g = cu::make_geometry(c, why);
  if (!g) return false;
  const cu::Launch l = cu::make_launch(c, *g, scatter::RunFlags{}, 1, 0);
  if (cu::plan_of(l).path != cu::Path::update_gather) return false;
  EXPECT_EQ(scatter::fuzz_verdict(c, emulate_update_gather(c, *g), scatter::reference_scatter(c), kExactRule), "") << what;
  return true;
}

// The fused row copy on the host, as k_mark_rows and k_rows_fused run it: the target rows'
// bitmap, then data's rows outside it, then the update rows (in update order, or reversed:
// free order). Bit for bit in update order; within the comparison's rules reversed.
Tensor emulate_rows_fused(const Case& c, const cu::Geometry& g, bool reversed) {
  Tensor out(c.data.dtype(), c.data.shape());
  std::memset(out.bytes(), 0xA5, out.nbytes());  // garbage: every byte must be written
  const auto element = static_cast<std::size_t>(scatter::info_of(c.data.dtype()).bytes);
  const auto row_bytes = static_cast<std::size_t>(g.slice) * element;
  const auto rows_n = g.n / g.slice;
  const auto rows_u = g.u / g.slice;
  auto target = [&](std::int64_t m) {
    const auto t = c.indices.dtype() == DType::int64 ? cu::row_target_of<int>(g, c.indices.data<std::int64_t>(), static_cast<int>(m))
                                                     : cu::row_target_of<int>(g, c.indices.data<std::int32_t>(), static_cast<int>(m));
    if (t < 0 || t >= rows_n) throw std::runtime_error("update row " + std::to_string(m) + " outside the output");
    return static_cast<std::int64_t>(t);
  };
  std::vector<bool> seen(static_cast<std::size_t>(rows_n), false);
  for (std::int64_t m = 0; m < rows_u; ++m) seen[static_cast<std::size_t>(target(m))] = true;
  for (std::int64_t row = 0; row < rows_n; ++row) {
    if (!seen[static_cast<std::size_t>(row)]) std::memcpy(out.bytes() + row * row_bytes, c.data.bytes() + row * row_bytes, row_bytes);
  }
  for (std::int64_t k = 0; k < rows_u; ++k) {
    const auto m = reversed ? rows_u - 1 - k : k;
    std::memcpy(out.bytes() + target(m) * row_bytes, c.updates.bytes() + m * row_bytes, row_bytes);
  }
  return out;
}

TEST(CudaPlan, TheFusedRowCopyMatchesTheReference) {
  const auto fused = over_bundled_and_fuzzed(37, 2000, [](const std::string& what, const Case& c) {
    std::string why;
    const auto g = cu::make_geometry(c, why);
    if (!g || c.attrs.reduction != Reduction::none || c.attrs.op == Op::scatter_elements || g->u == 0) return false;
    const auto want = scatter::reference_scatter(c);
    expect_both_orders(what, c, want, emulate_rows_fused(c, *g, false), emulate_rows_fused(c, *g, true));
    return true;
  });
  EXPECT_GT(fused.bundled + fused.fuzzed, 300)
      << "bundled and fuzzed slice cases of none (every row size: the emulation does not ask the planner)";
}

// Path::chunked on the host, as its kernels run it with `shape`: the count, each chunk's
// first entry, the partition in tiles of `tile` units (tiles, and the ranks within a tile,
// forward or both reversed: the atomics give any order), then the steps, step j copying
// chunk j (out of place, into a poisoned output; in place the output holds data) and applying
// chunk j - 1's pairs in entry order. A pair that reaches outside chunk j - 1, by its unit or
// by the 4-byte word a 1- or 2-byte element's atomic takes, fails the test: step j copies
// chunk j meanwhile.
template <class T, class IndexT>
Tensor emulate_chunked(const Case& c, const cu::Launch& l, const cu::ChunkShape& shape, std::int64_t tile, GatherOrder order) {
  const auto& g = l.geometry;
  const auto* idx = reinterpret_cast<const IndexT*>(c.indices.bytes());
  const auto unit = static_cast<std::size_t>(shape.unit_bytes);
  const std::int64_t bytes = shape.units * shape.unit_bytes;
  const auto chunks = static_cast<std::size_t>(shape.chunks);
  Tensor out = c.data.clone();
  if (!l.in_place) std::memset(out.bytes(), 0xA5, out.nbytes());
  std::vector<int> target(static_cast<std::size_t>(shape.updates));
  std::vector<unsigned> first(chunks + 1, 0);
  for (std::int64_t m = 0; m < shape.updates; ++m) {
    const int t = cu::unit_target_of<int>(g, idx, static_cast<int>(m));
    if (t < 0 || t >= shape.units) throw std::runtime_error("update unit " + std::to_string(m) + " outside the output");
    target[static_cast<std::size_t>(m)] = t;
    ++first[(static_cast<unsigned>(t) >> shape.shift) + 1];
  }
  for (std::size_t j = 0; j < chunks; ++j) first[j + 1] += first[j];
  std::vector<unsigned> fill(chunks, 0);
  std::vector<unsigned> offset(static_cast<std::size_t>(shape.updates));
  std::vector<std::byte> value(static_cast<std::size_t>(shape.updates) * unit);
  const std::int64_t tiles = (shape.updates + tile - 1) / tile;
  for (std::int64_t k = 0; k < tiles; ++k) {
    const std::int64_t from = (order == GatherOrder::update ? k : tiles - 1 - k) * tile;
    const std::int64_t to = std::min(from + tile, shape.updates);
    std::vector<unsigned> in_tile(chunks, 0);
    std::vector<unsigned> rank(static_cast<std::size_t>(to - from));
    for (std::int64_t q = 0; q < to - from; ++q) {
      const std::int64_t m = order == GatherOrder::update ? from + q : to - 1 - q;
      rank[static_cast<std::size_t>(m - from)] = in_tile[static_cast<unsigned>(target[static_cast<std::size_t>(m)]) >> shape.shift]++;
    }
    for (std::int64_t m = from; m < to; ++m) {
      const auto t = static_cast<unsigned>(target[static_cast<std::size_t>(m)]);
      const unsigned p = first[t >> shape.shift] + fill[t >> shape.shift] + rank[static_cast<std::size_t>(m - from)];
      offset[p] = t & ((1u << shape.shift) - 1u);
      std::memcpy(value.data() + p * unit, c.updates.bytes() + static_cast<std::size_t>(m) * unit, unit);
    }
    for (std::size_t j = 0; j < chunks; ++j) fill[j] += in_tile[j];
  }
  for (int j = 0; j <= shape.chunks; ++j) {
    if (j < shape.chunks && !l.in_place) {
      const auto range = cu::chunk_bytes_of(shape, j, bytes);
      std::memcpy(out.bytes() + range.first, c.data.bytes() + range.first, static_cast<std::size_t>(range.end - range.first));
    }
    if (j == 0) continue;
    const auto applied = cu::chunk_bytes_of(shape, j - 1, bytes);
    for (unsigned p = first[static_cast<std::size_t>(j - 1)]; p < first[static_cast<std::size_t>(j)]; ++p) {
      const std::int64_t at = ((std::int64_t{j} - 1) << shape.shift | offset[p]) * shape.unit_bytes;
      const std::int64_t word = at / 4 * 4;
      if (at < applied.first || at + shape.unit_bytes > applied.end || word < applied.first ||
          (word + 4 > applied.end && applied.end != bytes)) {
        throw std::runtime_error("step " + std::to_string(j) + " applies byte " + std::to_string(at) + " outside chunk " +
                                 std::to_string(j - 1));
      }
      if (l.reduction == Reduction::none) {
        std::memcpy(out.bytes() + at, value.data() + p * unit, unit);
      } else {
        T now;
        T v;
        std::memcpy(&now, out.bytes() + at, sizeof(T));
        std::memcpy(&v, value.data() + p * unit, sizeof(T));
        now = cu::combine(l.reduction, now, v);
        std::memcpy(out.bytes() + at, &now, sizeof(T));
      }
    }
  }
  return out;
}

Tensor emulate_chunked(const Case& c, const cu::Launch& l, const cu::ChunkShape& shape, std::int64_t tile, GatherOrder order) {
  return scatter::detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return c.indices.dtype() == DType::int64 ? emulate_chunked<T, std::int64_t>(c, l, shape, tile, order)
                                             : emulate_chunked<T, std::int32_t>(c, l, shape, tile, order);
  });
}

// Every case Path::chunked could run (chunked_unit_bytes: the sizes aside), out of place and in
// place, with chunks of 16 and 64 bytes (many per case, the last one short) and tiles of 5
// and 2048 units: bit for bit forward (the runs keep update order, so the last writer wins and
// each target reduces in the reference's order); reversed, within the comparison's rules.
// Returns whether the case could take the path.
bool check_chunked(const std::string& what, const Case& c) {
  std::string why;
  const auto g = cu::make_geometry(c, why);
  if (!g) return false;
  const auto want = scatter::reference_scatter(c);
  bool took = false;
  for (const bool in_place : {false, true}) {
    scatter::RunFlags flags;
    flags.in_place = in_place;
    cu::Launch l = cu::make_launch(c, *g, flags, 1, 0);
    const int unit = cu::chunked_unit_bytes(l);
    if (unit == 0) return false;
    took = true;
    const std::int64_t per_unit = unit / scatter::info_of(l.type).bytes;
    for (const std::int64_t chunk_bytes : {16, 64}) {
      const auto shape = cu::chunk_shape(g->n / per_unit, g->u / per_unit, unit, chunk_bytes);
      if (shape.chunks > cu::kMaxChunks) continue;
      for (const std::int64_t tile : {5, 2048}) {
        const std::string where = what + (in_place ? " in place" : "") + ", chunks of " + std::to_string(chunk_bytes) +
                                  " bytes, tiles of " + std::to_string(tile);
        expect_both_orders(where, c, want, emulate_chunked(c, l, shape, tile, GatherOrder::update),
                           emulate_chunked(c, l, shape, tile, GatherOrder::reverse));
      }
    }
  }
  return took;
}

TEST(CudaPlan, TheChunkedPathMatchesTheReferenceOnBundledAndFuzzedCases) {
  int chunked = 0;
  int by_unit[17] = {};
  for (const auto& [what, c] : scatter::testing::bundled_cases()) chunked += check_chunked(what, c);
  EXPECT_GT(chunked, 100) << "the bundled cases of none and of the one-step reductions";
  for (std::int64_t i = 0; i < 2000 && !::testing::Test::HasFailure(); ++i) {
    const auto text = scatter::fuzz_case(41, i, 1024);
    const auto c = scatter::testing::load_case(text);
    if (check_chunked(text, c)) {
      ++chunked;
      std::string why;
      const auto g = cu::make_geometry(c, why);
      ++by_unit[cu::chunked_unit_bytes(cu::make_launch(c, *g, scatter::RunFlags{}, 1, 0))];
    }
  }
  for (const int unit : {1, 2, 4, 8, 16}) EXPECT_GT(by_unit[unit], 5) << "fuzzed cases of " << unit << "-byte units";
}

// Path::tiny on the host, as k_tiny runs it: data copied, then each update element stored
// where target_of (the 32-bit path) sends it, in update order or reversed (the block's
// threads store in any order).
template <class IndexT>
Tensor emulate_tiny(const Case& c, const cu::Geometry& g, GatherOrder order) {
  Tensor out = c.data.clone();
  const auto* idx = reinterpret_cast<const IndexT*>(c.indices.bytes());
  const auto element = static_cast<std::size_t>(scatter::info_of(c.data.dtype()).bytes);
  for (int k = 0; k < static_cast<int>(g.u); ++k) {
    const int f = order == GatherOrder::update ? k : static_cast<int>(g.u) - 1 - k;
    const int o = cu::target_of<int>(g, idx, f);
    if (o < 0 || o >= g.n) throw std::runtime_error("update " + std::to_string(f) + " outside the output");
    std::memcpy(out.bytes() + static_cast<std::size_t>(o) * element, c.updates.bytes() + static_cast<std::size_t>(f) * element,
                element);
  }
  return out;
}

// Every bundled and fuzzed case the planner sends to Path::tiny: bit for bit in update order,
// within the comparison's rules reversed.
TEST(CudaPlan, TheTinyPathMatchesTheReference) {
  const auto tiny = over_bundled_and_fuzzed(43, 2000, [](const std::string& what, const Case& c) {
    std::string why;
    const auto g = cu::make_geometry(c, why);
    if (!g || cu::plan_of(cu::make_launch(c, *g, scatter::RunFlags{}, 1, 0)).path != cu::Path::tiny) return false;
    auto emulate = [&](GatherOrder order) {
      return c.indices.dtype() == DType::int64 ? emulate_tiny<std::int64_t>(c, *g, order)
                                               : emulate_tiny<std::int32_t>(c, *g, order);
    };
    expect_both_orders(what, c, scatter::reference_scatter(c), emulate(GatherOrder::update), emulate(GatherOrder::reverse));
    return true;
  });
  EXPECT_GT(tiny.bundled, 50) << "the bundled none cases that the row tile and the gather leave";
  EXPECT_GT(tiny.bundled + tiny.fuzzed, 300);
}

TEST(CudaPlan, TheRowTileMatchesTheReferenceOnBundledCases) {
  int tiled = 0;
  for (const auto& [what, c] : scatter::testing::bundled_cases()) tiled += check_row_tile(what, c);
  EXPECT_GT(tiled, 40) << "the bundled scatter_elements cases along the last axis";
}

TEST(CudaPlan, TheGatherMatchesTheReferenceOnBundledAndFuzzedCases) {
  const auto gathered = over_bundled_and_fuzzed(31, 3000, check_update_gather);
  EXPECT_GT(gathered.bundled, 10) << "the bundled scatter_update cases";
  EXPECT_GT(gathered.bundled + gathered.fuzzed, 200) << "fuzzed scatter_update cases";
}

TEST(CudaPlan, TheRowTileMatchesTheReferenceOnFuzzedCases) {
  int tiled = 0;
  int by_reduction[std::size(scatter::kReductions)] = {};
  for (std::int64_t i = 0; i < 3000; ++i) {
    const auto text = scatter::fuzz_case(29, i, 1024);
    const auto c = scatter::testing::load_case(text);
    if (check_row_tile(text, c)) {
      ++tiled;
      ++by_reduction[static_cast<int>(c.attrs.reduction)];
    }
    if (::testing::Test::HasFailure()) break;  // one case's text, not hundreds
  }
  EXPECT_GT(tiled, 100);
  for (const auto r : scatter::kReductions) {
    if (scatter::op_allows(Op::scatter_elements, r)) EXPECT_GT(by_reduction[static_cast<int>(r)], 5) << scatter::to_string(r);
  }
}

}  // namespace
