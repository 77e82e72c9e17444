#pragma once
// The launchers' host side that every path shares: grid sizes, the scratch layout of a plan,
// and the widest chunk a row's bytes and buffers allow.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include <initializer_list>
#include <cub/device/device_radix_sort.cuh>
#include "cuda/primitives.cuh"

namespace scatter::cuda {
namespace {

int blocks_for(std::int64_t items, int sm_count) {
  const std::int64_t wanted = (items + kThreads - 1) / kThreads;
  const std::int64_t cap = static_cast<std::int64_t>(sm_count) * 32;
  return static_cast<int>(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}

struct Scratch {
  void* winner = nullptr;       // int or long long per target (element, or row for the slice ops)
  long long* row_target = nullptr;
  unsigned int* seen = nullptr;  // `none`: one bit per output element (row, for the slice ops)
  int* duplicate = nullptr;      // `none`: set when an element (row) is targeted twice
  unsigned int* count = nullptr;
  void* keys[2] = {nullptr, nullptr};  // --deterministic: K per update, before and after the sort
  void* sorted = nullptr;              // the update values in key order
  void* piece_key[2] = {nullptr, nullptr};  // the levels' pieces, 2 slots per level-0 chunk, two levels' worth
  void* piece_value[2] = {nullptr, nullptr};
  std::uint32_t* piece_count[2] = {nullptr, nullptr};
  void* cub = nullptr;
  std::size_t cub_bytes = 0;
  unsigned int* chunk_count = nullptr;   // Path::chunked: per chunk its units, then (adjacent) the partition's fill
  unsigned int* chunk_first = nullptr;   // chunks + 1: each chunk's first entry, and the end
  unsigned int* chunk_offset = nullptr;  // per update unit: its unit's offset in its chunk
  void* chunk_value = nullptr;           // per update unit: its bits, unit_bytes each
  void* bin_partial = nullptr;           // Path::reduce_bins: per block, a partial per output element
  unsigned int* bin_hits = nullptr;      // ... and its hit count
  unsigned int* bin_ticket = nullptr;    // the blocks' tickets: the last one folds
  std::size_t total = 0;
};

// 32-bit sort keys when every target and the sentinel n fit below the empty key.
bool narrow_keys(std::int64_t n) { return n < static_cast<std::int64_t>(UINT32_MAX); }

// The sort moves values as unsigned words of the element's size (the float types: 8, 4, 2).
template <class Bits, class K>
std::size_t cub_sort_bytes(std::int64_t u, int bits) {
  std::size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                  static_cast<const Bits*>(nullptr), static_cast<Bits*>(nullptr), static_cast<int>(u),
                                  0, bits);
  return bytes;
}

template <class K>
std::size_t cub_sort_bytes_for(std::size_t element, std::int64_t u, int bits) {
  if (element == 8) return cub_sort_bytes<unsigned long long, K>(u, bits);
  if (element == 4) return cub_sort_bytes<unsigned int, K>(u, bits);
  return cub_sort_bytes<unsigned short, K>(u, bits);
}

int key_bits(std::int64_t n) {
  int bits = 1;
  while (bits < 63 && (std::int64_t{1} << bits) <= n) ++bits;
  return bits;
}

// Winners are ints when every bidder's index fits.
bool narrow_winners(std::int64_t bidders) { return bidders <= INT32_MAX; }
std::size_t winner_size(std::int64_t bidders) { return narrow_winners(bidders) ? sizeof(int) : sizeof(long long); }

// Lays out the scratch parts of the plan's path; with base == nullptr it only measures.
Scratch layout(const Launch& l, const Plan& plan, void* base) {
  Scratch s;
  const auto& g = l.geometry;
  const Path path = plan.path;
  if (path == Path::nothing || path == Path::tiny || path == Path::row_tile || path == Path::elements_free ||
      path == Path::rows_free || path == Path::update_gather) {
    return s;  // nothing runs, it all happens in shared memory, or plain stores
  }
  const bool by_rows = path == Path::rows_direct;
  auto take = [&](std::size_t bytes) {
    void* p = base ? static_cast<char*>(base) + s.total : nullptr;
    s.total += align256(bytes);
    return p;
  };
  if (path == Path::chunked) {
    const auto& shape = plan.chunks;
    const auto chunks = static_cast<std::size_t>(shape.chunks);
    const auto updates = static_cast<std::size_t>(shape.updates);
    s.chunk_count = static_cast<unsigned int*>(take(2 * chunks * sizeof(unsigned int)));  // count and fill: one memset
    s.chunk_first = static_cast<unsigned int*>(take((chunks + 1) * sizeof(unsigned int)));
    s.chunk_offset = static_cast<unsigned int*>(take(updates * sizeof(unsigned int)));
    s.chunk_value = take(updates * static_cast<std::size_t>(shape.unit_bytes));
    return s;
  }
  if (path == Path::rows_fused) {  // one bit per output row
    s.seen = static_cast<unsigned int*>(take(static_cast<std::size_t>((g.n / g.slice + 31) / 32) * sizeof(unsigned int)));
    return s;
  }
  if (l.reduction == Reduction::none) {
    if (by_rows) {
      s.winner = take(static_cast<std::size_t>(g.n / g.slice) * winner_size(g.u / g.slice));
      s.row_target = static_cast<long long*>(take(static_cast<std::size_t>(g.u / g.slice) * sizeof(long long)));
    } else {
      s.winner = take(static_cast<std::size_t>(g.n) * winner_size(g.u));
    }
    // One bit per output element (or row), then the flag: one span, cleared by one memset.
    const std::int64_t targets = by_rows ? g.n / g.slice : g.n;
    s.seen = static_cast<unsigned int*>(take(static_cast<std::size_t>((targets + 31) / 32) * sizeof(unsigned int)));
    s.duplicate = static_cast<int*>(take(sizeof(int)));
  } else if (path == Path::sorted) {
    const std::size_t key = narrow_keys(g.n) ? sizeof(unsigned int) : sizeof(unsigned long long);
    const std::size_t element = static_cast<std::size_t>(info_of(l.type).bytes);
    const auto u = static_cast<std::size_t>(g.u);
    const auto slots = static_cast<std::size_t>(2 * ((g.u + kRunChunk - 1) / kRunChunk));
    for (int i = 0; i < 2; ++i) s.keys[i] = take(u * key);
    s.sorted = take(u * element);
    for (int i = 0; i < 2; ++i) {
      s.piece_key[i] = take(slots * key);
      s.piece_value[i] = take(slots * element);
      s.piece_count[i] = static_cast<std::uint32_t*>(take(slots * sizeof(std::uint32_t)));
    }
    s.cub_bytes = narrow_keys(g.n) ? cub_sort_bytes_for<unsigned int>(element, g.u, key_bits(g.n))
                                   : cub_sort_bytes_for<unsigned long long>(element, g.u, key_bits(g.n));
    s.cub = take(s.cub_bytes);
  } else {
    if (path == Path::reduce_bins) {
      const auto bins = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(bin_blocks(g.u));
      s.bin_partial = take(bins * static_cast<std::size_t>(info_of(l.type).bytes));
      s.bin_hits = static_cast<unsigned int*>(take(bins * sizeof(unsigned int)));
      s.bin_ticket = static_cast<unsigned int*>(take(sizeof(unsigned int)));
    }
    if (l.reduction == Reduction::mean) {
      s.count = static_cast<unsigned int*>(take(static_cast<std::size_t>(g.n) * sizeof(unsigned int)));
    }
  }
  return s;
}

// Clears the bitmap and the flag of element and row `none` (adjacent in the layout).
cudaError_t clear_seen(const Scratch& s, Queue& q) {
  const auto bytes = static_cast<std::size_t>(reinterpret_cast<char*>(s.duplicate) - reinterpret_cast<char*>(s.seen));
  return cudaMemsetAsync(s.seen, 0, bytes + sizeof(int), q.stream);
}

// A row's bytes or'ed with the addresses of the buffers it is copied between (a null one,
// data in place, counts as aligned): every power of two that divides it divides them all.
// cudaMalloc's bases are 256-aligned; a framework's view or an arena's need not be.
std::uintptr_t alignment_of(std::size_t row_bytes, std::initializer_list<const void*> buffers) {
  std::uintptr_t bits = row_bytes;
  for (const void* p : buffers) bits |= reinterpret_cast<std::uintptr_t>(p);
  return bits;
}

// Calls run(Chunk{}) with the widest chunk that `alignment` (alignment_of) is a multiple of. 16 and 8 bytes move as 64-bit lanes, so that no 8-byte
// element is ever written in two halves (the PTX memory model splits a v4.u32 store into
// 32-bit ones; two racing duplicate rows could leave an element from neither).
template <class Run>
cudaError_t with_widest_chunk(std::uintptr_t alignment, Run&& run) {
  if (alignment % 16 == 0) return run(ulonglong2{});
  if (alignment % 8 == 0) return run(static_cast<unsigned long long>(0));
  if (alignment % 4 == 0) return run(0u);
  if (alignment % 2 == 0) return run(static_cast<unsigned short>(0));
  return run(static_cast<unsigned char>(0));
}

}  // namespace
}  // namespace scatter::cuda
