#pragma once
// What one thread does for one update element, as __host__ __device__ functions of
// plain integers and bits, so that the CPU tests compile this header with g++ and
// check it against the reference (tests/test_cuda_elements.cpp). No CUDA headers.
// Ops, reductions and dtypes are the library's own (scatter/vocabulary.hpp).

#include <cstdint>

#include "core/reduce_step.hpp"

namespace scatter::cuda {

/// Device ranks above this are refused by the backend (the reference has no limit).
inline constexpr int kMaxDeviceRank = 16;

/// Division by a divisor fixed for a whole launch, as a multiply-high, an add and a shift
/// (the magic numbers of Granlund and Montgomery, as PyTorch's IntDivider has them): a
/// runtime 32-bit division is a sequence of 20 or more instructions, this is three. Exact
/// for every dividend below 2^31 and every divisor from 1 to 2^31.
struct FastDivide {
  std::uint32_t divisor = 1;
  std::uint32_t magic = 0;
  std::uint32_t shift = 0;

  FastDivide() = default;
  explicit FastDivide(std::uint32_t d) : divisor(d) {  // 1 <= d <= 2^31
    while ((std::uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<std::uint32_t>(((std::uint64_t{1} << 32) * ((std::uint64_t{1} << shift) - d)) / d + 1);
  }
  SCATTER_HD std::uint32_t quotient(std::uint32_t n) const {
    const auto high = static_cast<std::uint32_t>((static_cast<std::uint64_t>(n) * magic) >> 32);
    return (high + n) >> shift;  // n < 2^31 and high <= n: no overflow
  }
};

/// Division by a shape's value where the kernels divide by it: only the 32-bit path uses it,
/// where every such value is at most 2^31 (values outside [1, 2^31] never reach a kernel).
inline FastDivide fast_divide_by(std::int64_t v) {
  return FastDivide(v >= 1 && v <= (std::int64_t{1} << 31) ? static_cast<std::uint32_t>(v) : 1u);
}

/// Shapes and strides passed to kernels by value: no per-call metadata copies.
struct Geometry {
  Op op = Op::scatter_elements;
  int rank = 0;          ///< rank of data
  int axis = 0;
  int k = 0;             ///< scatter_nd tuple length
  std::int64_t n = 0;    ///< data elements
  std::int64_t u = 0;    ///< update elements
  std::int64_t slice = 1;  ///< scatter_nd: prod(data.shape[k:]); scatter_update: prod(data.shape[axis+1:])
  std::int64_t extent = 0;  ///< scatter_update: data.shape[axis]; scatter_elements: data.shape[axis]
  std::int64_t count = 0;   ///< scatter_update: numel(indices); tensor_scatter: the sequence length
  std::int64_t per_batch = 1;  ///< tensor_scatter: prod(data.shape[1:axis]), rows of blocks per write position
  bool circular = false;       ///< tensor_scatter: mode circular
  std::int64_t ushape[kMaxDeviceRank] = {};   ///< scatter_elements: updates' shape
  std::int64_t dshape[kMaxDeviceRank] = {};   ///< data's shape
  std::int64_t ostride[kMaxDeviceRank] = {};  ///< data's row-major strides
  // The 32-bit path divides by these with a multiply-high (make_geometry fills them).
  FastDivide by_ushape[kMaxDeviceRank];  ///< scatter_elements: by ushape[d]
  FastDivide by_slice;                   ///< the slice ops: by slice
  FastDivide by_count;                   ///< scatter_update, tensor_scatter: by count
  FastDivide by_per_batch;               ///< tensor_scatter: by per_batch
};

/// n / d: by FastDivide `by` (made for d) on the 32-bit path (Off int, where n < 2^31),
/// by the hardware's division on the 64-bit one.
template <class Off>
SCATTER_HD Off quotient(Off n, Off d, const FastDivide& by) {
  if constexpr (sizeof(Off) == 4) {
    return static_cast<Off>(by.quotient(static_cast<std::uint32_t>(n)));
  } else {
    return n / d;
  }
}

/// An index as the case wrote it, made non-negative against `extent`.
SCATTER_HD std::int64_t normalize(std::int64_t v, std::int64_t extent) { return v < 0 ? v + extent : v; }

/// scatter_update: the position along the axis an index names, or -1 when out of range
/// (OpenVINO's ScatterUpdate takes no negative indices).
SCATTER_HD std::int64_t update_position(const Geometry& g, std::int64_t index) {
  return index < 0 || index >= g.extent ? -1 : index;
}

/// For the slice ops (scatter_nd, scatter_update, tensor_scatter): the output row (of g.slice
/// elements) that update row `m` lands in, or -1 when an index is out of range.
/// Off is the offset arithmetic: int when every offset of the case fits (the fast
/// path: 32-bit division), std::int64_t otherwise. Indices are checked in 64 bits.
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off row_target_of(const Geometry& g, const IndexT* idx, Off m) {
  if (g.op == Op::scatter_nd) {
    // Row-major position of the tuple in data.shape[:k] (its offset divided by the slice).
    Off row = 0;
    for (int c = 0; c < g.k; ++c) {
      const std::int64_t v = normalize(static_cast<std::int64_t>(idx[m * g.k + c]), g.dshape[c]);
      if (v < 0 || v >= g.dshape[c]) return -1;
      row = row * static_cast<Off>(g.dshape[c]) + static_cast<Off>(v);
    }
    return row;
  }
  // scatter_update: update row m = (outer, i) goes to data row (outer, indices[i]).
  const Off count = static_cast<Off>(g.count);
  const Off outer = quotient(m, count, g.by_count);
  const Off i = m - outer * count;
  if (g.op == Op::tensor_scatter) {
    // Sequence row i of block `outer` goes to the block's row w + i (circular: modulo extent).
    const std::int64_t w = static_cast<std::int64_t>(idx[quotient(outer, static_cast<Off>(g.per_batch), g.by_per_batch)]);
    if (w < 0) return -1;
    std::int64_t at = (g.circular ? w % g.extent : w) + static_cast<std::int64_t>(i);
    if (g.circular && at >= g.extent) at -= g.extent;
    if (at >= g.extent) return -1;
    return outer * static_cast<Off>(g.extent) + static_cast<Off>(at);
  }
  const std::int64_t v = update_position(g, static_cast<std::int64_t>(idx[i]));
  return v < 0 ? Off{-1} : outer * static_cast<Off>(g.extent) + static_cast<Off>(v);
}

/// target_of for scatter_elements alone (k_scatter_free, which only that op reaches).
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off element_target_of(const Geometry& g, const IndexT* idx, Off u) {
  // Peel u's row-major coordinates in the updates' shape from the last dim.
  Off rest = u;
  Off o = 0;
  for (int d = g.rank - 1; d >= 0; --d) {
    const Off extent = static_cast<Off>(g.ushape[d]);
    const Off next = quotient(rest, extent, g.by_ushape[d]);
    const Off c = rest - next * extent;
    rest = next;
    if (d == g.axis) {
      const std::int64_t v = normalize(static_cast<std::int64_t>(idx[u]), g.extent);
      if (v < 0 || v >= g.extent) return -1;
      o += static_cast<Off>(v) * static_cast<Off>(g.ostride[d]);
    } else {
      o += c * static_cast<Off>(g.ostride[d]);
    }
  }
  return o;
}

/// The output offset update element `u` targets, or -1 when an index is out of range
/// (the device-side guard: the host checked already, the kernel still never writes).
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off target_of(const Geometry& g, const IndexT* idx, Off u) {
  if (g.op == Op::scatter_elements) return element_target_of<Off>(g, idx, u);
  const Off slice = static_cast<Off>(g.slice);  // u exists, so slice > 0
  const Off m = quotient(u, slice, g.by_slice);
  const Off row = row_target_of<Off>(g, idx, m);
  return row < 0 ? Off{-1} : row * slice + (u - m * slice);
}

/// Path::row_tile: where update `f` of a tile's group lands in the tile (rows of `columns`
/// elements, `by_row_updates` updates per row): its row, f / row_updates, times the row
/// length, plus the column its index names; -1 when the index is out of range.
SCATTER_HD int tile_place(std::int64_t index, int columns, const FastDivide& by_row_updates, int f) {
  const std::int64_t column = normalize(index, columns);
  if (column < 0 || column >= columns) return -1;
  return static_cast<int>(by_row_updates.quotient(static_cast<std::uint32_t>(f))) * columns + static_cast<int>(column);
}

/// Path::update_gather: the update row that output row `row` (outer x extent + position)
/// copies, or -1 for data's row. `winner[position]` is the largest i with indices[i] naming
/// that position (-1: none), so the row of update (outer, winner) is the last writer.
SCATTER_HD int gather_source(const int* winner, const Geometry& g, const FastDivide& by_extent, int row) {
  const int outer = static_cast<int>(by_extent.quotient(static_cast<std::uint32_t>(row)));
  const int w = winner[row - outer * static_cast<int>(g.extent)];
  return w < 0 ? -1 : outer * static_cast<int>(g.count) + w;
}

/// Whether a case's offsets fit the 32-bit path: elements, updates (each with room for
/// a grid's stride past the end) and, for scatter_nd, the index elements (tuples x k).
/// The largest count the 32-bit path takes: INT32_MAX less room for a grid's stride past it.
inline constexpr std::int64_t kOffsetLimit32 = 2147483647LL - (std::int64_t{1} << 24);

SCATTER_HD bool offsets_fit_32(const Geometry& g) {
  const std::int64_t index_elements = g.op == Op::scatter_nd && g.slice > 0 ? (g.u / g.slice) * g.k : 0;
  return g.n <= kOffsetLimit32 && g.u <= kOffsetLimit32 && index_elements <= kOffsetLimit32;
}

// The element types and the reduction step are the reference's (reduce_step.hpp).
using detail::Bool;
using detail::combine;
using detail::identity;
using detail::kIsFloat;
using detail::mean_of;
using detail::merge_of;
using detail::Num;

/// Whether float32 `bits` keeps the native atomicAdd exact. atom.add.f32 flushes
/// subnormal inputs and results to zero (PTX ISA), where the reference keeps them. Zeros,
/// inf, NaN and magnitudes of at least 2^-103 (exponent field >= 24) are multiples of
/// 2^-126, and so is every sum of them, rounded or not: never subnormal. When every update
/// (and every initial value) passes, atomicAdd gives the reference's steps bit for bit;
/// otherwise the kernels add with a CAS loop (device adds keep subnormals).
SCATTER_HD bool f32_native_add_exact(std::uint32_t bits) {
  return (bits & 0x7FFFFFFFu) == 0 || ((bits >> 23) & 0xFFu) >= 24;
}

// ---- block aggregation under contention (k_reduce_block) ----

/// Each block of k_reduce_block keeps an open-addressed table of (target, partial) in
/// shared memory: kBlockSlots slots (a power of two), kBlockProbes probes per target.
inline constexpr int kBlockSlots = 1024;
inline constexpr int kBlockProbes = 8;
inline constexpr long long kNoTarget = -1;

/// The first slot a target probes (Fibonacci hashing; `slots` a power of two).
SCATTER_HD unsigned slot_hash(long long target, int slots) {
  return static_cast<unsigned>((static_cast<unsigned long long>(target) * 0x9E3779B97F4A7C15ull) >> 40) &
         static_cast<unsigned>(slots - 1);
}

/// The slot of `target` in a table of `slots` keys: the one that holds it, or a free
/// one it claims with `cas(key, expected, desired)` (which returns the key it found);
/// -1 when its kBlockProbes slots belong to other targets, and the update goes straight
/// to the output. Every probe is one CAS, no plain read: no data race in shared memory.
template <class Cas>
SCATTER_HD int slot_of(long long* keys, int slots, long long target, Cas&& cas) {
  const unsigned first = slot_hash(target, slots);
  for (int p = 0; p < kBlockProbes; ++p) {
    const int s = static_cast<int>((first + static_cast<unsigned>(p)) & static_cast<unsigned>(slots - 1));
    const long long found = cas(keys + s, kNoTarget, target);
    if (found == kNoTarget || found == target) return s;
  }
  return -1;
}

/// Where a block's partial starts for `merge` (merge_of the reduction): its identity,
/// except -0.0 for float add (the merge of add, sub and mean). x + -0.0 is x for every
/// x, +0.0 included, so a target one update hits gets that update's bits, as in the
/// reference; +0.0 would turn a lone -0.0 into +0.0.
template <class T>
SCATTER_HD T partial_start(Reduction merge) {
  if constexpr (kIsFloat<T>) {
    if (merge == Reduction::add || merge == Reduction::mean) return Num<T>::from(-0.0);
  }
  return identity<T>(merge);
}

/// The reductions k_reduce_block takes: those whose updates merge into one partial per
/// target (mul does not: a partial product can overflow or vanish where no order of
/// single steps does). Float add, sub and mean merge in another association than the
/// reference's steps, which free order allows (the spec's tolerance; the classic bound on
/// reordered sums covers any association); --deterministic never comes here. Except the
/// 16-bit floats' add, sub and mean: one at a time their sums stall early (float16 2048 +
/// 1 is 2048), while a partial of 63 K same-sign updates grows past 65504 to inf, which no
/// tolerance accepts against a finite reference; they keep one atomic step per update.
inline bool may_block_aggregate(Reduction r, DType t) {
  const bool adds = r == Reduction::add || r == Reduction::sub || r == Reduction::mean;
  if (adds && (t == DType::float16 || t == DType::bfloat16)) return false;
  return adds || r == Reduction::min || r == Reduction::max;
}

/// Below this many updates contention costs too little to pay for the table, and every
/// small case keeps the single-step atomics.
inline constexpr std::int64_t kBlockAggregateMinUpdates = std::int64_t{1} << 16;

// ---- direct-mapped bins on a small output (k_reduce_bins) ----

/// Path::reduce_bins runs blocks of kBinWarps warps. Each warp keeps a bin per output
/// element in shared memory (no keys: the element is the bin), and the block one hit
/// count per element, so its dynamic shared memory stays within kBinSharedBytes: under the
/// 48 KiB a launch may take without opting in, for output elements up to 1251 float32.
inline constexpr int kBinWarps = 8;
inline constexpr std::int64_t kBinSharedBytes = 45056;

/// The grid is a function of the update count alone (kBinUpdatesPerBlock each, at most
/// kBinBlocks), never of the device: every block's share of the updates, and so every
/// partial and the fold's order, is the same on every run and every GPU. 256 blocks keep
/// the last block's fold to 256 x n partials; each lane loads kBinBatch steps' updates
/// before it merges them, so two blocks an SM still keep enough loads in flight.
inline constexpr std::int64_t kBinUpdatesPerBlock = 4096;
inline constexpr int kBinBlocks = 256;
inline constexpr int kBinBatch = 4;

/// The bit count of a 32-bit mask, on either side.
SCATTER_HD int bit_count(std::uint32_t mask) {
#ifdef __CUDA_ARCH__
  return __popc(mask);
#else
  return __builtin_popcount(mask);
#endif
}

/// The lane of the peer of rank `rank` (0 the lowest lane) in the warp's `peers` mask,
/// rank < bit_count(peers): a binary search on the bit counts of halves.
SCATTER_HD int lane_of_rank(std::uint32_t peers, int rank) {
  int lane = 0;
  for (int width = 16; width > 0; width /= 2) {
    const int below = bit_count((peers >> lane) & ((1u << width) - 1u));
    if (rank >= below) {
      rank -= below;
      lane += width;
    }
  }
  return lane;
}

/// The warp tree's pairing (k_reduce_bins' merge_peers; the emulation's merge_tree): at
/// stride s = 1, 2, 4, 8, 16 the peer of rank r, r a multiple of 2s, takes the partial of
/// rank r + s if the group has one. Ranks count the group's lanes in lane order, so the
/// tree is a function of the group alone: the same bits on every run.
SCATTER_HD bool takes_at(int rank, int size, int stride) {
  return rank % (2 * stride) == 0 && rank + stride < size;
}

/// The shared bytes of `n` bins of `element` bytes: the hit counts first (4-byte words,
/// an even number, so that 8-byte bins stay aligned), then the warps' bins.
SCATTER_HD std::int64_t bin_shared_bytes(std::int64_t n, std::int64_t element) {
  return (n + 1) / 2 * 2 * 4 + kBinWarps * n * element;
}

SCATTER_HD int bin_blocks(std::int64_t u) {
  const std::int64_t wanted = (u + kBinUpdatesPerBlock - 1) / kBinUpdatesPerBlock;
  return static_cast<int>(wanted < 1 ? 1 : wanted > kBinBlocks ? kBinBlocks : wanted);
}

/// Path::chunked's shape: the output as units (an element; for the slice ops' `none` a row of
/// at most 16 bytes, moved as one word), cut into chunks of 2^shift units.
struct ChunkShape {
  int unit_bytes = 0;        ///< 1, 2, 4, 8 or 16
  int shift = 0;             ///< log2 of the units in a chunk
  int chunks = 0;
  std::int64_t units = 0;    ///< the output's units: n, or n / slice
  std::int64_t updates = 0;  ///< the updates' units: u, or u / slice
};

/// Path::chunked: the output unit that update unit `m` lands in (an element for
/// scatter_elements and the reductions, a row for the slice ops), or -1 when out of range.
template <class Off = std::int64_t, class IndexT>
SCATTER_HD Off unit_target_of(const Geometry& g, const IndexT* idx, Off m) {
  return g.op == Op::scatter_elements ? element_target_of<Off>(g, idx, m) : row_target_of<Off>(g, idx, m);
}

/// Path::chunked: the bytes of chunk `j` of an output of `bytes` bytes, [first, end): step j
/// copies them (or reads them into L2, in place) while it applies chunk j - 1's updates.
struct ByteRange {
  std::int64_t first = 0;
  std::int64_t end = 0;
};
SCATTER_HD ByteRange chunk_bytes_of(const ChunkShape& s, int j, std::int64_t bytes) {
  const std::int64_t size = std::int64_t{s.unit_bytes} << s.shift;
  const std::int64_t first = size * j;
  return {first < bytes ? first : bytes, first + size < bytes ? first + size : bytes};
}

// ---- 1-byte elements live in 32-bit words for the atomics ----

/// `word` with byte lane `shift` (0, 8, 16, 24) replaced by `next`.
SCATTER_HD std::uint32_t with_lane(std::uint32_t word, unsigned shift, std::uint8_t next) {
  return (word & ~(0xFFu << shift)) | (static_cast<std::uint32_t>(next) << shift);
}

/// The mask that atomicAnd applies for a bool AND (mul, min) of `value` into lane
/// `shift`: the other lanes keep their bits.
SCATTER_HD std::uint32_t and_mask(unsigned shift, std::uint8_t value) {
  return ~(0xFFu << shift) | (static_cast<std::uint32_t>(value) << shift);
}

}  // namespace scatter::cuda
