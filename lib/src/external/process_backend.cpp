// A backend served by a process (process_backend.hpp).

#include "process_backend.hpp"

#include <fmt/format.h>

namespace scatter::external {
namespace {

constexpr int kFailuresBeforeGivingUp = 3;

}  // namespace

void ProcessBackend::check_usable() const {
  ensure_hello();
  if (!availability_.available) throw BackendFault(fmt::format("{} is unavailable: {}", name_, availability_.reason));
  if (failures_in_a_row_ >= kFailuresBeforeGivingUp) {
    throw BackendFault(fmt::format("{} gave up after {} crashes or time-outs in a row; last: {}", name_,
                                   failures_in_a_row_, last_failure_));
  }
}

void ProcessBackend::on_failure(const ProcessFailure& failure, int protocol, const std::string& log) const {
  if (failure.kind == ProcessFailure::Kind::protocol) {
    throw BackendFault(fmt::format("{} broke protocol {}: {}{}", who(), protocol, failure.what, log));
  }
  ++failures_in_a_row_;
  last_failure_ = failure.what;
  const auto what = fmt::format("{} {}{}", who(), failure.what, log);
  if (failure.kind == ProcessFailure::Kind::timed_out) {
    throw Error(ErrorCode::timeout, "", fmt::format("{}; it was stopped and will be restarted", what));
  }
  throw Crashed(what);
}

std::string log_excerpt(const WorkerProcess* process) {
  auto tail = process ? process->log_tail(600) : std::string();
  return tail.empty() ? "" : fmt::format("; its log ends:\n{}", tail);
}

}  // namespace scatter::external
