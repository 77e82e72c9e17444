// The statuses' names, what each counts as, and the exit code of a tally (scatter/result.hpp).

#include "scatter/result.hpp"

#include <fmt/format.h>

namespace scatter {

std::string_view to_string(Status status) {
  constexpr std::string_view kNames[] = {"passed", "FAILED", "ERROR", "skipped", "xfail", "XPASS"};  // Status's order
  return kNames[static_cast<int>(status)];
}

bool Tally::add(Status status, bool strict, std::string_view backend, std::string_view why, bool is_invalid) {
  if (status == Status::skipped) {
    ++skipped;
    ++skip_reasons[fmt::format("{}: {}", backend, why)];
    return false;
  }
  ++verdicts;
  if (status == Status::passed) ++passed;
  if (status == Status::xfail) {
    ++xfailed;
    ++xfail_ids[fmt::format("{}: {}", backend, why)];
  }
  if (status == Status::xpass) ++xpassed;
  // What fails a command: a wrong output, an error, and an XPASS its entry (or --strict) forbids.
  const bool wrong = status == Status::failed || status == Status::error;
  if (wrong && is_invalid) ++invalid;
  const bool fails = wrong || (status == Status::xpass && strict);
  if (fails) ++failed;
  return fails;
}

int Tally::decide_exit(bool interrupted, bool ended_early, bool nothing_tested) const {
  if (interrupted) return kExitInterrupted;
  if (invalid > 0) return kExitInvalid;
  if (failed > 0 || ended_early) return kExitFailed;
  if (nothing_tested) return kExitNothing;
  return kExitOk;
}

}  // namespace scatter
