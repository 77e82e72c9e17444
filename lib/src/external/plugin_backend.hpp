#pragma once
// The in-process plugin backend, shared by make_plugin_backend and the isolated host
// (which also needs the plugin's capabilities document as written).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/plugin_device.hpp"
#include "scatter/backend.hpp"
#include "scatter/plugin_abi.h"

namespace scatter::detail {

class PluginBackend final : public Backend {
 public:
  explicit PluginBackend(std::string path);
  ~PluginBackend() override;
  PluginBackend(const PluginBackend&) = delete;
  PluginBackend& operator=(const PluginBackend&) = delete;

  std::string_view name() const override { return name_; }
  Availability availability() const override { return {api_ != nullptr, reason_}; }
  std::string device() const override;
  BackendOutput run(const Case& c, const RunFlags& flags) override;
  const Capabilities* capabilities() const override { return caps_ ? &*caps_ : nullptr; }
  std::string version() const override;
  BackendTraits traits() const override {
    return {BackendRole::external, device_ ? MemoryKind::device : MemoryKind::host, 1};
  }

  /// The capabilities document as the plugin wrote it ("" when unavailable).
  std::string capabilities_json() const;

 private:
  // Empties the table and records why the plugin cannot be used.
  void fail(std::string reason);
  std::string plugin_name() const;
  // The plugin's last_error(), or `fallback` when it has none.
  std::string last_error(const std::string& fallback = "(no message)") const;
  // The Rejected for an SP_REJECTED status, with the plugin's code and message.
  Rejected rejection() const;
  // supports(), when the plugin has it: throws what a status other than SP_OK means.
  void ask_supports(const sp_case& sc) const;
  // run(), counted (counter.hpp); a C++ exception out of it is a fault.
  sp_status call_run(const sp_case& sc) const;
  // Throws what run()'s status means, unless SP_OK.
  void throw_for(sp_status status) const;
  // run() `repeat` times (see the definition), measured by `timed_run`.
  template <class Restore, class TimedRun>
  sp_status run_repeats(int repeat, Restore restore, TimedRun timed_run, std::vector<double>& samples);
  // A plugin that takes device tensors (ABI 1.1, SP_MEMORY_CUDA).
  BackendOutput run_on_device(const Case& c, const RunFlags& flags);
  BackendOutput run_on(PluginDevice& device, const Case& c, const RunFlags& flags);

  std::string path_;
  std::string name_;  // "plugin:<path>"
  void* handle_ = nullptr;
  const sp_plugin_api* api_ = nullptr;
  std::optional<Capabilities> caps_;
  std::unique_ptr<PluginDevice> device_;  // where a plugin that asks for device tensors gets them
  std::string reason_;
};

}  // namespace scatter::detail
