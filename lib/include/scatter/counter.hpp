#pragma once
/// The deterministic channel of `bench --counter instructions`: a host backend runs in a host
/// process of its own (backend-host, plugin-host) under valgrind's callgrind, which counts the
/// instructions of the backend's timed region only and returns them with each answer. The
/// counts do not move with the machine's load, so `compare` gates on them exactly
/// (docs/benchmarks.md, "Instruction counts").

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scatter {

/// What a bench sample measures: the backend's time of one call, or the instructions it ran.
enum class Counter { time, instructions };
std::string_view to_string(Counter counter);

/// The events of one counted call, by callgrind's names: Ir (instructions), and with its cache
/// simulation Dr, Dw, I1mr, D1mr, D1mw, ILmr, DLmr, DLmw.
using Counts = std::vector<std::pair<std::string, double>>;
/// An event of `counts`; -1 when it has none by that name.
double count_of(const Counts& counts, std::string_view event);
/// The event's entry of `counts`, added at 0 when it has none: for sums and means of counts.
double& count_slot(Counts& counts, std::string_view event);

/// Why this scatterctl cannot count instructions here, "" when it can: it was built without
/// valgrind's callgrind.h (no client requests to mark the region), or valgrind is not on PATH.
std::string counter_unavailable_reason();

/// The smallest change `compare` counts by default: 5% of a time, and 0.5% of an instruction
/// count, which is exact (the A/A spread is measured in docs/benchmarks.md).
double default_threshold(Counter counter);

}  // namespace scatter
