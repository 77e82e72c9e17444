// Built instead of lib/src/cuda/ when there is no CUDA backend in this build: the
// backend exists, says why it cannot run, and never fails a run that did not ask for it.

#include <string>

#include "platform/probes.hpp"
#include "platform/plugin_device.hpp"
#include "scatter/backend.hpp"
#include "scatter/error.hpp"

namespace scatter {
namespace {

class UnavailableCuda final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  Availability availability() const override { return {false, SCATTER_CUDA_STUB_REASON}; }
  std::string device() const override { return "none"; }
  BackendTraits traits() const override { return {BackendRole::builtin, MemoryKind::device, 1}; }
  BackendOutput run(const Case&, const RunFlags&) override { 
    throw Error(ErrorCode::backend, "", std::string("unavailable: ") + SCATTER_CUDA_STUB_REASON);
  }
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<UnavailableCuda>(); }

std::unique_ptr<BandwidthProbe> make_cuda_probe() { return nullptr; }

namespace detail {

std::unique_ptr<PluginDevice> make_plugin_device(std::string& why) {
  why = SCATTER_CUDA_STUB_REASON;
  return nullptr;
}

}  // namespace detail

}  // namespace scatter
