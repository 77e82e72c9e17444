#pragma once
// A backend whose kernel runs in a box (docs/backends.md, "The box"): a process that holds none
// of the judge. scatterctl owns the inputs and the output (shared memory), the clock, every draw
// and every check; the box's process is frozen outside each timed call, confined by what the
// operating system allows, and answers each call with a plain buffer read while it is frozen.
// Python kernels (python:), plugins (plugin:, isolated) and other builds (exe:) run this way.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/backend.hpp"

namespace scatter::box {

struct BoxOptions {
  std::optional<double> request_timeout;  ///< seconds a call may take (default 300)
};

/// `name` as --backend spells it; `argv` starts the box's runtime (no shell): it speaks the box
/// protocol on fds 3, 4 and 5, and loads the kernel only when asked `hello`.
std::unique_ptr<Backend> make_boxed_backend(std::string name, std::vector<std::string> argv,
                                            std::vector<std::pair<std::string, std::string>> env,
                                            const BoxOptions& options);

/// The box protocol's version: 2 (protocol 1 is the framework workers', docs/backends.md).
inline constexpr int kBoxProtocol = 2;

}  // namespace scatter::box
