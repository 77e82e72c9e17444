#pragma once
// The launch's choices and the path they lead to, in plain C++: the backend decides from
// the case (make_launch), the kernels follow plan_of, and the CPU tests check both and
// count each path's launches without a GPU. docs/cuda.md describes every path.

#include <algorithm>
#include <cstdint>
#include <optional>

#include "geometry.hpp"
#include "sorted_runs.hpp"
#include "scatter/backend.hpp"

namespace scatter::cuda {

struct Launch {
  Geometry geometry;
  DType type = DType::float32;
  bool index64 = true;
  Reduction reduction = Reduction::none;
  bool use_init_val = true;
  bool deterministic = false;
  bool in_place = false;   ///< the output already holds data (else the op copies it, or its path reads data)
  bool aggregate = false;  ///< combine a warp's duplicates before the atomic (see warp_duplicates_likely)
  /// aggregate per block in shared memory, one atomic per target per block (k_reduce_block;
  /// see few_targets_likely and may_block_aggregate)
  bool block_aggregate = false;
  /// add/sub/mean through the native atomic: float32 where every summand passes
  /// f32_native_add_exact, float16/bfloat16 (packed pairs) where data has no NaN; else CAS.
  bool native_add = true;
  int sm_count = 1;
  std::int64_t l2_bytes = 0;  ///< the device's L2 cache; 0 (unknown) rules out Path::chunked
};

/// The launch's choices for a case: the geometry, the flags, and what the host's scans of
/// indices and values decide (contention, warp duplicates, the native adds).
inline Launch make_launch(const Case& c, const Geometry& geometry, const RunFlags& flags, int sm_count,
                          std::int64_t l2_bytes) {
  Launch launch;
  launch.geometry = geometry;
  launch.type = c.data.dtype();
  launch.index64 = c.indices.dtype() == DType::int64;
  launch.reduction = c.attrs.reduction;
  launch.use_init_val = c.attrs.use_init_val;
  launch.deterministic = flags.deterministic;
  launch.in_place = flags.in_place;
  launch.sm_count = sm_count;
  launch.l2_bytes = l2_bytes;
  // Contention: per-block aggregation where the reduction merges and the sample shows few
  // targets (free order only for the order-dependent floats: --deterministic sorts).
  const bool sorts = launch.deterministic && is_order_dependent(launch.reduction, launch.type);
  if (!sorts && may_block_aggregate(launch.reduction, launch.type)) {
    launch.block_aggregate = launch.index64 ? few_targets_likely(geometry, c.indices.data<std::int64_t>())
                                            : few_targets_likely(geometry, c.indices.data<std::int32_t>());
  }
  if (may_aggregate(launch.reduction, launch.type) || launch.block_aggregate) {
    launch.aggregate = launch.index64 ? warp_duplicates_likely(geometry, c.indices.data<std::int64_t>())
                                      : warp_duplicates_likely(geometry, c.indices.data<std::int32_t>());
  }
  const bool adds = launch.reduction == Reduction::add || launch.reduction == Reduction::sub ||
                    launch.reduction == Reduction::mean;
  if (launch.type == DType::float32 && adds) launch.native_add = f32_native_add_exact(c);
  const bool half = launch.type == DType::float16 || launch.type == DType::bfloat16;
  if (half && adds) launch.native_add = !half_nan_in(c.data);
  return launch;
}

/// The kernels' paths (docs/cuda.md, "Kernels").
enum class Path {
  nothing,          ///< no updates: the output is data
  tiny,             ///< `none` in free order out of place, a few KiB: k_tiny copies data and stores the updates in one block, one launch
  row_tile,         ///< scatter_elements along a contiguous last axis: k_row_tile, one launch
  update_gather,    ///< scatter_update with a small axis, out of place: k_update_gather, each output row read once from its winner or data
  rows_fused,       ///< the slice ops' `none`, free order, out of place, rows of 128 bytes or more: mark the target rows, then one launch copies data's other rows and the update rows
  chunked,          ///< free order, element or short-row targets over an output of several L2s: the updates partitioned by L2-sized chunks of the output, then each chunk copied and its updates applied while it is in L2
  elements_free,    ///< element `none`, free order: k_scatter_free, plain stores (duplicates: any candidate)
  rows_free,        ///< the slice ops' `none`, free order: k_row_direct copies the rows, nothing more
  elements_direct,  ///< element `none` under --deterministic: k_write_direct, then the winner passes (last writer)
  rows_direct,      ///< the slice ops' `none` under --deterministic: k_row_direct, then the row winner passes
  reduce,           ///< one atomic per update (k_reduce), warp-merged where that is exact
  reduce_block,     ///< contention: per-block shared tables (k_reduce_block)
  reduce_bins,      ///< contention on a small output: a bin per element and warp in shared memory, the blocks' partials folded in block order by the last block (k_reduce_bins)
  sorted,           ///< --deterministic float add/sub/mul/mean: keys, CUB's stable sort, the run levels
};

/// The row tile's shape: whole rows of data in shared memory, `rows` of them per block
/// iteration, with an int beside each element where the path needs one (`none`'s winner,
/// mean's count, use_init_val = false's hits).
struct TileShape {
  int rows = 0;
  int columns = 0;                 ///< data.shape[-1]
  int data_rows = 0;               ///< n / columns
  int row_updates = 0;             ///< updates.shape[-1]
  int groups = 0;                  ///< data_rows / rows, rounded up: the blocks' iterations in all
  bool side = false;
  std::size_t value_bytes = 0;     ///< rows x columns elements, rounded up to 16 bytes
  std::size_t shared_bytes = 0;    ///< value_bytes + the side ints
};

/// At most this many bytes of values and this many elements per tile, so that a block
/// takes at most 32 KiB of shared memory (and 1 KiB the system reserves): 6 blocks of 256
/// threads fit an H100's 228 KiB.
inline constexpr std::int64_t kTileValueBytes = 16384;
inline constexpr std::int64_t kTileElements = 4096;

struct Plan {
  Path path = Path::nothing;
  int launches = 0;          ///< stream operations enqueue_scatter makes: kernels, memsets, CUB's sort as one
  bool fuses_copy = false;   ///< out of place, the path reads data itself: the backend copies nothing first
  TileShape tile;            ///< Path::row_tile only
  ChunkShape chunks;         ///< Path::chunked only
};

inline bool uses_sort(const Launch& l) { return l.deterministic && is_order_dependent(l.reduction, l.type); }

/// Below this many updates a case may take the row tile with fewer tiles than SMs: one
/// block applies them in at most 64 steps of its 256 threads, cheaper than the direct
/// paths' five stream operations. (And the small bundled cases reach the tile on a GPU.)
inline constexpr std::int64_t kTileFewUpdates = 16384;

/// The row tile, where the case fits it: scatter_elements along the last axis (its fibre
/// is contiguous), indices covering every leading dim of data (update row q is data row q,
/// so no division maps them), 32-bit offsets, a row that fits a tile, and at least as many
/// tiles as SMs unless the updates are few (a single long row would leave all but one SM
/// idle: contention takes the block tables). In place, only with about one update per
/// 32-byte sector of data or more: the tile reads and writes every row (every row has
/// updates), 2 n e bytes, where the atomics touch a sector per update. Not for the
/// order-dependent floats under --deterministic, which sort.
inline std::optional<TileShape> row_tile_for(const Launch& l) {
  const auto& g = l.geometry;
  if (g.u == 0 || g.op != Op::scatter_elements || g.rank < 1 || g.axis != g.rank - 1 || uses_sort(l) || !offsets_fit_32(g)) {
    return std::nullopt;
  }
  for (int d = 0; d + 1 < g.rank; ++d) {
    if (g.ushape[d] != g.dshape[d]) return std::nullopt;
  }
  const std::int64_t columns = g.extent;
  const std::int64_t element = info_of(l.type).bytes;
  const std::int64_t capacity = std::min(kTileElements, kTileValueBytes / element);
  if (columns < 1 || columns > capacity) return std::nullopt;
  if (l.in_place && g.u * 32 < g.n * element) return std::nullopt;
  TileShape t;
  t.columns = static_cast<int>(columns);
  t.rows = static_cast<int>(capacity / columns);
  t.data_rows = static_cast<int>(g.n / columns);
  t.row_updates = static_cast<int>(g.ushape[g.rank - 1]);
  t.groups = (t.data_rows + t.rows - 1) / t.rows;
  if (t.groups < l.sm_count && g.u > kTileFewUpdates) return std::nullopt;
  t.side = l.reduction == Reduction::none || l.reduction == Reduction::mean || !l.use_init_val;
  const auto elements = static_cast<std::size_t>(t.rows) * static_cast<std::size_t>(t.columns);
  t.value_bytes = (elements * static_cast<std::size_t>(element) + 15) / 16 * 16;
  t.shared_bytes = t.value_bytes + (t.side ? elements * sizeof(int) : 0);
  return t;
}

/// ScatterUpdate as a gather (Path::update_gather): every block keeps the winner of each
/// position of the axis (an int each, in shared memory) and reads the whole index tensor.
inline constexpr std::int64_t kGatherExtent = 8192;
inline constexpr std::int64_t kGatherIndices = 65536;

/// Whether scatter_update takes the gather: out of place (it writes every output row once,
/// from its winning update row or from data: the copy fused in; in place the row copy
/// writes only the update rows), an axis of at most kGatherExtent positions, at most
/// kGatherIndices indices, 32-bit offsets. Exact last-writer-wins, so --deterministic too.
/// And only where the blocks' reads of the index tensor (all of it, every block) stay
/// within 4 times the 16-byte chunks they copy: one outer row of 8192 positions and 65536
/// indices would read 134 MB of indices to move 2 MB.
inline bool update_gather_fits(const Launch& l) {
  const auto& g = l.geometry;
  if (g.op != Op::scatter_update || l.reduction != Reduction::none || l.in_place || g.u == 0 || g.extent < 1 ||
      g.extent > kGatherExtent || g.count > kGatherIndices || !offsets_fit_32(g)) {
    return false;
  }
  const std::int64_t chunks = (g.n * info_of(l.type).bytes + 15) / 16;
  const std::int64_t blocks = std::min<std::int64_t>((chunks + 255) / 256, std::int64_t{32} * l.sm_count);
  return g.count * blocks <= 4 * chunks;
}

/// At most this many data elements and update elements for Path::tiny: one block of 256
/// threads copies and stores them in 8 steps each, where the copy and a direct kernel are
/// two stream operations of a few microseconds each.
inline constexpr std::int64_t kTinyElements = 2048;

/// Whether a launch takes Path::tiny: `none` in free order (a duplicate keeps any candidate),
/// out of place (in place the direct kernels are one launch already), a few KiB.
inline bool tiny_fits(const Launch& l) {
  const auto& g = l.geometry;
  return l.reduction == Reduction::none && !l.deterministic && !l.in_place && g.n <= kTinyElements &&
         g.u <= kTinyElements;
}

/// The slice ops' rows at least this long, out of place, copy data's rows only where no
/// update row lands (Path::rows_fused): the bitmap of target rows costs a bit a row.
inline constexpr std::int64_t kFusedRowBytes = 128;

inline bool rows_fused_fit(const Launch& l) {
  const auto& g = l.geometry;
  const std::int64_t row_bytes = g.slice * info_of(l.type).bytes;
  return g.op != Op::scatter_elements && l.reduction == Reduction::none && !l.deterministic && !l.in_place &&
         row_bytes >= kFusedRowBytes && g.n + g.u <= kOffsetLimit32 && offsets_fit_32(g);  // data's and the updates' chunks in one int range
}

/// Path::chunked (docs/cuda.md). Where every update writes a 32-byte sector of its own in an
/// output far past L2, the direct paths run at the device's random-sector rate (a partial
/// sector costs a read and a write of DRAM) whatever the kernel. Partitioned by chunks of
/// the output, the updates of one chunk meet it in L2: each line goes back to DRAM once.
/// A chunk is the largest power of two of bytes at most a third of L2 (two are in flight:
/// the step that copies one stores the previous one's updates), at least kChunkMinBytes:
/// whole 16-byte vectors for the steps' copy and whole 4-byte words for the atomics of 1-
/// and 2-byte elements. (Only a pretend L2, SCATTER_CUDA_L2_BYTES, makes chunks that small.)
inline constexpr std::int64_t kChunkMinBytes = 64;
/// At most this many chunks: the count and partition keep a counter per chunk in shared memory.
inline constexpr int kMaxChunks = 1024;
/// Only outputs of at least this many L2s: below, the direct paths' sectors mostly stay in L2.
inline constexpr std::int64_t kChunkedOutputPerL2 = 4;
/// Only with at least one update unit per this many 32-byte sectors of output: the chunks
/// copy the whole output and read the indices twice, which pays only where the direct paths
/// would write that many sectors at the random-sector rate. In place, one per sector: the
/// direct paths have no copy there, the chunks still read the output (about break-even at
/// one per 4 sectors).
inline constexpr std::int64_t kChunkedSectorsPerUpdate = 4;
inline constexpr std::int64_t kChunkedSectorsPerUpdateInPlace = 1;

inline std::int64_t chunk_bytes_for(std::int64_t l2_bytes) {
  std::int64_t bytes = kChunkMinBytes;
  while (bytes * 2 <= l2_bytes / 3) bytes *= 2;
  return bytes;
}

/// The shape for an output of `units` units of `unit_bytes` (a power of two, at most 16) in
/// chunks of `chunk_bytes` (a power of two, at least 16).
inline ChunkShape chunk_shape(std::int64_t units, std::int64_t updates, int unit_bytes, std::int64_t chunk_bytes) {
  ChunkShape s;
  s.unit_bytes = unit_bytes;
  while ((std::int64_t{unit_bytes} << (s.shift + 1)) <= chunk_bytes) ++s.shift;
  s.units = units;
  s.updates = updates;
  s.chunks = static_cast<int>(std::min<std::int64_t>((units + (std::int64_t{1} << s.shift) - 1) >> s.shift, kMaxChunks + 1));
  return s;
}

/// The unit Path::chunked would move for a launch, in bytes, or 0 where it cannot run it
/// whatever the sizes. `none` moves an element (scatter_elements) or a whole row of 1, 2,
/// 4, 8 or 16 bytes (the slice ops), in free order: a duplicate keeps any of its candidates.
/// A reduction combines elements, so only where an update is one (slice 1); --deterministic
/// only where the atomics give the same bits in every order (else it sorts); not mean or
/// use_init_val = false (both need a pass over every target before the reduction), nor
/// contention (the block tables merge in shared memory). 32-bit offsets only.
inline int chunked_unit_bytes(const Launch& l) {
  const auto& g = l.geometry;
  if (g.u == 0 || !offsets_fit_32(g)) return 0;
  const std::int64_t element = info_of(l.type).bytes;
  if (l.reduction == Reduction::none) {
    if (l.deterministic) return 0;
    if (g.op == Op::scatter_elements) return static_cast<int>(element);
    const std::int64_t row = g.slice * element;
    return row == 1 || row == 2 || row == 4 || row == 8 || row == 16 ? static_cast<int>(row) : 0;
  }
  // Not where the warp merge pays (k_reduce: duplicates within warps), which the steps lack.
  if (uses_sort(l) || l.reduction == Reduction::mean || !l.use_init_val || l.block_aggregate || l.aggregate) return 0;
  return g.op == Op::scatter_elements || g.slice == 1 ? static_cast<int>(element) : 0;
}

/// Whether a launch takes Path::chunked, and its shape: a unit it can move
/// (chunked_unit_bytes), an output of kChunkedOutputPerL2 L2s or more with an update unit per
/// kChunkedSectorsPerUpdate sectors (in place, per sector), at most kMaxChunks chunks.
inline std::optional<ChunkShape> chunked_for(const Launch& l) {
  const auto& g = l.geometry;
  const int unit = chunked_unit_bytes(l);
  if (unit == 0 || l.l2_bytes <= 0) return std::nullopt;
  const std::int64_t output_bytes = g.n * info_of(l.type).bytes;
  const std::int64_t per_unit = unit / info_of(l.type).bytes;
  const std::int64_t updates = g.u / per_unit;
  const std::int64_t sectors_per_update = l.in_place ? kChunkedSectorsPerUpdateInPlace : kChunkedSectorsPerUpdate;
  if (output_bytes / kChunkedOutputPerL2 < l.l2_bytes || updates * 32 * sectors_per_update < output_bytes) {
    return std::nullopt;
  }
  const ChunkShape shape = chunk_shape(g.n / per_unit, updates, unit, chunk_bytes_for(l.l2_bytes));
  if (shape.chunks > kMaxChunks) return std::nullopt;
  return shape;
}

/// Path::reduce_bins: the reductions that merge (may_block_aggregate), with at least
/// kBlockAggregateMinUpdates updates onto an output small enough for a bin per element in
/// every warp (bin_shared_bytes): at least 52 updates an element on average, so contention
/// is certain and no sample is needed. The order-dependent floats under --deterministic
/// sort instead: the bins repeat from run to run, but only the sort gives the reference's
/// own steps.
inline bool bins_fit(const Launch& l) {
  const auto& g = l.geometry;
  return !uses_sort(l) && may_block_aggregate(l.reduction, l.type) && g.u >= kBlockAggregateMinUpdates &&
         bin_shared_bytes(g.n, info_of(l.type).bytes) <= kBinSharedBytes;
}

/// The path a launch takes and the stream operations it makes. The one place the kernels'
/// dispatch (kernels.cu) and the backend's copy (cuda_backend.cpp) decide from.
inline Plan plan_of(const Launch& l) {
  const auto& g = l.geometry;
  Plan p;
  if (g.u == 0) return p;
  if (const auto tile = row_tile_for(l)) {
    p.path = Path::row_tile;
    p.tile = *tile;
    p.launches = 1;
    p.fuses_copy = !l.in_place;
    return p;
  }
  if (update_gather_fits(l)) {
    p.path = Path::update_gather;
    p.launches = 1;
    p.fuses_copy = true;
    return p;
  }
  if (tiny_fits(l)) {
    p.path = Path::tiny;
    p.launches = 1;
    p.fuses_copy = true;
    return p;
  }
  if (rows_fused_fit(l)) {
    p.path = Path::rows_fused;
    p.launches = 3;  // the bitmap's memset, k_mark_rows, k_rows_fused
    p.fuses_copy = true;
    return p;
  }
  if (const auto shape = chunked_for(l)) {
    p.path = Path::chunked;
    p.chunks = *shape;
    p.launches = 3 + shape->chunks + 1;  // the counters' memset, k_chunk_count, k_chunk_partition, the steps
    p.fuses_copy = !l.in_place;
    return p;
  }
  if (l.reduction == Reduction::none) {
    // Free order: a duplicate target gets one of its candidates (the spec's comparison), as
    // torch, onnxruntime and JAX do. --deterministic: the last writer, as the reference.
    const bool elements = g.op == Op::scatter_elements;
    if (!l.deterministic) {
      p.path = elements ? Path::elements_free : Path::rows_free;
      p.launches = 1;
      return p;
    }
    p.path = elements ? Path::elements_direct : Path::rows_direct;
    p.launches = 5;  // the bitmap's memset, the direct kernel, three winner kernels
    return p;
  }
  const int identity = l.use_init_val ? 0 : 1;  // k_identity
  if (uses_sort(l)) {
    p.path = Path::sorted;
    p.launches = identity + 3 + (run_levels(g.u, kRunChunk, kSerialRun) - 1);  // k_keys, the sort, k_runs_first, k_runs_next
    return p;
  }
  const int mean = l.reduction == Reduction::mean ? 2 : 0;  // the counts' memset, k_mean
  if (bins_fit(l)) {
    p.path = Path::reduce_bins;
    p.launches = identity + 2 + mean;  // the fold's ticket memset, k_reduce_bins
    return p;
  }
  p.path = l.block_aggregate ? Path::reduce_block : Path::reduce;
  p.launches = identity + 1 + mean;
  return p;
}

}  // namespace scatter::cuda
