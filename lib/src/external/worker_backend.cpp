// Framework backends (and isolated plugins): a Backend whose work is done by a worker
// process speaking protocol 1 (docs/backends.md). Tensors go through .npy files in a
// private directory; the answer is checked (dtype, shape, bytes) before it is compared.

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "platform/counted.hpp"
#include "load/detail.hpp"
#include "process.hpp"
#include "scatter/backend.hpp"
#include "scatter/cancel.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/load.hpp"
#include "scatter/files.hpp"
#include "worker_backend.hpp"

namespace scatter::external {
namespace {

constexpr int kProtocol = 1;
constexpr double kHelloSeconds = 120.0;  // importing torch or tvm takes seconds (without --timeout)
constexpr double kDefaultCaseSeconds = 300.0;
constexpr int kFailuresBeforeGivingUp = 3;
constexpr double kShortestTime = 1e-9;  // seconds
constexpr int kNullCalls = 7;  // the null calls whose median is the signals' cost

using nlohmann::json;

// A variation as a request carries it: each tensor's positions and new bit patterns.
json variation_json(const InputVariation& v) {
  const auto delta = [](const ElementDelta& d) { return json{{"at", d.at}, {"bits", d.bits}}; };
  return {{"number", v.number}, {"data", delta(v.data)}, {"updates", delta(v.updates)}};
}

std::string text_of(const json& answer, const char* key) {
  const auto it = answer.find(key);
  return it != answer.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class WorkerBackend final : public Backend {
 public:
  WorkerBackend(std::string name, std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env,
                const WorkerOptions& options)
      : name_(std::move(name)),
        argv_(std::move(argv)),
        env_(std::move(env)),
        request_timeout_(options.request_timeout),
        hosts_builtin_(options.hosts_builtin),
        count_instructions_(options.count_instructions),
        calibrate_signals_(options.calibrate_signals),
        freeze_between_requests_(options.freeze_between_requests) {}

  std::string_view name() const override { return name_; }

  Availability availability() const override {
    ensure_hello();
    return availability_;
  }

  std::string device() const override {
    ensure_hello();
    return device_;
  }

  const Capabilities* capabilities() const override {
    ensure_hello();
    return capabilities_ ? &*capabilities_ : nullptr;
  }

  std::string version() const override {
    ensure_hello();
    return version_;
  }

  // A worker whose device is the host's CPU ("CPU ...") is measured against the host's lines.
  BackendTraits traits() const override {
    ensure_hello();
    return {role_, device_.rfind("CPU", 0) == 0 ? MemoryKind::host : MemoryKind::device, threads_};
  }

  std::vector<std::pair<std::string, std::string>> properties() const override {
    ensure_hello();
    return properties_;
  }

  // Only a backend-host restarts in milliseconds; a framework worker imports for seconds, and
  // valgrind starts for seconds (counts do not depend on the process anyway).
  void renew() override {
    if (!hosts_builtin_ || count_instructions_ || !process_ || !availability_.available) return;
    process_->stop();
    try {
      process_->start();
      const auto answer = process_->request(hello_request(), hello_seconds());
      if (text_of(answer, "status") != "ok") throw ProcessFailure{ProcessFailure::Kind::protocol, "answered hello with "
                                                                  + answer.dump()};
    } catch (const ProcessFailure& failure) {
      availability_ = {false, fmt::format("the worker ({}) could not be restarted: {}{}", argv_.front(), failure.what,
                                          log_excerpt())};
    }
  }

  BackendOutput run(const Case& c, const RunFlags& flags) override {
    ensure_hello();
    if (!availability_.available) throw BackendFault(fmt::format("{} is unavailable: {}", name_, availability_.reason));
    if (failures_in_a_row_ >= kFailuresBeforeGivingUp) {
      throw BackendFault(fmt::format("{} gave up after {} crashes or time-outs in a row; last: {}", name_,
                                     failures_in_a_row_, last_failure_));
    }
    held_.reset();  // a worker holds one output, the last run's
    keep_private_dir();
    const auto id = ++next_id_;
    // Folders of fresh, unguessable names, their files created exclusively: nothing a worker
    // left or planted (a link, a FIFO) is written through or read (npy.cpp). The inputs are
    // written once a case: bench's later samples of it (RunFlags::same_inputs) name the same
    // files, and the worker may keep what it loaded from them. A large case's inputs are GBs:
    // written, read and uploaded again for every sample, they took most of a bench run's time.
    // The pointer alone would not do (bench's Case of the next benchmark may sit at the same
    // address); bench's flag says it is the same case, unchanged, as the last call's.
    const bool same_inputs = flags.same_inputs && inputs_.dir && inputs_.source == &c;
    if (!same_inputs) {
      inputs_ = {};
      inputs_.dir = std::make_unique<PrivateDir>(dir_->path(), "inputs");
      const auto stem = inputs_.dir->path() + "/";
      detail::write_new_npy(c.data, stem + "data.npy");
      detail::write_new_npy(c.indices, stem + "indices.npy");
      detail::write_new_npy(c.updates, stem + "updates.npy");
      inputs_.source = &c;
    }
    const auto inputs = inputs_.dir->path() + "/";
    const std::string data = inputs + "data.npy", indices = inputs + "indices.npy", updates = inputs + "updates.npy";
    const PrivateDir request_dir(dir_->path(), std::to_string(id));
    const std::string out = request_dir.path() + "/out.npy";
    json request = {{"id", id},
                    {"op", "run"},
                    {"case",
                     {{"name", c.name},
                      {"op", std::string(to_string(c.attrs.op))},
                      {"reduction", std::string(to_string(c.attrs.reduction))},
                      {"axis", c.attrs.axis},
                      {"use_init_val", c.attrs.use_init_val},
                      {"mode", write_mode_name(c.attrs.mode)}}},
                    {"data", data},
                    {"indices", indices},
                    {"updates", updates},
                    {"out", out},
                    {"flags",
                     {{"in_place", flags.in_place},
                      {"deterministic", flags.deterministic},
                      {"flush_caches", flags.flush_caches}}},
                    {"repeat", flags.repeat > 0 ? flags.repeat : 1},
                    {"same_inputs", same_inputs},
                    {"hold_output", flags.hold_output}};
    if (flags.vary && !flags.vary->empty()) request["vary"] = variation_json(*flags.vary);
    if (flags.outer_clock) request["signals"] = true;
    const double limit = case_seconds_left().value_or(request_timeout_.value_or(kDefaultCaseSeconds));
    json answer;
    std::optional<OuterClock> outer;
    try {
      answer = process_->request(request, std::max(limit, 0.001), flags.outer_clock ? &outer : nullptr);
    } catch (const ProcessFailure& failure) {
      return on_failure(failure);
    }
    failures_in_a_row_ = 0;
    const auto status = text_of(answer, "status");
    // A backend lost for good (a plugin's GPU context): this case says why, the rest are skipped.
    if (const auto lost = text_of(answer, "lost"); !lost.empty()) availability_ = {false, lost};
    if (status == "unsupported") {
      // A refusal that the capabilities did not announce is the declaration's fault: an
      // error (a claimed but unimplemented case), unless the worker says that its own
      // declared check (a plugin's supports()) declined it.
      if (answer.value("declared", false)) throw Unsupported(text_of(answer, "reason"));
      throw BackendFault(fmt::format("{} declared support for the case but refused it at run time: {}", name_,
                                     text_of(answer, "reason")));
    }
    if (status == "rejected") throw Rejected(text_of(answer, "code"), text_of(answer, "message"));
    if (status == "error" && answer.value("fault", false)) {
      throw BackendFault(fmt::format("{}: {}", name_, text_of(answer, "message")));  // an isolated plugin's breach
    }
    if (status == "unavailable") {
      availability_ = {false, text_of(answer, "reason")};
      throw BackendFault(fmt::format("{} is unavailable: {}", name_, availability_.reason));
    }
    if (status != "error" && status != "ok") {
      throw BackendFault(fmt::format("the {} worker broke protocol {}: answered status '{}'", name_, kProtocol, status));
    }
    if (status != "ok") {
      auto message = text_of(answer, "message");
      if (message.empty()) message = "answered status 'error' without a message";
      throw Error(ErrorCode::backend, "", fmt::format("{}: {}", name_, message));
    }
    BackendOutput result;
    const auto held = answer.find("held");
    if (flags.hold_output && held != answer.end() && held->is_boolean() && held->get<bool>()) {
      result.held = true;
      held_ = HeldOutput{c.data.dtype(), c.data.shape()};
    } else {
      // Asked to write it, or a worker that predates hold_output wrote it anyway.
      result.output = read_output(out, c.data.dtype(), c.data.shape());
    }
    if (const auto it = answer.find("seconds"); it != answer.end()) result.seconds = time_of(*it, "seconds");
    if (const auto it = answer.find("samples"); it != answer.end() && it->is_array()) {
      for (std::size_t k = 0; k < it->size(); ++k) result.samples.push_back(time_of((*it)[k], fmt::format("samples[{}]", k)));
    }
    if (flags.outer_clock) {
      if (!outer) {
        throw BackendFault(fmt::format("the {} worker broke protocol {}: it did not signal ready and done around its "
                                       "timed call, so scatterctl could not time it on its own clock",
                                       name_, kProtocol));
      }
      outer->round_trip = signal_cost_[flags.flush_caches];
      result.outer = outer;
    }
    result.timing = text_of(answer, "timing");
    result.lowering = text_of(answer, "lowering");
    if (const auto it = answer.find("counts"); it != answer.end() && it->is_object()) {
      for (const auto& [event, value] : it->items()) {
        if (!value.is_number() || !(value.get<double>() >= 0) || !std::isfinite(value.get<double>())) {
          throw BackendFault(fmt::format("the {} worker broke protocol {}: counts.{} = {} is not a count", name_,
                                         kProtocol, event, value.dump()));
        }
        result.counts.emplace_back(event, value.get<double>());
      }
    }
    return result;
  }

  Tensor take_held_output() override {
    if (!held_) return Backend::take_held_output();
    const auto what = *std::exchange(held_, std::nullopt);
    keep_private_dir();
    const PrivateDir request_dir(dir_->path(), std::to_string(++next_id_));
    const std::string out = request_dir.path() + "/out.npy";
    json answer;
    try {
      answer = process_->request({{"id", next_id_}, {"op", "output"}, {"out", out}},
                                 request_timeout_.value_or(kDefaultCaseSeconds));
    } catch (const ProcessFailure& failure) {
      on_failure(failure);
    }
    if (text_of(answer, "status") != "ok") {
      throw BackendFault(fmt::format("{} did not give the output it held: answered {}", name_, answer.dump()));
    }
    return read_output(out, what.dtype, what.shape);
  }

 private:
  // The private folder as it was made: a kernel in the worker (or anyone of this user) may remove
  // or replace it. That costs the case in hand, whose files went with it, never the next: a
  // folder that is gone, or is no longer the one made, is made anew before each request.
  void keep_private_dir() {
    struct stat st {};
    if (dir_ && ::lstat(dir_->path().c_str(), &st) == 0 && S_ISDIR(st.st_mode) &&
        static_cast<std::uint64_t>(st.st_dev) == dir_identity_.device &&
        static_cast<std::uint64_t>(st.st_ino) == dir_identity_.inode) {
      return;
    }
    dir_ = std::make_unique<PrivateDir>("scatterctl");
    dir_identity_ = *identity_of(dir_->path());
    inputs_ = {};  // its files went with the old folder
  }

  Tensor read_output(const std::string& path, DType dtype, const Shape& shape) const {
    try {
      return detail::read_npy(path, dtype, shape, detail::NpyTrust::worker_file);
    } catch (const Error& e) {
      throw BackendFault(fmt::format("{} wrote an invalid output: {}", name_, e.message()));
    }
  }

  // Starts the worker and asks what it is, once; the answer decides availability.
  void ensure_hello() const {
    if (hello_done_) return;
    hello_done_ = true;
    try {
      dir_ = std::make_unique<PrivateDir>("scatterctl");
      dir_identity_ = identity_of(dir_->path()).value_or(FileIdentity{});
    } catch (const Error& e) {
      availability_ = {false, e.message()};
      return;
    }
    auto argv = argv_;
    auto env = env_;
    if (count_instructions_) {
      // callgrind's dumps go to the private folder, one file per counted region.
      const auto dumps = dir_->path() + "/callgrind.%p";
      auto valgrind = detail::callgrind_argv(dumps);
      argv.insert(argv.begin(), valgrind.begin(), valgrind.end());
      env.emplace_back(detail::kCountDumpsVariable, dumps);
    }
    process_ = std::make_unique<WorkerProcess>(argv, env, dir_->path() + "/worker.log");
    if (freeze_between_requests_) process_->freeze_between_requests();
    json answer;
    try {
      process_->start();
      // The signals' own cost, measured before the worker loads any code it does not own.
      if (calibrate_signals_) {
        for (const bool cold : {false, true}) signal_cost_[cold] = process_->null_call_seconds(kNullCalls, cold, hello_seconds());
      }
      answer = process_->request(hello_request(), hello_seconds());
    } catch (const ProcessFailure& failure) {
      availability_ = {false, fmt::format("the worker ({}) {}{}", argv_.front(), failure.what, log_excerpt())};
      return;
    }
    const auto status = text_of(answer, "status");
    if (status != "ok") {
      auto reason = text_of(answer, "reason");
      if (reason.empty()) reason = text_of(answer, "message");
      availability_ = {false, reason.empty() ? fmt::format("the worker answered status '{}'", status) : reason};
      process_->stop();
      return;
    }
    if (answer.value("protocol", 0) != kProtocol) {
      availability_ = {false, fmt::format("the worker speaks protocol {}, scatterctl {}", answer.value("protocol", 0), kProtocol)};
      process_->stop();
      return;
    }
    version_ = text_of(answer, "version");
    device_ = text_of(answer, "device");
    if (device_.empty()) device_ = "?";
    if (const auto it = answer.find("threads"); it != answer.end() && it->is_number_integer()) {
      threads_ = std::clamp(it->get<int>(), 1, 4096);
    }
    // Only another scatterctl may say that it serves a built-in backend (another build's
    // ref is checked against this one's: a built-in, not the oracle).
    const auto role = text_of(answer, "role");
    if (hosts_builtin_ && (role == "builtin" || role == "oracle")) role_ = BackendRole::builtin;
    if (const auto it = answer.find("versions"); it != answer.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) properties_.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    if (const auto it = answer.find("settings"); it != answer.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) properties_.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
    try {
      const auto caps = answer.find("capabilities");
      capabilities_ = caps == answer.end() ? Capabilities::everything()
                                           : parse_capabilities(caps->dump(), fmt::format("worker {}", name_));
    } catch (const Error& e) {
      availability_ = {false, fmt::format("its capabilities are invalid: {}", e.message())};
      process_->stop();
      return;
    }
    availability_ = {true, ""};
  }

  // A time the worker measured: positive, finite, and not under a nanosecond, which no timer
  // resolves (a worker that answers -1 or 1e-300 s would make any comparison meaningless).
  double time_of(const json& value, const std::string& field) const {
    if (!value.is_number() || !(value.get<double>() >= kShortestTime) || !std::isfinite(value.get<double>())) {
      throw BackendFault(fmt::format("the {} worker broke protocol {}: {} = {} is not a time of 1 ns or more", name_,
                                     kProtocol, field, value.dump()));
    }
    return value.get<double>();
  }

  // --timeout bounds the hello too; without it a worker has 120 s to import its framework.
  double hello_seconds() const { return request_timeout_.value_or(kHelloSeconds); }

  json hello_request() const { return {{"id", 0}, {"op", "hello"}, {"protocol", kProtocol}, {"backend", name_}}; }

  std::string log_excerpt() const {
    auto tail = process_ ? process_->log_tail(600) : std::string();
    return tail.empty() ? "" : fmt::format("; its log ends:\n{}", tail);
  }

  // The worker died or timed out: this case is an error; the next case starts a new one. A
  // time-out counts towards giving up like a crash: a hung framework must not cost the full
  // time-out on every case that follows.
  [[noreturn]] BackendOutput on_failure(const ProcessFailure& failure) {
    const auto what = fmt::format("the {} worker {}{}", name_, failure.what, log_excerpt());
    if (failure.kind == ProcessFailure::Kind::protocol) {
      throw BackendFault(fmt::format("the {} worker broke protocol {}: {}{}", name_, kProtocol, failure.what, log_excerpt()));
    }
    ++failures_in_a_row_;
    last_failure_ = failure.what;
    if (failure.kind == ProcessFailure::Kind::timed_out) {
      throw Error(ErrorCode::timeout, "", fmt::format("{}; it was stopped and will be restarted", what));
    }
    throw Crashed(what);
  }

  std::string name_;
  std::vector<std::string> argv_;
  std::vector<std::pair<std::string, std::string>> env_;
  std::optional<double> request_timeout_;
  mutable bool hello_done_ = false;
  mutable Availability availability_;
  mutable std::string version_;
  mutable std::string device_;
  mutable int threads_ = 1;
  bool hosts_builtin_ = false;
  bool count_instructions_ = false;
  mutable BackendRole role_ = BackendRole::external;
  mutable std::vector<std::pair<std::string, std::string>> properties_;
  mutable std::optional<Capabilities> capabilities_;
  mutable std::unique_ptr<PrivateDir> dir_;
  mutable FileIdentity dir_identity_;
  bool calibrate_signals_ = false;
  bool freeze_between_requests_ = false;
  mutable double signal_cost_[2] = {0.0, 0.0};  // a null call's median on scatterctl's clock, hot and cold
  // The last case's input files, kept for the next sample of the same case.
  struct Inputs {
    const Case* source = nullptr;
    std::unique_ptr<PrivateDir> dir;
  };
  Inputs inputs_;
  // The last run's output, kept by the worker (RunFlags::hold_output): its dtype and shape.
  struct HeldOutput {
    DType dtype;
    Shape shape;
  };
  std::optional<HeldOutput> held_;
  mutable std::unique_ptr<WorkerProcess> process_;
  std::int64_t next_id_ = 0;
  int failures_in_a_row_ = 0;  // crashes and time-outs
  std::string last_failure_;
};

}  // namespace

std::unique_ptr<Backend> make_worker_backend(std::string name, std::vector<std::string> argv,
                                             std::vector<std::pair<std::string, std::string>> env,
                                             const WorkerOptions& options) {
  return std::make_unique<WorkerBackend>(std::move(name), std::move(argv), std::move(env), options);
}

}  // namespace scatter::external
