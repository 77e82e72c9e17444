// scatterctl import MODEL --out DIR: every scatter node of an ONNX or OpenVINO IR model as a
// case, so that `run DIR` and `bench DIR` work on a user's own model. The model is read by the
// project's Python (lib/python/scatterctl_import.py), with the interpreter the framework
// workers use.

#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/backend.hpp"

namespace scatter::cli {
namespace {

struct ImportFlags {
  std::string model;
  std::string out_dir;
  std::vector<std::string> dims;
  std::string python;
  bool force = false;
};

int import_model(const ImportFlags& o) {
  std::vector<std::string> args{o.model, "--out", o.out_dir};
  for (const auto& dim : o.dims) args.insert(args.end(), {"--dim", dim});
  if (o.force) args.emplace_back("--force");
  BackendConfig config;
  config.python = o.python;
  std::string why;
  const int status = run_python_module("scatterctl_import", args, config, why);
  if (status < 0) {
    std::cerr << fmt::format("scatterctl import: unavailable: {}\n", why);
    return kExitEnv;
  }
  return status;
}

}  // namespace

Command add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportFlags>();
  auto* cmd = app.add_subcommand("import", "every scatter node of an ONNX (.onnx) or OpenVINO IR (.xml) model as a case");
  cmd->add_option("model", o->model, "the model: .onnx, or OpenVINO IR .xml (its .bin beside it)")->required();
  cmd->add_option("--out", o->out_dir, "the folder the cases go to (made if missing)")->required();
  cmd->add_option("--dim", o->dims, "NAME=VALUE: the size of a dynamic dimension (repeatable)");
  cmd->add_option("--python", o->python, "the interpreter that reads the model (default: as the framework workers)");
  cmd->add_flag("--force", o->force, "replace case and .npy files of the same names in --out (never through a link)");
  return {cmd, [o](const Invocation&) { return import_model(*o); }};
}

}  // namespace scatter::cli
