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

/// The ABI's description of a dtype.
sp_dtype sp_dtype_of(DType dtype);

inline constexpr sp_device kHost{SP_DEVICE_CPU, 0};

// An sp_tensor over a buffer of `device`; it points into its own shape and strides, so it stays put.
class View {
 public:
  View(const Tensor& t, const void* bytes, sp_device device = kHost) : shape_(t.shape()), strides_(shape_.size()) {
    std::int64_t stride = 1;
    for (std::size_t d = shape_.size(); d-- > 0;) {
      strides_[d] = stride;
      stride *= shape_[d];
    }
    // Rank 0: shape and strides are never read, but the ABI promises non-NULL pointers.
    static std::int64_t scalar_dims[1] = {1};
    view_.data = const_cast<void*>(bytes);
    view_.device = device;
    view_.ndim = static_cast<std::int32_t>(shape_.size());
    view_.dtype = sp_dtype_of(t.dtype());
    view_.shape = shape_.empty() ? scalar_dims : shape_.data();
    view_.strides = strides_.empty() ? scalar_dims : strides_.data();
    view_.byte_offset = 0;
  }
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  sp_tensor* get() { return &view_; }

 private:
  Shape shape_;
  std::vector<std::int64_t> strides_;
  sp_tensor view_{};
};

/// The case as the plugin sees it, over views that outlive the call.
sp_case case_of(const Case& c, const RunFlags& flags, View& data, View& indices, View& updates, View& out, void* stream);

/// The case as supports() sees it: shapes, dtypes and attributes, and no buffer (every data
/// pointer NULL): supports() is a check, and work done there would be done outside the timed call.
class ShapesOnly {
 public:
  ShapesOnly(const Case& c, const RunFlags& flags)
      : data_(c.data, nullptr), indices_(c.indices, nullptr), updates_(c.updates, nullptr), out_(c.data, nullptr),
        case_(case_of(c, flags, data_, indices_, updates_, out_, nullptr)) {}
  const sp_case& get() const { return case_; }

 private:
  View data_, indices_, updates_, out_;
  sp_case case_;
};

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
    return {BackendRole::external, device_ ? MemoryKind::device : MemoryKind::host, 1, true};
  }

  /// The capabilities document as the plugin wrote it ("" when unavailable).
  std::string capabilities_json() const;

  // The parts of a call the box's host drives itself (box/box_host.cpp), over its own buffers.
  // supports(), when the plugin has it: throws what a status other than SP_OK means.
  void ask_supports(const sp_case& sc) const;
  // run(), counted (counter.hpp); a C++ exception out of it is a fault.
  sp_status call_run(const sp_case& sc) const;
  // Throws what run()'s status means, unless SP_OK.
  void throw_for(sp_status status) const;

 private:
  // Empties the table and records why the plugin cannot be used.
  void fail(std::string reason);
  std::string plugin_name() const;
  // The plugin's last_error(), or `fallback` when it has none.
  std::string last_error(const std::string& fallback = "(no message)") const;
  // The Rejected for an SP_REJECTED status, with the plugin's code and message.
  Rejected rejection() const;
  // run() once, measured by `timed_run` (see the definition).
  template <class TimedRun>
  std::pair<sp_status, double> run_once(TimedRun timed_run);
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
