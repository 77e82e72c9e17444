#pragma once
/// Cooperative cancellation: long loops (generators, the reference) call poll_cancel(),
/// which throws when the current case is over its --timeout or the run was
/// interrupted (SIGINT/SIGTERM). One case's timeout is an error of that case; the run
/// goes on. An interrupt stops the run after the reports are written.

#include <chrono>
#include <optional>
#include <vector>

namespace scatter {

/// The signals that stop a run between steps, the reports written for what finished (exit 130):
/// every one whose default would end it unannounced (SIGINT, SIGTERM, SIGHUP, SIGQUIT, the user,
/// timer, profiling, I/O, power and real-time signals, a kill -SYS or -TRAP by a neighbour),
/// but the crashes (the CLI's fatal handlers) and those it ignores (SIGPIPE, SIGXFSZ).
std::vector<int> stopping_signals();

/// The steady clock's time `seconds` from `start`: a limit past 30 years is taken as 30 years
/// (--timeout 1e308 would overflow the clock's nanoseconds and lie in the past).
std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point start, double seconds);

/// Starts the current case's clock: poll_cancel() throws Error(timeout) after
/// `seconds` (nullopt: no limit). Per thread.
void set_case_deadline(std::optional<double> seconds);

/// Seconds left before the current case's deadline; nullopt when it has none.
std::optional<double> case_seconds_left();
/// Marks the run interrupted; async-signal-safe (called from a signal handler).
void request_interrupt() noexcept;
bool interrupted() noexcept;

/// Throws Error(timeout) past the deadline, Error(interrupted) after an interrupt.
/// Cheap: call it every few thousand elements.
void poll_cancel();

}  // namespace scatter
