// The registry: every backend scatterctl knows, in one place. Adding a backend is one
// line here (and its own file). Built-ins first, ref leading (the oracle); then the
// framework workers; then the plugins a --backend list names.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "external/worker_backend.hpp"
#include "scatter/backend.hpp"
#include "scatter/plugin.hpp"

namespace scatter {
namespace {

// The interpreter for framework workers: --python, $SCATTERCTL_PYTHON, the project's
// .venv (scripts/setup.sh --frameworks), then python3 on PATH.
std::string python_of(const BackendConfig& config) {
  if (!config.python.empty()) return config.python;
  if (const char* env = std::getenv("SCATTERCTL_PYTHON"); env && *env) return env;
  const std::string venv = std::string(SCATTER_SOURCE_DIR) + "/.venv/bin/python";
  if (::access(venv.c_str(), X_OK) == 0) return venv;
  return "python3";
}

// Where the worker package lives: $SCATTERCTL_PYTHONPATH, else the source tree's lib/python.
std::string worker_path() {
  if (const char* env = std::getenv("SCATTERCTL_PYTHONPATH"); env && *env) return env;
  return std::string(SCATTER_SOURCE_DIR) + "/lib/python";
}

std::unique_ptr<Backend> make_isolated_plugin(const std::string& path, const BackendConfig& config) {
  std::string self = config.self_exe;
  if (self.empty()) self = std::filesystem::read_symlink("/proc/self/exe").string();
  return external::make_worker_backend("plugin:" + path, {self, "plugin-host", path}, {}, config.request_timeout);
}

}  // namespace

const std::vector<std::string>& framework_backend_names() {
  static const std::vector<std::string> names{"numpy", "onnx", "onnxruntime", "openvino", "tvm", "torch", "jax"};
  return names;
}

std::unique_ptr<Backend> make_framework_backend(const std::string& name, const BackendConfig& config) {
  std::string pythonpath = worker_path();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += std::string(":") + old;
  return external::make_worker_backend(name, {python_of(config), "-u", "-m", "scatterctl_worker", name},
                                       {{"PYTHONPATH", pythonpath}, {"PYTHONDONTWRITEBYTECODE", "1"}},
                                       config.request_timeout);
}

std::vector<std::unique_ptr<Backend>> make_all_backends(const BackendConfig& config) {
  std::vector<std::unique_ptr<Backend>> all;
  all.push_back(make_ref_backend());
  all.push_back(make_cuda_backend());
  for (const auto& name : framework_backend_names()) all.push_back(make_framework_backend(name, config));
  for (const auto& path : config.plugins) {
    all.push_back(config.isolate ? make_isolated_plugin(path, config) : make_plugin_backend(path));
  }
  return all;
}

std::vector<std::unique_ptr<Backend>> make_all_backends() { return make_all_backends(BackendConfig{}); }

}  // namespace scatter
