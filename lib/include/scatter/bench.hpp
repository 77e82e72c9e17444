#pragma once
/// Benchmarks: a built-in suite per op (or the given cases), timed until stable,
/// reported as time, bytes under the byte model, GB/s and % of the copy bandwidth
/// measured on the same device in the same run. Reports use Google Benchmark's
/// JSON schema plus a context block, so `compare` and its tools read them.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/backend.hpp"
#include "scatter/expectations.hpp"
#include "scatter/case.hpp"
#include "scatter/counter.hpp"
#include "scatter/result.hpp"

namespace scatter {

enum class BenchMode { nd, elements, update, workload, all };
enum class BenchSize { small, medium, large };

/// One benchmark: a declared case and how to run it.
struct BenchItem {
  std::string name;   ///< e.g. "nd/slice_256B/unique/f32"
  std::string group;  ///< the case class: launch, doc, element, slice, contention, reduction, index_type, workload
  CaseDecl decl;
  bool in_place = false;
  bool deterministic = false;
};

/// The built-in suite. `small` runs in seconds on a CPU; `large` fills a GPU well past its L2.
std::vector<BenchItem> builtin_suite(BenchMode mode, BenchSize size);
/// --mode's names, in BenchMode's order: nd, elements, update, workload, all.
const std::vector<std::string>& bench_mode_names();
/// The mode a name stands for; nullopt when it is none.
std::optional<BenchMode> bench_mode_named(std::string_view name);

/// Minimum bytes that must cross memory (docs/perf-model.md): indices, the updates that
/// matter (only the winners' for `none` with duplicates), the 32-byte sectors the
/// writes touch (read too for reductions), and 2 x data out of place.
struct ByteModel {
  std::uint64_t indices = 0;
  std::uint64_t updates = 0;
  std::uint64_t writes = 0;  ///< touched sectors x 32 (x2 for read-modify-write)
  std::uint64_t copy = 0;    ///< 2 x data bytes, out of place
  std::uint64_t distinct = 0;  ///< distinct output elements hit
  std::uint64_t run_bytes = 0;  ///< bytes of the longest contiguous run one update writes (a slice)
  /// Update elements: a kernel that writes in update order makes one sector transaction
  /// each, which is what the random-sector write ceiling counts (not distinct sectors).
  std::uint64_t stores = 0;
  /// An element scatter: each update writes less than one 32-byte sector, so the
  /// random-sector write ceiling, not the copy, is its roofline (docs/perf-model.md target 2).
  bool element_writes() const { return run_bytes < 32; }
  std::uint64_t total() const { return indices + updates + writes + copy; }
};
ByteModel byte_model(const Case& c, bool in_place);
/// The same from the indices already normalized (CaseFacts::indices).
ByteModel byte_model(const Case& c, bool in_place, const std::vector<std::int64_t>& normalized);

/// One entry of SCATTERCTL_BENCH_SLOWDOWN=[LABEL@]GLOB:FACTOR[,...]: the benchmarks whose
/// name matches GLOB, on the backend labelled LABEL (every backend without it), take FACTOR
/// times as long, by running the op again inside the sample (FACTOR 1.5: the op once, and
/// again with half of that second run's time counted).
struct Slowdown {
  std::string label;  ///< "" for every backend
  std::string glob;
  double factor = 1.0;  ///< >= 1
  bool matches(std::string_view item, std::string_view backend_label) const;
};
/// Throws Error(schema) naming the variable and the malformed entry.
std::vector<Slowdown> parse_slowdown(const std::string& text);

struct BenchOptions {
  double max_seconds = 1.0;      ///< per benchmark and repetition, sampling stops here (after min_samples)
  double target_spread = 0.005;  ///< stop when (q3 - q1) / median is under this
  int min_samples = 5;
  int max_samples = 500;
  bool cold = true;  ///< flush caches before each sample (outside the timed region)
  /// Passes over the whole suite; each materializes the case again and takes min_samples
  /// or more samples per backend, so a benchmark's samples are spread over the run (and
  /// over allocations) instead of sitting in one burst of a neighbour's load.
  int repetitions = 1;
  /// Check each backend's output once per case, untimed (the trial's verdict).
  bool verify = true;
  /// Shuffles the backends' order within each round (docs/benchmarks.md, "Paired A/B").
  std::uint64_t seed = 1;
  /// The draws of the external backends' varied inputs: 0 draws it from the operating system's
  /// randomness for the run (the report records it afterwards); another value replays a run.
  std::uint64_t variation_seed = 0;
  /// Test-only: real slowdowns, for measuring the gate (SCATTERCTL_BENCH_SLOWDOWN).
  std::vector<Slowdown> slowdown;
  /// Known divergences: a failed check they cover is xfail, not a failure.
  const Expectations* expectations = nullptr;
  /// What a sample is: the backend's time of one call, or its instruction count (the backends
  /// then must be counted ones: BackendConfig::count_instructions).
  Counter counter = Counter::time;
  /// The reference made by the cpu backend on every core where no backend judged is the cpu
  /// backend (docs/benchmarks.md, "The reference"); false: reference_scatter, on one thread.
  bool reference_from_cpu = true;
};


/// The machine's load: /proc/loadavg (1, 5 and 15 minutes) and the online CPUs.
struct MachineLoad {
  double load1 = -1.0, load5 = -1.0, load15 = -1.0;  ///< -1: unknown (no /proc/loadavg)
  int cpus = 0;
  /// More runnable work than CPUs: timings are noisy and slow.
  bool busy() const { return cpus > 0 && load1 > cpus; }
};
MachineLoad machine_load();

/// The seconds some task of this machine has waited for a CPU since boot (the kernel's pressure
/// stall information, /proc/pressure/cpu "some ... total"), or -1 where the kernel does not
/// keep it. Its growth over a stretch of wall time is the share of that time under CPU pressure:
/// a neighbour's load as it happens, where the load averages lag by a minute.
double cpu_stall_seconds();

/// The share of a benchmark's sampling under CPU pressure past which its timings count as slowed
/// by a neighbour: 0.02 (an idle 2-core machine gave 0.0006, one core spinning beside it 0.021
/// to 0.025, two 0.51: bench/results/judge-cpu-2026-11-29).
inline constexpr double kNoticeablePressure = 0.02;

/// A fixed workload's time, on one thread and on every CPU: what the machine itself did during a
/// run (a neighbour, its clocks), which the unpaired compare takes out of two reports' ratios.
struct Canary {
  double one_thread = 0.0;  ///< seconds; 0: not measured
  double every_cpu = 0.0;
};
Canary measure_canary();

/// A seed no process of this machine can know beforehand: the operating system's randomness.
std::uint64_t secret_seed();

/// The one name a benchmark has everywhere (scatterctl bench, scatter_bench, compare):
/// "case@backend".
std::string bench_name(const std::string& item, const std::string& backend);
/// A report's name without Google Benchmark's run suffixes ("/iterations:20",
/// "/manual_time", "/real_time", "/min_time:...", "/repeats:N", "/threads:N").
std::string normalize_bench_name(const std::string& name);

/// Samples of one benchmark and their statistics.
struct Timing {
  std::vector<double> samples;  ///< seconds
  double median = 0.0;
  double spread = 0.0;  ///< (q3 - q1) / median
  double cv = 0.0;      ///< coefficient of variation
  bool noisy() const { return cv > 0.025; }
};



/// How a row's number stands, beside the trial's Status (benchdnn's MISTRUSTED beside FAILED).
/// Set by settle() alone.
enum class TimeVerdict {
  timed,    ///< a number, every check passed
  noisy,    ///< a number, but undecided: its clock's check cannot be told from a neighbour's load
  refused,  ///< a number no machine could give (physics, scatterctl's clock): FAILED, samples kept
  none,     ///< no number: the output or the inputs failed a check, or it was never measured
};
std::string_view to_string(TimeVerdict verdict);

struct BenchRow;
/// The one place a row's timing is decided: `verdict`, the trial's `status` that goes with it
/// (refused: failed; noisy: unchanged), and why. A row without a number keeps no samples.
void settle(BenchRow& row, TimeVerdict verdict, std::string why, Status status = Status::failed);

struct BenchRow {
  std::string name;
  std::string group;
  std::string backend;          ///< the backend's label (its name unless --backend LABEL=SPEC)
  std::string spec;             ///< what the label stands for ("exe:/base/scatterctl:cpu"), when labelled
  Status status = Status::passed;  ///< the trial's status: only passed and XPASS rows have timings
  TimeVerdict verdict = TimeVerdict::timed;  ///< settle()'s: whether the number stands
  std::string verdict_reason;  ///< why a noisy row's number is undecided
  bool in_place = false;
  bool cold = true;
  Timing timing;
  std::vector<int> rounds;  ///< the round of each of timing.samples: same round, same slot of the machine's time
  std::vector<int> blocks;  ///< the block of each sample: rounds that share the backends' processes and a pass
  /// A worker's samples as scatterctl's own clock saw them (BackendOutput::outer), one per
  /// sample where the backend is a worker; empty for a backend in scatterctl's process.
  std::vector<OuterClock> outer_clocks;
  /// What each timed call of an external backend changed in its inputs (vary.hpp); "" when
  /// its inputs are the case's own (built-ins, or no check before timing).
  std::string varied;
  /// The share of the benchmark's sampling wall time in which some task waited for a CPU
  /// (cpu_stall_seconds); -1 unknown. A neighbour's load shows here, row by row.
  double cpu_pressure = -1.0;
  double pressure_wall = 0.0;  ///< the sampling wall seconds cpu_pressure covers
  /// time: timing's samples are seconds; instructions: they are instruction counts of one call,
  /// and `events` holds every counted event's median per call (Ir, D1mr, DLmr, ...).
  Counter counter = Counter::time;
  Counts events;
  ByteModel bytes;
  double copy_bandwidth = 0.0;  ///< bytes/s of the 100% line
  double sector_bandwidth = 0.0;  ///< bytes/s of random 32-byte-sector writes (element scatter's ceiling)
  std::string error;            ///< why a row has no timing: the trial's detail, or an invalid case
  bool verified = false;        ///< the output was checked (the trial judged it)
  std::string shape;            ///< "f32 data [N] indices [M,1] updates [M]"
  std::string timed_by;         ///< how an external backend timed the op ("perf_counter around ..."); "" for built-ins
  std::string expectation;      ///< the known divergence behind an xfail or XPASS
  bool strict = false;          ///< an XPASS that fails the run, as in `run`
  bool failed() const { return status == Status::failed || status == Status::error; }
  bool skipped() const { return status == Status::skipped; }
  bool timed() const { return status == Status::passed || status == Status::xpass; }
  /// Bytes/s of a copy of this row's own working set, cold as the row (host backends):
  /// the 100% line, so caching cannot lift a row over it. 0: copy_bandwidth is used.
  double working_set_copy_bandwidth = 0.0;
  double gbps() const { return timing.median > 0 ? bytes.total() / timing.median / 1e9 : 0.0; }
  double copy_line() const { return working_set_copy_bandwidth > 0 ? working_set_copy_bandwidth : copy_bandwidth; }
  double percent_of_copy() const { return copy_line() > 0 ? 100.0 * gbps() * 1e9 / copy_line() : 0.0; }
  /// The model's written sectors per second against the random-sector ceiling: how close
  /// an element scatter's writes run to the fastest random writes (docs/perf-model.md target 2).
  /// Slice rows write sectors in sequence and may exceed 100%.
  /// The row's rate of update stores against the measured random-sector write ceiling,
  /// one 32-byte sector transaction an update (docs/perf-model.md): above 100% only by not
  /// writing in update order (the cuda row tile writes whole sectors in address order).
  double percent_of_sector_ceiling() const {
    return sector_bandwidth > 0 && timing.median > 0
               ? 100.0 * static_cast<double>(bytes.stores) * 32.0 / timing.median / sector_bandwidth
               : 0.0;
  }
  double floor_seconds() const { return copy_line() > 0 ? bytes.total() / copy_line() : 0.0; }
  /// The fastest rate, bytes/s, that this machine was measured to move bytes at in this run, in
  /// the memory the row works in and warm or cold as it is timed: the physics check's line
  /// (docs/benchmarks.md, "Physics first"). 0: none measured (a device this build cannot probe).
  double fastest_rate = 0.0;
  MemoryKind memory = MemoryKind::host;  ///< where the backend's data lives
  std::string fastest_rate_of;  ///< what measured it ("a copy of 256 MiB on 2 threads")
};

struct BenchContext {
  std::string date;
  std::string host;
  std::string device;        ///< the device of the first backend benchmarked
  std::string version;
  std::string git_commit;
  std::string build_type;
  double copy_bandwidth = 0.0;  ///< the first backend's copy bandwidth, bytes/s
  double sector_bandwidth = 0.0;  ///< the first backend's random-sector write bandwidth, bytes/s
  std::vector<std::pair<std::string, std::string>> properties;  ///< the first backend's device facts
  std::string mode;
  std::string size;
  MachineLoad load_start;
  MachineLoad load_end;
  int repetitions = 1;
  std::uint64_t seed = 1;  ///< the seed of the rounds' order
  std::uint64_t variation_seed = 0;  ///< the run's secret draws of varied inputs, told after the run
  /// The canary at the start and at the end of the run, each side's median: the machine's speed.
  Canary canary;
  std::vector<std::pair<std::string, std::string>> labels;  ///< --backend LABEL=SPEC: label, spec
  Counter counter = Counter::time;
  /// What made the reference the checks and audits compared with ("ref (one thread)", or the
  /// cpu backend's device).
  std::string reference_by;
  /// Stopped by a signal: the report holds the benchmarks finished before it (rows never
  /// reached are left out), so that a run cut short by a time limit still leaves its numbers.
  bool interrupted = false;
  bool busy() const { return load_start.busy() || load_end.busy(); }
};

struct BenchReport {
  BenchContext context;
  std::vector<BenchRow> rows;
};

/// A benchmark's start (`took` empty) or its end, with where its wall time went: the case's
/// making, each backend's check, calls and audits (and the time those calls measured), the
/// inputs' fingerprints and the copy line. On a large case the harness, not the timed calls,
/// takes most of a benchmark's minute; this says which part.
struct BenchProgress {
  std::string name;
  std::string took;
};

/// Runs each item on each backend. `progress` is told each benchmark's start and end.
BenchReport run_bench(const std::vector<BenchItem>& items, const std::vector<Backend*>& backends,
                      const BenchOptions& options, const std::function<void(const BenchProgress&)>& progress);

/// Adds the samples of `more` (a later run_bench of some of the same benchmarks and backends)
/// to the rows of `into`, its rounds numbered after theirs, and recomputes the statistics:
/// `bench --gate` samples undecided benchmarks again this way.
void add_rounds(BenchReport& into, const BenchReport& more);

/// Google Benchmark's JSON (context + benchmarks, times in microseconds) with our
/// counters (bytes, GB/s, percent of copy, floor) and every sample.
std::string bench_json(const BenchReport& report);
std::string bench_markdown(const BenchReport& report);
/// The human table for a terminal.
std::string bench_table(const BenchReport& report);

/// A gate's verdict on one benchmark, the unpaired compare's and the paired gate's alike (one
/// word each: "undecided" is the one for a change neither gate could tell from noise).
enum class GateVerdict { same, faster, slower, undecided, missing, added, error };
/// "same", "faster", "slower", "undecided", "missing", "new", "error".
std::string_view to_string(GateVerdict verdict);

/// One benchmark in two reports.
struct BenchDelta {
  std::string name;
  double base = 0.0;  ///< median seconds
  double next = 0.0;
  double change = 0.0;  ///< next / base - 1
  GateVerdict verdict = GateVerdict::same;
  double p_value = -1.0;  ///< Mann-Whitney U, two-sided (-1 when not computed)
  /// Instruction counts: judged exactly, [ratio_low, ratio_high] the range of the ratios of
  /// any two samples, no statistics and no drift (a load does not change a count).
  bool counted = false;
  /// Hodges-Lehmann ratio new/base (median of all pairwise sample ratios) and its
  /// rank-based 95% confidence interval; 0 when the samples are too few.
  double ratio = 0.0, ratio_low = 0.0, ratio_high = 0.0;
  std::size_t base_samples = 0, next_samples = 0;
};

struct BenchComparison {
  std::vector<BenchDelta> rows;
  double geomean_change = 0.0;  ///< over benchmarks present in both
  int regressions = 0;
  int missing = 0;  ///< in BASE, not in NEW
  int common = 0;   ///< in both
  std::string base_device;
  std::string next_device;
  std::vector<std::string> warnings;  ///< busy machines, too few samples
  /// Across the benchmarks in both (5 or more): the median log ratio (the whole run's
  /// drift, a busier machine moves every benchmark) and its robust spread (1.4826 x the
  /// median absolute deviation). A benchmark is slower only when it also stands out of
  /// the others by more than 3 spreads; a drift past the threshold on quiet machines
  /// is a suite-wide regression.
  double drift = 0.0, noise = 0.0;
  /// NEW's canary over BASE's (the larger of its two forms, at least 1): the machine's own slowdown.
  double canary_drift = 1.0;
  bool suite_regression = false;
  /// The suite drifted past the suite threshold where load or noise could explain it: neither
  /// a pass nor a regression (exit 6).
  bool undecided = false;
  /// Whether the gate fails: a regression, or (unless allowed) a missing benchmark or
  /// nothing in common.
  bool failed = false;
};

struct CompareBenchOptions {
  /// The smallest change that counts; unset: a row's counter's default (5% of a time, 0.5% of
  /// an instruction count, which is judged exactly: counter.hpp).
  std::optional<double> threshold;
  /// The whole suite's median change that fails the gate on quiet machines: back-to-back
  /// runs of one build drift by up to 15% on a 2-core VM (docs/benchmarks.md).
  double suite_threshold = 0.20;
  bool allow_device_mismatch = false;
  bool allow_missing = false;
  double confidence = 0.95;
};

/// Hodges-Lehmann estimate of new/base and its rank-based confidence interval
/// (Mann-Whitney order statistics of the pairwise log ratios). {0, 0, 0} when either
/// side has fewer than 2 samples.
struct RatioEstimate {
  double ratio = 0.0, low = 0.0, high = 0.0;
};
RatioEstimate hodges_lehmann_ratio(const std::vector<double>& base, const std::vector<double>& next,
                                   double confidence = 0.95);

/// Compares two bench JSON texts. Throws Error(schema) for a text that is not a
/// report, Error(backend) for different devices unless allowed.
BenchComparison compare_bench(const std::string& base_json, const std::string& next_json,
                              const CompareBenchOptions& options);
/// The same with several reports per side, pooled: each benchmark's samples from every
/// report of its side. Runs of base and new interleaved in time share the machine's slow
/// spells, which a single run per side cannot (docs/benchmarks.md).
BenchComparison compare_bench(const std::vector<std::string>& base_jsons, const std::vector<std::string>& next_jsons,
                              const CompareBenchOptions& options);
std::string compare_table(const BenchComparison& comparison);
std::string compare_markdown(const BenchComparison& comparison);

/// Two-sided Mann-Whitney U test p-value (normal approximation with tie correction).
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace scatter
