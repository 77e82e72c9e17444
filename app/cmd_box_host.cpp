// scatterctl box-host plugin PATH | builtin NAME [--threads N] (hidden): the box's runtime for a
// plugin or a built-in backend of this build, over fds 3, 4 and 5 (docs/backends.md, "The box").

#include "commands.hpp"
#include "scatter/plugin.hpp"
#include "usage.hpp"

namespace scatter::cli {

Command add_box_host_command(CLI::App& app) {
  struct Flags {
    std::string kind;
    std::string what;
    int threads = 0;
  };
  auto flags = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("box-host", "")->group("");
  cmd->add_option("kind", flags->kind, "plugin or builtin")->required()->check(one_of({"plugin", "builtin"}));
  cmd->add_option("what", flags->what, "the plugin's path, or the built-in backend's name")->required();
  cmd->add_option("--threads", flags->threads, "threads of the cpu backend")->check(CLI::Range(1, 4096));
  return {cmd, [flags](const Invocation&) {
            return flags->kind == "plugin" ? serve_plugin_box(flags->what) : serve_builtin_box(flags->what, flags->threads);
          }};
}

}  // namespace scatter::cli
