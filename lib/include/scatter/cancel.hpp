#pragma once
/// Cooperative cancellation: long loops (generators, the reference) call poll_cancel(),
/// which throws when the current case is over its --timeout or the run was
/// interrupted (SIGINT/SIGTERM). One case's timeout is an error of that case; the run
/// goes on. An interrupt stops the run after the reports are written.

#include <optional>

namespace scatter {

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
