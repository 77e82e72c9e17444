// The device's bandwidth lines for bench rows: a device-to-device copy and random
// 32-byte sector writes, each measured once, on first use.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

#include "platform/probes.hpp"
#include "device.hpp"
#include "launch.hpp"

namespace scatter {
namespace cuda {
namespace {

class CudaProbe final : public BandwidthProbe {
 public:
  explicit CudaProbe(int sm_count) : sm_count_(sm_count) {}

  // cudaMemcpy device to device of 512 MiB, best of 5, read + write counted.
  double copy() override {
    if (copy_ > 0.0) return copy_;
    constexpr std::size_t kBytes = std::size_t{512} << 20;
    DeviceMemory src(kBytes);
    DeviceMemory dst(kBytes);
    SCATTER_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, kBytes, stream_.get()));
    const double seconds = stream_.best_of(5, [&] {
      SCATTER_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), kBytes, cudaMemcpyDeviceToDevice, stream_.get()));
    });
    copy_ = 2.0 * static_cast<double>(kBytes) / seconds;
    return copy_;
  }

  // 256M 4-byte stores to random sectors of a 2 GiB buffer, best of 3, 32 bytes a store.
  double sector_writes() override {
    if (sectors_ > 0.0) return sectors_;
    constexpr std::size_t kBytes = std::size_t{2} << 30;
    constexpr std::int64_t kStores = std::int64_t{256} << 20;
    DeviceMemory buffer(kBytes);
    const double seconds = stream_.best_of(3, [&] {
      SCATTER_CUDA_CHECK(enqueue_sector_writes(buffer.get(), kBytes, kStores, sm_count_, stream_.get()));
    });
    sectors_ = 32.0 * static_cast<double>(kStores) / seconds;
    return sectors_;
  }

 private:
  int sm_count_;
  TimedStream stream_;
  double copy_ = 0.0;
  double sectors_ = 0.0;
};

}  // namespace
}  // namespace cuda

std::unique_ptr<BandwidthProbe> make_cuda_probe() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return nullptr;
  int sm_count = 1;
  if (cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess) return nullptr;
  return std::make_unique<cuda::CudaProbe>(sm_count);
}

}  // namespace scatter
