#pragma once
// A Backend served by a worker process over protocol 1 (docs/backends.md).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/backend.hpp"

namespace scatter::external {

/// `name` as --backend spells it; `argv` starts the worker (no shell); `env` adds to the
/// environment. The worker is started, and asked `hello`, on first use. A worker is an
/// external backend, unless `hosts_builtin` (another scatterctl's `backend-host`) and its
/// hello says it serves a built-in one: then it is held to the built-ins' rules.
std::unique_ptr<Backend> make_worker_backend(std::string name, std::vector<std::string> argv,
                                             std::vector<std::pair<std::string, std::string>> env,
                                             std::optional<double> request_timeout, bool hosts_builtin = false);

}  // namespace scatter::external
