// The child side of `--isolate` and of `exe:PATH:BACKEND`: one process serving one backend
// over worker protocol 1 (docs/backends.md), a plugin (so that one that crashes or hangs
// takes only this process down) or a built-in backend of this executable (so that another
// scatterctl build can time it side by side with its own). Requests arrive on fd_in and
// answers leave on fd_out, one JSON object a line; tensors travel as .npy files that the
// driving scatterctl names.

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platform/probes.hpp"
#include "platform/counted.hpp"
#include "core/bounded_json.hpp"
#include "answers.hpp"
#include "line_io.hpp"
#include "plugin_backend.hpp"
#include "scatter/load.hpp"
#include "scatter/plugin.hpp"

namespace scatter {
namespace {

using external::LineReader;
using external::write_line;
using nlohmann::json;

constexpr int kProtocol = 1;

constexpr std::string_view role_name(BackendRole role) {
  return role == BackendRole::oracle ? "oracle" : role == BackendRole::builtin ? "builtin" : "external";
}

// `capabilities`: the backend's declaration as JSON text; "" for one that takes every case.
json hello(const Backend& backend, const std::string& capabilities, const json& request) {
  json answer = {{"id", request.value("id", json())}};
  const auto protocol = request.value("protocol", -1);
  if (protocol != kProtocol) {
    answer["status"] = "error";
    answer["message"] = fmt::format("protocol {} asked for; this plugin host speaks {}", protocol, kProtocol);
    return answer;
  }
  const auto availability = backend.availability();
  if (!availability.available) {
    answer["status"] = "unavailable";
    answer["reason"] = availability.reason;
    return answer;
  }
  answer["status"] = "ok";
  answer["protocol"] = kProtocol;
  answer["name"] = std::string(backend.name());
  answer["version"] = backend.version();
  answer["versions"] = {{"plugin", backend.version()}};
  answer["device"] = backend.device();
  const auto traits = backend.traits();
  answer["role"] = std::string(role_name(traits.role));
  answer["threads"] = traits.threads;
  if (traits.given_data_copy) answer["given_data_copy"] = true;
  if (!capabilities.empty()) answer["capabilities"] = detail::parse_bounded(capabilities, "the capabilities");
  return answer;
}

Case case_of(const json& request) {
  const auto& decl = request.at("case");
  Case c;
  c.name = decl.value("name", std::string());
  const auto op_name = decl.at("op").get<std::string>();
  const auto reduction_name = decl.value("reduction", std::string("none"));
  const auto op = parse_op(op_name);
  const auto reduction = parse_reduction(reduction_name);
  if (!op) throw Error(ErrorCode::op, "case.op", fmt::format("'{}' is not an op", op_name));
  if (!reduction) throw Error(ErrorCode::op, "case.reduction", fmt::format("'{}' is not a reduction", reduction_name));
  c.attrs.op = *op;
  c.attrs.reduction = *reduction;
  c.attrs.axis = decl.value("axis", std::int64_t{0});
  c.attrs.use_init_val = decl.value("use_init_val", true);
  c.data = read_npy(request.at("data").get<std::string>());
  c.indices = read_npy(request.at("indices").get<std::string>());
  c.updates = read_npy(request.at("updates").get<std::string>());
  // scatterctl sends validated cases; these keep a confused request from reaching the plugin.
  if (c.updates.dtype() != c.data.dtype()) throw Error(ErrorCode::dtype, "updates", "does not have data's dtype");
  if (c.indices.dtype() != DType::int32 && c.indices.dtype() != DType::int64) {
    throw Error(ErrorCode::dtype, "indices", "is neither int32 nor int64");
  }
  if (c.attrs.axis < 0 || (c.data.rank() > 0 && c.attrs.axis >= c.data.rank())) {
    throw Error(ErrorCode::axis, "case.axis", fmt::format("= {} is not normalized to [0, {})", c.attrs.axis, c.data.rank()));
  }
  return c;
}

// The last request's case, kept for the next that names the same files and says
// "same_inputs" (bench's later samples of one case): it is not read again, and the backend gets
// the same Case object, so that it may keep its own uploads too (RunFlags::same_inputs).
struct KeptCase {
  json key;  // the case's attributes and its three files
  std::optional<Case> c;
};

// What the host keeps between requests: the last case. And its channel, which the timer's
// signals use in the middle of a request.
struct HostState {
  KeepCase keep = KeepCase::no;
  KeptCase kept;
  LineReader* reader = nullptr;
  int fd_out = -1;
};

// The timer's signals to the driving scatterctl, which times the call on its own clock
// (docs/backends.md, "The clock"): ready, answered by go, before the timed call; done after it.
class HostSignals final : public TimerSignals {
 public:
  HostSignals(json id, HostState& state) : id_(std::move(id)), state_(state) {}

  void starting() override {
    say("ready");
    expect("go");
  }

  void stopped() override { say("done"); }

 private:
  void say(const char* signal) {
    if (!write_line(state_.fd_out, {{"id", id_}, {"signal", signal}})) throw BackendFault("the driving scatterctl is gone");
  }

  void expect(const char* op) {
    std::string line;
    if (!state_.reader->next(line)) throw BackendFault(fmt::format("the channel closed while '{}' was awaited", op));
    const auto message = detail::parse_answer(line).value_or(json());
    if (!message.is_object() || message.value("id", json()) != id_ || message.value("op", std::string()) != op) {
      throw BackendFault(fmt::format("expected '{}' for request {}, got '{}'", op, id_.dump(), line.substr(0, 200)));
    }
  }

  json id_;
  HostState& state_;
};

// A request's "vary": the elements its call changes (scatter/variation.hpp).
InputVariation variation_of(const json& vary) {
  const auto delta = [&](const char* name) {
    ElementDelta d;
    const auto& part = vary.at(name);
    d.at = part.at("at").get<std::vector<std::int64_t>>();
    d.bits = part.at("bits").get<std::vector<std::uint64_t>>();
    return d;
  };
  InputVariation v;
  v.number = vary.value("number", std::uint64_t{0});
  v.data = delta("data");
  v.updates = delta("updates");
  if (vary.contains("indices")) v.indices = delta("indices");
  return v;
}

const Case& case_for(const json& request, KeepCase keep, KeptCase& kept, bool& reused) {
  json key = {request.at("case"), request.at("data"), request.at("indices"), request.at("updates")};
  reused = keep == KeepCase::yes && request.value("same_inputs", false) && kept.c && kept.key == key;
  if (!reused) {
    kept = {};
    kept.c = case_of(request);
    kept.key = std::move(key);
  }
  return *kept.c;
}

json run(Backend& backend, const json& request, HostState& state) {
  json answer = {{"id", request.value("id", json())}};
  if (const auto availability = backend.availability(); !availability.available) {
    answer["status"] = "unavailable";
    answer["reason"] = availability.reason;
    return answer;
  }
  try {
    bool reused = false;
    const Case& c = case_for(request, state.keep, state.kept, reused);
    const auto flags_in = request.value("flags", json::object());
    RunFlags flags;
    flags.same_inputs = reused;
    flags.in_place = flags_in.value("in_place", false);
    flags.deterministic = flags_in.value("deterministic", false);
    flags.flush_caches = flags_in.value("flush_caches", false);
    std::optional<InputVariation> vary;
    if (request.contains("vary")) vary = variation_of(request["vary"]);
    flags.vary = vary ? &*vary : nullptr;
    HostSignals signals(request.value("id", json()), state);
    if (request.value("signals", false)) flags.signals = &signals;
    detail::take_counts();  // a region of an earlier call that failed after it is not this call's
    auto result = backend.run(c, flags);
    write_npy(result.output, request.at("out").get<std::string>());
    answer["status"] = "ok";
    answer["seconds"] = result.seconds;
    answer["timing"] = result.timing;
    // bench --counter instructions: the counts of the call's timed region (counter.hpp).
    if (const auto counts = detail::take_counts()) {
      answer["counts"] = json::object();
      for (const auto& [event, value] : *counts) answer["counts"][event] = value;
    }
  } catch (...) {
    answer = external::answer_of_exception(answer["id"], "malformed run request: ");
  }
  if (answer.value("status", "") != "ok") state.kept = {};  // a case that failed is read afresh
  // A plugin lost during this call (its GPU context gone) says so once: the caller skips the rest.
  if (const auto availability = backend.availability(); !availability.available) answer["lost"] = availability.reason;
  return answer;
}

}  // namespace

int serve_backend(Backend& backend, const std::string& capabilities, int fd_in, int fd_out, KeepCase keep) {
  // The parent may go away mid-answer: a failed write ends the loop, not a signal.
  ::signal(SIGPIPE, SIG_IGN);
  // Plugins print; stdout is not the channel, but keep it off whatever the parent reads.
  if (fd_in != STDOUT_FILENO && fd_out != STDOUT_FILENO) ::dup2(STDERR_FILENO, STDOUT_FILENO);

  LineReader reader(fd_in);
  std::string line;
  HostState state;
  state.keep = keep;
  state.reader = &reader;
  state.fd_out = fd_out;
  while (reader.next(line)) {
    if (line.empty()) continue;
    json answer;
    try {
      const auto parsed = detail::parse_answer(line);
      const auto request = parsed.value_or(json::object());
      const auto op = external::text_of(request, "op");
      if (op == "shutdown") return 0;
      if (!parsed) {
        answer = {{"id", nullptr},
                  {"status", "error"},
                  {"message", fmt::format("malformed request: not a JSON object of at most {} levels", detail::kMaxJsonDepth)}};
      } else if (op == "null_call") {  // the timer's signals with no call between them: their own cost
        if (request.value("flush_caches", false)) flush_host_caches();
        HostSignals signals(request.value("id", json()), state);
        signals.starting();
        signals.stopped();
        answer = {{"id", request.value("id", json())}, {"status", "ok"}};
      } else if (op == "hello") {
        answer = hello(backend, capabilities, request);
      } else if (op == "run") {
        answer = run(backend, request, state);
      } else {
        answer = {{"id", request.value("id", json())}, {"status", "error"}, {"message", fmt::format("unknown op '{}'", op)}};
      }
    } catch (const json::exception& e) {
      answer = {{"id", nullptr}, {"status", "error"}, {"message", fmt::format("malformed request: {}", e.what())}};
    }
    if (!write_line(fd_out, answer)) return 1;
  }
  return 0;
}

int serve_plugin(const std::string& path, int fd_in, int fd_out) {
  detail::PluginBackend backend(path);
  return serve_backend(backend, backend.capabilities_json(), fd_in, fd_out);
}

}  // namespace scatter
