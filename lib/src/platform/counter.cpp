// The instruction counter: callgrind's client requests around a backend's timed region, the
// host's reading of the dumps they make, and the valgrind command line that starts a host.
// Without valgrind's callgrind.h at build time the regions compile to nothing and the counter
// says it is unavailable.

#include "counted.hpp"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "scatter/error.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define SCATTER_HAVE_CALLGRIND 1
#else
#define SCATTER_HAVE_CALLGRIND 0
#endif

// AddressSanitizer's shadow memory and valgrind cannot share a process.
#if defined(__SANITIZE_ADDRESS__)
#define SCATTER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCATTER_ASAN 1
#endif
#endif
#ifndef SCATTER_ASAN
#define SCATTER_ASAN 0
#endif

namespace scatter {
namespace {

// The dump path of this process (its pid in place of %p); "" when it is not counting.
const std::string& dump_path() {
  static const std::string path = [] {
    const char* pattern = std::getenv(detail::kCountDumpsVariable);
    std::string p = pattern != nullptr ? pattern : "";
    if (const auto at = p.find("%p"); at != std::string::npos) p.replace(at, 2, std::to_string(::getpid()));
    return p;
  }();
  return path;
}

bool counting() { return detail::counting_enabled; }

int dumps_made = 0;   // regions ended in this process: callgrind numbers its dumps from 1
int dumps_taken = 0;  // of those, read by take_counts

// The valgrind executable on PATH, "" when there is none.
std::string valgrind_on_path() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto candidate = (dir.empty() ? std::string(".") : dir) + "/valgrind";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// One dump's events and totals. Callgrind may leave trailing zero counts off a cost line.
Counts read_dump(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Error(ErrorCode::backend, "", fmt::format("cannot read callgrind's dump '{}'", file));
  std::vector<std::string> events;
  for (std::string line; std::getline(in, line);) {
    std::stringstream words(line.substr(line.find(':') + 1));
    if (line.rfind("events:", 0) == 0) {
      for (std::string e; words >> e;) events.push_back(e);
    } else if (line.rfind("totals:", 0) == 0) {
      Counts counts;
      double value = 0;
      for (const auto& e : events) counts.emplace_back(e, words >> value ? value : 0.0);
      if (!events.empty()) return counts;
    }
  }
  throw Error(ErrorCode::backend, "", fmt::format("callgrind's dump '{}' has no events and totals lines", file));
}

}  // namespace

std::string_view to_string(Counter counter) { return counter == Counter::time ? "time" : "instructions"; }

double count_of(const Counts& counts, std::string_view event) {
  for (const auto& [name, value] : counts) {
    if (name == event) return value;
  }
  return -1.0;
}

double& count_slot(Counts& counts, std::string_view event) {
  for (auto& [name, value] : counts) {
    if (name == event) return value;
  }
  return counts.emplace_back(std::string(event), 0.0).second;
}

std::string counter_unavailable_reason() {
  if (!SCATTER_HAVE_CALLGRIND) {
    return "this scatterctl was built without valgrind's callgrind.h (Debian: apt-get install valgrind, then build "
           "again)";
  }
  if (SCATTER_ASAN) return "this scatterctl is built with AddressSanitizer, which cannot run under valgrind";
  if (valgrind_on_path().empty()) return "valgrind is not on PATH (Debian: apt-get install valgrind)";
  return "";
}

double default_threshold(Counter counter) { return counter == Counter::time ? 0.05 : 0.005; }

namespace detail {

const bool counting_enabled = SCATTER_HAVE_CALLGRIND && !dump_path().empty();

// Instrumentation is global (every thread's), unlike callgrind's collection state, which is
// per thread: so the region starts and stops it, and the cpu backend's workers are counted too.
void CountedRegion::begin() {
#if SCATTER_HAVE_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
  CALLGRIND_ZERO_STATS;
#endif
}

void CountedRegion::end() {
#if SCATTER_HAVE_CALLGRIND
  CALLGRIND_DUMP_STATS_AT("scatterctl counted region");
  CALLGRIND_STOP_INSTRUMENTATION;
  ++dumps_made;
#endif
}

std::optional<Counts> take_counts() {
  if (!counting()) return std::nullopt;
  if (dumps_made == dumps_taken) return Counts{};  // the backend refused before its region
  Counts sum;
  for (; dumps_taken < dumps_made; ++dumps_taken) {
    const auto file = fmt::format("{}.{}", dump_path(), dumps_taken + 1);
    if (::access(file.c_str(), F_OK) != 0) {
      throw Error(ErrorCode::backend, "",
                  fmt::format("{} asks for instruction counts, but callgrind wrote no dump '{}': this host is not "
                              "running under valgrind --tool=callgrind --callgrind-out-file={}",
                              kCountDumpsVariable, file, std::getenv(kCountDumpsVariable)));
    }
    const auto counts = read_dump(file);
    ::unlink(file.c_str());
    for (const auto& [event, value] : counts) count_slot(sum, event) += value;
  }
  return sum;
}

std::vector<std::string> callgrind_argv(const std::string& dump_pattern) {
  // Instrumentation off until a region starts it; the cache simulation gives the simulated
  // D1 and LL misses; -q keeps valgrind's banner out of the worker's log.
  return {valgrind_on_path(), "-q", "--tool=callgrind", "--instr-atstart=no", "--cache-sim=yes", "--dump-line=no",
          "--callgrind-out-file=" + dump_pattern};
}

}  // namespace detail
}  // namespace scatter
