// scatterctl backend-host NAME (hidden): the far side of `--backend exe:PATH:NAME`, serving
// this build's built-in backend NAME over fds 3 and 4 (docs/backends.md, "Two versions in
// one run"), so that another scatterctl can time it beside its own.

#include "commands.hpp"
#include "scatter/plugin.hpp"
#include "usage.hpp"

namespace scatter::cli {

Command add_backend_host_command(CLI::App& app) {
  struct Flags {
    std::string name;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("backend-host", "")->group("");
  cmd->add_option("name", flags->name, "the built-in backend")->required()->check(one_of(builtin_backend_names()));
  cmd->add_option("--threads", flags->threads, "threads of the cpu backend")->check(CLI::Range(1, 4096));
  return {cmd, [flags](const Invocation&) {
            BackendConfig config;
            config.threads = flags->threads;
            auto backend = make_backend(flags->name, config);
            return serve_backend(*backend, "", 3, 4, KeepCase::yes);
          }};
}

}  // namespace scatter::cli
