// A timed row's verdict, decided in one place (bench.hpp, settle), and the gates' verdict words.

#include "scatter/bench.hpp"

namespace scatter {

std::string_view to_string(TimeVerdict verdict) {
  switch (verdict) {
    case TimeVerdict::timed: return "timed";
    case TimeVerdict::noisy: return "undecided: noisy";
    case TimeVerdict::refused: return "refused";
    case TimeVerdict::none: return "not timed";
  }
  return "?";
}

std::string_view to_string(GateVerdict verdict) {
  switch (verdict) {
    case GateVerdict::same: return "same";
    case GateVerdict::faster: return "faster";
    case GateVerdict::slower: return "slower";
    case GateVerdict::undecided: return "undecided";
    case GateVerdict::missing: return "missing";
    case GateVerdict::added: return "new";
    case GateVerdict::error: return "error";
  }
  return "?";
}

void settle(BenchRow& row, TimeVerdict verdict, std::string why, Status status) {
  row.verdict = verdict;
  switch (verdict) {
    case TimeVerdict::timed:
      row.verdict_reason.clear();
      return;
    case TimeVerdict::noisy:
      // The number stays, the trial's status too: a neighbour's load is nobody's failure.
      row.verdict_reason = std::move(why);
      return;
    case TimeVerdict::refused:
      // The refused time stays in the report, so that it shows what was refused.
      row.status = Status::failed;
      row.error = std::move(why);
      return;
    case TimeVerdict::none:
      row.status = status;
      row.error = std::move(why);
      row.timing.samples.clear();
      row.rounds.clear();
      row.blocks.clear();
      row.outer_clocks.clear();
      return;
  }
}

}  // namespace scatter
