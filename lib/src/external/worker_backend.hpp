#pragma once
// A Backend served by a worker process over protocol 1 (docs/backends.md).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/backend.hpp"

namespace scatter::external {

/// How a worker is run and trusted.
struct WorkerOptions {
  std::optional<double> request_timeout;  ///< seconds a request may take (default 300)
  /// Another scatterctl's `backend-host`: when its hello says it serves a built-in backend, it
  /// is held to the built-ins' rules, and renewed every few rounds of a bench (it restarts in
  /// milliseconds).
  bool hosts_builtin = false;
  /// bench --counter instructions: the host runs under callgrind, its dumps in the worker's
  /// private folder, and each answer carries the counts of the call (counter.hpp). Never renewed.
  bool count_instructions = false;
  /// bench: before hello (so before the worker loads a kernel whose code could slow them down),
  /// time null calls of the timer's signals, with and without the cache flush of a cold sample:
  /// what scatterctl's clock of a call holds beyond the call (docs/backends.md, "The clock").
  bool calibrate_signals = false;
  /// bench: the worker's process group is stopped between its requests, so that its idle
  /// threads take no CPU while the other backends are timed (WorkerProcess).
  bool freeze_between_requests = false;
};

/// `name` as --backend spells it; `argv` starts the worker (no shell); `env` adds to the
/// environment. The worker is started, and asked `hello`, on first use. A worker is an
/// external backend unless `options` say otherwise.
std::unique_ptr<Backend> make_worker_backend(std::string name, std::vector<std::string> argv,
                                             std::vector<std::pair<std::string, std::string>> env,
                                             const WorkerOptions& options);

}  // namespace scatter::external
