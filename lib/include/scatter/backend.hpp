#pragma once
/// The backend seam: the CPU reference (`ref`, the oracle), the GPU (`cuda`), the
/// framework workers and plugins run the same Case and return an output tensor of
/// data's shape and dtype (docs/backends.md).

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scatter/backend_traits.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/case.hpp"
#include "scatter/compare.hpp"
#include "scatter/counter.hpp"
#include "scatter/error.hpp"
#include "scatter/reference.hpp"
#include "scatter/tensor.hpp"
#include "scatter/variation.hpp"

namespace scatter {

struct Availability {
  bool available = false;
  std::string reason;  ///< why not, when unavailable
};

/// How to run: in place skips the copy of data into the output (timed separately
/// by nobody: the benchmark reports both ways); deterministic asks for a fixed
/// reduction order where a backend has a faster, order-free one.
/// --deterministic: see kDeterministicExactHits (compare.hpp).

/// Told by a backend just before it starts its timer and just after it stops it: a worker
/// process tells the scatterctl that drives it, which times the call on its own clock
/// (OuterClock).
class TimerSignals {
 public:
  virtual ~TimerSignals() = default;
  virtual void starting() = 0;
  virtual void stopped() = 0;
};

/// A worker's call as the driving scatterctl timed it, across the process boundary: from
/// its `go` to the worker's `done` signal; and what the signals themselves take (`round_trip`:
/// the median of null calls timed before the worker loaded any kernel; docs/backends.md).
struct OuterClock {
  double seconds = 0.0;
  double round_trip = 0.0;
};

struct RunFlags {
  bool in_place = false;
  bool deterministic = false;  ///< none's last writer; float add/sub/mul/mean in update order (see kDeterministicExactHits)
  bool flush_caches = false;  ///< evict the device's caches just before the timed region (cold benchmarks)
  bool check_launches = false;  ///< cuda: wait for and check every kernel as it is launched (names a faulting one)
  /// bench: the same Case object as the previous run, unchanged, with the same flags. A
  /// backend may keep what it prepared (cuda: its uploads and host scans) and restore the
  /// inputs on the device, outside the timed region.
  bool same_inputs = false;
  /// bench: nobody looks at this call's output (the check before timing judged it, and
  /// the backend is not audited). A backend may return an empty tensor instead of
  /// downloading it (cuda does); the time is the same either way, measured before.
  bool output_unused = false;
  /// bench's timed calls of an external backend: inputs no earlier call saw (a few elements
  /// changed; nullptr or empty: the case's own).
  const InputVariation* vary = nullptr;
  /// bench's timed calls of an external worker: it signals around its timed call, and the
  /// call comes back with BackendOutput::outer.
  bool outer_clock = false;
  /// Set by a worker process's host (a plugin host): told around the timed call.
  TimerSignals* signals = nullptr;
};

struct BackendOutput {
  Tensor output;
  double seconds = 0.0;  ///< time of the op itself, as the backend measures it
  std::string timing;    ///< what `seconds` includes, when not the built-in backends' own timer
  std::string lowering;  ///< the framework op a case was lowered to ("ScatterND-18"), when external
  Counts counts;         ///< the timed region's instructions and cache events, from a counting host (counter.hpp)
  std::optional<OuterClock> outer = std::nullopt;  ///< RunFlags::outer_clock: the call on scatterctl's clock
};

/// A backend declined a case that its capabilities accepted, or said so itself:
/// the case is skipped with the reason (docs/backends.md, "Statuses").
class Unsupported : public std::runtime_error {
 public:
  explicit Unsupported(std::string reason) : std::runtime_error(std::move(reason)) {}
};

/// A backend rejected the case's inputs as invalid, with the spec's error code when it
/// named one: a pass for a case with expect_error, an error for a valid case.
class Rejected : public std::runtime_error {
 public:
  Rejected(std::string code, std::string message)
      : std::runtime_error(std::move(message)), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

/// A backend's process died or stopped answering while running the case (a worker, or
/// an isolated plugin): on a case with expect_error, a memory-safety finding.
class Crashed : public std::runtime_error {
 public:
  explicit Crashed(std::string what) : std::runtime_error(std::move(what)) {}
};

/// A backend broke the contract rather than refused the case: it wrote outside `out` or
/// into an input, broke the protocol, wrote an invalid output, went back on what it
/// declared, or gave up. An Error (code backend) everywhere, except on a case with
/// expect_error, where a plain Error counts as a refusal and a fault is an ERROR.
class BackendFault : public Error {
 public:
  explicit BackendFault(std::string detail) : Error(ErrorCode::backend, "", std::move(detail)) {}
};


class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual Availability availability() const = 0;
  /// The device it runs on ("CPU (2 threads)", "NVIDIA H100 ...").
  virtual std::string device() const = 0;
  /// Runs a validated case. Throws Error for failures of the backend itself.
  virtual BackendOutput run(const Case& c, const RunFlags& flags) = 0;
  BackendOutput run(const Case& c) { return run(c, RunFlags{}); }
  /// Facts a benchmark report records: driver and runtime versions, clocks, caches.
  virtual std::vector<std::pair<std::string, std::string>> properties() const { return {}; }
  /// What the backend declares it supports; nullptr: every case the spec allows.
  virtual const Capabilities* capabilities() const { return nullptr; }
  /// The framework's or plugin's version, matched by expectations files ("" for built-ins).
  virtual std::string version() const { return ""; }
  /// Starts afresh where that is cheap (another scatterctl's backend-host: a new process), so
  /// that one process's memory layout and thread placement do not bias a whole comparison:
  /// the bench driver calls it every few rounds, outside the timed region.
  virtual void renew() {}
  /// Role, memory and threads (see BackendTraits).
  virtual BackendTraits traits() const { return {}; }
  bool is_external() const { return traits().role == BackendRole::external; }

  /// What reports call this instance: its LABEL under `--backend LABEL=SPEC`, else name().
  /// name() stays the implementation's (expectations and capabilities match on it).
  std::string_view label() const { return label_.empty() ? name() : std::string_view(label_); }
  /// The SPEC a label stands for ("exe:/base/scatterctl:cpu"); "" when unlabelled.
  const std::string& spec() const { return spec_; }
  void set_label(std::string label, std::string spec) {
    label_ = std::move(label);
    spec_ = std::move(spec);
  }

 private:
  std::string label_;
  std::string spec_;
};

/// How external backends are found and run (docs/backends.md).
struct BackendConfig {
  std::string python;                   ///< --python; empty: $SCATTERCTL_PYTHON, the project's .venv, python3
  bool isolate = false;                 ///< plugins in a child process (the CLI's default; --in-process clears it)
  /// exe:PATH:NAME builds vouched for (--trust-exe): protocol 1 and their own clock, not the box.
  bool trust_exe = false;
  std::string self_exe;                 ///< scatterctl itself, which hosts isolated plugins
  std::vector<std::string> user_backends;  ///< the plugin:PATH and python:... specs asked for
  /// --backend LABEL=SPEC entries: {label, spec}, each a backend instance of its own.
  std::vector<std::pair<std::string, std::string>> labelled;
  std::optional<double> request_timeout;  ///< seconds a worker may take per case (default 300)
  int threads = 0;                      ///< --threads of the cpu backend; 0: one per core
  std::int64_t cpu_grain = 0;           ///< the cpu backend's grain; 0: $SCATTERCTL_CPU_GRAIN, else its default
  /// bench --counter instructions: every host backend (ref, cpu, plugin:, exe:) in a host
  /// process under callgrind; the others are unavailable, with the reason (counter.hpp).
  bool count_instructions = false;
  /// bench: the workers measure what their timer's signals cost before they load any code
  /// (WorkerOptions::calibrate_signals).
  bool timed = false;
};

/// How many processes that left a box (a session or cgroup of their own) this run has found and
/// killed so far: what a bench pass sampled beside one of them ran beside a neighbour it did not
/// choose (docs/backends.md, "The box").
std::uint64_t escaped_processes_found();

std::unique_ptr<Backend> make_ref_backend();
/// The fast CPU backend, exact like the reference, on `threads` threads (0: one per
/// core). A case is split over as many threads as have `grain` elements of work each
/// (output plus updates; 0: the default, 2^15); a grain of 1 splits even tiny cases, at
/// any element, which is how the tests reach the threads' range boundaries.
std::unique_ptr<Backend> make_cpu_backend(int threads = 0, std::int64_t grain = 0);
/// The cuda backend, or a stand-in that reports why it is unavailable.
std::unique_ptr<Backend> make_cuda_backend();
/// A framework backend served by a worker process (numpy, onnx, onnxruntime, ...).
std::unique_ptr<Backend> make_framework_backend(const std::string& name, const BackendConfig& config);
/// The names of the built-in backends, in the order `all` runs them (ref first).
const std::vector<std::string>& builtin_backend_names();
/// The names of the framework backends, in the order `frameworks` runs them.
const std::vector<std::string>& framework_backend_names();

/// Runs `PYTHON -m MODULE ARGS...` with the framework workers' interpreter and lib/python on its
/// path (scatterctl import), its stdout and stderr the caller's. Its exit status, or -1 when it
/// could not be started, with the reason in `why`.
int run_python_module(const std::string& module, const std::vector<std::string>& args, const BackendConfig& config,
                      std::string& why);
/// A backend made from a --backend SPEC: a built-in or framework name, plugin:PATH,
/// python:FILE.py[:FUNC] or python:MODULE:FUNC (a user's Python kernel), exe:PATH:NAME (built-in backend NAME of another scatterctl executable, driven over the
/// worker protocol by its `backend-host` mode) or NAME@PYTHON (framework NAME under another
/// interpreter). Throws Error(schema) naming the SPEC when it is none of these. With
/// config.count_instructions, the counted form of the SPEC (BackendConfig).
std::unique_ptr<Backend> make_backend(const std::string& spec, const BackendConfig& config);
/// Every backend: the built-ins (ref first), the framework backends, the plugins and the
/// labelled instances the config names. The registry: adding a backend is one line there
/// (backends.cpp).
std::vector<std::unique_ptr<Backend>> make_all_backends(const BackendConfig& config);
std::vector<std::unique_ptr<Backend>> make_all_backends();

/// The backends a --backend list names. "all": every available built-in backend (ref,
/// cuda), the others reported as skipped with their reason per case; "frameworks":
/// every available framework backend. Throws Error(schema) for an unknown name.
/// "frameworks": every available framework backend, the others named once (not_running).
struct BackendChoice {
  std::vector<Backend*> run;
  std::vector<std::pair<Backend*, std::string>> skipped;  ///< backend, reason: a skipped row per case
  std::vector<std::pair<std::string, std::string>> not_running;  ///< frameworks left out of "frameworks", and why
  std::vector<std::pair<std::string, std::string>> unavailable_named;  ///< asked for by name
};
BackendChoice choose_backends(const std::string& list, const std::vector<std::unique_ptr<Backend>>& all);
/// The non-empty items of a comma-separated list.
std::vector<std::string> split_commas(const std::string& list);
/// The names of a --backend list ("all" when empty).
std::vector<std::string> split_backend_list(const std::string& list);
/// The list's LABEL=SPEC entries (BackendConfig::labelled). Throws Error(schema) for a
/// malformed entry or a label used twice (rows are named case@LABEL).
std::vector<std::pair<std::string, std::string>> labelled_specs(const std::string& list);
/// The list's unlabelled plugin:PATH and python:... entries (BackendConfig::user_backends).
std::vector<std::string> user_backend_specs(const std::string& list);
/// The files a --backend list runs: python: kernels' sources, plugins, exe: programs and
/// FRAMEWORK@PYTHON interpreters, labelled or not. No report may be written over one.
std::vector<std::string> files_of_backends(const std::string& list);
/// The interpreter that runs framework workers and Python kernels: `python` (--python), else
/// $SCATTERCTL_PYTHON, else the project's .venv, else python3 on PATH.
std::string python_interpreter(const std::string& python);

}  // namespace scatter
