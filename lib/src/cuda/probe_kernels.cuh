#pragma once
// The bandwidth probes' kernels (cuda_probe.cpp): random sector writes and the L2 flush.
// Included once, by kernels.cu.

#include "cuda/scratch.cuh"

namespace scatter::cuda {

namespace {
__global__ void k_sector_writes(unsigned int* buffer, unsigned long long sectors, long long stores) {
  for (long long i = thread_start(); i < stores; i += grid_stride()) {
    unsigned long long x = static_cast<unsigned long long>(i) * 0x9E3779B97F4A7C15ull;  // a scrambled i
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    buffer[(x % sectors) * 8] = static_cast<unsigned int>(i);
  }
}
}  // namespace

namespace {
__global__ void k_l2_flush(const uint4* buffer, long long chunks, int* sink) {
  unsigned int x = 0;
  for (long long i = thread_start(); i < chunks; i += grid_stride()) {
    const uint4 v = buffer[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0xFFFFFFFFu) *sink = 1;  // keeps the loads; a zeroed buffer never gets here
}
}  // namespace

cudaError_t enqueue_l2_flush(const void* buffer, std::size_t bytes, int* sink, int sm_count, cudaStream_t stream) {
  const auto chunks = static_cast<long long>(bytes / 16);
  k_l2_flush<<<blocks_for(chunks, sm_count), kThreads, 0, stream>>>(static_cast<const uint4*>(buffer), chunks, sink);
  return cudaGetLastError();
}

cudaError_t enqueue_sector_writes(void* buffer, std::size_t bytes, std::int64_t stores, int sm_count,
                                  cudaStream_t stream) {
  k_sector_writes<<<blocks_for(stores, sm_count), kThreads, 0, stream>>>(static_cast<unsigned int*>(buffer), bytes / 32,
                                                                         stores);
  return cudaGetLastError();
}

}  // namespace scatter::cuda
