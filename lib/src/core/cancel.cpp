#include "scatter/cancel.hpp"

#include <signal.h>

#include <algorithm>
#include <cmath>

#include <atomic>
#include <chrono>

#include <fmt/format.h>

#include "scatter/error.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> g_interrupted{false};
thread_local std::optional<Clock::time_point> t_deadline;
thread_local double t_limit = 0.0;

}  // namespace

std::vector<int> stopping_signals() {
  std::vector<int> all{SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,   SIGALRM, SIGVTALRM,
                       SIGXCPU, SIGPROF, SIGIO,   SIGPWR,  SIGSYS,  SIGSTKFLT, SIGTRAP};
  for (int s = SIGRTMIN; s <= SIGRTMAX; ++s) all.push_back(s);
  return all;
}

std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point start, double seconds) {
  constexpr double kLongest = 30.0 * 365 * 24 * 3600;
  const double bounded = std::isnan(seconds) ? 0.0 : std::clamp(seconds, 0.0, kLongest);
  return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bounded));
}

void set_case_deadline(std::optional<double> seconds) {
  t_limit = seconds.value_or(0.0);
  t_deadline.reset();
  if (seconds) {
    t_deadline = deadline_after(Clock::now(), *seconds);
  }
}

std::optional<double> case_seconds_left() {
  if (!t_deadline) return std::nullopt;
  return std::chrono::duration<double>(*t_deadline - Clock::now()).count();
}

void request_interrupt() noexcept { g_interrupted.store(true, std::memory_order_relaxed); }

bool interrupted() noexcept { return g_interrupted.load(std::memory_order_relaxed); }

void poll_cancel() {
  if (interrupted()) throw Error(ErrorCode::interrupted, "", "the run was interrupted");
  if (t_deadline && Clock::now() > *t_deadline) {
    throw Error(ErrorCode::timeout, "", fmt::format("the case ran past --timeout {} s", t_limit));
  }
}

}  // namespace scatter
