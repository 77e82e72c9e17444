// The trial in flight and the abrupt end of a run (scatter/abrupt_end.hpp). What
// end_run_abruptly() reads is kept in plain buffers: it runs in signal handlers and exit
// handlers, after any static destructor, and may not allocate.

#include "scatter/abrupt_end.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "platform/signal_safe.hpp"

namespace scatter {
namespace {

struct InFlight {
  // The trial in flight as text, in two slots: the next is filled while a handler may read
  // the published one.
  char text[2][1024] = {};
  std::atomic<int> published{-1};
  std::atomic<bool> ending{false};
  std::atomic<EndJournal*> journal{nullptr};
};
InFlight g_in_flight;

}  // namespace

void set_end_journal(EndJournal* journal) { g_in_flight.journal.store(journal); }

void mark_in_flight(const CaseResult& trial) {
  const int slot = g_in_flight.published.load() == 0 ? 1 : 0;
  const auto text = trial.backend == "-" ? fmt::format("case '{}' of {} (building its inputs)", trial.name, trial.file)
                                         : fmt::format("case '{}' of {} on backend {}", trial.name, trial.file, trial.backend);
  const auto printable = printable_text(text);
  auto& to = g_in_flight.text[slot];
  const auto n = std::min(sizeof to - 1, printable.size());
  std::memcpy(to, printable.data(), n);
  to[n] = '\0';
  g_in_flight.published.store(slot);
  if (auto* journal = g_in_flight.journal.load()) journal->begin(trial);
}

void clear_in_flight() { g_in_flight.published.store(-1); }

void end_run_abruptly(const char* why, EndKind kind) noexcept {
  if (g_in_flight.ending.exchange(true)) return;
  const int slot = g_in_flight.published.load();
  const auto* journal = g_in_flight.journal.load();
  const bool journalled = journal && journal->open();
  char line[2048];
  const auto n = detail::concat(line, sizeof line,
                        {"scatterctl: the run ends here: ", why, slot >= 0 ? ", during " : "",
                         slot >= 0 ? g_in_flight.text[slot] : "",
                         journalled ? "; writing the reports of what finished from the journal\n" : "\n"});
  (void)detail::write_all(STDERR_FILENO, line, n);
  if (journalled) journal->end(why, kind);
}

}  // namespace scatter
