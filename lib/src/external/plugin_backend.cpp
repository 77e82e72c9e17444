// The in-process plugin backend: dlopen a library implementing scatter/plugin_abi.h, check
// its table once, and run each case through it. scatterctl owns every buffer; the plugin gets
// read-only views of the inputs and a copy of data as `out`, followed by a canary. Only the
// plugin's run() is timed. Afterwards the inputs' fingerprints and the canary are checked:
// a plugin that writes where it must not is an error of the backend, not a wrong answer.

#include "plugin_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "box/shared.hpp"
#include "platform/probes.hpp"
#include "platform/counted.hpp"
#include "scatter/cancel.hpp"
#include "scatter/abrupt_end.hpp"
#include "scatter/plugin.hpp"
#include "scatter/result.hpp"
#include "scatter/units.hpp"

namespace scatter {
namespace detail {

// sp_tensor must keep DLTensor's layout (plugins may cast to it).
static_assert(offsetof(sp_tensor, device) == 8 && offsetof(sp_tensor, ndim) == 16 &&
              offsetof(sp_tensor, dtype) == 20 && offsetof(sp_tensor, shape) == 24 &&
              offsetof(sp_tensor, strides) == 32 && offsetof(sp_tensor, byte_offset) == 40 && sizeof(sp_tensor) == 48,
              "sp_tensor no longer has DLTensor's layout");

namespace {

// The plugin call in flight ("run()"; journal.hpp names the case and backend), for the exit guard and the
// watchdog. Plain buffers and atomics: they must outlive every static destructor that exit()
// runs before the guard.
char call_in_flight[768] = {};
std::atomic<bool> call_active{false};
std::atomic<std::int64_t> call_deadline_ns{0};  // steady clock; 0: the case has no --timeout

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Says why on stderr, leaves the reports of what finished (journal.hpp) and ends the process:
// a thread inside a plugin cannot be stopped, and exit() must not end the run with the
// plugin's status.
[[noreturn]] void end_run_in_plugin(const char* what, EndKind kind, int exit_code) {
  char why[1024];
  std::snprintf(why, sizeof why, "%s %s", call_in_flight, what);
  end_run_abruptly(why, kind);
  ::_exit(exit_code);
}

// exit() from inside the plugin: exit 1, never the plugin's 0.
void exit_guard() {
  if (!call_active.load()) return;
  end_run_in_plugin("called exit() (with --in-process; a plugin in its own child process costs one case)",
                    EndKind::crashed, kExitFailed);
}

// Ends a run whose plugin call overran --timeout (0.5 s of grace) or ignored an interrupt for
// a second; the default, an isolated plugin, is stopped with its child process instead.
void watchdog() {
  std::int64_t interrupted_since = 0;
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!call_active.load()) {
      interrupted_since = 0;
      continue;
    }
    const auto now = steady_ns();
    const auto deadline = call_deadline_ns.load();
    if (deadline != 0 && now > deadline + 500'000'000) {
      end_run_in_plugin("ran past the case's --timeout", EndKind::timed_out, kExitFailed);
    }
    if (interrupted()) {
      if (interrupted_since == 0) interrupted_since = now;
      if (now - interrupted_since > 1'000'000'000) {
        end_run_in_plugin("did not return within 1 s of the interrupt", EndKind::interrupted, kExitInterrupted);
      }
    }
  }
}

// Marks a call into the plugin, for the exit guard and the watchdog, while it runs.
class InFlight {
 public:
  InFlight(const char* what, const std::string& plugin) {
    static const bool guarded = [] {
      std::thread(watchdog).detach();
      return std::atexit(exit_guard) == 0;
    }();
    (void)guarded;
    std::snprintf(call_in_flight, sizeof call_in_flight, "%s of %s", what, plugin.c_str());
    const auto left = case_seconds_left();
    call_deadline_ns.store(left ? steady_ns() + static_cast<std::int64_t>(std::max(0.0, *left) * 1e9) : 0);
    call_active.store(true);
  }
  ~InFlight() { call_active.store(false); }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;
};

// The table as ABI 1.0 defines it: later minor versions only append, so a plugin built
// against any 1.x has at least this much.
constexpr std::size_t kApiSize10 = offsetof(sp_plugin_api, last_error_code) + sizeof(sp_plugin_api::last_error_code);

// Inputs larger than this are not fingerprinted: hashing would cost more than the op.
constexpr std::size_t kFingerprintLimit = 256u << 20;

std::optional<std::uint64_t> fingerprint_if_small(const Tensor& t) {
  if (t.nbytes() > kFingerprintLimit) return std::nullopt;
  return fingerprint(t);
}

// Bytes after `out` that the plugin must leave as they were: the box's pattern.
constexpr std::size_t kCanary = box::kCanaryBytes;
using box::canary_byte;

bool canary_intact(const std::byte* canary) {
  for (std::size_t i = 0; i < kCanary; ++i) {
    if (canary[i] != canary_byte(i)) return false;
  }
  return true;
}

// The output as the plugin sees it: data's bytes, then kCanary bytes of a known pattern.
class GuardedOutput {
 public:
  static constexpr std::size_t kAlign = 64;

  explicit GuardedOutput(const Tensor& data)
      : size_(data.nbytes()), bytes_(static_cast<std::byte*>(::operator new(size_ + kCanary, std::align_val_t{kAlign}))) {
    if (size_ > 0) std::memcpy(bytes_, data.bytes(), size_);
    for (std::size_t i = 0; i < kCanary; ++i) bytes_[size_ + i] = canary_byte(i);
  }
  ~GuardedOutput() { ::operator delete(bytes_, std::align_val_t{kAlign}); }
  GuardedOutput(const GuardedOutput&) = delete;
  GuardedOutput& operator=(const GuardedOutput&) = delete;

  std::byte* bytes() { return bytes_; }
  bool canary_intact() const { return scatter::detail::canary_intact(bytes_ + size_); }

 private:
  std::size_t size_;
  std::byte* bytes_;
};

// The ABI's value of each op and reduction, in the vocabulary's order (kOps, kReductions): an op
// it has no value for (-1, ONNX TensorScatter) or a reduction newer than it cannot be asked of a
// plugin, so the case is not the plugin's.
constexpr std::int32_t kSpOps[] = {SP_OP_SCATTER_ELEMENTS, SP_OP_SCATTER_ND, SP_OP_SCATTER_UPDATE, -1};
constexpr std::int32_t kSpReductions[] = {SP_REDUCTION_NONE, SP_REDUCTION_ADD, SP_REDUCTION_SUB, SP_REDUCTION_MUL,
                                          SP_REDUCTION_MIN,  SP_REDUCTION_MAX, SP_REDUCTION_MEAN};
static_assert(std::size(kSpOps) == std::size(kOps));

std::int32_t sp_op_of(Op op) {
  if (const auto value = kSpOps[static_cast<std::size_t>(op)]; value >= 0) return value;
  throw Unsupported(fmt::format("the plugin ABI ({}.{}) has no {} op", SP_ABI_MAJOR, SP_ABI_MINOR, to_string(op)));
}

std::int32_t sp_reduction_of(Reduction r) {
  if (const auto i = static_cast<std::size_t>(r); i < std::size(kSpReductions)) return kSpReductions[i];
  throw Unsupported(fmt::format("the plugin ABI ({}.{}) has no reduction {}", SP_ABI_MAJOR, SP_ABI_MINOR, to_string(r)));
}

}  // namespace

sp_dtype sp_dtype_of(DType dtype) {
  const auto bits = static_cast<std::uint8_t>(size_of(dtype) * 8);
  switch (info_of(dtype).kind) {
    case DTypeKind::floating:
      return {static_cast<std::uint8_t>(dtype == DType::bfloat16 ? SP_CODE_BFLOAT : SP_CODE_FLOAT), bits, 1};
    case DTypeKind::signed_integer: return {SP_CODE_INT, bits, 1};
    case DTypeKind::unsigned_integer: return {SP_CODE_UINT, bits, 1};
    case DTypeKind::boolean: return {SP_CODE_BOOL, bits, 1};
  }
  SCATTER_ASSERT(false && "unknown dtype kind");
}

// The case as the plugin sees it, over views that outlive the call.
sp_case case_of(const Case& c, const RunFlags& flags, View& data, View& indices, View& updates, View& out,
                void* stream) {
  sp_case sc{};
  sc.struct_size = sizeof(sp_case);
  sc.op = sp_op_of(c.attrs.op);
  sc.reduction = sp_reduction_of(c.attrs.reduction);
  sc.axis = static_cast<std::int32_t>(c.attrs.axis);
  sc.use_init_val = c.attrs.use_init_val ? 1 : 0;
  sc.flags = (flags.in_place ? SP_FLAG_IN_PLACE : 0u) | (flags.deterministic ? SP_FLAG_DETERMINISTIC : 0u);
  sc.data = data.get();
  sc.indices = indices.get();
  sc.updates = updates.get();
  sc.out = out.get();
  sc.stream = stream;
  sc.name = c.name.c_str();
  return sc;
}

PluginBackend::PluginBackend(std::string path) : path_(std::move(path)), name_("plugin:" + path_) {
  // PATH is a file: without a '/', dlopen would search the library path instead.
  const auto file = path_.find('/') == std::string::npos ? "./" + path_ : path_;
  dlerror();
  handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    fail(fmt::format("cannot load plugin '{}': {}", path_, why ? why : "dlopen failed"));
    return;
  }
  dlerror();
  void* entry = dlsym(handle_, SP_ENTRY_POINT);
  if (entry == nullptr) {
    fail(fmt::format("plugin '{}' exports no {} (it must be defined with C linkage)", path_, SP_ENTRY_POINT));
    return;
  }
  const auto get_api = reinterpret_cast<sp_get_api_fn>(entry);
  const sp_plugin_api* api = get_api(SP_ABI_MAJOR, SP_ABI_MINOR);
  if (api == nullptr) {
    fail(fmt::format("plugin '{}': {}({}, {}) returned NULL (it cannot serve ABI {}.{})", path_, SP_ENTRY_POINT,
                     SP_ABI_MAJOR, SP_ABI_MINOR, SP_ABI_MAJOR, SP_ABI_MINOR));
    return;
  }
  // struct_size and abi_major lead the table in every version; the rest depends on the major.
  if (api->abi_major != SP_ABI_MAJOR) {
    fail(fmt::format("plugin '{}' is built for ABI {}.{}, scatterctl speaks {}.{}", path_, api->abi_major,
                     api->abi_minor, SP_ABI_MAJOR, SP_ABI_MINOR));
    return;
  }
  if (api->struct_size < kApiSize10) {
    fail(fmt::format("plugin '{}': its sp_plugin_api has struct_size {}, ABI {}.0 needs at least {}", path_,
                     api->struct_size, SP_ABI_MAJOR, kApiSize10));
    return;
  }
  if (api->run == nullptr) {
    fail(fmt::format("plugin '{}': its sp_plugin_api has no run()", path_));
    return;
  }
  if (api->capabilities_json == nullptr) {
    fail(fmt::format("plugin '{}' declares no capabilities (capabilities_json is NULL)", path_));
    return;
  }
  try {
    caps_ = parse_capabilities(api->capabilities_json, name_);
  } catch (const Error& e) {
    fail(fmt::format("plugin '{}' declares invalid capabilities: {}", path_, e.message()));
    return;
  }
  // ABI 1.1 appended `memory`; a table that ends before it wants host tensors.
  const bool has_memory = api->struct_size >= offsetof(sp_plugin_api, memory) + sizeof(api->memory);
  const auto memory = has_memory ? api->memory : static_cast<std::uint32_t>(SP_MEMORY_HOST);
  if (memory != SP_MEMORY_HOST && memory != SP_MEMORY_CUDA) {
    fail(fmt::format("plugin '{}' asks for memory {}, which is neither SP_MEMORY_HOST (0) nor SP_MEMORY_CUDA (1)",
                     path_, memory));
    return;
  }
  if (memory == SP_MEMORY_CUDA) {
    std::string why;
    device_ = make_plugin_device(why);
    if (!device_) {
      fail(fmt::format("plugin '{}' takes its tensors on a GPU (SP_MEMORY_CUDA), and there is none here: {}", path_,
                       why));
      return;
    }
  }
  api_ = api;
}

PluginBackend::~PluginBackend() {
  if (handle_ != nullptr) dlclose(handle_);
}

void PluginBackend::fail(std::string reason) {
  api_ = nullptr;
  caps_.reset();
  reason_ = std::move(reason);
}

std::string PluginBackend::plugin_name() const {
  return api_ != nullptr && api_->name != nullptr && api_->name[0] != '\0' ? api_->name : path_;
}

std::string PluginBackend::version() const {
  return api_ != nullptr && api_->version != nullptr ? api_->version : "";
}

std::string PluginBackend::device() const {
  if (api_ == nullptr) return device_ ? "GPU (plugin unavailable)" : "CPU (plugin unavailable)";
  if (device_) return fmt::format("{} (plugin {} {}, device tensors)", device_->name(), plugin_name(), version());
  return fmt::format("CPU (plugin {} {})", plugin_name(), version());
}

std::string PluginBackend::capabilities_json() const { return api_ != nullptr ? api_->capabilities_json : ""; }

// A plugin's message, its first 4 KiB: a longer one would be copied into every row, and past the
// worker protocol's 1 MiB line it would read as a protocol error instead of the plugin's words.
std::string PluginBackend::last_error(const std::string& fallback) const {
  constexpr std::size_t kMaxMessage = 4096;
  const char* text = api_->last_error != nullptr ? api_->last_error() : nullptr;
  if (text == nullptr || text[0] == '\0') return fallback;
  const std::size_t length = ::strnlen(text, kMaxMessage + 1);
  std::string message(text, std::min(length, kMaxMessage));
  if (length > kMaxMessage) message += fmt::format(" [cut: last_error() is longer than {} bytes]", kMaxMessage);
  return message;
}

Rejected PluginBackend::rejection() const {
  const char* code = api_->last_error_code != nullptr ? api_->last_error_code() : nullptr;
  return Rejected(code != nullptr ? code : "", last_error(fmt::format("plugin {} rejected the case", plugin_name())));
}

namespace {

// What a call that returned SP_OK answers: out's bytes as the output, and the timed run.
BackendOutput output_of(const Case& c, const std::byte* out, double seconds, const char* timing) {
  BackendOutput result;
  result.output = Tensor(c.data.dtype(), c.data.shape());
  if (result.output.nbytes() > 0) std::memcpy(result.output.bytes(), out, result.output.nbytes());
  result.seconds = seconds;
  result.timing = timing;
  return result;
}

}  // namespace

// run() once, measured by `timed_run`, marked in flight for the exit guard and the watchdog.
template <class TimedRun>
std::pair<sp_status, double> PluginBackend::run_once(TimedRun timed_run) {
  const InFlight in_flight("run()", name_);  // outside the timed region: it formats a string
  return timed_run();
}

void PluginBackend::ask_supports(const sp_case& sc) const {
  if (api_->supports == nullptr) return;
  const auto who = plugin_name();
  char reason[1024] = {};
  const auto status = [&] {
    const InFlight in_flight("supports()", name_);
    return api_->supports(&sc, reason, sizeof reason);
  }();
  reason[sizeof reason - 1] = '\0';
  switch (status) {
    case SP_OK:
      return;
    case SP_UNSUPPORTED:
      throw Unsupported(reason[0] != '\0' ? reason : fmt::format("plugin {} does not support the case", who));
    case SP_REJECTED:
      throw rejection();
    case SP_ERROR:
      throw Error(ErrorCode::backend, "", fmt::format("plugin {}: {}", who, last_error()));
  }
  throw BackendFault(fmt::format("plugin {} returned an unknown status {} from supports()", who, static_cast<int>(status)));
}

sp_status PluginBackend::call_run(const sp_case& sc) const {
  try {
    const detail::CountedRegion counted;
    return api_->run(&sc);
  } catch (...) {
    throw BackendFault(fmt::format("plugin {} threw a C++ exception out of run()", plugin_name()));
  }
}

void PluginBackend::throw_for(sp_status status) const {
  const auto who = plugin_name();
  switch (status) {
    case SP_OK:
      return;
    case SP_UNSUPPORTED:
      if (api_->supports == nullptr) throw Unsupported(last_error(fmt::format("plugin {} does not support the case", who)));
      throw BackendFault(fmt::format("plugin {} accepted the case in supports() but run() returned SP_UNSUPPORTED: {}",
                                     who, last_error()));
    case SP_REJECTED:
      throw rejection();
    case SP_ERROR:
      throw Error(ErrorCode::backend, "", fmt::format("plugin {}: {}", who, last_error()));
  }
  throw BackendFault(fmt::format("plugin {} returned an unknown status {} from run()", who, static_cast<int>(status)));
}

BackendOutput PluginBackend::run(const Case& given, const RunFlags& flags) {
  if (api_ == nullptr) throw BackendFault("unavailable: " + reason_);
  // A varied call (bench) runs on a case of its own: the given one is shared and const.
  std::optional<Case> varied;
  if (flags.vary && !flags.vary->empty()) varied = varied_copy(given, *flags.vary);
  const Case& c = varied ? *varied : given;
  if (device_) return run_on_device(c, flags);
  using Clock = std::chrono::steady_clock;

  // Case is const, so in place is emulated: the plugin gets the output buffer (a copy of
  // data) as both data and out, and SP_FLAG_IN_PLACE.
  GuardedOutput out(c.data);
  View data(c.data, flags.in_place ? out.bytes() : c.data.bytes());
  View indices(c.indices, c.indices.bytes());
  View updates(c.updates, c.updates.bytes());
  View out_view(c.data, out.bytes());
  const auto sc = case_of(c, flags, data, indices, updates, out_view, nullptr);

  // Fingerprints before the plugin sees its inputs.
  const auto data_before = flags.in_place ? std::nullopt : fingerprint_if_small(c.data);
  const auto indices_before = fingerprint_if_small(c.indices);
  const auto updates_before = fingerprint_if_small(c.updates);

  const auto who = plugin_name();
  ask_supports(ShapesOnly(c, flags).get());
  const auto [status, seconds] = run_once(
      [&] {
        if (flags.flush_caches) flush_host_caches();
        if (flags.signals) flags.signals->starting();
        const auto start = Clock::now();
        const auto status = call_run(sc);
        const auto seconds = std::chrono::duration<double>(Clock::now() - start).count();
        if (flags.signals) flags.signals->stopped();
        return std::pair{status, seconds};
      });

  // Memory the plugin must not touch, checked whatever it returned.
  if (!out.canary_intact()) throw BackendFault(fmt::format("plugin {} wrote past the end of out", who));
  const auto changed = [](const std::optional<std::uint64_t>& before, const Tensor& t) {
    return before && *before != fingerprint(t);
  };
  for (const auto& [before, tensor, field] : {std::tuple{data_before, &c.data, "data"},
                                              std::tuple{indices_before, &c.indices, "indices"},
                                              std::tuple{updates_before, &c.updates, "updates"}}) {
    if (changed(before, *tensor)) {
      throw BackendFault(fmt::format("plugin {} modified its input {}", who, field));
    }
  }
  throw_for(status);
  return output_of(c, out.bytes(), seconds, "steady_clock around run() (host)");
}

// The same contract on the device: scatterctl's buffers and stream, the canary after out and
// the inputs checked after the call by downloading them. A CUDA error that loses the context
// makes the plugin unavailable for the rest of the run, with the reason.
BackendOutput PluginBackend::run_on_device(const Case& c, const RunFlags& flags) {
  try {
    return run_on(*device_, c, flags);
  } catch (const Error& e) {
    if (auto sticky = device_->lost(); !sticky.empty()) {
      fail(fmt::format("the GPU's context was lost ({}) in a call of plugin {}", sticky, plugin_name()));
    }
    throw;
  }
}

BackendOutput PluginBackend::run_on(PluginDevice& device, const Case& c, const RunFlags& flags) {
  const sp_device where{SP_DEVICE_CUDA, device.id()};
  const auto n = c.data.nbytes();
  std::vector<std::byte> staged(n + kCanary);
  if (n > 0) std::memcpy(staged.data(), c.data.bytes(), n);
  for (std::size_t i = 0; i < kCanary; ++i) staged[n + i] = canary_byte(i);
  const auto pristine = device.upload(c.data.bytes(), n);
  const auto indices_buffer = device.upload(c.indices.bytes(), c.indices.nbytes());
  const auto updates_buffer = device.upload(c.updates.bytes(), c.updates.nbytes());
  const auto out = device.upload(staged.data(), staged.size());
  View data(c.data, flags.in_place ? out->get() : pristine->get(), where);
  View indices(c.indices, indices_buffer->get(), where);
  View updates(c.updates, updates_buffer->get(), where);
  View out_view(c.data, out->get(), where);
  const auto sc = case_of(c, flags, data, indices, updates, out_view, device.stream());

  const auto who = plugin_name();
  ask_supports(ShapesOnly(c, flags).get());
  const auto [status, seconds] = run_once(
      [&] {
        if (flags.flush_caches) device.flush();
        if (flags.signals) flags.signals->starting();  // before the start event: its wait would be timed
        device.start();
        const auto status = call_run(sc);
        const auto seconds = device.stop();
        if (flags.signals) flags.signals->stopped();
        return std::pair{status, seconds};
      });

  // What the plugin must not touch, read back: the canary, and every input but in place's data.
  device.download(staged.data(), out->get(), staged.size());
  if (!canary_intact(staged.data() + n)) throw BackendFault(fmt::format("plugin {} wrote past the end of out", who));
  std::vector<std::byte> readback;
  for (const auto& [tensor, buffer, field] : {std::tuple{&c.data, flags.in_place ? nullptr : pristine.get(), "data"},
                                              std::tuple{&c.indices, indices_buffer.get(), "indices"},
                                              std::tuple{&c.updates, updates_buffer.get(), "updates"}}) {
    if (buffer == nullptr || tensor->nbytes() > kFingerprintLimit) continue;
    readback.resize(tensor->nbytes());
    device.download(readback.data(), buffer->get(), readback.size());
    if (!readback.empty() && std::memcmp(readback.data(), tensor->bytes(), readback.size()) != 0) {
      throw BackendFault(fmt::format("plugin {} modified its input {} (on the device)", who, field));
    }
  }
  throw_for(status);
  return output_of(c, staged.data(), seconds,
                   "CUDA events on scatterctl's stream, from before run() to after the whole device is idle");
}

}  // namespace detail

std::unique_ptr<Backend> make_plugin_backend(const std::string& path) {
  return std::make_unique<detail::PluginBackend>(path);
}

}  // namespace scatter
