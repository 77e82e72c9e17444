#pragma once
// The in-process plugin backend, shared by make_plugin_backend and the isolated host
// (which also needs the plugin's capabilities document as written).

#include <optional>
#include <string>

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
  BackendTraits traits() const override { return {BackendRole::external, MemoryKind::host, 1}; }

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

  std::string path_;
  std::string name_;  // "plugin:<path>"
  void* handle_ = nullptr;
  const sp_plugin_api* api_ = nullptr;
  std::optional<Capabilities> caps_;
  std::string reason_;
};

}  // namespace scatter::detail
