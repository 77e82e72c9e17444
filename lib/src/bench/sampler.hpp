#pragma once
// The bench's sampler: one backend's part in one benchmark (a Contender), checked by the trial
// once, then sampled in shuffled rounds and blocks, its timed outputs audited; measure.cpp
// drives it pass by pass.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scatter/bench.hpp"
#include "scatter/case_facts.hpp"
#include "scatter/variation.hpp"
#include "vary.hpp"

namespace scatter::detail {

// One backend's part in one benchmark: its row, the case, the flags of its next sample,
// its test-only slowdown, and the audit of its timed outputs.
struct Contender {
  Backend* backend;
  BenchRow* row;
  const CaseFacts* facts;
  RunFlags flags;
  double factor = 1.0;
  int sampled = 0;  // samples taken in this pass
  // An external backend whose check before timing judged an output: every call's output is
  // judged, against the reference of the inputs that call got (vary.hpp: no two calls get the
  // same inputs).
  bool audited = false;
  int calls = 0;  // calls of this pass, warm-ups included
  VariationSource* vary = nullptr;
  // Wall seconds of this pass, for BenchProgress: the check, the calls (warm-ups included),
  // what the samples measured, and the audits (an output fetched and judged).
  double check_wall = 0.0;
  double calls_wall = 0.0;
  double measured_time = 0.0;
  double audit_wall = 0.0;
};

// Where a benchmark's numbering stands: rounds and blocks go on across passes.
struct Numbering {
  int round = 0;
  int block = 0;
};

// The row's identity, bytes and lines, on the first pass.
void start_row(BenchRow& row, const BenchItem& item, const Backend& backend, const BenchOptions& options,
               const Case* c, const ByteModel& bytes, const std::string& invalid);

// The checks before timing, each backend's on its own row. An external backend's call waits on
// its worker process (GBs written, loaded, uploaded and read back on a large case), so those run
// on threads of their own beside the in-process backends' checks, which stay on this thread (a
// device's context is bound to it). Afterwards the timed calls may keep what a check sent
// (RunFlags::same_inputs). An exception (an interrupt) is rethrown once every check has ended.
void check_all(std::vector<Contender>& contenders, const BenchOptions& options);

// The backends of one benchmark in rounds: each round takes one sample of every backend, in
// an order the seed shuffles, so that each sample of A has a sample of B taken moments apart
// (docs/benchmarks.md, "Paired A/B"). Rounds go on until every backend has min_samples and
// either every spread is under the target or max_seconds per backend are up, or max_samples
// rounds are taken: all backends sample every round, so that the rounds stay paired.
void sample_in_rounds(std::vector<Contender>& contenders, const BenchOptions& options, Numbering& at,
                      std::uint64_t seed);

// The share of a pass's sampling in which some task waited for a CPU, folded into each row's
// over its passes (the wall times weigh them).
void record_pressure(std::vector<Contender>& contenders, double stalled_before, double wall);

// The case's inputs, fingerprinted: they must be as they were after every backend's timing.
std::array<std::uint64_t, 3> fingerprints(const Case& c);

// Where a pass's wall time went, for BenchProgress::took.
std::string wall_breakdown(double total, double making, const std::vector<Contender>& contenders, double fingerprinting,
                           double copy_line);

// What one call measured: the backend's own time of it, or the instructions its counted
// region ran (a counting host's answer).
double measured(const BackendOutput& out, const Contender& k);

}  // namespace scatter::detail
