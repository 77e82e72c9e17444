#pragma once
// The subcommands of scatterctl: each registers its flags on the app and returns what
// runs it (cmd_<name>.cpp, flags next to the code that reads them).

#include <CLI/CLI.hpp>

#include "cli_common.hpp"

namespace scatter::cli {

Command add_run_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_list_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_dump_command(CLI::App& app);
Command add_bench_command(CLI::App& app);
Command add_compare_command(CLI::App& app);
Command add_fuzz_command(CLI::App& app);
Command add_shrink_command(CLI::App& app);
Command add_info_command(CLI::App& app);
Command add_merge_command(CLI::App& app);
Command add_expectations_command(CLI::App& app);
Command add_import_command(CLI::App& app);
/// Hidden: the child side of --isolate, serving one plugin over fds 3 and 4 (docs/backends.md).
Command add_plugin_host_command(CLI::App& app);
/// Hidden: the far side of exe:PATH:NAME, serving a built-in backend over fds 3 and 4.
Command add_backend_host_command(CLI::App& app);
Command add_box_host_command(CLI::App& app);

}  // namespace scatter::cli
