#pragma once
// What the cuda backend and the device probe share: checked CUDA calls, device
// allocations freed on every path, and a stream with two events that times work.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

#include "scatter/error.hpp"

#define SCATTER_CUDA_CHECK(call) ::scatter::cuda::check((call), #call, __FILE__, __LINE__)

namespace scatter::cuda {

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw Error(ErrorCode::backend, "",
              fmt::format("{}:{}: {} failed: {} ({})", file, line, call, cudaGetErrorName(e), cudaGetErrorString(e)));
}

// A device allocation freed on every path.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::size_t bytes) {
    if (bytes > 0) SCATTER_CUDA_CHECK(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceMemory() {
    if (ptr_) cudaFree(ptr_);
  }
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// A non-blocking stream and the two events that time work on it; made on first use.
class TimedStream {
 public:
  TimedStream() = default;
  TimedStream(const TimedStream&) = delete;
  TimedStream& operator=(const TimedStream&) = delete;
  ~TimedStream() {
    if (stream_) cudaStreamDestroy(stream_);
    if (start_) cudaEventDestroy(start_);
    if (stop_) cudaEventDestroy(stop_);
  }

  cudaStream_t get() {
    if (!stream_) {
      SCATTER_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      SCATTER_CUDA_CHECK(cudaEventCreate(&start_));
      SCATTER_CUDA_CHECK(cudaEventCreate(&stop_));
    }
    return stream_;
  }
  void record_start() { SCATTER_CUDA_CHECK(cudaEventRecord(start_, get())); }
  void record_stop() { SCATTER_CUDA_CHECK(cudaEventRecord(stop_, get())); }
  /// Seconds between the two records (the stop must have completed).
  double elapsed() const {
    float ms = 0.0f;
    SCATTER_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return static_cast<double>(ms) / 1e3;
  }

  /// The fastest of `rounds` runs of `enqueue` on the stream, after one warm-up, in seconds.
  template <class Enqueue>
  double best_of(int rounds, Enqueue enqueue) {
    get();
    enqueue();
    double best = 1e30;
    for (int i = 0; i < rounds; ++i) {
      record_start();
      enqueue();
      record_stop();
      SCATTER_CUDA_CHECK(cudaEventSynchronize(stop_));
      best = std::min(best, elapsed());
    }
    return best;
  }

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace scatter::cuda
