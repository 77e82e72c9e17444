// The registry: every backend scatterctl knows, in one place. Adding a backend is one
// line here (and its own file). Built-ins first, ref leading (the oracle); then the
// framework workers; then the plugins a --backend list names.

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "external/worker_backend.hpp"
#include "scatter/backend.hpp"
#include "scatter/plugin.hpp"
#include "scatter/run.hpp"

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

// The cpu backend's grain: the config's, else $SCATTERCTL_CPU_GRAIN (a positive integer;
// anything else is ignored), else its default.
std::int64_t cpu_grain(const BackendConfig& config) {
  if (config.cpu_grain > 0) return config.cpu_grain;
  const char* env = std::getenv("SCATTERCTL_CPU_GRAIN");
  if (!env || !*env) return 0;
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  return end && *end == '\0' && v > 0 ? v : 0;
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
  all.push_back(make_cpu_backend(config.threads, cpu_grain(config)));
  all.push_back(make_cuda_backend());
  for (const auto& name : framework_backend_names()) all.push_back(make_framework_backend(name, config));
  for (const auto& path : config.plugins) {
    all.push_back(config.isolate ? make_isolated_plugin(path, config) : make_plugin_backend(path));
  }
  return all;
}

std::vector<std::unique_ptr<Backend>> make_all_backends() { return make_all_backends(BackendConfig{}); }

// ---- --backend lists: names, `all` (the built-ins), `frameworks`, plugin:PATH

std::vector<std::string> split_commas(const std::string& list) {
  std::vector<std::string> items;
  std::string::size_type start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    auto item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) items.push_back(std::move(item));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

std::vector<std::string> split_backend_list(const std::string& list) {
  auto names = split_commas(list);
  if (names.empty()) names.push_back("all");
  return names;
}

std::vector<std::string> plugin_paths(const std::string& list) {
  std::vector<std::string> paths;
  for (const auto& name : split_backend_list(list)) {
    if (name.rfind("plugin:", 0) == 0) paths.push_back(name.substr(7));
  }
  return paths;
}

namespace {

bool is_framework(std::string_view name) {
  const auto& names = framework_backend_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool is_builtin(std::string_view name) { return !is_framework(name) && name.rfind("plugin:", 0) != 0; }

}  // namespace

BackendChoice choose_backends(const std::string& list, const std::vector<std::unique_ptr<Backend>>& all) {
  BackendChoice choice;
  auto chosen = [&](const Backend* b) { return std::find(choice.run.begin(), choice.run.end(), b) != choice.run.end(); };
  for (const auto& name : split_backend_list(list)) {
    if (name == "all" || name == "frameworks") {
      const bool frameworks = name == "frameworks";
      for (const auto& b : all) {
        if (chosen(b.get()) || (frameworks ? !is_framework(b->name()) : !is_builtin(b->name()))) continue;
        const auto a = b->availability();
        if (a.available) {
          choice.run.push_back(b.get());
        } else if (frameworks) {
          choice.not_running.emplace_back(std::string(b->name()), "unavailable: " + a.reason);
        } else {
          choice.skipped.emplace_back(b.get(), "unavailable: " + a.reason);
        }
      }
      continue;
    }
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& b) { return b->name() == name; });
    if (it == all.end()) {
      std::vector<std::string_view> known{"all", "frameworks"};
      for (const auto& b : all) {
        if (b->name().rfind("plugin:", 0) != 0) known.push_back(b->name());
      }
      known.push_back("plugin:PATH");
      throw Error(ErrorCode::schema, "--backend", fmt::format("'{}' is not a backend ({})", name, fmt::join(known, ", ")));
    }
    const auto a = (*it)->availability();
    if (!a.available) {
      choice.unavailable_named.emplace_back(name, a.reason);
    } else if (!chosen(it->get())) {
      choice.run.push_back(it->get());
    }
  }
  return choice;
}

}  // namespace scatter
