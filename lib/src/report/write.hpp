#pragma once
// Reports are written whole or not at all: a temporary file beside the target, then
// a rename, so a crashed or interrupted run never leaves a half-written report that
// a CI system could read as a pass.

#include <string>

namespace scatter::detail {

/// Writes `content` to `path` atomically; throws Error(io) naming the path.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace scatter::detail
