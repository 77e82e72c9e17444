#pragma once
// The host side of the instruction counter (scatter/counter.hpp): the region a backend times is
// the region callgrind counts, and the host process reads callgrind's dump of it.

#include <optional>
#include <string>
#include <vector>

#include "scatter/counter.hpp"

namespace scatter::detail {

/// The variable that starts counting in a host process: the path of callgrind's dumps, as
/// --callgrind-out-file was given it (%p for the process id). The driver sets both.
inline constexpr const char* kCountDumpsVariable = "SCATTERCTL_COUNT_DUMPS";

/// Whether this process counts (its SCATTERCTL_COUNT_DUMPS is set, in a build with callgrind's
/// client requests), read once at start-up.
extern const bool counting_enabled;

/// A backend's timed region, held for exactly the call it times. In a counting host it turns
/// callgrind's instrumentation on (every thread's, from zero) and, at its end, dumps the counts
/// and turns it off again; everywhere else it does nothing but read one flag.
class CountedRegion {
 public:
  // Inline, one load and a branch when not counting: the region sits inside the timed call of
  // benchmarks that take 0.3 us, where two out-of-line calls measured 1.2x (ab_gate.sh).
  CountedRegion() {
    if (counting_enabled) begin();
  }
  ~CountedRegion() {
    if (counting_enabled) end();
  }
  CountedRegion(const CountedRegion&) = delete;
  CountedRegion& operator=(const CountedRegion&) = delete;

 private:
  static void begin();
  static void end();
};

/// In a counting host: the counts of every region since the last call, summed, and their dump
/// files removed. nullopt when this process is not counting. Throws Error(backend) when it is,
/// but no dump appeared (the process is not under callgrind) or a dump cannot be read.
std::optional<Counts> take_counts();

/// valgrind's argv that runs a host under callgrind, its dumps at `dump_pattern`.
std::vector<std::string> callgrind_argv(const std::string& dump_pattern);

}  // namespace scatter::detail
