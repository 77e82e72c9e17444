#pragma once
// The device primitives every path uses: the launch queue, atomics and CAS loops per dtype,
// the grid stride, and the guard on out-of-range targets.
// Included once, by kernels.cu: one translation unit holds every kernel.

#include <algorithm>
#include <type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "cuda/launch.hpp"
#include "cuda/sorted_runs.hpp"

namespace scatter::cuda {
namespace {

namespace cg = cooperative_groups;

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;  // k_reduce_block: 8 x 256 threads and up to 20 KB of shared memory each

std::size_t align256(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The stream a launch enqueues on, and its trace: every kernel is named as it is
// enqueued, and under --check-launches waited for and checked at once, so that a
// fault names its kernel.
struct Queue {
  cudaStream_t stream;
  LaunchTrace& trace;

  cudaError_t launched(const char* kernel) {
    trace.record(kernel);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && trace.check) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) trace.failed = kernel;
    return e;
  }
};

// The unsigned word as wide as T: the bits the sort and the partition move.
template <class T>
using BitsOf = std::conditional_t<
    sizeof(T) == 8, unsigned long long,
    std::conditional_t<sizeof(T) == 4, unsigned int, std::conditional_t<sizeof(T) == 2, unsigned short, unsigned char>>>;

template <class To, class From>
__device__ __forceinline__ To bits_as(From v) {
  static_assert(sizeof(To) == sizeof(From));
  To out;
  memcpy(&out, &v, sizeof(To));
  return out;
}

// Compare-and-swap loop on a word as wide as the element. A step that leaves the bits as
// they are (a min or max update that loses, most of them under contention) stores nothing.
template <class Word, class T>
__device__ void cas_loop(T* p, T v, Reduction r) {
  auto* a = reinterpret_cast<Word*>(p);
  Word old = *a, assumed;
  do {
    assumed = old;
    const Word next = bits_as<Word>(combine(r, bits_as<T>(assumed), v));
    if (next == assumed) return;
    old = atomicCAS(a, assumed, next);
  } while (old != assumed);
}

// Compare-and-swap for any element size: 1-byte elements through their 32-bit word.
template <class T>
__device__ void cas_combine(T* p, T v, Reduction r) {
  if constexpr (sizeof(T) == 8) {
    cas_loop<unsigned long long>(p, v, r);
  } else if constexpr (sizeof(T) == 4) {
    cas_loop<unsigned int>(p, v, r);
  } else if constexpr (sizeof(T) == 2) {
    cas_loop<unsigned short>(p, v, r);
  } else {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const auto lane = static_cast<std::uint8_t>((assumed >> shift) & 0xFF);
      const auto next = bits_as<std::uint8_t>(combine(r, bits_as<T>(lane), v));
      if (next == lane) return;  // unchanged, as in cas_loop
      old = atomicCAS(word, assumed, with_lane(assumed, shift, next));
    } while (old != assumed);
  }
}

// A 16-bit float's aligned 4-byte pair and the two lanes to add to it: the value in the
// element's lane, -0.0 in the other (x + -0.0 is x, for +0.0 too). The output buffer is
// padded to 4 bytes, so the last element's pair is inside it. The hardware gives a NaN in
// the other lane its canonical bits, which an element no update targets must not change:
// the host takes this path only where data holds no NaN (native_add).
template <class T>
__device__ __forceinline__ auto packed_pair(T* p, unsigned short bits) {
  struct Pair {
    unsigned int* pair;
    unsigned int lanes;
  };
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  const bool high = (address & 2) != 0;
  const unsigned int lanes = high ? (static_cast<unsigned int>(bits) << 16) | 0x8000u : 0x80000000u | bits;
  return Pair{reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3}), lanes};
}

// out = f(out, v) atomically: native instructions where the hardware has them.
// native_add false: float32 add/sub go through the CAS loop (atom.add.f32 flushes
// subnormals; see f32_native_add_exact), and float16/bfloat16 too (data with a NaN).
template <class T>
__device__ void atomic_combine(T* p, T v, Reduction r, bool native_add) {
  const bool add = r == Reduction::add || r == Reduction::mean;
  const bool sub = r == Reduction::sub;
  if constexpr (__is_same(T, double) || __is_same(T, float)) {
    if (__is_same(T, float) && !native_add) return cas_combine(p, v, r);
    if (add) return static_cast<void>(atomicAdd(p, v));
    if (sub) return static_cast<void>(atomicAdd(p, -v));  // negation is exact
  } else if constexpr (__is_same(T, Float16)) {
    if ((add || sub) && native_add) {  // the packed atomic on the aligned pair (a lone __half add is a CAS loop)
      const auto bits = static_cast<unsigned short>(sub ? v.bits ^ 0x8000u : v.bits);
      const auto [pair, lanes] = packed_pair(p, bits);
      return static_cast<void>(atomicAdd(reinterpret_cast<__half2*>(pair), bits_as<__half2>(lanes)));
    }
  } else if constexpr (__is_same(T, BFloat16)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if ((add || sub) && native_add) {
      const auto bits = static_cast<unsigned short>(sub ? v.bits ^ 0x8000u : v.bits);
      const auto [pair, lanes] = packed_pair(p, bits);
      return static_cast<void>(atomicAdd(reinterpret_cast<__nv_bfloat162*>(pair), bits_as<__nv_bfloat162>(lanes)));
    }
#endif
  } else if constexpr (__is_same(T, std::int32_t)) {
    if (add || sub) {
      const auto u = static_cast<unsigned int>(v);
      return static_cast<void>(atomicAdd(reinterpret_cast<unsigned int*>(p), sub ? 0u - u : u));
    }
    if (r == Reduction::min) return static_cast<void>(atomicMin(reinterpret_cast<int*>(p), static_cast<int>(v)));
    if (r == Reduction::max) return static_cast<void>(atomicMax(reinterpret_cast<int*>(p), static_cast<int>(v)));
  } else if constexpr (__is_same(T, std::int64_t)) {
    if (add || sub) {
      const auto u = static_cast<unsigned long long>(v);
      return static_cast<void>(atomicAdd(reinterpret_cast<unsigned long long*>(p), sub ? 0ull - u : u));
    }
    if (r == Reduction::min) return static_cast<void>(atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
    if (r == Reduction::max) return static_cast<void>(atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v)));
  } else if constexpr (__is_same(T, Bool)) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    auto* word = reinterpret_cast<unsigned int*>(address & ~std::uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(address & 3) * 8;
    const unsigned bit = static_cast<unsigned>(v.value) << shift;
    if (r == Reduction::add || r == Reduction::max) return static_cast<void>(atomicOr(word, bit));
    if (r == Reduction::sub) return static_cast<void>(atomicXor(word, bit));
    if (r == Reduction::mul || r == Reduction::min) return static_cast<void>(atomicAnd(word, and_mask(shift, v.value)));
  }
  cas_combine(p, v, r);
}

template <class Off = std::int64_t>
__device__ __forceinline__ Off thread_start() {
  return static_cast<Off>(blockIdx.x) * static_cast<Off>(blockDim.x) + static_cast<Off>(threadIdx.x);
}
template <class Off = std::int64_t>
__device__ __forceinline__ Off grid_stride() { return static_cast<Off>(gridDim.x) * static_cast<Off>(blockDim.x); }

// The device-side guard: a target outside [0, n) raises the flag the backend reports and
// comes back as -1, so no kernel ever writes there.
template <class Off>
__device__ __forceinline__ Off guarded(Off target, Off n, int* guard) {
  if (target >= 0 && target < n) return target;
  *guard = 1;  // a plain store: every thread that stores, stores 1
  return -1;
}

}  // namespace
}  // namespace scatter::cuda
