#pragma once
// The reference's loop, written once: every update in row-major order, one reduction
// step at a time (reduce_step.hpp), on an output that already holds data. A Hook
// watches it: the reference passes NoHook, whose empty calls compile away, and
// `scatterctl explain` (explain.cpp) passes one that narrates each step.

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "reduce_step.hpp"
#include "targets.hpp"
#include "scatter/cancel.hpp"

namespace scatter::detail {

/// What a hook may watch. Offsets are element offsets into updates (`ui`) and the
/// output (`oi`); a run is `len` contiguous elements.
struct NoHook {
  /// use_init_val = false: every targeted element is about to start from `identity`.
  template <class T>
  void start_from(T /*identity*/) {}
  void before_run(std::int64_t /*ui*/, std::int64_t /*oi*/, std::int64_t /*len*/) {}
  void after_run(std::int64_t /*ui*/, std::int64_t /*oi*/, std::int64_t /*len*/) {}
  /// mean: output element `oi`, a sum of `count` terms, is about to be divided.
  void before_mean(std::int64_t /*oi*/, std::int64_t /*count*/) {}
  void after_mean(std::int64_t /*oi*/) {}
  /// Whether the run of updates [ui, ui + len) onto [oi, oi + len) is left out: never. A model
  /// of a kernel that drops updates (model.cpp) leaves some out.
  static constexpr bool skips(std::int64_t /*ui*/, std::int64_t /*oi*/, std::int64_t /*len*/) { return false; }
};

/// The spec's rules (reduce_step.hpp). A divergence model (model.cpp) passes its own, with
/// one rule or more swapped for a framework's.
struct SpecStep {
  template <class T>
  T combine(Reduction r, T out, T u) const {
    return detail::combine(r, out, u);
  }
  template <class T>
  T identity(Reduction r) const {
    return detail::identity<T>(r);
  }
  template <class T>
  T mean(T sum, std::int64_t count) const {
    return mean_of(sum, count);
  }
};

/// Polls for --timeout and Ctrl-C every million elements.
struct Poll {
  std::int64_t done = 0;
  void tick(std::int64_t elements) {
    done += elements;
    if (done >= (1 << 20)) {
      done = 0;
      poll_cancel();
    }
  }
};

/// Applies the case's updates to `out` (which holds data) in update order.
template <class T, class Hook = NoHook, class Step = SpecStep>
void scatter_loop(const Case& c, const std::vector<std::int64_t>& idx, Tensor& out, Hook&& hook = {},
                  const Step& step = {}) {
  T* o = out.data<T>();
  const T* u = c.updates.data<T>();
  const auto reduction = c.attrs.reduction;
  Poll poll;

  if (!c.attrs.use_init_val && reduction != Reduction::none) {
    const T id = step.template identity<T>(reduction);
    hook.start_from(id);
    visit_targets(c, idx, [&](std::int64_t, std::int64_t oi, std::int64_t len) { std::fill(o + oi, o + oi + len, id); });
  }
  // mean = (init + sum of updates) / count, init and its count only with use_init_val.
  std::vector<std::int64_t> count;
  if (reduction == Reduction::mean) count.assign(static_cast<std::size_t>(out.numel()), 0);
  visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
    if (hook.skips(ui, oi, len)) return;
    hook.before_run(ui, oi, len);
    if (reduction == Reduction::none) {
      std::memcpy(o + oi, u + ui, static_cast<std::size_t>(len) * sizeof(T));
    } else {
      for (std::int64_t j = 0; j < len; ++j) o[oi + j] = step.combine(reduction, o[oi + j], u[ui + j]);
    }
    if (!count.empty()) {
      for (std::int64_t j = 0; j < len; ++j) ++count[static_cast<std::size_t>(oi + j)];
    }
    hook.after_run(ui, oi, len);
    poll.tick(len);
  });
  if constexpr (!std::is_same_v<T, Bool>) {  // the spec has no mean of bool
    const std::int64_t init = c.attrs.use_init_val ? 1 : 0;
    for (std::size_t i = 0; i < count.size(); ++i) {
      if (count[i] == 0) continue;
      const auto oi = static_cast<std::int64_t>(i);
      hook.before_mean(oi, count[i] + init);
      o[i] = step.mean(o[i], count[i] + init);
      hook.after_mean(oi);
    }
  }
}

}  // namespace scatter::detail
