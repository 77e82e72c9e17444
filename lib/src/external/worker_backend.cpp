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
#include "answers.hpp"
#include "process_backend.hpp"
#include "core/bounded_json.hpp"
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
constexpr double kDefaultCaseSeconds = 300.0;
constexpr int kNullCalls = 7;  // the null calls whose median is the signals' cost

using nlohmann::json;

// A variation as a request carries it: each tensor's positions and new bit patterns.
json variation_json(const InputVariation& v) {
  const auto delta = [](const ElementDelta& d) { return json{{"at", d.at}, {"bits", d.bits}}; };
  return {{"number", v.number}, {"data", delta(v.data)}, {"updates", delta(v.updates)}, {"indices", delta(v.indices)}};
}

class WorkerBackend final : public ProcessBackend {
 public:
  WorkerBackend(std::string name, std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env,
                const WorkerOptions& options)
      : ProcessBackend(std::move(name)),
        argv_(std::move(argv)),
        env_(std::move(env)),
        request_timeout_(options.request_timeout),
        hosts_builtin_(options.hosts_builtin),
        count_instructions_(options.count_instructions),
        calibrate_signals_(options.calibrate_signals),
        freeze_between_requests_(options.freeze_between_requests) {}

  // A worker whose device is the host's CPU ("CPU ...") is measured against the host's lines.
  BackendTraits traits() const override {
    ensure_hello();
    return {role_, device_.rfind("CPU", 0) == 0 ? MemoryKind::host : MemoryKind::device, threads_, given_data_copy_};
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
                                                                  + detail::preview(answer)};
    } catch (const ProcessFailure& failure) {
      availability_ = {false, fmt::format("the worker ({}) could not be restarted: {}{}", argv_.front(), failure.what,
                                          log_excerpt(process_.get()))};
    }
  }

  BackendOutput run(const Case& c, const RunFlags& flags) override {
    check_usable();
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
                    {"same_inputs", same_inputs}};
    if (flags.vary && !flags.vary->empty()) request["vary"] = variation_json(*flags.vary);
    if (flags.outer_clock) request["signals"] = true;
    const double limit = case_seconds_left().value_or(request_timeout_.value_or(kDefaultCaseSeconds));
    json answer;
    std::optional<OuterClock> outer;
    try {
      answer = process_->request(request, std::max(limit, 0.001), flags.outer_clock ? &outer : nullptr);
    } catch (const ProcessFailure& failure) {
      on_failure(failure, kProtocol, log_excerpt(process_.get()));
    }
    succeeded();
    if (text_of(answer, "status") != "ok") throw_for_status(answer, name_, who(), kProtocol, availability_);
    BackendOutput result;
    result.output = read_output(out, c.data.dtype(), c.data.shape());
    if (const auto it = answer.find("seconds"); it != answer.end()) result.seconds = time_of(*it, "seconds", who(), kProtocol);
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
                                         kProtocol, event, detail::preview(value)));
        }
        result.counts.emplace_back(event, value.get<double>());
      }
    }
    return result;
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
  void ensure_hello() const override {
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
      availability_ = {false, fmt::format("the worker ({}) {}{}", argv_.front(), failure.what, log_excerpt(process_.get()))};
      return;
    }
    if (text_of(answer, "status") != "ok") {
      availability_ = {false, unavailable_reason(answer)};
      process_->stop();
      return;
    }
    if (const auto protocol = answer.find("protocol"); protocol == answer.end() || *protocol != kProtocol) {
      availability_ = {false, fmt::format("the worker speaks protocol {}, scatterctl {}",
                                          protocol == answer.end() ? "0" : detail::preview(*protocol), kProtocol)};
      process_->stop();
      return;
    }
    try {
      auto hello = read_hello(answer, name_);
      const auto role = hello.role;
      take_hello(std::move(hello));
      // Only a build the user vouched for (--trust-exe) times itself as a built-in; another
      // scatterctl's ref is checked against this one's: a built-in, not the oracle.
      if (hosts_builtin_ && (role == "builtin" || role == "oracle")) role_ = BackendRole::builtin;
    } catch (const Error& e) {
      availability_ = {false, fmt::format("its capabilities are invalid: {}", e.message())};
      process_->stop();
      return;
    }
    availability_ = {true, ""};
  }

  std::string who() const override { return fmt::format("the {} worker", name_); }

  // --timeout bounds the hello too; without it a worker has 120 s to import its framework.
  double hello_seconds() const { return external::hello_seconds(request_timeout_); }

  json hello_request() const { return {{"id", 0}, {"op", "hello"}, {"protocol", kProtocol}, {"backend", name_}}; }

  std::vector<std::string> argv_;
  std::vector<std::pair<std::string, std::string>> env_;
  std::optional<double> request_timeout_;
  mutable bool hello_done_ = false;
  bool hosts_builtin_ = false;
  bool count_instructions_ = false;
  mutable BackendRole role_ = BackendRole::external;
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
  mutable std::unique_ptr<WorkerProcess> process_;
  std::int64_t next_id_ = 0;
};

}  // namespace

std::unique_ptr<Backend> make_worker_backend(std::string name, std::vector<std::string> argv,
                                             std::vector<std::pair<std::string, std::string>> env,
                                             const WorkerOptions& options) {
  return std::make_unique<WorkerBackend>(std::move(name), std::move(argv), std::move(env), options);
}

}  // namespace scatter::external
