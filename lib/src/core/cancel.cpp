#include "scatter/cancel.hpp"

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

void set_case_deadline(std::optional<double> seconds) {
  t_limit = seconds.value_or(0.0);
  t_deadline.reset();
  if (seconds) {
    t_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*seconds));
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
