// scatter_bench: the built-in suite of `scatterctl bench` as a Google Benchmark
// executable, one benchmark per suite item x available backend, named like
// scatterctl's reports ("nd/slice_256B/unique/f32@ref", from bench_name(); Google
// Benchmark adds "/iterations:20/manual_time", which `compare` strips).
//
//   scatter_bench [--mode nd|elements|update|workload|all] [--size small|medium|large]
//                 [--backend ref,cuda|all] [--hot] [--iterations N] [--benchmark_* flags]
//
// (or SCATTER_BENCH_MODE / SCATTER_BENCH_SIZE / SCATTER_BENCH_BACKEND). Each
// iteration's time is what the backend reports for the op itself
// (BackendOutput::seconds, CUDA event times on a GPU) through UseManualTime, after one
// untimed warm-up call; the
// caches are flushed before each iteration (a 256 MB write outside the timed
// region) unless --hot. A flush costs far more than a small case, so cold runs take a
// fixed number of iterations per benchmark (--iterations, default 20) instead of
// Google Benchmark's min-time search; pass --benchmark_min_time to get the search back,
// and --benchmark_repetitions=5 for medians. Counters: bytes (the byte model of docs/perf-model.md), GB/s and
// percent_of_copy (of the mean time per call, against the host copy bandwidth measured
// once at start).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/bench.hpp"
#include "scatter/error.hpp"
#include "scatter/load.hpp"
#include "scatter/probe.hpp"

namespace {

using namespace scatter;

struct Settings {
  std::string mode = "all";
  std::string size = "small";
  std::string backend = "all";
  bool hot = false;
  std::string iterations;  ///< per benchmark; empty: 20 when cold, Google Benchmark's choice when hot
  bool min_time_given = false;
};

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// Takes our flags out of argv (Google Benchmark rejects flags it does not know).
// Returns false on a usage error.
bool parse_flags(int& argc, char** argv, Settings& s) {
  s.mode = env_or("SCATTER_BENCH_MODE", s.mode);
  s.size = env_or("SCATTER_BENCH_SIZE", s.size);
  s.backend = env_or("SCATTER_BENCH_BACKEND", s.backend);
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view flag, std::string& into) -> int {
      if (arg == flag) {
        if (i + 1 >= argc) return -1;
        into = argv[++i];
        return 1;
      }
      if (arg.size() > flag.size() && arg.substr(0, flag.size()) == flag && arg[flag.size()] == '=') {
        into = std::string(arg.substr(flag.size() + 1));
        return 1;
      }
      return 0;
    };
    int got = 0;
    for (auto [flag, into] : {std::pair<std::string_view, std::string*>{"--mode", &s.mode},
                              {"--size", &s.size},
                              {"--backend", &s.backend},
                              {"--iterations", &s.iterations}}) {
      got = value(flag, *into);
      if (got != 0) break;
    }
    if (got < 0) {
      std::fprintf(stderr, "scatter_bench: %s needs a value\n", argv[i]);
      return false;
    }
    if (got > 0) continue;
    if (arg == "--hot") {
      s.hot = true;
      continue;
    }
    if (arg.rfind("--benchmark_min_time", 0) == 0) s.min_time_given = true;
    argv[out++] = argv[i];
  }
  argc = out;
  argv[argc] = nullptr;
  if (!bench_mode_named(s.mode)) {
    std::fprintf(stderr, "scatter_bench: --mode must be nd, elements, update, workload or all, not '%s'\n", s.mode.c_str());
    return false;
  }
  if (s.size != "small" && s.size != "medium" && s.size != "large") {
    std::fprintf(stderr, "scatter_bench: --size must be small, medium or large, not '%s'\n", s.size.c_str());
    return false;
  }
  if (!s.iterations.empty()) {
    char* end = nullptr;
    const long n = std::strtol(s.iterations.c_str(), &end, 10);
    if (*end != '\0' || n < 1) {
      std::fprintf(stderr, "scatter_bench: --iterations must be a positive integer, not '%s'\n", s.iterations.c_str());
      return false;
    }
  }
  return true;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

// One materialized case at a time: benchmarks run in registration order, and each
// item's backends are registered one after another, so one slot is enough and the
// large suite never holds more than one case in memory.
struct Slot {
  std::size_t item = static_cast<std::size_t>(-1);
  std::optional<Case> c;
  ByteModel bytes;
  std::string error;
};

Slot& slot_for(const BenchItem& item, std::size_t index) {
  static Slot slot;
  if (slot.item != index) {
    slot.c.reset();
    slot.item = index;
    slot.error.clear();
    try {
      slot.c = materialize(item.decl);
      slot.bytes = byte_model(*slot.c, item.in_place);
    } catch (const Error& e) {
      slot.error = e.message();
    }
  }
  return slot;
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  if (!parse_flags(argc, argv, settings)) return 2;
  const BenchMode mode = bench_mode_named(settings.mode).value_or(BenchMode::all);
  const BenchSize size = settings.size == "medium" ? BenchSize::medium
                         : settings.size == "large" ? BenchSize::large
                                                    : BenchSize::small;

  static auto all = make_all_backends();
  std::vector<Backend*> backends;
  const auto wanted = split(settings.backend, ',');
  const bool any = wanted.empty() || (wanted.size() == 1 && wanted[0] == "all");
  for (const auto& name : wanted) {
    if (name == "all") continue;
    bool known = false;
    for (auto& b : all) known = known || b->name() == name;
    if (!known) {
      std::fprintf(stderr, "scatter_bench: unknown backend '%s'\n", name.c_str());
      return 2;
    }
  }
  for (auto& b : all) {
    const bool named = any || std::find(wanted.begin(), wanted.end(), std::string(b->name())) != wanted.end();
    if (!named) continue;
    const auto a = b->availability();
    if (!a.available) {
      std::fprintf(stderr, "scatter_bench: backend '%s' skipped: %s\n", std::string(b->name()).c_str(),
                   a.reason.c_str());
      if (!any) return 5;  // asked for by name, as scatterctl's exit code 5
      continue;
    }
    backends.push_back(b.get());
  }
  if (backends.empty()) {
    std::fprintf(stderr, "scatter_bench: no backend available\n");
    return 5;
  }

  auto* probe = probe_for(backends.front()->traits());
  const double copy_bandwidth = probe ? probe->copy() : 0.0;
  benchmark::AddCustomContext("device", backends.front()->device());
  benchmark::AddCustomContext("copy_bandwidth_gbps", std::to_string(copy_bandwidth / 1e9));
  benchmark::AddCustomContext("mode", settings.mode);
  benchmark::AddCustomContext("size", settings.size);
  benchmark::AddCustomContext("cache", settings.hot ? "hot" : "cold");
  for (const auto& [key, value] : backends.front()->properties()) benchmark::AddCustomContext(key, value);

  static std::vector<BenchItem> items = builtin_suite(mode, size);
  const bool cold = !settings.hot;
  const long iterations = !settings.iterations.empty() ? std::strtol(settings.iterations.c_str(), nullptr, 10)
                          : cold && !settings.min_time_given ? 20
                                                             : 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (Backend* backend : backends) {
      // The same function names scatterctl's rows; Google Benchmark appends its run
      // suffixes ("/iterations:20/manual_time"), which compare strips (normalize_bench_name).
      const std::string name = bench_name(items[i].name, std::string(backend->name()));
      auto* bench = benchmark::RegisterBenchmark(name.c_str(),
                                   [i, backend, cold](benchmark::State& state) {
                                     const BenchItem& item = items[i];
                                     Slot& slot = slot_for(item, i);
                                     if (!slot.c) {
                                       state.SkipWithError(slot.error.c_str());
                                       return;
                                     }
                                     // Cold: the backend evicts its caches just before its timed region.
                                     const RunFlags flags{item.in_place, item.deterministic, cold};
                                     auto* line = probe_for(backend->traits());
                                     const double copy_bandwidth = line ? line->copy() : 0.0;
                                     try {
                                       backend->run(*slot.c, flags);  // warm-up: first touch, lazy init
                                     } catch (const Error& e) {
                                       state.SkipWithError(e.message().c_str());
                                       return;
                                     }
                                     double seconds = 0.0;
                                     for (auto _ : state) {
                                       try {
                                         const double took = backend->run(*slot.c, flags).seconds;
                                         state.SetIterationTime(took);
                                         seconds += took;
                                       } catch (const Error& e) {
                                         state.SkipWithError(e.message().c_str());
                                         break;
                                       }
                                     }
                                     const double bytes = static_cast<double>(slot.bytes.total());
                                     state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                                             static_cast<std::int64_t>(slot.bytes.total()));
                                     state.SetLabel(item.group);
                                     // Plain values (a rate counter would print "GB/s=12/s"): the mean
                                     // over the iterations of the backend's own time.
                                     const double per_call = seconds / static_cast<double>(std::max<std::int64_t>(
                                                                           state.iterations(), 1));
                                     state.counters["bytes"] = bytes;
                                     state.counters["GB/s"] = per_call > 0 ? bytes / per_call / 1e9 : 0.0;
                                     state.counters["percent_of_copy"] =
                                         per_call > 0 ? 100.0 * bytes / per_call / copy_bandwidth : 0.0;
                                   });
      bench->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
      if (iterations > 0) bench->Iterations(iterations);
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
