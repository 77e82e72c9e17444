// The bench's sampler (sampler.hpp): the checks before timing, samples in shuffled rounds and
// blocks, the audits of timed outputs.

#include <fnmatch.h>
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

namespace scatter::detail {

using Clock = std::chrono::steady_clock;

std::string shape_of(const Case& c) {
  return fmt::format("{} data {} indices {} updates {}", to_string(c.data.dtype()), format_shape(c.data.shape()),
                     format_shape(c.indices.shape()), format_shape(c.updates.shape()));
}

// Thrown out of a sample whose audit failed its row.
struct AuditFailed {};

// What one call measured: the backend's own time of it, or the instructions its counted
// region ran (a counting host's answer).
double measured(const BackendOutput& out, const Contender& k) {
  if (k.row->counter == Counter::time) return out.seconds;
  const double instructions = count_of(out.counts, "Ir");
  if (!(instructions > 0)) {
    throw BackendFault(fmt::format("{} answered without an instruction count (a scatterctl that predates bench "
                                   "--counter, or a backend with no counted region)",
                                   k.backend->label()));
  }
  return instructions;
}

TrialOptions trial_options(const Contender& k, const BenchOptions& options) {
  TrialOptions trial;
  trial.flags = k.flags;
  trial.expectations = options.expectations;
  trial.confirm_causes = false;  // no other case runs between a check and its timed calls
  return trial;
}

// Judges the output of timed call `call`, whose inputs were the case's with `variation`, as the
// check before timing judged its output, against the reference's output of those inputs: any
// other verdict means that the output was not computed from them, and the row fails.
void audit(Contender& k, Tensor output, int call, const InputVariation& variation, const BenchOptions& options) {
  const auto start = Clock::now();
  std::optional<VariationSource::Applied> applied;
  if (k.vary) applied.emplace(*k.vary, variation);
  const auto t = judge(*k.backend, *k.facts, trial_options(k, options), std::move(output), k.vary ? &k.vary->want() : nullptr);
  applied.reset();
  k.audit_wall += seconds_since(start);
  if (t.status == k.row->status) return;
  settle(*k.row, TimeVerdict::none,
         fmt::format("timed call {} returned another output than the call checked before timing, judged against the "
                      "reference of the inputs it was given (an output cached, left running or changed between calls): {}",
                      call, t.status == Status::passed ? "it passes now" : one_line(t)));
}

// How an external backend's row was timed, and by whose code: a worker's timer checked against
// scatterctl's clock across the process boundary, or code trusted to time itself in scatterctl's
// own process (a plugin --in-process).
std::string timed_by(const BackendOutput& out, const Backend& backend) {
  if (out.outer) return out.timing + "; checked against scatterctl's own clock across the process boundary";
  if (backend.is_external()) return out.timing + "; in scatterctl's own process: trusted code (--in-process)";
  return out.timing;
}

// One sample: one call's time or instruction count, into `events` (when given) its counted
// events, and into `clock` (when given) the call as scatterctl's own clock saw it, where the
// backend is a worker. A slowdown factor f runs the op again and counts the fraction still owed
// of each further run, so the sample is real work f times as long, in either unit.
double take_sample(Contender& k, const BenchOptions& options, Counts* events = nullptr,
                   std::optional<OuterClock>* clock = nullptr) {
  double value = 0.0;
  k.flags.output_unused = !k.audited;
  // An external backend's own timer is checked against scatterctl's clock where a process
  // boundary lies between them (a worker's signals; docs/backends.md, "The clock").
  k.flags.outer_clock = k.backend->is_external() && k.row->counter == Counter::time;
  for (double owed = k.factor; owed > 0.0; owed -= 1.0) {
    InputVariation variation;
    if (k.vary) variation = k.vary->next();
    k.flags.vary = &variation;
    const auto start = Clock::now();
    auto out = k.backend->run(k.facts->c(), k.flags);
    k.flags.vary = nullptr;
    k.calls_wall += seconds_since(start);
    ++k.calls;
    // Every timed call's output is judged (the box has it frozen meanwhile): none is right only
    // on the calls a kernel guessed would be looked at.
    if (k.audited) {
      audit(k, std::move(out.output), k.calls, variation, options);
      if (!k.row->timed()) throw AuditFailed{};
    }
    if (k.row->timed_by.empty() && !out.timing.empty()) k.row->timed_by = timed_by(out, *k.backend);
    const double part = std::min(owed, 1.0);
    value += part * measured(out, k);
    if (clock && out.outer) {
      if (!*clock) *clock = OuterClock{};
      (*clock)->seconds += part * out.outer->seconds;
      (*clock)->round_trip += part * out.outer->round_trip;
    }
    for (const auto& [event, count] : events ? out.counts : Counts{}) count_slot(*events, event) += part * count;
    // After the first call the backend may keep its uploads (RunFlags::same_inputs).
    k.flags.same_inputs = true;
  }
  return value;
}

// The row's events, the mean per call over its samples, with one more sample's.
void add_events(BenchRow& row, const Counts& sample) {
  const auto n = static_cast<double>(row.timing.samples.size());  // the new sample included
  for (const auto& [event, count] : sample) {
    double& mean = count_slot(row.events, event);
    mean += (count - mean) / n;
  }
}

// A sample or warm-up threw: the row takes the trial's status for it and keeps no number
// (an audit that failed the row has said why already).
void fail_row(Contender& k, const BenchOptions& options) {
  try {
    std::rethrow_exception(std::current_exception());
  } catch (const AuditFailed&) {
    return;
  } catch (...) {
  }
  const auto t = failed_trial(std::current_exception(), *k.backend, *k.facts, trial_options(k, options));
  k.row->expectation = t.expectation;
  settle(*k.row, TimeVerdict::none, one_line(t), t.status);
}

// The row's identity, bytes and lines, on the first pass.
void start_row(BenchRow& row, const BenchItem& item, const Backend& backend, const BenchOptions& options,
               const Case* c, const ByteModel& bytes, const std::string& invalid) {
  row.name = item.name;
  row.group = item.group;
  row.backend = std::string(backend.label());
  row.spec = backend.spec();
  row.in_place = item.in_place;
  row.cold = options.cold;
  row.counter = options.counter;
  if (auto* probe = probe_for(backend.traits())) {
    row.copy_bandwidth = probe->copy();
    row.sector_bandwidth = probe->sector_writes();
  }
  row.memory = backend.traits().memory;
  if (!c) {
    row.status = Status::error;
    row.error = invalid;
    return;
  }
  row.bytes = bytes;
  // An output handed over holding data (a plugin's) needs no copy in the timed call.
  if (backend.traits().given_data_copy) row.bytes.copy = 0;
  row.shape = shape_of(*c);
  if (options.counter == Counter::time) measure_fastest_rate(row);
}

// The trial, once per benchmark and untimed: a wrong output, an error or a skip gets its
// status and no number. Without verification only availability and capabilities are asked.
void check_row(Contender& k, const BenchOptions& options) {
  auto t = options.verify ? std::optional<Trial>(try_case(*k.backend, *k.facts, trial_options(k, options)))
                          : admit(*k.backend, *k.facts);
  if (!t) return;
  k.row->status = t->status;
  k.row->verified = t->checked;
  k.row->expectation = t->expectation;
  k.row->strict = t->strict;
  // No number is measured for it: its verdict is none (a skipped row is not "timed").
  if (!k.row->timed()) settle(*k.row, TimeVerdict::none, one_line(*t), t->status);
}

// The checks before timing, each backend's on its own row. An external backend's call waits on
// its worker process (GBs written, loaded, uploaded and read back on a large case), so those run
// on threads of their own beside the in-process backends' checks, which stay on this thread (a
// device's context is bound to it). Afterwards the timed calls may keep what a check sent
// (RunFlags::same_inputs). An exception (an interrupt) is rethrown once every check has ended.
void check_all(std::vector<Contender>& contenders, const BenchOptions& options) {
  const auto check = [&options](Contender& k) {
    const auto start = Clock::now();
    check_row(k, options);
    k.check_wall = seconds_since(start);
    if (options.verify) k.flags.same_inputs = true;
  };
  // Asked once, before any thread starts: a backend is then touched by its own thread alone.
  std::vector<bool> external;
  for (const auto& k : contenders) external.push_back(k.backend->is_external());
  std::vector<std::future<void>> on_threads;
  for (std::size_t j = 0; j < contenders.size(); ++j) {
    if (external[j]) on_threads.push_back(std::async(std::launch::async, check, std::ref(contenders[j])));
  }
  std::exception_ptr failure;
  for (std::size_t j = 0; j < contenders.size(); ++j) {
    if (external[j]) continue;
    try {
      check(contenders[j]);
    } catch (...) {
      failure = std::current_exception();
      break;
    }
  }
  for (auto& f : on_threads) {
    try {
      f.get();
    } catch (...) {
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

// Whether a backend's samples of this pass are enough: min_samples, and a spread under the
// target or the time up.
bool settled(const std::vector<double>& samples, int sampled, const BenchOptions& options) {
  if (sampled < options.min_samples) return false;
  const std::vector<double> mine(samples.end() - sampled, samples.end());
  const double med = quantile(mine, 0.5);
  const double spread = med > 0 ? (quantile(mine, 0.75) - quantile(mine, 0.25)) / med : 0.0;
  return spread < options.target_spread;
}

// Rounds per block. A block's samples share more than the moment: the backends' processes
// (an A/A gate of two backend-host processes of one build measured block medians from 0.92
// to 1.38 on one benchmark), the pass's allocations. So each block starts with renewed
// backends (Backend::renew) and a warm-up, and the paired gate takes a block, not a round,
// as its unit of independence (docs/benchmarks.md, "Paired A/B").
constexpr int kRoundsPerBlock = 4;

// Fisher-Yates by the seed's stream: each order is reproducible.
void shuffle(std::vector<std::size_t>& order, SplitMix64& rng) {
  for (std::size_t j = order.size(); j > 1; --j) std::swap(order[j - 1], order[rng.next() % j]);
}

// A block's start: the backends renewed (where cheap), then warmed up (first touch, page
// faults, lazy init), untimed, in an order the seed shuffles. A fixed order measurably
// favoured the backend started last (an A/A gate of two backend-host processes under a busy
// neighbour: 0.88x), so the order is drawn per block like the rounds' order.
void start_block(std::vector<Contender>& contenders, const BenchOptions& options, SplitMix64& rng, bool renew) {
  std::vector<std::size_t> order(contenders.size());
  std::iota(order.begin(), order.end(), 0);
  shuffle(order, rng);
  if (renew) {
    for (const auto j : order) {
      if (contenders[j].row->timed()) contenders[j].backend->renew();
    }
  }
  for (const auto j : order) {
    auto& k = contenders[j];
    if (!k.row->timed()) continue;
    try {
      take_sample(k, options);
    } catch (...) {
      fail_row(k, options);
    }
  }
}


// The backends of one benchmark in rounds: each round takes one sample of every backend, in
// an order the seed shuffles, so that each sample of A has a sample of B taken moments apart
// (docs/benchmarks.md, "Paired A/B"). Rounds go on until every backend has min_samples and
// either every spread is under the target or max_seconds per backend are up, or max_samples
// rounds are taken: all backends sample every round, so that the rounds stay paired.
void sample_in_rounds(std::vector<Contender>& contenders, const BenchOptions& options, Numbering& at,
                      std::uint64_t seed) {
  SplitMix64 order_rng(seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(at.round + 1)));
  start_block(contenders, options, order_rng, false);
  const auto timed = std::count_if(contenders.begin(), contenders.end(), [](const Contender& k) { return k.row->timed(); });
  if (timed == 0) return;
  ++at.block;  // a pass starts a block of its own
  const auto budget = options.max_seconds * static_cast<double>(timed);
  const auto start = Clock::now();
  std::vector<std::size_t> order(contenders.size());
  std::iota(order.begin(), order.end(), 0);
  for (int taken = 0; taken < options.max_samples && !interrupted(); ++taken, ++at.round) {
    if (taken > 0 && taken % kRoundsPerBlock == 0) {
      start_block(contenders, options, order_rng, true);
      ++at.block;
    }
    shuffle(order, order_rng);
    for (const auto j : order) {
      auto& k = contenders[j];
      if (!k.row->timed()) continue;
      try {
        Counts events;
        std::optional<OuterClock> clock;
        k.row->timing.samples.push_back(take_sample(k, options, &events, &clock));
        if (clock) k.row->outer_clocks.push_back(*clock);
        if (k.row->counter == Counter::time) k.measured_time += k.row->timing.samples.back();
        k.row->rounds.push_back(at.round);
        k.row->blocks.push_back(at.block);
        add_events(*k.row, events);
        ++k.sampled;
      } catch (...) {
        fail_row(k, options);
      }
    }
    bool all_settled = true;
    bool any_timed = false;
    for (auto& k : contenders) {
      if (!k.row->timed()) continue;
      any_timed = true;
      all_settled = all_settled && settled(k.row->timing.samples, k.sampled, options);
    }
    const std::chrono::duration<double> elapsed = Clock::now() - start;
    const bool enough = std::all_of(contenders.begin(), contenders.end(), [&](const Contender& k) {
      return !k.row->timed() || k.sampled >= options.min_samples;
    });
    if (!any_timed || (enough && (all_settled || elapsed.count() > budget))) {
      ++at.round;
      break;
    }
  }
}

// The share of a pass's sampling in which some task waited for a CPU, folded into each row's
// over its passes (the wall times weigh them).
void record_pressure(std::vector<Contender>& contenders, double stalled_before, double wall) {
  const double stalled_after = cpu_stall_seconds();
  if (stalled_before < 0 || stalled_after < 0 || wall <= 0) return;
  const double share = std::clamp((stalled_after - stalled_before) / wall, 0.0, 1.0);
  for (auto& k : contenders) {
    auto& row = *k.row;
    row.cpu_pressure = row.pressure_wall > 0 ? (row.cpu_pressure * row.pressure_wall + share * wall) / (row.pressure_wall + wall)
                                             : share;
    row.pressure_wall += wall;
  }
}

// The case's inputs, fingerprinted: they must be as they were after every backend's timing.
std::array<std::uint64_t, 3> fingerprints(const Case& c) {
  return {fingerprint(c.data), fingerprint(c.indices), fingerprint(c.updates)};
}

// Where a pass's wall time went, for BenchProgress::took.
std::string wall_breakdown(double total, double making, const std::vector<Contender>& contenders, double fingerprinting,
                           double copy_line) {
  std::string text = fmt::format("{:.1f} s: case {:.1f} s", total, making);
  for (const auto& k : contenders) {
    text += fmt::format("; {}: check {:.1f} s, {} call{} {:.1f} s", k.backend->label(), k.check_wall, k.calls,
                        k.calls == 1 ? "" : "s", k.calls_wall);
    if (k.row->counter == Counter::time) text += fmt::format(" (samples measured {:.3f} s)", k.measured_time);
    if (k.audit_wall > 0) text += fmt::format(", audits {:.1f} s", k.audit_wall);
  }
  text += fmt::format("; inputs' fingerprints {:.1f} s", fingerprinting);
  if (copy_line > 0) text += fmt::format("; copy line {:.1f} s", copy_line);
  return text;
}

}  // namespace scatter::detail
