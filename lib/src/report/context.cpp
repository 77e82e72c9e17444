#include <unistd.h>

#include <ctime>

#include <fmt/format.h>

#include "scatter/report.hpp"
#include "scatter/version.hpp"

namespace scatter {

RunContext make_run_context(const std::vector<std::unique_ptr<Backend>>& backends, const std::string& command) {
  RunContext c;
  c.version = std::string(kVersion);
  c.build_type = std::string(kBuildType);
  c.cuda_compiled = kCudaCompiled;
  c.git_commit = std::string(kGitCommit);
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  c.date = date;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) c.hostname = host;
  c.command = command;
  for (const auto& b : backends) {
    const auto a = b->availability();
    c.backends.push_back({std::string(b->label()), a.available, a.reason, a.available ? b->device() : "", b->spec()});
  }
  return c;
}

}  // namespace scatter
