#pragma once
// What the cuda backend and the device probe share: checked CUDA calls, device
// allocations freed on every path, and a stream with two events that times work.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "launch.hpp"
#include "scatter/error.hpp"

#define SCATTER_CUDA_CHECK(call) ::scatter::cuda::check((call), #call, __FILE__, __LINE__)

namespace scatter::cuda {

inline void check(cudaError_t e, const char* call, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw Error(ErrorCode::backend, "",
              fmt::format("{}:{}: {} failed: {} ({})", file, line, call, cudaGetErrorName(e), cudaGetErrorString(e)));
}

/// Why there is no GPU to run on, from cudaGetDeviceCount's error: on a machine without one the
/// runtime says "driver version is insufficient", which would send people to update a driver.
inline std::string no_gpu_reason(cudaError_t e) {
  if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
    return fmt::format("no usable GPU: no NVIDIA GPU and driver for this CUDA runtime ({})", cudaGetErrorName(e));
  }
  return fmt::format("no usable GPU: cudaGetDeviceCount failed: {} ({})", cudaGetErrorName(e), cudaGetErrorString(e));
}

/// After a failed call: cudaSuccess when the context still works, else the sticky error
/// (an illegal address, a trap) that lost it; every later call would fail with it.
inline cudaError_t lost_context() {
  (void)cudaGetLastError();  // reads, and so clears, an error that is not sticky
  return cudaDeviceSynchronize();
}

/// What a sticky fault says for the rest of the run: the kernel whose check failed
/// (--check-launches), else the kernels the launch had enqueued.
inline std::string fault_reason(const LaunchTrace& trace, cudaError_t e) {
  const auto error = fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e));
  if (trace.failed) return fmt::format("device fault in {} ({})", trace.failed, error);
  if (trace.count == 0) return fmt::format("device fault outside the kernels ({})", error);
  if (trace.count == 1) return fmt::format("device fault in {} ({})", trace.kernels[0], error);
  const std::vector<std::string_view> kernels(trace.kernels, trace.kernels + trace.count);
  return fmt::format("device fault in one of {} ({}; --check-launches names the kernel)", fmt::join(kernels, ", "),
                     error);
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

/// Cold samples: before a timed region, the L2 is filled with clean lines of a buffer 4x
/// its size (at least 64 MiB), read by k_l2_flush. A memset would leave its own last ~50 MB
/// dirty, to be written back inside the timed region (a few microseconds, enough to bias
/// small rows). The buffer is zeroed once, when first used.
class L2Flush {
 public:
  L2Flush(std::size_t l2_bytes, int sm_count)
      : bytes_(std::max<std::size_t>(4 * l2_bytes, std::size_t{64} << 20) / 16 * 16), sm_count_(sm_count) {}
  std::size_t bytes() const { return bytes_ + 16; }  ///< the buffer and its sink
  std::size_t bytes_to_allocate() const { return buffer_ ? 0 : bytes(); }
  void run(cudaStream_t stream) {
    if (!buffer_) {
      buffer_ = std::make_unique<DeviceMemory>(bytes());
      SCATTER_CUDA_CHECK(cudaMemsetAsync(buffer_->get(), 0, bytes(), stream));
    }
    auto* sink = reinterpret_cast<int*>(static_cast<char*>(buffer_->get()) + bytes_);
    SCATTER_CUDA_CHECK(enqueue_l2_flush(buffer_->get(), bytes_, sink, sm_count_, stream));
  }

 private:
  std::size_t bytes_;
  int sm_count_;
  std::unique_ptr<DeviceMemory> buffer_;
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
