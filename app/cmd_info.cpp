// scatterctl info: version, build, backends with availability (and why not), devices.

#include <iostream>

#include <fmt/format.h>

#include "commands.hpp"
#include "scatter/version.hpp"

namespace scatter::cli {
namespace {

int info(const BackendFlags& o, const Invocation& invocation) {
  std::cout << fmt::format("scatterctl {}\n", kVersion);
  std::cout << fmt::format("build: {}, CUDA compiled in: {}\n", kBuildType, kCudaCompiled ? "yes" : "no");
  std::cout << "backends:\n";
  for (const auto& b : backends_for(o, invocation.self_exe)) {
    const auto a = b->availability();
    if (a.available) {
      const auto version = b->version();
      std::cout << fmt::format("  {:<12} available    {}device: {}\n", b->name(), version.empty() ? "" : version + ", ",
                               b->device());
    } else {
      std::cout << fmt::format("  {:<12} unavailable: {}\n", b->name(), a.reason);
    }
  }
  return kExitOk;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto o = std::make_shared<BackendFlags>();
  auto* cmd = app.add_subcommand("info", "version, build, backends and devices");
  add_backend(cmd, *o, "also load these plugin:PATH backends");
  add_external(cmd, *o);
  return {cmd, [o](const Invocation& invocation) { return info(*o, invocation); }};
}

}  // namespace scatter::cli
