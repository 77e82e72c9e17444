// The bench driver: pass by pass, each benchmark's case made, its backends checked once by the
// trial, then sampled in shuffled rounds (sampler.hpp) until their spread is under the target or
// the time is up; the physics checks of every row at the end (time_checks.hpp).

#include <fnmatch.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

#include "core/targets.hpp"
#include "platform/probes.hpp"
#include "scatter/bench.hpp"
#include "time_checks.hpp"
#include "sampler.hpp"
#include "stats.hpp"
#include "vary.hpp"

#include "scatter/capabilities.hpp"
#include "scatter/cancel.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"
#include "scatter/trial.hpp"
#include "scatter/version.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;
// The sampler's (sampler.hpp).
using detail::check_all;
using detail::Contender;
using detail::fingerprints;
using detail::measured;
using detail::Numbering;
using detail::record_pressure;
using detail::sample_in_rounds;
using detail::start_row;
using detail::summarize;
using detail::wall_breakdown;

// What the checks and audits compare with. reference_scatter runs on one thread, seconds a large
// case (2.5 to 5.2 s on this project's 2-core machine at --size large, in every benchmark's
// check). The cpu backend gives the same bytes on every core (it keeps the reference's order:
// CpuBackend.EveryBundledCaseGivesTheReferencesBytes and FuzzedCasesGiveTheReferencesBytes), so
// it makes the reference, unless a backend judged runs its code: in this process, or as
// exe:PATH:cpu. Code never judges itself.
struct ReferenceSource {
  std::unique_ptr<Backend> cpu;
  ReferenceMaker make;
  std::string by = "ref (one thread)";
};

ReferenceSource reference_source(const std::vector<Backend*>& backends, const BenchOptions& options) {
  ReferenceSource source;
  const bool judges_cpu = std::any_of(backends.begin(), backends.end(), [](const Backend* b) { return b->name() == "cpu"; });
  if (!options.verify || judges_cpu || !options.reference_from_cpu) return source;
  source.cpu = make_cpu_backend();
  if (!source.cpu->availability().available) return source;
  source.by = fmt::format("cpu backend, deterministic ({}; bit for bit ref's)", source.cpu->device());
  source.make = [cpu = source.cpu.get()](const Case& c) {
    RunFlags flags;
    flags.deterministic = true;
    return cpu->run(c, flags).output;
  };
  return source;
}

}  // namespace

std::string bench_name(const std::string& item, const std::string& backend) { return item + "@" + backend; }

std::uint64_t secret_seed() {
  std::uint64_t seed = 0;
  while (seed == 0) {
    if (::getrandom(&seed, sizeof seed, 0) != static_cast<ssize_t>(sizeof seed)) {
      // No getrandom: the clock's nanoseconds and the pid, which no kernel reads beforehand either.
      seed = static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()) * 0x9E3779B97F4A7C15ull ^
             static_cast<std::uint64_t>(::getpid());
    }
  }
  return seed;
}

// One pass of benchmark i: its case made, each backend's row started and checked (on the first
// pass), then sampled in rounds; the inputs' fingerprints and the working set's copy line after.
// Returns where its wall time went.
std::string measure_pass(const BenchItem& item, std::size_t i, int pass, const std::vector<Backend*>& backends,
                         const BenchOptions& options, const ReferenceMaker& make_reference, Numbering& numbering,
                         BenchReport& report) {
  const auto start = Clock::now();
  std::optional<Case> c;
  std::string invalid;
  try {
    c = materialize(item.decl);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    invalid = e.message();
  }
  std::optional<CaseFacts> facts;
  if (c) facts.emplace(*c, options.verify, make_reference);  // without verification nothing keeps the indices
  const double making = seconds_since(start);
  // The reference and the facts the comparison needs take seconds of one thread on a large
  // case; the checks' calls wait on workers and devices meanwhile. Done before any timed call.
  std::future<void> facts_ready;
  if (c && pass == 0 && options.verify) facts_ready = std::async(std::launch::async, [&] { facts->prepare(); });
  ByteModel bytes;  // every backend's row has the same: made once
  if (c && pass == 0) facts->with_indices([&](const auto& idx) { bytes = byte_model(*c, item.in_place, idx); });
  std::vector<Contender> contenders;
  for (std::size_t b = 0; b < backends.size(); ++b) {
    BenchRow& row = report.rows[i * backends.size() + b];
    if (pass == 0) start_row(row, item, *backends[b], options, c ? &*c : nullptr, bytes, invalid);
    if (!c || !row.timed()) continue;
    Contender k{backends[b], &row, &*facts, RunFlags{item.in_place, item.deterministic, options.cold}};
    for (const auto& slow : options.slowdown) {
      if (slow.matches(item.name, backends[b]->label())) k.factor = slow.factor;
    }
    contenders.push_back(std::move(k));
  }
  if (pass == 0) check_all(contenders, options);
  // The audited backends' calls get varied inputs, drawn from the run's secret for this benchmark
  // and pass (never from --seed, which a kernel can read on scatterctl's command line).
  std::optional<VariationSource> variations;
  for (auto& k : contenders) {
    k.audited = k.row->verified && k.backend->is_external();
    if (!k.audited) continue;
    if (!variations) {
      variations.emplace(*c, *facts, options.variation_seed ^ (0xD6E8FEB86659FD93ull * (i + 1)) ^
                                         (0x165667B19E3779F9ull * static_cast<std::uint64_t>(pass + 1)));
    }
    k.vary = &*variations;
  }
  if (facts_ready.valid()) facts_ready.wait();
  if (variations && pass == 0) {
    const auto what = variations->describe();
    for (auto& k : contenders) {
      if (k.vary) k.row->varied = what;
    }
  }
  auto fingerprint_start = Clock::now();
  const auto inputs_before = c ? fingerprints(*c) : std::array<std::uint64_t, 3>{};
  double fingerprinting = seconds_since(fingerprint_start);
  // A row its check failed is left out of the rounds, but its check's time is still told.
  const double stalled_before = cpu_stall_seconds();
  const auto escapes_before = escaped_processes_found();
  const auto sampling = Clock::now();
  sample_in_rounds(contenders, options, numbering, options.seed + i);
  record_pressure(contenders, stalled_before, seconds_since(sampling));
  // A process that left a box ran beside this pass's samples until it was found: every number
  // of the pass is undecided (the box it left has failed its own row).
  if (escaped_processes_found() != escapes_before) {
    for (auto& k : contenders) {
      if (k.row->timed()) {
        settle(*k.row, TimeVerdict::noisy,
               "a process that left a box (a session or cgroup of its own) ran beside this benchmark's sampling "
               "until scatterctl found and killed it");
      }
    }
  }
  fingerprint_start = Clock::now();
  if (c && fingerprints(*c) != inputs_before) {
    for (auto& k : contenders) {
      if (k.row->timed()) settle(*k.row, TimeVerdict::none, "the case's inputs changed while it was timed (a backend wrote into them)");
    }
  }
  fingerprinting += seconds_since(fingerprint_start);
  const auto copy_line_start = Clock::now();
  if (pass == 0) {
    for (auto& k : contenders) {
      if (auto* probe = probe_for(k.backend->traits()); probe && k.row->timed()) {
        k.row->working_set_copy_bandwidth = probe->copy_of(k.row->bytes.total());
      }
    }
  }
  return wall_breakdown(seconds_since(start), making, contenders, fingerprinting, seconds_since(copy_line_start));
}

BenchReport run_bench(const std::vector<BenchItem>& items, const std::vector<Backend*>& backends,
                      const BenchOptions& given, const std::function<void(const BenchProgress&)>& progress) {
  BenchOptions options = given;
  if (options.variation_seed == 0) options.variation_seed = secret_seed();
  BenchReport report;
  report.context.version = std::string(kVersion);
  report.context.git_commit = std::string(kGitCommit);
  report.context.build_type = std::string(kBuildType);
  report.context.load_start = machine_load();
  report.context.repetitions = std::max(options.repetitions, 1);
  report.context.seed = options.seed;
  report.context.counter = options.counter;
  if (!backends.empty()) {
    // The first backend's device names the report; its copy bandwidth is the default 100% line.
    report.context.device = backends.front()->device();
    if (auto* probe = probe_for(backends.front()->traits())) {
      report.context.copy_bandwidth = probe->copy();
      report.context.sector_bandwidth = probe->sector_writes();
    }
    report.context.properties = backends.front()->properties();
  }
  for (auto* b : backends) {
    if (!b->spec().empty()) report.context.labels.emplace_back(std::string(b->label()), b->spec());
  }
  const auto reference = reference_source(backends, options);
  report.context.reference_by = reference.by;
  const auto canary_start = measure_canary();
  report.rows.resize(items.size() * backends.size());
  const int passes = report.context.repetitions;
  std::vector<Numbering> numbering(items.size());  // each benchmark's rounds and blocks, across passes
  for (int pass = 0; pass < passes && !interrupted(); ++pass) {
    for (std::size_t i = 0; i < items.size() && !interrupted(); ++i) {
      const auto& item = items[i];
      const auto name = passes > 1 ? fmt::format("{} (pass {}/{})", item.name, pass + 1, passes) : item.name;
      if (progress) progress({name, ""});
      // Each row's samples before this pass: an interrupt during it takes the pass's back.
      std::vector<std::size_t> sampled_before(backends.size());
      for (std::size_t b = 0; b < backends.size(); ++b) {
        sampled_before[b] = report.rows[i * backends.size() + b].timing.samples.size();
      }
      try {
        const auto took = measure_pass(item, i, pass, backends, options, reference.make, numbering[i], report);
        if (progress) progress({name, took});
      } catch (const Error& e) {
        if (e.code() != ErrorCode::interrupted) throw;
      }
      // A pass an interrupt cut short has unpaired, partial samples, unaudited: they are left
      // out, and the passes finished before it stand (a row with none is skipped).
      if (interrupted()) {
        for (std::size_t b = 0; b < backends.size(); ++b) {
          auto& row = report.rows[i * backends.size() + b];
          if (!row.timed()) continue;
          row.timing.samples.resize(std::min(row.timing.samples.size(), sampled_before[b]));
          row.rounds.resize(std::min(row.rounds.size(), sampled_before[b]));
          row.blocks.resize(std::min(row.blocks.size(), sampled_before[b]));
          row.outer_clocks.resize(std::min(row.outer_clocks.size(), sampled_before[b]));
          if (row.timing.samples.empty()) settle(row, TimeVerdict::none, "interrupted while it was measured", Status::skipped);
        }
      }
    }
  }
  for (auto& row : report.rows) {
    if (!row.timed()) continue;
    row.timing = summarize(std::move(row.timing.samples));
    refuse_unwitnessed_time(row);
    refuse_impossible_time(row);
  }
  // Rows never reached (an interrupt before the first pass got there) are dropped.
  std::erase_if(report.rows, [](const BenchRow& r) { return r.name.empty(); });
  report.context.load_end = machine_load();
  const auto canary_end = measure_canary();
  report.context.canary = {(canary_start.one_thread + canary_end.one_thread) / 2,
                           (canary_start.every_cpu + canary_end.every_cpu) / 2};
  report.context.interrupted = interrupted();
  // Written after the run, so that a failure can be replayed (--variation-seed), and never
  // before: a kernel that could read it would know every call's inputs.
  report.context.variation_seed = options.variation_seed;
  return report;
}

}  // namespace scatter
