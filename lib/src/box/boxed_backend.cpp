// The judge's side of the box (boxed_backend.hpp): the regions, the variations written while the
// box is frozen, the timed call on scatterctl's clock, and the output read while it is frozen.

#include "boxed_backend.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "confine.hpp"
#include "core/bounded_json.hpp"
#include "external/answers.hpp"
#include "external/process_backend.hpp"
#include "platform/probes.hpp"
#include "scatter/cancel.hpp"
#include "shared.hpp"

namespace scatter::box {
namespace {

using nlohmann::json;
using external::PrivateDir;
using external::ProcessFailure;
using external::text_of;

constexpr double kDefaultCaseSeconds = 300.0;
constexpr int kNullCalls = 7;  // the null calls whose median is what the box's path costs
// How often, in wall time, a box that can start processes is searched for escapees.
constexpr double kEscapeScanSeconds = 0.05;

std::atomic<std::uint64_t> escapes_found{0};

std::size_t aligned(std::size_t bytes) { return (bytes + 63) / 64 * 64; }

json tensor_json(const Tensor& t, std::size_t offset) {
  return {{"dtype", std::string(to_string(t.dtype()))}, {"shape", t.shape()}, {"offset", offset}};
}

// Where the output comes back: in the output region (a plugin writes `out`), or in the box's own
// memory at the address its answer names, read while it is frozen; where this machine does not
// let scatterctl read it, the box copies it into the region inside the timed call.
enum class OutputWay { region, address, copied };
const char* name_of(OutputWay way) {
  return way == OutputWay::region ? "region" : way == OutputWay::address ? "address" : "copy";
}

class BoxedBackend final : public external::ProcessBackend {
 public:
  BoxedBackend(std::string name, std::vector<std::string> argv, std::vector<std::pair<std::string, std::string>> env,
               const BoxOptions& options)
      : ProcessBackend(std::move(name)), argv_(std::move(argv)), env_(std::move(env)), timeout_(options.request_timeout) {}

  // Judged as external whatever its hello says: an exe: build is held to the rules of a kernel.
  BackendTraits traits() const override {
    ensure_hello();
    return {BackendRole::external, MemoryKind::host, threads_, output_way_ == OutputWay::region};
  }

  // A box restarts in milliseconds, but it loads its kernel again: only the builds of exe: are
  // renewed (their memory layout from process to process biases a paired comparison).
  void renew() override {}

  BackendOutput run(const Case& c, const RunFlags& flags) override {
    check_usable();
    const double limit = std::max(case_seconds_left().value_or(timeout_.value_or(kDefaultCaseSeconds)), 0.001);
    try {
      if (!process_->running()) restart();
      if (!(flags.same_inputs && source_ == &c && inputs_)) give_case(c, flags, limit);
      vary(c, flags.vary);
      reset_output(c);
      if (flags.flush_caches) flush_caches_on_every_cpu();
      double outer = 0.0;
      const auto answer = process_->go({{"id", ++next_id_}, {"op", "go"}}, limit, outer);
      succeeded();
      look_for_escapees();
      if (text_of(answer, "status") != "ok") external::throw_for_status(answer, name_, who(), kBoxProtocol, availability_);
      BackendOutput result;
      result.output = output_of(c, answer);
      const auto seconds = answer.find("seconds");
      result.seconds = external::time_of(seconds == answer.end() ? json() : *seconds, "seconds", who(), kBoxProtocol);
      result.outer = OuterClock{outer, trip_[flags.flush_caches ? 1 : 0]};
      result.timing = timing_;
      return result;
    } catch (const ProcessFailure& failure) {
      source_ = nullptr;  // the regions went with the process
      on_failure(failure, kBoxProtocol, external::log_excerpt(process_.get()));
    }
  }

 private:
  std::string who() const override { return fmt::format("the box of {}", name_); }

  // Starts the box, measures its path with null calls before the kernel is loaded, then asks
  // hello (which loads it); the answer decides availability.
  void ensure_hello() const override {
    if (hello_done_) return;
    hello_done_ = true;
    try {
      dir_ = std::make_unique<PrivateDir>("scatterctl");
      confinement_ = std::make_shared<Confinement>();
      prepare(*confinement_, dir_->path());
      shield_this_process();
    } catch (const Error& e) {
      availability_ = {false, e.message()};
      return;
    }
    auto env = env_;
    env.emplace_back("TMPDIR", dir_->path());  // what an honest library writes goes where the box may write
    process_ = std::make_unique<external::WorkerProcess>(argv_, env, dir_->path() + "/box.log");
    process_->box(confinement_);
    json answer;
    try {
      process_->start();
      calibrate();
      answer = process_->request({{"id", 0}, {"op", "hello"}, {"protocol", kBoxProtocol}}, hello_seconds());
    } catch (const ProcessFailure& failure) {
      availability_ = {false, fmt::format("the box ({}) {}{}", argv_.front(), failure.what,
                                          external::log_excerpt(process_.get()))};
      return;
    }
    if (text_of(answer, "status") != "ok") {
      availability_ = {false, external::unavailable_reason(answer)};
      process_->stop();
      return;
    }
    if (const auto protocol = answer.find("protocol"); protocol == answer.end() || *protocol != kBoxProtocol) {
      availability_ = {false, fmt::format("{} speaks box protocol {}, scatterctl {}", argv_.front(),
                                          protocol == answer.end() ? "none" : detail::preview(*protocol), kBoxProtocol)};
      process_->stop();
      return;
    }
    try {
      take_hello(external::read_hello(answer, name_));
    } catch (const Error& e) {
      availability_ = {false, fmt::format("its capabilities are invalid: {}", e.message())};
      process_->stop();
      return;
    }
    choose_output_way(answer);
    timing_ = fmt::format("the box's clock from go to its answer, checked against scatterctl's; the box: {}; output {}",
                          process_->box_description(),
                          output_way_ == OutputWay::region    ? "written into scatterctl's memory"
                          : output_way_ == OutputWay::address ? "read from the frozen box"
                                                              : "copied into scatterctl's memory inside the call (" +
                                                                    no_address_ + ")");
    availability_ = {true, ""};
  }

  // A box that crashed or timed out starts again for the next case: a new process, its kernel
  // loaded again (the path it takes was measured once, before the first kernel was loaded).
  void restart() {
    source_ = nullptr;
    process_->start();
    const auto answer = process_->request({{"id", 0}, {"op", "hello"}, {"protocol", kBoxProtocol}}, hello_seconds());
    if (text_of(answer, "status") != "ok") {
      availability_ = {false, external::unavailable_reason(answer)};
      process_->stop();
      throw BackendFault(fmt::format("{} could not be restarted: {}", name_, availability_.reason));
    }
  }

  // The box's own path, go to answer, with nothing between: the median of null calls, hot and
  // after the flush of a cold sample, timed before the box loads any kernel (whose code could
  // slow its path down to hide a lie in it).
  void calibrate() const {
    for (const bool cold : {false, true}) {
      std::vector<double> seconds;
      for (int k = 0; k < kNullCalls; ++k) {
        if (cold) flush_caches_on_every_cpu();
        double outer = 0.0;
        const auto answer = process_->go({{"id", -1 - k}, {"op", "null"}}, hello_seconds(), outer);
        if (text_of(answer, "status") != "ok") {
          throw ProcessFailure{ProcessFailure::Kind::protocol, "answered a null call with " + detail::preview(answer)};
        }
        seconds.push_back(outer);
      }
      std::sort(seconds.begin(), seconds.end());
      trip_[cold ? 1 : 0] = seconds[seconds.size() / 2];
    }
  }

  // A plugin writes into the output region; the others name where their output lies. scatterctl
  // reads a probe the box names first: where it cannot (ptrace restricted on this machine), the
  // box is told to copy its outputs into the region.
  void choose_output_way(const json& hello) const {
    if (text_of(hello, "output") == "region") {
      output_way_ = OutputWay::region;
      return;
    }
    output_way_ = OutputWay::copied;
    const auto probe = hello.find("probe");
    if (probe == hello.end() || !probe->is_object() || !(*probe)["address"].is_number_unsigned() ||
        !(*probe)["text"].is_string()) {
      no_address_ = "its hello named no probe";
      return;
    }
    const auto text = (*probe)["text"].get<std::string>();
    std::string seen(std::min<std::size_t>(text.size(), 256), '\0');
    no_address_ = process_->read_memory((*probe)["address"].get<std::uint64_t>(), seen.data(), seen.size());
    if (no_address_.empty() && seen == text) {
      output_way_ = OutputWay::address;
    } else if (no_address_.empty()) {
      no_address_ = "its probe did not read back";
    }
  }

  // A new case: regions of its size, handed over with the case's description while the box may
  // run (it maps them and checks the shapes), then filled while it is frozen.
  void give_case(const Case& c, const RunFlags& flags, double limit) {
    source_ = nullptr;
    last_ = {};
    layout_.data = 0;
    layout_.indices = aligned(c.data.nbytes());
    layout_.updates = layout_.indices + aligned(c.indices.nbytes());
    layout_.inputs_bytes = layout_.updates + c.updates.nbytes();
    layout_.out = 0;
    layout_.out_bytes = c.data.nbytes();
    inputs_.reset();
    output_.reset();
    inputs_ = std::make_unique<SharedRegion>(layout_.inputs_bytes, SharedRegion::Access::read_only_for_the_box,
                                             "scatterctl-inputs");
    output_ = std::make_unique<SharedRegion>(layout_.out_bytes + kCanaryBytes, SharedRegion::Access::writable_by_the_box,
                                             "scatterctl-output");
    const int fds[2] = {inputs_->fd(), output_->fd()};
    process_->send_fds(fds, 2);
    const json request = {
        {"id", ++next_id_},
        {"op", "case"},
        {"case",
         {{"name", c.name},
          {"op", std::string(to_string(c.attrs.op))},
          {"reduction", std::string(to_string(c.attrs.reduction))},
          {"axis", c.attrs.axis},
          {"use_init_val", c.attrs.use_init_val},
          {"mode", write_mode_name(c.attrs.mode)}}},
        {"tensors",
         {{"data", tensor_json(c.data, layout_.data)},
          {"indices", tensor_json(c.indices, layout_.indices)},
          {"updates", tensor_json(c.updates, layout_.updates)}}},
        {"inputs_bytes", inputs_->size()},
        {"out", {{"offset", layout_.out}, {"bytes", layout_.out_bytes}, {"way", name_of(output_way_)}}},
        {"flags", {{"in_place", flags.in_place}, {"deterministic", flags.deterministic}}}};
    const auto answer = process_->request(request, limit);
    if (text_of(answer, "status") != "ok") external::throw_for_status(answer, name_, who(), kBoxProtocol, availability_);
    // Frozen from here: the inputs appear only now, so no code of the box saw them untimed.
    std::memcpy(inputs_->bytes() + layout_.data, c.data.bytes(), c.data.nbytes());
    std::memcpy(inputs_->bytes() + layout_.indices, c.indices.bytes(), c.indices.nbytes());
    std::memcpy(inputs_->bytes() + layout_.updates, c.updates.bytes(), c.updates.nbytes());
    source_ = &c;
  }

  // This call's inputs: the last call's variation put back to the case's values, this one's set.
  void vary(const Case& c, const InputVariation* v) {
    const auto write = [&](const Tensor& t, std::size_t offset, const ElementDelta& d, bool own) {
      const auto size = size_of(t.dtype());
      for (std::size_t k = 0; k < d.at.size(); ++k) {
        if (d.at[k] < 0 || d.at[k] >= t.numel()) {
          throw Error(ErrorCode::backend, "vary", fmt::format("position {} is outside a tensor of {} elements", d.at[k],
                                                              t.numel()));
        }
        const auto bits = own ? element_bits(t, d.at[k]) : d.bits[k];
        std::memcpy(inputs_->bytes() + offset + static_cast<std::size_t>(d.at[k]) * size, &bits, size);
      }
    };
    write(c.data, layout_.data, last_.data, true);
    write(c.indices, layout_.indices, last_.indices, true);
    write(c.updates, layout_.updates, last_.updates, true);
    last_ = v ? *v : InputVariation{};
    write(c.data, layout_.data, last_.data, false);
    write(c.indices, layout_.indices, last_.indices, false);
    write(c.updates, layout_.updates, last_.updates, false);
  }

  // Before each call: a plugin's `out` holds data (as the ABI says), anything else's a pattern
  // no output has, drawn again each call, so that an output not written this call shows.
  void reset_output(const Case& c) {
    auto* out = output_->bytes() + layout_.out;
    if (output_way_ == OutputWay::region) {
      std::memcpy(out, inputs_->bytes() + layout_.data, c.data.nbytes());
    } else if (output_way_ == OutputWay::copied) {
      const auto poison = static_cast<std::byte>(0x5A ^ (next_id_ & 0xFF));
      std::memset(out, static_cast<int>(poison), layout_.out_bytes);
    }
    for (std::size_t i = 0; i < kCanaryBytes; ++i) out[layout_.out_bytes + i] = canary_byte(i);
  }

  // The call's output, read while the box is frozen.
  Tensor output_of(const Case& c, const json& answer) {
    Tensor out(c.data.dtype(), c.data.shape());
    const auto* region = output_->bytes() + layout_.out;
    for (std::size_t i = 0; i < kCanaryBytes; ++i) {
      if (region[layout_.out_bytes + i] != canary_byte(i)) {
        throw BackendFault(fmt::format("{} wrote past the end of out", name_));
      }
    }
    if (output_way_ != OutputWay::address) {
      if (out.nbytes() > 0) std::memcpy(out.bytes(), region, out.nbytes());
      return out;
    }
    const auto where = answer.find("out");
    if (where == answer.end() || !where->is_object() || !(*where)["address"].is_number_unsigned() ||
        (*where)["bytes"] != json(out.nbytes())) {
      throw BackendFault(fmt::format("{} broke box protocol {}: its answer names no output of {} bytes (\"out\": "
                                     "{{\"address\", \"bytes\"}})",
                                     who(), kBoxProtocol, out.nbytes()));
    }
    const auto why = process_->read_memory((*where)["address"].get<std::uint64_t>(), out.bytes(), out.nbytes());
    if (!why.empty()) {
      throw BackendFault(fmt::format("{}: its output could not be read at the address it named: {}", who(), why));
    }
    return out;
  }

  // A box whose kernel may start processes (no seccomp here) is searched for ones that left it,
  // every few calls: a process running outside the box is a kernel working where it is not timed.
  void look_for_escapees() {
    if (!confinement_->filter.empty()) return;  // seccomp: no process but its own
    const auto now = std::chrono::steady_clock::now();
    if (std::chrono::duration<double>(now - last_scan_).count() < kEscapeScanSeconds) return;
    last_scan_ = now;
    const auto escaped = process_->escaped();
    if (escaped.empty()) return;
    escapes_found += escaped.size();
    process_->stop();
    source_ = nullptr;
    throw BackendFault(fmt::format("{}: process {} left the box (a session or cgroup of its own) and ran where scatterctl "
                                   "does not time it; it was killed",
                                   name_, escaped.front()));
  }

  double hello_seconds() const { return external::hello_seconds(timeout_); }

  std::vector<std::string> argv_;
  std::vector<std::pair<std::string, std::string>> env_;
  std::optional<double> timeout_;
  mutable bool hello_done_ = false;
  mutable std::unique_ptr<PrivateDir> dir_;
  mutable std::shared_ptr<Confinement> confinement_;
  mutable std::unique_ptr<external::WorkerProcess> process_;
  mutable double trip_[2] = {0.0, 0.0};  // a null call's median on scatterctl's clock, hot and cold
  mutable OutputWay output_way_ = OutputWay::copied;
  mutable std::string no_address_;  // why outputs are not read at the box's address
  mutable std::string timing_;
  // The case the regions hold, and the variation its inputs hold now.
  const Case* source_ = nullptr;
  Layout layout_;
  std::unique_ptr<SharedRegion> inputs_, output_;
  InputVariation last_;
  std::int64_t next_id_ = 0;
  std::chrono::steady_clock::time_point last_scan_{};
};

}  // namespace

std::unique_ptr<Backend> make_boxed_backend(std::string name, std::vector<std::string> argv,
                                            std::vector<std::pair<std::string, std::string>> env,
                                            const BoxOptions& options) {
  return std::make_unique<BoxedBackend>(std::move(name), std::move(argv), std::move(env), options);
}

}  // namespace scatter::box

namespace scatter {

std::uint64_t escaped_processes_found() { return box::escapes_found.load(); }

}  // namespace scatter
