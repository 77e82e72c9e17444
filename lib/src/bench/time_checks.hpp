#pragma once
// The checks of a row's time that a backend cannot pass by gaming its timer
// (docs/benchmarks.md, "Measurements a kernel cannot game"). A row that fails one keeps its
// samples, so that the report shows the time it refused, and its status becomes failed.

#include "scatter/bench.hpp"

namespace scatter {

/// A row may run this many times faster than a copy of its bytes at the fastest rate measured:
/// a copy moves each byte twice and a row's reads may run at the bare read rate, with its
/// writes still in cache when the timer stops. No honest row has come near it (docs).
inline constexpr double kPhysicsMargin = 3.0;
/// A hot row's bytes come from caches, where the byte model counts bytes that a kernel may keep
/// in registers or L1 (the reference measured 1.6x a warm copy of its working set on a hot
/// kv_cache row): twice the margin against the warm copy of its working set.
inline constexpr double kHotHostMargin = 2.0 * kPhysicsMargin;
/// A hot device row's data may sit in an L2 that moves bytes several times faster than the
/// device memory the copy line measures (no hot device copy is measured): its margin is wider.
inline constexpr double kHotDeviceMargin = 4.0 * kPhysicsMargin;
/// The share of a row's samples that may fall under the least time before the row is refused
/// though its median is above it (a cache that hits on some calls only).
inline constexpr double kImpossibleShare = 0.1;

/// The fastest rate the row's memory (BenchRow::memory) was measured to move bytes at in this
/// run (fills BenchRow::fastest_rate and fastest_rate_of): a copy of 256 MiB on every CPU, or
/// the device's, and where the row is hot, a warm copy of its own working set.
void measure_fastest_rate(BenchRow& row);

/// Physics first: a row faster than its byte model over the fastest rate (with the margin), in
/// its median or in more than kImpossibleShare of its samples, is failed.
void refuse_impossible_time(BenchRow& row);

/// The clock outside the kernel's process: a worker's times must agree with scatterctl's own
/// clock of the same calls (BenchRow::outer_clocks). No sample may be longer than scatterctl saw
/// it take; the sample closest to scatterctl's clock, less the signals' round trip (measured
/// before the worker loaded any kernel), must be within kClockSlackSeconds plus kClockSlackShare
/// of the call, and the median sample within kClockMedianSlackSeconds plus kClockMedianSlackShare.
void refuse_unwitnessed_time(BenchRow& row);

/// How far under scatterctl's clock, less the signals' own cost, a worker's closest sample may
/// fall: the wake-ups of two processes after a long call. Honest workers' closest samples came
/// within 0.125 ms, their medians within 0.3 ms, on a 2-core VM (bench/results/judge-cpu-2026-11-28).
inline constexpr double kClockSlackSeconds = 250e-6;
inline constexpr double kClockSlackShare = 0.02;
/// And the median sample: its gap may be wider (a late wake-up of either process now and then),
/// but a timer that lies on more than half of the calls widens it by the lie.
inline constexpr double kClockMedianSlackSeconds = 500e-6;
inline constexpr double kClockMedianSlackShare = 0.05;

}  // namespace scatter
