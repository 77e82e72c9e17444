// Device buffers, stream and timer for plugins that take device tensors (plugin ABI 1.1).
// Never run on a GPU by its author: see docs/backends.md, "Device tensors".

#include "platform/plugin_device.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "device.hpp"

namespace scatter::detail {
namespace {

class CudaBuffer final : public DeviceBuffer {
 public:
  explicit CudaBuffer(std::size_t bytes) : memory_(bytes) {}
  void* get() const override { return memory_.get(); }

 private:
  cuda::DeviceMemory memory_;
};

class CudaPluginDevice final : public PluginDevice {
 public:
  CudaPluginDevice(std::string name, std::size_t l2_bytes, int sm_count)
      : name_(std::move(name)), flush_(l2_bytes, sm_count) {}

  int id() const override { return 0; }
  const std::string& name() const override { return name_; }
  void* stream() override { return stream_.get(); }

  std::unique_ptr<DeviceBuffer> upload(const void* host, std::size_t bytes) override {
    auto buffer = std::make_unique<CudaBuffer>(bytes);
    if (bytes > 0) SCATTER_CUDA_CHECK(cudaMemcpy(buffer->get(), host, bytes, cudaMemcpyHostToDevice));
    return buffer;
  }

  void copy(void* to, const void* from, std::size_t bytes) override {
    if (bytes > 0) SCATTER_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream_.get()));
  }

  void download(void* host, const void* device, std::size_t bytes) override {
    SCATTER_CUDA_CHECK(cudaDeviceSynchronize());
    if (bytes > 0) SCATTER_CUDA_CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
  }

  // A cold sample: no line kept in L2, persisting ones included. A plugin may mark its data
  // persisting (a carve-out and an access policy window on the stream it is given), which
  // survives a flush; the carve-out is emptied, its lines reset, and the stream's window
  // cleared before each sample (as nvbench does). Devices without the carve-out say
  // cudaErrorNotSupported (or UnsupportedLimit), which leaves nothing to reset.
  void flush() override {
    forget_persisting_lines();
    flush_.run(stream_.get());
  }

  void start() override {
    // The uploads (a pageable cudaMemcpy may return before its DMA lands), the restore of out
    // and the flush, all done before the timed region starts.
    SCATTER_CUDA_CHECK(cudaDeviceSynchronize());
    stream_.record_start();
  }

  double stop() override {
    SCATTER_CUDA_CHECK(cudaDeviceSynchronize());
    stream_.record_stop();
    SCATTER_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    return stream_.elapsed();
  }

  void forget_persisting_lines() {
    const auto unless_unsupported = [](cudaError_t e, const char* call) {
      if (e == cudaErrorNotSupported || e == cudaErrorUnsupportedLimit) {
        (void)cudaGetLastError();  // not sticky: cleared so that the next check sees its own call
        return;
      }
      cuda::check(e, call, __FILE__, __LINE__);
    };
    unless_unsupported(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0), "cudaDeviceSetLimit(PersistingL2CacheSize, 0)");
    unless_unsupported(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache()");
    cudaStreamAttrValue none{};
    none.accessPolicyWindow.num_bytes = 0;  // no window: every access is normal
    unless_unsupported(cudaStreamSetAttribute(stream_.get(), cudaStreamAttributeAccessPolicyWindow, &none),
                       "cudaStreamSetAttribute(AccessPolicyWindow, none)");
  }

  std::string lost() override {
    const auto e = cuda::lost_context();
    return e == cudaSuccess ? "" : fmt::format("{}: {}", cudaGetErrorName(e), cudaGetErrorString(e));
  }

 private:
  std::string name_;
  cuda::TimedStream stream_;
  cuda::L2Flush flush_;  // as the cuda backend's cold runs
};

}  // namespace

std::unique_ptr<PluginDevice> make_plugin_device(std::string& why) {
  int count = 0;
  if (const auto e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    why = e != cudaSuccess ? cuda::no_gpu_reason(e) : "no usable GPU: the CUDA runtime sees no device";
    return nullptr;
  }
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, 0) != cudaSuccess) {
    why = "cannot read the GPU's properties";
    return nullptr;
  }
  return std::make_unique<CudaPluginDevice>(props.name, static_cast<std::size_t>(std::max(props.l2CacheSize, 1 << 20)),
                                            props.multiProcessorCount);
}

}  // namespace scatter::detail
