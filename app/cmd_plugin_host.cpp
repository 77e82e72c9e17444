// scatterctl plugin-host PATH (hidden): the child side of --isolate, serving one plugin
// over fds 3 and 4 (docs/backends.md).

#include "commands.hpp"
#include "scatter/plugin.hpp"

namespace scatter::cli {

Command add_plugin_host_command(CLI::App& app) {
  auto path = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("plugin-host", "")->group("");
  cmd->add_option("path", *path, "the plugin")->required()->expected(1);
  return {cmd, [path](const Invocation&) { return serve_plugin(path->at(0), 3, 4); }};
}

}  // namespace scatter::cli
