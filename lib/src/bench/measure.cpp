// The bench driver: each benchmark's backends checked once by the trial, then sampled in
// shuffled rounds until their spread is under the target or the time is up; bytes counted
// as docs/perf-model.md's model says.

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

#include "../targets.hpp"
#include "probes.hpp"
#include "scatter/bench.hpp"
#include "time_checks.hpp"
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

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

// The statistics of a set of samples.
Timing summarize(std::vector<double> samples) {
  Timing t;
  t.samples = std::move(samples);
  if (t.samples.empty()) return t;
  t.median = quantile(t.samples, 0.5);
  t.spread = t.median > 0 ? (quantile(t.samples, 0.75) - quantile(t.samples, 0.25)) / t.median : 0.0;
  const double mean = std::accumulate(t.samples.begin(), t.samples.end(), 0.0) / static_cast<double>(t.samples.size());
  double var = 0.0;
  for (double s : t.samples) var += (s - mean) * (s - mean);
  var /= static_cast<double>(std::max<std::size_t>(t.samples.size() - 1, 1));
  t.cv = mean > 0 ? std::sqrt(var) / mean : 0.0;
  return t;
}

std::string format_coord(const std::vector<std::int64_t>& coord) {
  return fmt::format("[{}]", fmt::join(coord, ", "));
}

std::string shape_of(const Case& c) {
  return fmt::format("{} data {} indices {} updates {}", to_string(c.data.dtype()), format_coord(c.data.shape()),
                     format_coord(c.indices.shape()), format_coord(c.updates.shape()));
}

}  // namespace

std::string bench_name(const std::string& item, const std::string& backend) { return item + "@" + backend; }

bool Slowdown::matches(std::string_view item, std::string_view backend_label) const {
  if (!label.empty() && label != backend_label) return false;
  return fnmatch(glob.c_str(), std::string(item).c_str(), 0) == 0;
}

std::vector<Slowdown> parse_slowdown(const std::string& text) {
  std::vector<Slowdown> out;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    if (part.empty()) continue;
    const auto colon = part.rfind(':');
    double factor = 0.0;
    if (colon != std::string::npos) {
      const auto number = part.substr(colon + 1);
      char* end = nullptr;
      factor = std::strtod(number.c_str(), &end);
      if (number.empty() || *end != '\0' || !std::isfinite(factor)) factor = 0.0;
    }
    if (colon == std::string::npos || colon == 0 || factor < 1.0) {
      throw Error(ErrorCode::schema, "SCATTERCTL_BENCH_SLOWDOWN",
                  fmt::format("entry '{}' of '{}' is not [LABEL@]GLOB:FACTOR (a benchmark name or glob, and a factor "
                              ">= 1 such as 2 or 1.1)",
                              part, text));
    }
    Slowdown slow;
    slow.factor = factor;
    slow.glob = part.substr(0, colon);
    if (const auto at = slow.glob.find('@'); at != std::string::npos) {
      slow.label = slow.glob.substr(0, at);
      slow.glob = slow.glob.substr(at + 1);
    }
    out.push_back(std::move(slow));
  }
  return out;
}

MachineLoad machine_load() {
  MachineLoad m;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  m.cpus = online > 0 ? static_cast<int>(online) : 0;
  std::ifstream in("/proc/loadavg");
  double a = 0, b = 0, c = 0;
  if (in >> a >> b >> c) {
    m.load1 = a;
    m.load5 = b;
    m.load15 = c;
  }
  return m;
}

double cpu_stall_seconds() {
  std::ifstream in("/proc/pressure/cpu");
  std::string word;
  while (in >> word) {
    if (word.rfind("total=", 0) == 0) {
      char* end = nullptr;
      const double micros = std::strtod(word.c_str() + 6, &end);
      return end != word.c_str() + 6 && micros >= 0 ? micros * 1e-6 : -1.0;  // the first line's: "some"
    }
  }
  return -1.0;
}

ByteModel byte_model(const Case& c, bool in_place) { return byte_model(c, in_place, detail::normalized_indices(c)); }

ByteModel byte_model(const Case& c, bool in_place, const std::vector<std::int64_t>& normalized) {
  ByteModel m;
  const auto e = size_of(c.data.dtype());
  const auto n = c.data.numel();
  m.indices = static_cast<std::uint64_t>(c.indices.nbytes());
  // Distinct elements hit and distinct 32-byte sectors they lie in.
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n), 0);
  std::int64_t longest = 0;
  detail::visit_targets(c, normalized, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    std::fill(hit.begin() + o, hit.begin() + o + len, 1);
    longest = std::max(longest, len);
  });
  m.run_bytes = static_cast<std::uint64_t>(longest) * e;
  std::uint64_t sectors = 0;
  std::int64_t last_sector = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!hit[i]) continue;
    ++m.distinct;
    const auto sector = static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * e) / 32);
    if (sector != last_sector) {
      ++sectors;
      last_sector = sector;
    }
  }
  const bool read_modify_write = c.attrs.reduction != Reduction::none;
  m.updates = read_modify_write ? static_cast<std::uint64_t>(c.updates.nbytes()) : m.distinct * e;
  m.writes = sectors * 32 * (read_modify_write ? 2 : 1);
  m.copy = in_place ? 0 : 2 * static_cast<std::uint64_t>(n) * e;
  m.stores = static_cast<std::uint64_t>(c.updates.numel());
  return m;
}

namespace {

// About one timed call in this many of an external backend is audited (its output judged
// again), drawn by the bench's seed, and always the last of a pass: an output cached across
// calls, left racing on another stream, or right only on the checked call fails the row
// (docs/benchmarks.md, "Measurements a kernel cannot game").
constexpr std::uint64_t kAuditOneIn = 8;

// One backend's part in one benchmark: its row, the case, the flags of its next sample,
// its test-only slowdown, and the audit of its timed outputs.
struct Contender {
  Backend* backend;
  BenchRow* row;
  const CaseFacts* facts;
  RunFlags flags;
  double factor = 1.0;
  int sampled = 0;  // samples taken in this pass
  bool audited = false;  // an external backend whose check before timing judged an output
  SplitMix64 audit_draws{0};
  int calls = 0;  // calls of this pass, warm-ups included
  std::optional<Tensor> unaudited_last = std::nullopt;  // the latest call's output, when not audited at once
  bool last_held = false;  // the latest call's output is held by the backend, not audited yet
  // An audited backend's calls each get inputs no earlier call saw (vary.hpp); the latest
  // call's variation, kept for its audit.
  VariationSource* vary = nullptr;
  InputVariation last_variation = {};
  // Wall seconds of this pass, for BenchProgress: the check, the calls (warm-ups included),
  // what the samples measured, and the audits (an output fetched and judged).
  double check_wall = 0.0;
  double calls_wall = 0.0;
  double measured_time = 0.0;
  double audit_wall = 0.0;
};

// A call's output: returned, or held by the backend (RunFlags::hold_output) and taken now.
Tensor output_of(Contender& k, BackendOutput& out) {
  return out.held ? k.backend->take_held_output() : std::move(out.output);
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
  return trial;
}

// Ends a row's timing with a status and why: it keeps no number.
void end_row(BenchRow& row, Status status, std::string why) {
  row.status = status;
  row.error = std::move(why);
  row.timing.samples.clear();
  row.rounds.clear();
  row.blocks.clear();
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
  end_row(*k.row, Status::failed,
          fmt::format("timed call {} returned another output than the call checked before timing, judged against the "
                      "reference of the inputs it was given (an output cached, left running or changed between calls): {}",
                      call, t.status == Status::passed ? "it passes now" : one_line(t)));
}

// Audits the pass's last call, unless it was audited when it returned.
void audit_last(Contender& k, const BenchOptions& options) {
  if (!(k.unaudited_last || k.last_held) || !k.row->timed()) return;
  const auto start = Clock::now();
  auto last = k.last_held ? k.backend->take_held_output() : std::move(*k.unaudited_last);
  k.unaudited_last.reset();
  k.last_held = false;
  k.audit_wall += seconds_since(start);  // the fetch; audit() adds the judging
  audit(k, std::move(last), k.calls, k.last_variation, options);
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
  // A worker keeps each timed output where it ran: the draw after the call decides which ones
  // travel here (the last one of the pass always does, in audit_last); an unaudited
  // backend's never do.
  k.flags.hold_output = true;
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
    if (k.audited) {
      k.unaudited_last.reset();
      k.last_held = false;
      if (k.audit_draws.next() % kAuditOneIn == 0) {
        const auto fetch = Clock::now();
        auto output = output_of(k, out);
        k.audit_wall += seconds_since(fetch);
        audit(k, std::move(output), k.calls, variation, options);
        if (!k.row->timed()) throw AuditFailed{};
      } else if (out.held) {
        k.last_held = true;
      } else {
        k.unaudited_last = std::move(out.output);
      }
      k.last_variation = std::move(variation);
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
  end_row(*k.row, t.status, one_line(t));
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
  if (auto* probe = probe_for(backend)) {
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
  if (!k.row->timed()) k.row->error = one_line(*t);
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

// Where a benchmark's numbering stands: rounds and blocks go on across passes.
struct Numbering {
  int round = 0;
  int block = 0;
};

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
  for (auto& k : contenders) {
    try {
      audit_last(k, options);
    } catch (...) {
      fail_row(k, options);
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

}  // namespace

// One pass of benchmark i: its case made, each backend's row started and checked (on the first
// pass), then sampled in rounds; the inputs' fingerprints and the working set's copy line after.
// Returns where its wall time went.
std::string measure_pass(const BenchItem& item, std::size_t i, int pass, const std::vector<Backend*>& backends,
                         const BenchOptions& options, Numbering& numbering, BenchReport& report) {
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
  if (c) facts.emplace(*c, options.verify);  // without verification nothing keeps the indices
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
    k.audit_draws = SplitMix64(options.seed ^ (0xA0761D6478BD642Full * (i + 1)) ^ (0xE7037ED1A0B428DBull * (b + 1)) ^
                               static_cast<std::uint64_t>(pass));
    contenders.push_back(std::move(k));
  }
  if (pass == 0) check_all(contenders, options);
  // The audited backends' calls get varied inputs, drawn by the seed for this benchmark and pass.
  std::optional<VariationSource> variations;
  for (auto& k : contenders) {
    k.audited = k.row->verified && k.backend->is_external();
    if (!k.audited) continue;
    if (!variations) {
      variations.emplace(*c, *facts, options.seed ^ (0xD6E8FEB86659FD93ull * (i + 1)) ^
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
  const auto sampling = Clock::now();
  sample_in_rounds(contenders, options, numbering, options.seed + i);
  record_pressure(contenders, stalled_before, seconds_since(sampling));
  fingerprint_start = Clock::now();
  if (c && fingerprints(*c) != inputs_before) {
    for (auto& k : contenders) {
      if (k.row->timed()) end_row(*k.row, Status::failed, "the case's inputs changed while it was timed (a backend wrote into them)");
    }
  }
  fingerprinting += seconds_since(fingerprint_start);
  const auto copy_line_start = Clock::now();
  if (pass == 0) {
    for (auto& k : contenders) {
      if (auto* probe = probe_for(*k.backend); probe && k.row->timed()) {
        k.row->working_set_copy_bandwidth = probe->copy_of(k.row->bytes.total());
      }
    }
  }
  return wall_breakdown(seconds_since(start), making, contenders, fingerprinting, seconds_since(copy_line_start));
}

BenchReport run_bench(const std::vector<BenchItem>& items, const std::vector<Backend*>& backends,
                      const BenchOptions& options, const std::function<void(const BenchProgress&)>& progress) {
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
    if (auto* probe = probe_for(*backends.front())) {
      report.context.copy_bandwidth = probe->copy();
      report.context.sector_bandwidth = probe->sector_writes();
    }
    report.context.properties = backends.front()->properties();
  }
  for (auto* b : backends) {
    if (!b->spec().empty()) report.context.labels.emplace_back(std::string(b->label()), b->spec());
  }
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
        const auto took = measure_pass(item, i, pass, backends, options, numbering[i], report);
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
          if (row.timing.samples.empty()) end_row(row, Status::skipped, "interrupted while it was measured");
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
  report.context.interrupted = interrupted();
  return report;
}

void add_rounds(BenchReport& into, const BenchReport& more) {
  // One offset per benchmark, past every round of its rows, so that the new rounds stay paired.
  std::map<std::string, int> next_round, next_block;
  for (const auto& row : into.rows) {
    for (const int r : row.rounds) next_round[row.name] = std::max(next_round[row.name], r + 1);
    for (const int b : row.blocks) next_block[row.name] = std::max(next_block[row.name], b + 1);
  }
  for (const auto& extra : more.rows) {
    auto it = std::find_if(into.rows.begin(), into.rows.end(),
                           [&](const BenchRow& r) { return r.name == extra.name && r.backend == extra.backend; });
    if (it == into.rows.end() || !it->timed()) continue;
    if (!extra.timed()) {
      // A benchmark an interrupt cut in the later run keeps what the earlier one measured.
      if (more.context.interrupted && extra.status == Status::skipped) continue;
      it->status = extra.status;
      it->error = extra.error;
      continue;
    }
    auto samples = it->timing.samples;
    samples.insert(samples.end(), extra.timing.samples.begin(), extra.timing.samples.end());
    for (const int r : extra.rounds) it->rounds.push_back(r + next_round[extra.name]);
    for (const int b : extra.blocks) it->blocks.push_back(b + next_block[extra.name]);
    it->outer_clocks.insert(it->outer_clocks.end(), extra.outer_clocks.begin(), extra.outer_clocks.end());
    it->timing = summarize(std::move(samples));
  }
  into.context.load_end = more.context.load_end;
  into.context.interrupted = into.context.interrupted || more.context.interrupted;
}

}  // namespace scatter
