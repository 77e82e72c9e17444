// The registry: every backend scatterctl knows, in one place. Adding a built-in backend is a
// row of builtins() (and its own file); a framework, a name in framework_backend_names() (and its
// worker). Built-ins first, ref leading (the oracle); then the
// framework workers; then the plugins a --backend list names.

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "box/boxed_backend.hpp"
#include "external/worker_backend.hpp"
#include "scatter/backend.hpp"
#include "scatter/plugin.hpp"

namespace scatter {
namespace {

std::string python_of(const BackendConfig& config) { return python_interpreter(config.python); }

// Where the worker package lives: $SCATTERCTL_PYTHONPATH, else the source tree's lib/python.
std::string worker_path() {
  if (const char* env = std::getenv("SCATTERCTL_PYTHONPATH"); env && *env) return env;
  return std::string(SCATTER_SOURCE_DIR) + "/lib/python";
}

// The environment the project's Python runs in: lib/python first on its path, no .pyc files.
std::vector<std::pair<std::string, std::string>> python_env() {
  std::string pythonpath = worker_path();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += std::string(":") + old;
  return {{"PYTHONPATH", pythonpath}, {"PYTHONDONTWRITEBYTECODE", "1"}};
}

// Whether user code runs in the box (docs/backends.md, "The box"): always, unless
// SCATTERCTL_BOX=off turns the box off for the whole run (its rows then say so).
bool boxed() {
  const char* box = std::getenv("SCATTERCTL_BOX");
  return box == nullptr || std::string_view(box) != "off";
}

box::BoxOptions box_options(const BackendConfig& config) { return {config.request_timeout}; }

// The Python worker serving a framework NAME.
std::unique_ptr<Backend> make_worker_of(const std::string& name, const BackendConfig& config) {
  return external::make_worker_backend(name, {python_of(config), "-u", "-m", "scatterctl_worker", name}, python_env(),
                                       {config.request_timeout, false, false, config.timed, config.timed});
}

// A user's kernel (python:FILE.py[:FUNC]), in the box's Python runtime.
std::unique_ptr<Backend> make_python_kernel(const std::string& spec, const BackendConfig& config) {
  if (!boxed()) return make_worker_of(spec, config);
  return box::make_boxed_backend(spec, {python_of(config), "-u", "-m", "scatterctl_box", spec}, python_env(),
                                 box_options(config));
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

std::string self_exe(const BackendConfig& config) {
  return config.self_exe.empty() ? std::filesystem::read_symlink("/proc/self/exe").string() : config.self_exe;
}

std::vector<std::string> plugin_host_argv(const std::string& path, const BackendConfig& config) {
  return {self_exe(config), "plugin-host", path};
}

std::unique_ptr<Backend> make_isolated_plugin(const std::string& path, const BackendConfig& config) {
  if (boxed()) {
    return box::make_boxed_backend("plugin:" + path, {self_exe(config), "box-host", "plugin", path}, {},
                                   box_options(config));
  }
  return external::make_worker_backend("plugin:" + path, plugin_host_argv(path, config), {},
                                       {config.request_timeout, false, false, config.timed, config.timed});
}

std::unique_ptr<Backend> make_plugin(const std::string& path, const BackendConfig& config) {
  return config.isolate ? make_isolated_plugin(path, config) : make_plugin_backend(path);
}

// The built-in backends, in the order `all` runs them (ref first: the oracle): adding one is a
// row here and its own file. The memory it works in decides what the instruction counter can count.
struct Builtin {
  std::string name;
  MemoryKind memory;
  std::unique_ptr<Backend> (*make)(const BackendConfig&);
};
const std::vector<Builtin>& builtins() {
  static const std::vector<Builtin> table{
      {"ref", MemoryKind::host, [](const BackendConfig&) { return make_ref_backend(); }},
      {"cpu", MemoryKind::host, [](const BackendConfig& c) { return make_cpu_backend(c.threads, cpu_grain(c)); }},
      {"cuda", MemoryKind::device, [](const BackendConfig&) { return make_cuda_backend(); }},
  };
  return table;
}

const Builtin* find_builtin(std::string_view name) {
  const auto& table = builtins();
  const auto it = std::find_if(table.begin(), table.end(), [&](const Builtin& b) { return b.name == name; });
  return it == table.end() ? nullptr : &*it;
}

bool is_one_of(std::string_view name, const std::vector<std::string>& names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The built-in backend NAME of the scatterctl at PATH, in its backend-host mode.
std::vector<std::string> backend_host_argv(const std::string& path, const std::string& name,
                                           const BackendConfig& config) {
  std::vector<std::string> argv{path, "backend-host", name};
  if (config.threads > 0) argv.insert(argv.end(), {"--threads", std::to_string(config.threads)});
  return argv;
}

// exe:PATH:NAME: {PATH, NAME}; throws Error(schema) naming the SPEC when it is not one.
std::pair<std::string, std::string> exe_parts(const std::string& spec) {
  const auto colon = spec.rfind(':');
  const auto path = colon > 4 ? spec.substr(4, colon - 4) : std::string();
  const auto name = spec.substr(colon + 1);
  if (path.empty() || !is_one_of(name, builtin_backend_names())) {
    throw Error(ErrorCode::schema, "--backend",
                fmt::format("'{}' is not exe:PATH:NAME with NAME one of {} (a built-in backend of the scatterctl at "
                            "PATH)",
                            spec, fmt::join(builtin_backend_names(), ", ")));
  }
  return {path, name};
}

// Another build's built-in backend. In the box unless the user vouches for the build
// (--trust-exe): a hello that says "builtin" is no proof that PATH is a scatterctl at all.
std::unique_ptr<Backend> make_exe_backend(const std::string& spec, const BackendConfig& config) {
  const auto [path, name] = exe_parts(spec);
  if (boxed() && !config.trust_exe) {
    std::vector<std::string> argv{path, "box-host", "builtin", name};
    if (config.threads > 0) argv.insert(argv.end(), {"--threads", std::to_string(config.threads)});
    return box::make_boxed_backend(name, std::move(argv), {}, box_options(config));
  }
  return external::make_worker_backend(name, backend_host_argv(path, name, config), {},
                                       {config.request_timeout, true, false, false, config.timed});
}

// A backend that cannot run here, and says why (bench --counter of a device or framework backend).
class UnavailableBackend final : public Backend {
 public:
  UnavailableBackend(std::string name, std::string reason) : name_(std::move(name)), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  Availability availability() const override { return {false, reason_}; }
  std::string device() const override { return "none"; }
  BackendOutput run(const Case&, const RunFlags&) override {
    throw Error(ErrorCode::backend, "", fmt::format("{} is unavailable: {}", name_, reason_));
  }

 private:
  std::string name_;
  std::string reason_;
};

// bench --counter instructions: the host backends' host processes under callgrind, the region
// each times counted (counter.hpp). cuda's time is the device's, and a framework's region is
// Python's: neither is a count of the op's host instructions.
std::unique_ptr<Backend> make_counted_backend(const std::string& spec, const BackendConfig& config) {
  std::string name = spec;
  std::vector<std::string> host;
  bool builtin = true;
  if (const auto* b = find_builtin(spec); b && b->memory == MemoryKind::host) {
    host = backend_host_argv(self_exe(config), spec, config);
  } else if (spec.rfind("exe:", 0) == 0) {
    const auto [path, exe_name] = exe_parts(spec);
    name = exe_name;
    host = backend_host_argv(path, exe_name, config);
  } else if (spec.rfind("plugin:", 0) == 0 && spec.size() > 7) {
    host = plugin_host_argv(spec.substr(7), config);
    builtin = false;
  } else {
    return std::make_unique<UnavailableBackend>(
        spec, "the instruction counter runs host backends only (ref, cpu, plugin:PATH, exe:PATH:NAME): " + spec +
                  " runs on a device or in a framework's interpreter");
  }
  if (const auto why = counter_unavailable_reason(); !why.empty()) {
    return std::make_unique<UnavailableBackend>(name, "cannot count instructions: " + why);
  }
  return external::make_worker_backend(name, std::move(host), {}, {config.request_timeout, builtin, true});
}

}  // namespace

const std::vector<std::string>& builtin_backend_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& b : builtins()) all.push_back(b.name);
    return all;
  }();
  return names;
}

const std::vector<std::string>& framework_backend_names() {
  static const std::vector<std::string> names{"numpy", "onnx", "onnxruntime", "openvino", "tvm", "torch", "jax"};
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& spec, const BackendConfig& config) {
  if (config.count_instructions) return make_counted_backend(spec, config);
  if (const auto* b = find_builtin(spec)) return b->make(config);
  if (is_one_of(spec, framework_backend_names())) return make_framework_backend(spec, config);
  if (spec.rfind("plugin:", 0) == 0 && spec.size() > 7) return make_plugin(spec.substr(7), config);
  if (spec.rfind("exe:", 0) == 0) return make_exe_backend(spec, config);
  if (spec.rfind("python:", 0) == 0 && spec.size() > 7) return make_python_kernel(spec, config);
  if (const auto at = spec.find('@'); at != std::string::npos && is_one_of(spec.substr(0, at), framework_backend_names())) {
    auto other = config;
    other.python = spec.substr(at + 1);
    if (!other.python.empty()) return make_framework_backend(spec.substr(0, at), other);
  }
  throw Error(ErrorCode::schema, "--backend",
              fmt::format("'{}' is not a backend spec: a name ({}, {}), plugin:PATH, python:FILE.py[:FUNC], "
                          "python:MODULE:FUNC, exe:PATH:NAME or FRAMEWORK@PYTHON",
                          spec, fmt::join(builtin_backend_names(), ", "), fmt::join(framework_backend_names(), ", ")));
}

std::unique_ptr<Backend> make_framework_backend(const std::string& name, const BackendConfig& config) {
  return make_worker_of(name, config);
}

int run_python_module(const std::string& module, const std::vector<std::string>& args, const BackendConfig& config,
                      std::string& why) {
  const auto python = python_of(config);
  std::vector<std::string> argv{python, "-m", module};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw;
  for (auto& a : argv) raw.push_back(a.data());
  raw.push_back(nullptr);
  const auto env = python_env();
  const pid_t pid = ::fork();
  if (pid < 0) {
    why = fmt::format("cannot start {}: fork failed", python);
    return -1;
  }
  if (pid == 0) {
    for (const auto& [key, value] : env) ::setenv(key.c_str(), value.c_str(), 1);
    ::execvp(raw[0], raw.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    why = fmt::format("cannot start the interpreter '{}' (--python, $SCATTERCTL_PYTHON, the project's .venv, "
                      "python3)",
                      python);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}


std::vector<std::unique_ptr<Backend>> make_all_backends(const BackendConfig& config) {
  std::vector<std::unique_ptr<Backend>> all;
  for (const auto& name : builtin_backend_names()) all.push_back(make_backend(name, config));
  for (const auto& name : framework_backend_names()) all.push_back(make_backend(name, config));
  for (const auto& spec : config.user_backends) all.push_back(make_backend(spec, config));
  for (const auto& [label, spec] : config.labelled) {
    all.push_back(make_backend(spec, config));
    all.back()->set_label(label, spec);
  }
  return all;
}

std::vector<std::unique_ptr<Backend>> make_all_backends() { return make_all_backends(BackendConfig{}); }

// ---- --backend lists: names, `all` (the built-ins), `frameworks`, plugin:PATH, python:...

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

std::vector<std::pair<std::string, std::string>> labelled_specs(const std::string& list) {
  std::vector<std::pair<std::string, std::string>> labelled;
  std::vector<std::string> unlabelled;
  for (const auto& item : split_backend_list(list)) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) {
      unlabelled.push_back(item);
      continue;
    }
    auto label = item.substr(0, eq);
    auto spec = item.substr(eq + 1);
    const bool word = !label.empty() && std::all_of(label.begin(), label.end(), [](unsigned char ch) {
      return std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.';
    });
    if (!word || label == "all" || label == "frameworks" || spec.empty()) {
      throw Error(ErrorCode::schema, "--backend",
                  fmt::format("'{}' is not LABEL=SPEC (a label of letters, digits, '_', '-' or '.', other than all and "
                              "frameworks, and a backend spec)",
                              item));
    }
    labelled.emplace_back(std::move(label), std::move(spec));
  }
  // Rows are named case@LABEL: two backends with one label could not be told apart.
  for (std::size_t i = 0; i < labelled.size(); ++i) {
    const auto& label = labelled[i].first;
    const bool repeated = std::any_of(labelled.begin(), labelled.begin() + static_cast<std::ptrdiff_t>(i),
                                      [&](const auto& other) { return other.first == label; });
    if (repeated || is_one_of(label, unlabelled)) {
      throw Error(ErrorCode::schema, "--backend",
                  fmt::format("the label '{}' is used twice in '{}': each backend's rows are named case@LABEL", label,
                              list));
    }
  }
  return labelled;
}

std::vector<std::string> user_backend_specs(const std::string& list) {
  std::vector<std::string> specs;
  for (const auto& name : split_backend_list(list)) {
    if (name.rfind("plugin:", 0) == 0 || name.rfind("python:", 0) == 0) specs.push_back(name);
  }
  return specs;
}

// The .venv is scripts/setup.sh --frameworks'.
std::string python_interpreter(const std::string& python) {
  if (!python.empty()) return python;
  if (const char* env = std::getenv("SCATTERCTL_PYTHON"); env && *env) return env;
  const std::string venv = std::string(SCATTER_SOURCE_DIR) + "/.venv/bin/python";
  if (::access(venv.c_str(), X_OK) == 0) return venv;
  return "python3";
}

std::vector<std::string> files_of_backends(const std::string& list) {
  std::vector<std::string> files;
  for (auto spec : split_commas(list)) {
    if (const auto eq = spec.find('='); eq != std::string::npos && spec.find(':') > eq) spec = spec.substr(eq + 1);
    if (spec.rfind("plugin:", 0) == 0) {
      files.push_back(spec.substr(7));
    } else if (spec.rfind("exe:", 0) == 0) {
      const auto colon = spec.rfind(':');
      if (colon > 4) files.push_back(spec.substr(4, colon - 4));
    } else if (spec.rfind("python:", 0) == 0) {
      // python:FILE.py[:FUNC]: the file with or without its last ':' part (a module is no file).
      const auto rest = spec.substr(7);
      files.push_back(rest);
      if (const auto colon = rest.rfind(':'); colon != std::string::npos) files.push_back(rest.substr(0, colon));
    } else if (const auto at = spec.find('@'); at != std::string::npos) {
      files.push_back(spec.substr(at + 1));
    }
  }
  return files;
}

namespace {

bool is_framework(std::string_view name) { return is_one_of(name, framework_backend_names()); }

bool is_builtin(std::string_view name) { return is_one_of(name, builtin_backend_names()); }

}  // namespace

BackendChoice choose_backends(const std::string& list, const std::vector<std::unique_ptr<Backend>>& all) {
  BackendChoice choice;
  auto chosen = [&](const Backend* b) { return std::find(choice.run.begin(), choice.run.end(), b) != choice.run.end(); };
  for (const auto& name : split_backend_list(list)) {
    if (name == "all" || name == "frameworks") {
      const bool frameworks = name == "frameworks";
      for (const auto& b : all) {
        if (chosen(b.get()) || !b->spec().empty() ||
            (frameworks ? !is_framework(b->name()) : !is_builtin(b->name()))) {
          continue;
        }
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
    // LABEL=SPEC: the instance made for that label; a bare name: the unlabelled backend.
    const auto eq = name.find('=');
    const auto label = eq == std::string::npos ? name : name.substr(0, eq);
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& b) {
      return eq == std::string::npos ? b->spec().empty() && b->name() == name : b->label() == label;
    });
    if (it == all.end()) {
      std::vector<std::string_view> known{"all", "frameworks"};
      for (const auto& b : all) {
        if (b->name().rfind("plugin:", 0) != 0 && b->name().rfind("python:", 0) != 0) known.push_back(b->name());
      }
      known.push_back("plugin:PATH");
      known.push_back("python:FILE.py[:FUNC]");
      throw Error(ErrorCode::schema, "--backend", fmt::format("'{}' is not a backend ({})", name, fmt::join(known, ", ")));
    }
    const auto a = (*it)->availability();
    if (!a.available) {
      choice.unavailable_named.emplace_back(label, a.reason);
    } else if (!chosen(it->get())) {
      choice.run.push_back(it->get());
    }
  }
  return choice;
}

}  // namespace scatter
