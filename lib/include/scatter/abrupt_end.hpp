#pragma once
/// A run that cannot reach its end: the trial in flight, named on stderr when the process must
/// end at once (a fatal signal, a plugin that exits or hangs), and the run's journal, which then
/// writes the reports of what finished (journal.hpp installs it). It stands below the backends,
/// which end a run from inside a plugin call, and the drivers, which mark the trial in flight.

#include "scatter/result.hpp"

namespace scatter {

/// How a run that cannot reach its end ends: the trial in flight becomes an error (crashed,
/// timed_out), or the run is interrupted (no row: the trial never finished).
enum class EndKind { crashed, timed_out, interrupted };

/// The run's journal, as an abrupt end sees it (report/journal.cpp).
class EndJournal {
 public:
  virtual ~EndJournal() = default;
  /// A trial begins: journalled.
  virtual void begin(const CaseResult& trial) = 0;
  /// Whether the journal is open now. Async-signal-safe.
  virtual bool open() const noexcept = 0;
  /// Records why the run ends and writes the reports of what finished, in a child process
  /// (`merge --recover`); returns when that child is done. Async-signal-safe.
  virtual void end(const char* why, EndKind kind) const noexcept = 0;
};
/// The journal of this process's run; nullptr: none.
void set_end_journal(EndJournal* journal);

/// The trial that runs now (a result's file, case, op, reduction, dtype and backend; backend
/// "-" while the case's inputs are built): journalled, and named by end_run_abruptly().
void mark_in_flight(const CaseResult& trial);
void clear_in_flight();

/// The process is about to end before the run's end. Names the trial in flight on stderr
/// with `why` ("killed by signal 11 (SIGSEGV)"), and lets the journal, if any, record why and
/// write the reports; returns when that is done. Async-signal-safe, and once per process: a
/// second call returns at once.
void end_run_abruptly(const char* why, EndKind kind) noexcept;

}  // namespace scatter
