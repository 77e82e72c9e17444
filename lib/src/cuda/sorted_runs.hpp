#pragma once
// --deterministic: the reduction of the updates once a stable sort has put them in
// target order (runs of equal keys, each run in update order). What one thread does at
// each level, as __host__ __device__ functions of plain arrays, so that the CPU tests run
// the kernels' own code (tests/test_cuda_elements.cpp). No CUDA headers.
//
// Level 0 gives each thread a chunk of `chunk` sorted entries. A run of at most `serial`
// updates is reduced by the thread whose chunk holds its first update, one update at a
// time from the output, exactly as the reference does it (bit for bit). A longer run is
// cut at the chunk boundaries: each thread reduces its piece and hands it up, in two slots
// per chunk (the piece that comes in across the chunk's start, and the one that goes out
// across its end). Each next level does the same over the pieces, until one chunk holds
// them all. So a run of N duplicates costs about log_{chunk/2}(N) levels of `chunk` steps,
// not N steps of one thread; its pieces merge in a fixed tree, the same on every run.

#include <cstdint>

#include "element.hpp"
#include "scatter/backend.hpp"

namespace scatter::cuda {

/// Entries per thread at every level.
inline constexpr int kRunChunk = 32;
/// Runs up to this many updates are reduced one update at a time (the reference's bits):
/// the promise of --deterministic (scatter/backend.hpp).
inline constexpr std::int64_t kSerialRun = kDeterministicExactHits;
/// A piece's count carries this bit when the piece holds its run's first update (and so
/// already includes the output's value).
inline constexpr std::uint32_t kHeadBit = 0x80000000u;

/// The key of a level slot that holds no piece (all ones: above every target and the
/// guard's sentinel, which is n).
template <class K>
SCATTER_HD K empty_key() {
  return static_cast<K>(~K{0});
}

/// The first position in [lo, hi) whose key is not below k (keys sorted), or hi.
template <class K>
SCATTER_HD std::int64_t first_not_below(const K* key, std::int64_t lo, std::int64_t hi, K k) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (key[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// The first position in [lo, hi) whose key is above k (keys sorted), or hi.
template <class K>
SCATTER_HD std::int64_t first_above(const K* key, std::int64_t lo, std::int64_t hi, K k) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (key[mid] <= k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// The value a finished run leaves in the output: the mean divides by its updates (+1
/// with use_init_val, `init`).
template <class T>
SCATTER_HD T finished(T acc, Reduction r, std::int64_t count, int init) {
  if constexpr (!__is_same(T, Bool)) {
    if (r == Reduction::mean) return mean_of(acc, count + init);
  }
  return acc;
}

/// Where the levels hand pieces up: two slots per chunk.
template <class T, class K>
struct Pieces {
  K* key;
  T* value;
  std::uint32_t* count;  ///< updates in the piece, | kHeadBit when it holds the run's first

  SCATTER_HD void clear(std::int64_t c) const {
    key[2 * c] = empty_key<K>();
    key[2 * c + 1] = empty_key<K>();
  }
  /// A piece that crosses the chunk's start goes to slot 2c, one that only crosses its end
  /// to 2c + 1: a chunk meets at most one of each.
  SCATTER_HD void put(std::int64_t c, bool crosses_start, K k, T acc, std::uint32_t count_and_head) const {
    const std::int64_t slot = crosses_start ? 2 * c : 2 * c + 1;
    key[slot] = k;
    value[slot] = acc;
    count[slot] = count_and_head;
  }
};

/// Level 0, thread `c`: the sorted keys and values of `u` updates; targets below `n` (a
/// key of n is the guard's sentinel: its run is skipped). chunk <= serial.
template <class T, class K>
SCATTER_HD void reduce_runs_first(std::int64_t c, std::int64_t u, std::int64_t n, int chunk, std::int64_t serial,
                                  const K* key, const T* value, T* out, Reduction r, int init, Pieces<T, K> up) {
  const Reduction merge = merge_of<T>(r);
  const std::int64_t a = c * chunk;
  const std::int64_t b = a + chunk < u ? a + chunk : u;
  up.clear(c);
  for (std::int64_t i = a; i < b;) {
    const K k = key[i];
    const bool head = i == 0 || key[i - 1] != k;  // the run starts here (i is a or a run's start)
    // Is the run short (at most `serial` updates), and where does it start and end?
    const std::int64_t lo = i - serial > 0 ? i - serial : 0;
    const std::int64_t s = head ? i : first_not_below(key, lo, i, k);
    const bool start_known = s > lo || lo == 0 || key[lo - 1] != k;
    const std::int64_t hi = s + serial + 1 < u ? s + serial + 1 : u;
    const std::int64_t e = first_above(key, i, hi, k);
    const bool short_run = start_known && (e < hi || e == u) && e - s <= serial;
    if (short_run) {
      if (head && static_cast<std::int64_t>(k) < n) {  // this thread owns the run: the reference's steps
        T acc = out[k];
        for (std::int64_t j = s; j < e; ++j) acc = combine(r, acc, value[j]);
        out[k] = finished(acc, r, e - s, init);
      }
      i = e;
      continue;
    }
    // A long run: this chunk's piece of it.
    const std::int64_t pe = first_above(key, i, b, k);
    if (static_cast<std::int64_t>(k) < n) {
      T acc = head ? combine(r, out[k], value[i]) : value[i];
      for (std::int64_t j = i + 1; j < pe; ++j) acc = combine(head ? r : merge, acc, value[j]);
      const auto count = static_cast<std::uint32_t>(pe - i) | (head ? kHeadBit : 0u);
      up.put(c, !head, k, acc, count);  // a long run cannot fit in one chunk: it crosses start or end
    }
    i = pe;
  }
}

/// Level 1 and up, thread `c`: `m` pieces from the level below (empty slots skipped).
/// A run's pieces are in order, with at most one empty slot between two of them.
template <class T, class K>
SCATTER_HD void reduce_runs_next(std::int64_t c, std::int64_t m, int chunk, const Pieces<T, K> in, T* out,
                                 Reduction r, int init, Pieces<T, K> up) {
  const Reduction merge = merge_of<T>(r);
  const std::int64_t a = c * chunk;
  const std::int64_t b = a + chunk < m ? a + chunk : m;
  up.clear(c);
  for (std::int64_t i = a; i < b;) {
    const K k = in.key[i];
    if (k == empty_key<K>()) {
      ++i;
      continue;
    }
    const bool head = (in.count[i] & kHeadBit) != 0;  // a run's pieces: the head (if any) is the first
    T acc = in.value[i];
    std::int64_t count = in.count[i] & ~kHeadBit;
    std::int64_t j = i + 1;
    for (; j < b; ++j) {
      if (in.key[j] == empty_key<K>()) continue;
      if (in.key[j] != k) break;
      acc = combine(head ? r : merge, acc, in.value[j]);
      count += in.count[j] & ~kHeadBit;
    }
    // Does the run go on past the chunk? Its next piece is among the next two slots.
    bool crosses_end = false;
    if (j == b) {
      for (std::int64_t t = b; t < m && t < b + 2; ++t) {
        if (in.key[t] == empty_key<K>()) continue;
        crosses_end = in.key[t] == k;
        break;
      }
    }
    if (head && !crosses_end) {
      out[k] = finished(acc, r, count, init);
    } else {
      up.put(c, !head, k, acc, static_cast<std::uint32_t>(count) | (head ? kHeadBit : 0u));
    }
    i = j;
  }
}

/// The levels' sizes: level 0 has u entries; a level of m entries has ceil(m / chunk)
/// threads and hands up 2 slots per thread. The last level has one chunk. Returns the
/// number of levels (1 when every run is short for sure: u <= serial).
SCATTER_HD int run_levels(std::int64_t u, int chunk, std::int64_t serial) {
  if (u <= serial) return 1;
  int levels = 1;
  for (std::int64_t m = u; (m + chunk - 1) / chunk > 1; m = 2 * ((m + chunk - 1) / chunk)) ++levels;
  return levels;
}

}  // namespace scatter::cuda
