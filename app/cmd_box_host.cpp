// scatterctl box-host plugin PATH | builtin NAME [--threads N] (hidden): the box's runtime for a
// plugin or a built-in backend of this build, over fds 3, 4 and 5 (docs/backends.md, "The box").

#include "commands.hpp"
#include "scatter/plugin.hpp"
#include "usage.hpp"

namespace {
bool g_serving_a_box = false;
}  // namespace

// LeakSanitizer (scripts/sanitize.sh) stops the world at exit from a new process that ptraces
// this one: the box's seccomp forbids both, so a box-host would end in LSan's fatal error. A
// box-host's leaks are left unchecked; the same backends run unboxed in scatterctl's own process
// (run --backend cpu, plugin --in-process), where they are checked.
extern "C" int __lsan_is_turned_off() { return g_serving_a_box ? 1 : 0; }

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
            g_serving_a_box = true;
            return flags->kind == "plugin" ? serve_plugin_box(flags->what) : serve_builtin_box(flags->what, flags->threads);
          }};
}

}  // namespace scatter::cli
