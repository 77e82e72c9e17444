// Failure bundles: everything needed to reproduce a failing case without scatterctl's
// generators or the original file: the tensors as .npy and a self-contained repro.json.

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scatter/files.hpp"
#include "scatter/run.hpp"
#include "scatter/report.hpp"

namespace scatter {


void save_failure_bundle(const std::string& dir, const CaseDecl& decl, const Case& c, const std::string& backend,
                         const Tensor& actual, const Tensor& want) {
  namespace fs = std::filesystem;
  fs::path folder;
  try {
    folder = case_folder(dir, fmt::format("{}@{}", c.name, backend));
  } catch (const Error& e) {
    throw Error(ErrorCode::io, "--save-failures", e.message());
  }
  write_npy(c.data, (folder / "data.npy").string());
  write_npy(c.indices, (folder / "indices.npy").string());
  write_npy(c.updates, (folder / "updates.npy").string());
  write_npy(want, (folder / "expected.npy").string());
  write_npy(actual, (folder / "actual.npy").string());

  auto tensor = [](const Tensor& t, const char* file) {
    return nlohmann::ordered_json{{"dtype", to_string(t.dtype())}, {"shape", t.shape()}, {"file", file}};
  };
  nlohmann::ordered_json repro;
  repro["name"] = c.name + "_repro";
  repro["description"] = fmt::format("Reproduces case '{}' failing on backend '{}'. expected.npy is {}; actual.npy is "
                                     "what the backend produced.",
                                     c.name, backend, c.expected ? "the case's expected output" : "the reference output");
  repro["source"] = fmt::format("scatterctl --save-failures, from {}", c.file);
  repro["tags"] = decl.tags;
  repro["op"] = to_string(c.attrs.op);
  if (c.attrs.op != Op::scatter_nd) repro["axis"] = c.attrs.axis;
  repro["reduction"] = to_string(c.attrs.reduction);
  if (c.attrs.op == Op::scatter_elements) repro["use_init_val"] = c.attrs.use_init_val;
  if (c.attrs.op == Op::tensor_scatter) repro["mode"] = write_mode_name(c.attrs.mode);
  repro["inputs"] = {{"data", tensor(c.data, "data.npy")},
                     {"indices", tensor(c.indices, "indices.npy")},
                     {"updates", tensor(c.updates, "updates.npy")}};
  repro["expected"] = tensor(want, "expected.npy");
  if (c.tolerance) repro["tolerance"] = {{"atol", c.tolerance->atol}, {"rtol", c.tolerance->rtol}};
  write_file_atomically((folder / "repro.json").string(), repro.dump(2) + "\n");
}

}  // namespace scatter
