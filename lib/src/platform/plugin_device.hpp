#pragma once
// Device memory for plugins that ask for it (plugin ABI 1.1, SP_MEMORY_CUDA): buffers and a
// stream on the cuda backend's device. Built from lib/src/cuda/plugin_device.cpp where CUDA is,
// and from cuda_stub.cpp where it is not: there make_plugin_device says why there is no device.

#include <cstddef>
#include <memory>
#include <string>

namespace scatter::detail {

/// One device allocation, freed on every path.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual void* get() const = 0;
};

/// The device, its stream (the plugin's `stream`) and the timer on it. Every call throws
/// Error(backend) naming the failed CUDA call.
class PluginDevice {
 public:
  virtual ~PluginDevice() = default;
  virtual int id() const = 0;
  virtual const std::string& name() const = 0;
  /// scatterctl's stream (a cudaStream_t), the one the plugin must launch on.
  virtual void* stream() = 0;
  /// A buffer of `bytes` holding the first `bytes` of `host`, uploaded and complete.
  virtual std::unique_ptr<DeviceBuffer> upload(const void* host, std::size_t bytes) = 0;
  /// Copies device to device on the stream (restores `out` between timed runs).
  virtual void copy(void* to, const void* from, std::size_t bytes) = 0;
  /// Copies device to host, once every stream's work is done.
  virtual void download(void* host, const void* device, std::size_t bytes) = 0;
  /// Evicts the device's L2 on the stream (cold benchmarks), before start().
  virtual void flush() = 0;
  /// Waits for every upload and copy, then records the start of the timed region on the stream.
  virtual void start() = 0;
  /// Waits for the whole device (every stream), then records the stop: the seconds between,
  /// with work that a plugin left on another stream counted.
  virtual double stop() = 0;
  /// After a failure: the sticky CUDA error that lost the context, or "" when it still works.
  virtual std::string lost() = 0;
};

/// The device plugins get their tensors on (device 0, the cuda backend's); nullptr and `why`
/// when there is none.
std::unique_ptr<PluginDevice> make_plugin_device(std::string& why);

}  // namespace scatter::detail
