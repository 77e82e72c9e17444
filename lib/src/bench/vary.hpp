#pragma once
// The input variations of one benchmark's case for its external backends' timed calls, and
// the reference output of each (scatter/variation.hpp, docs/benchmarks.md).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/load.hpp"
#include "scatter/trial.hpp"
#include "scatter/variation.hpp"

namespace scatter {

class VariationSource {
 public:
  /// `c` is the case `facts` describes: apply() changes it in place for a while (bench's
  /// timed calls do not overlap, and nothing else reads it meanwhile).
  VariationSource(Case& c, const CaseFacts& facts, std::uint64_t seed);

  /// The next call's variation: new values for a few elements of data that no update lands on
  /// and of updates whose target takes no other update; empty when the case has neither.
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
  /// What a call's variation changes: "8 data and 8 update elements a call", or why nothing.
  std::string describe();

 private:
  void sample_pools();
  std::uint64_t reduced(std::int64_t target, std::uint64_t update_bits) const;

  Case& case_;
  const CaseFacts& facts_;
  SplitMix64 rng_;
  std::uint64_t calls_ = 0;
  bool sampled_ = false;
  std::vector<std::int64_t> untouched_;                             // data positions no update lands on
  std::vector<std::pair<std::int64_t, std::int64_t>> single_;       // (update, its target) of single-hit targets
  std::optional<Tensor> want_;  // a copy of facts' want, changed while a variation is applied
};

}  // namespace scatter
