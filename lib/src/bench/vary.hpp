#pragma once
// The input variations of one benchmark's case for its external backends' timed calls, and
// the reference output of each (scatter/variation.hpp, docs/benchmarks.md).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/load.hpp"
#include "scatter/trial.hpp"
#include "scatter/variation.hpp"

namespace scatter {

/// Positions of one kind, each call's drawn uniformly from all of them (never from a sample
/// kept for the pass, which a kernel could learn): by rejection over the whole range where
/// they are common, from the list of them where they are rare.
class Candidates {
 public:
  Candidates() = default;
  /// `range` positions, of which `count` pass `accept`.
  Candidates(std::int64_t range, std::int64_t count, std::function<bool(std::int64_t)> accept);
  std::int64_t count() const { return count_; }
  /// A candidate drawn by `rng`, or -1 when there is none.
  std::int64_t draw(SplitMix64& rng) const;

 private:
  std::int64_t range_ = 0;
  std::int64_t count_ = 0;
  std::function<bool(std::int64_t)> accept_;
  std::vector<std::int64_t> list_;  // every candidate, where they are too rare to find by rejection
};

class VariationSource {
 public:
  /// `c` is the case `facts` describes: apply() changes it in place for a while (bench's
  /// timed calls do not overlap, and nothing else reads it meanwhile). `seed` comes from the
  /// run's secret, never from a flag a kernel can read (docs/benchmarks.md).
  VariationSource(Case& c, const CaseFacts& facts, std::uint64_t seed);

  /// The next call's variation: new values for a few elements of data that no update lands on
  /// and of updates whose target takes no other, two pairs of such updates' indices swapped,
  /// and where every element takes several updates, a few of those; empty when the case has
  /// none of them.
  InputVariation next();

  /// While it lives, the case holds a variation's inputs and want() the reference's output
  /// of them; its end puts both back.
  class Applied {
   public:
    Applied(VariationSource& source, const InputVariation& v);
    ~Applied();
    Applied(const Applied&) = delete;
    Applied& operator=(const Applied&) = delete;

   private:
    VariationSource& source_;
    std::vector<std::pair<Tensor*, ElementDelta>> undo_;  // the bits to put back, by tensor
  };

  /// The reference's output of the inputs applied now (the case's own outside an Applied).
  const Tensor& want() const;
  /// What a call's variation changes: "16 data, 16 update and 4 index elements changed a
  /// call", or why nothing.
  std::string describe();

 private:
  void find_candidates();
  // A pair of index units (scatter_nd tuples, scatter_update or scatter_elements index
  // elements) whose targets are all single-hit, to swap: their index elements' positions.
  std::optional<std::pair<std::int64_t, std::int64_t>> draw_swap();
  // The index elements of a unit, and whether every target of it takes only its update.
  std::vector<std::int64_t> unit_positions(std::int64_t unit) const;
  bool unit_single_hit(std::int64_t unit) const;
  // The reference's value of `target` with `updates` (bit patterns, in order) landing on it: the
  // reference itself, run on a one-element case of the same reduction, dtype and use_init_val.
  std::uint64_t reduced(std::int64_t target, const std::vector<std::uint64_t>& updates) const;
  // Every update element that lands on `target` under the case's indices, in update order.
  std::vector<std::int64_t> updates_of(std::int64_t target) const;
  // A new value for update `u` of a contended target, far enough from its own that the target's
  // comparison, whose tolerance grows with its updates, sees the change.
  std::uint64_t contended_value(std::int64_t u);

  Case& case_;
  const CaseFacts& facts_;
  SplitMix64 rng_;
  std::uint64_t calls_ = 0;
  bool found_ = false;
  Candidates untouched_;  // data positions no update lands on
  Candidates single_;     // update elements whose target takes no other update
  Candidates contended_;  // update elements whose target takes several (only where nothing else varies)
  double largest_update_ = 0.0;  // the largest finite |update| of a contended case
  std::int64_t units_ = 0;      // index units: tuples (scatter_nd), index elements (the others)
  bool swaps_ = false;          // whether this op's indices can be swapped
  std::optional<Tensor> want_;  // a copy of facts' want, changed while a variation is applied
};

}  // namespace scatter
