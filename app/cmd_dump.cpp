// scatterctl dump: a case's inputs and reference output as .npy files, for Python tools.

#include <filesystem>
#include <iostream>

#include "outputs.hpp"
#include "commands.hpp"
#include "scatter/files.hpp"
#include "scatter/report.hpp"

namespace scatter::cli {
namespace {

struct DumpFlags {
  std::vector<std::string> paths;
  std::string case_name;
  std::string out_dir;
  std::string max_bytes;
};

int dump(const DumpFlags& o) {
  Outputs().reads_cases(o.paths).folder("--out", o.out_dir).check();
  const auto loaded = load(o.paths, o.max_bytes);
  if (say_file_errors(loaded)) return kExitInvalid;
  int dumped = 0;
  int invalid = 0;
  for (const auto& entry : loaded.cases) {
    if (!o.case_name.empty() && entry.name != o.case_name) continue;
    if (!entry.decl) {
      ++invalid;
      std::cerr << "scatterctl: " << (entry.error ? describe(*entry.error) : entry.name + ": invalid") << "\n";
      continue;
    }
    try {
      const auto c = materialize(*entry.decl);
      const std::filesystem::path dir = case_folder(o.out_dir, c.name);  // a case named ".." stays inside
      write_npy(c.data, (dir / "data.npy").string());
      write_npy(c.indices, (dir / "indices.npy").string());
      write_npy(c.updates, (dir / "updates.npy").string());
      if (c.expected) write_npy(*c.expected, (dir / "expected.npy").string());
      write_npy(reference_scatter(c), (dir / "reference.npy").string());
      std::cout << dir.string() << "\n";
      ++dumped;
    } catch (const Error& e) {
      ++invalid;
      std::cerr << "scatterctl: " << describe(e) << "\n";
    } catch (const std::filesystem::filesystem_error& e) {
      std::cerr << "scatterctl: " << e.what() << "\n";
      return kExitInvalid;
    }
  }
  if (invalid > 0) return kExitInvalid;
  return dumped == 0 ? kExitNothing : kExitOk;
}

}  // namespace

Command add_dump_command(CLI::App& app) {
  auto o = std::make_shared<DumpFlags>();
  auto* cmd = app.add_subcommand("dump", "write a case's inputs and reference output as .npy files");
  cmd->add_option("path", o->paths, "a case file or directory")->required();
  cmd->add_option("--case", o->case_name, "only this case");
  cmd->add_option("--out", o->out_dir, "output directory (one folder per case)")->required();
  cmd->add_option("--max-bytes", o->max_bytes, "reject cases needing more host memory");
  return {cmd, [o](const Invocation&) { return dump(*o); }};
}

}  // namespace scatter::cli
