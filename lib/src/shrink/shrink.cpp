// The shrinker (scatter/shrink.hpp): greedy delta debugging over a materialized case. Each pass
// proposes candidates, smaller or plainer than the current case; the first that still fails the
// same way becomes the current case, and the passes repeat until none does or the budget ends.

#include "scatter/shrink.hpp"

#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "scatter/cancel.hpp"
#include "scatter/case_facts.hpp"
#include "scatter/load.hpp"

namespace scatter {
namespace {

using Clock = std::chrono::steady_clock;

Case copy_of(const Case& c) {
  return {c.file, c.name, c.attrs, c.data.clone(), c.indices.clone(), c.updates.clone(), std::nullopt, c.tolerance};
}

// The same bytes under another shape of as many elements.
Tensor reshaped(const Tensor& t, Shape shape) {
  Tensor out(t.dtype(), std::move(shape));
  std::memcpy(out.bytes(), t.bytes(), t.nbytes());
  return out;
}

// `t` without positions [begin, end) of dimension `dim`.
Tensor without(const Tensor& t, std::size_t dim, std::int64_t begin, std::int64_t end) {
  auto shape = t.shape();
  const auto n = shape[dim];
  shape[dim] = n - (end - begin);
  Tensor out(t.dtype(), shape);
  const auto element = static_cast<std::int64_t>(size_of(t.dtype()));
  const auto inner = numel(Shape(shape.begin() + static_cast<std::ptrdiff_t>(dim) + 1, shape.end())) * element;
  const auto outer = numel(Shape(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(dim)));
  const auto* src = reinterpret_cast<const std::byte*>(t.bytes());
  auto* dst = reinterpret_cast<std::byte*>(out.bytes());
  for (std::int64_t o = 0; o < outer; ++o) {
    const auto* row = src + o * n * inner;
    std::memcpy(dst, row, static_cast<std::size_t>(begin * inner));
    dst += begin * inner;
    std::memcpy(dst, row + end * inner, static_cast<std::size_t>((n - end) * inner));
    dst += (n - end) * inner;
  }
  return out;
}

// `t` with dimension `dim` (of size 1) taken out.
Tensor squeezed(const Tensor& t, std::size_t dim) {
  auto shape = t.shape();
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(dim));
  return reshaped(t, shape);
}

void set_index(Tensor& indices, std::int64_t i, std::int64_t v) {
  if (indices.dtype() == DType::int32) indices.data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
  else indices.data<std::int64_t>()[i] = v;
}

// The data dimension index `i` of the case points along (scatter_nd's indices flattened to [N, k]).
std::size_t indexed_dim(const Case& c, std::int64_t i) {
  if (c.attrs.op == Op::scatter_nd) return static_cast<std::size_t>(i % c.indices.shape().back());
  return static_cast<std::size_t>(c.attrs.axis);
}

// How plain a value is: 0, then 1, -1, small integers, other numbers, -0, infinities, NaN.
double plainness(double x) {
  if (std::isnan(x)) return 1e9;
  if (std::isinf(x)) return 1e8;
  if (x == 0) return std::signbit(x) ? 1e7 : 0;
  if (x == 1) return 1;
  if (x == -1) return 2;
  if (x == std::trunc(x)) return 3 + std::min(std::fabs(x), 1e6);
  return 2e6 + std::fabs(x);
}

// Writes one element of any dtype from a double (element_as_double reads one).
void set_value(Tensor& t, std::int64_t i, double x) {
  detail::dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, detail::Bool>) {
      t.data<T>()[i] = T{static_cast<std::uint8_t>(x != 0)};
    } else if constexpr (detail::kIsFloat<T>) {
      t.data<T>()[i] = detail::narrow_float<T>(x);
    } else {
      t.data<T>()[i] = static_cast<T>(x);
    }
  });
}

// Thrown by the first candidate past the budget or an interrupt: every loop stops there, and no
// further candidate is built (each costs a copy of the case: building them all was quadratic).
struct SearchEnds {};

class Shrinker {
 public:
  Shrinker(Backend& backend, const ShrinkOptions& options, std::string name)
      : backend_(backend), options_(options), name_(std::move(name)), start_(Clock::now()) {}

  ShrinkResult run(const Case& c) {
    result_.original = judge(c);
    ++result_.calls;
    kept_ = {result_.original.status, result_.original.cause ? result_.original.cause->name : "",
             error_tag(result_.original.detail)};
    // The report's copy of the original's cause confirmed; the search keeps the failure as judged.
    if (options_.trial.confirm_causes && !options_.invalid_indices) {
      confirm_trial_cause(result_.original, backend_, c, options_.trial);
    }
    current_ = copy_of(c);
    if (result_.original.status != Status::failed && result_.original.status != Status::error) {
      result_.fails = false;
      result_.stopped = "the case does not fail there: nothing to shrink";
      return std::move(result_);
    }
    try {
      flatten();
      bool progress = true;
      while (progress) {
        progress = drop_updates();
        progress = cut_data() || progress;
        progress = lower_rank() || progress;
        progress = plain_indices() || progress;
        progress = plain_values(true) || progress;
        progress = plain_values(false) || progress;
        progress = init_val_true() || progress;
      }
      result_.stopped = "no smaller or plainer candidate fails the same way (every one tried passes, or fails otherwise)";
    } catch (const SearchEnds&) {
      result_.stopped = stop_reason();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::interrupted) throw;
      result_.stopped = stop_reason();
    }
    result_.interrupted = interrupted();
    result_.minimal_json = json_of(current_);
    if (!result_.interrupted) confirm();
    result_.minimal = std::move(current_);
    result_.seconds = seconds();
    return std::move(result_);
  }

 private:
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  // One call is kept back for the minimal case's confirming run (confirm()).
  bool out_of_calls() const { return result_.calls + 1 >= options_.max_calls; }
  bool out_of_budget() const { return seconds() >= options_.max_seconds || out_of_calls(); }
  std::string stop_reason() const {
    if (interrupted()) return "interrupted (the smallest case so far is kept)";
    return out_of_calls()
               ? fmt::format("the budget of {} backend calls ran out (it may shrink further)", options_.max_calls)
               : fmt::format("--shrink-seconds {:g} ran out (it may shrink further)", options_.max_seconds);
  }

  // The minimal case as its file says it, run once more: a failure that no case file
  // reproduces (a one-off, or one that only the original's `expected` made) is not called minimal.
  // Its cause, too, is then confirmed where the trial's options ask (confirm_trial_cause).
  void confirm() {
    std::optional<Trial> again;
    const auto c = case_from_json(result_.minimal_json);
    if (c) {
      again = judge(*c);
      ++result_.calls;
    }
    result_.confirmed = again && same_failure(*again);
    if (!again) return;
    if (options_.trial.confirm_causes && !options_.invalid_indices) confirm_trial_cause(*again, backend_, *c, options_.trial);
    result_.last = std::move(*again);
  }

  // Case-file JSON as the loader reads it, then its tensors: nullopt where the loader or
  // materializing refuses it, or where a case of expect_error "index" is no longer refused for
  // its indices. What the backend is given is always a case a user's file could hold.
  std::optional<Case> case_from_json(const std::string& json) const {
    auto loaded = load_text(json, name_ + "_min.json", LoadOptions{default_max_bytes()});
    if (loaded.cases.size() != 1 || !loaded.cases.front().decl) return std::nullopt;
    const auto& decl = *loaded.cases.front().decl;
    std::optional<Case> c;
    try {
      c = options_.invalid_indices ? materialize_unchecked(decl) : materialize(decl);
    } catch (const Error&) {
    }
    if (c && options_.invalid_indices && !refused_for_its_indices(decl)) c.reset();
    return c;
  }

  std::string json_of(const Case& c) const {
    return case_json(c, name_ + "_min",
                     fmt::format("The smallest case found that fails on {} as '{}' does.", backend_.label(), name_),
                     options_.invalid_indices ? std::optional<ErrorCode>(ErrorCode::index) : std::nullopt);
  }

  // Candidates go unconfirmed (a call or two more each): only the minimal case's cause is (confirm()).
  Trial judge(const Case& c) {
    const CaseFacts facts(c);
    auto trial = options_.trial;
    trial.confirm_causes = false;
    return options_.invalid_indices ? try_invalid_case(backend_, facts, ErrorCode::index, trial)
                                    : try_case(backend_, facts, trial);
  }

  // An error's kind: its leading tag ("[crashed]").
  static std::string error_tag(const std::string& detail) { return detail.substr(0, detail.find(']') + 1); }

  // Whether `t` is the failure being kept: the same status, the same cause (where either names
  // one), and for an error the same kind.
  bool same_failure(const Trial& t) const {
    if (t.status != kept_.status) return false;
    if (t.cause || !kept_.cause.empty()) return t.cause && t.cause->name == kept_.cause;
    return t.status != Status::error || error_tag(t.detail) == kept_.error_tag;
  }

  // The candidate through the loader (a case it refuses is never run), then on the backend:
  // the new current case when it fails the same way.
  bool attempt(const Case& candidate) {
    if (out_of_budget() || interrupted()) throw SearchEnds{};
    const auto json = json_of(candidate);
    auto c = case_from_json(json);
    if (!c) {
      ++result_.rejected;
      return false;
    }
    if (options_.on_candidate) options_.on_candidate(json);
    ++result_.calls;
    auto t = judge(*c);
    if (!same_failure(t)) return false;
    current_ = std::move(*c);
    result_.last = std::move(t);
    return true;
  }

  // A case of expect_error "index" stays one: the loader refuses it for an index.
  static bool refused_for_its_indices(const CaseDecl& decl) {
    try {
      materialize(decl);
      return false;
    } catch (const Error& e) {
      return e.code() == ErrorCode::index;
    }
  }

  // scatter_nd's indices as [N, k] and scatter_update's as [N]: the updates are cut along one
  // dimension then (their shapes are reshapes of the same bytes).
  void flatten() {
    auto c = copy_of(current_);
    const auto& data = c.data.shape();
    if (c.attrs.op == Op::scatter_nd && c.indices.rank() != 2) {
      const auto k = c.indices.shape().back();
      const auto n = k > 0 ? c.indices.numel() / k : numel(Shape(c.indices.shape().begin(), c.indices.shape().end() - 1));
      c.indices = reshaped(c.indices, {n, k});
      Shape u{n};
      u.insert(u.end(), data.begin() + k, data.end());
      c.updates = reshaped(c.updates, u);
      attempt(c);
    } else if (c.attrs.op == Op::scatter_update && c.indices.rank() != 1) {
      const auto axis = static_cast<std::size_t>(c.attrs.axis);
      Shape u(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(axis));
      u.push_back(c.indices.numel());
      u.insert(u.end(), data.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.end());
      c.indices = reshaped(c.indices, {c.indices.numel()});
      c.updates = reshaped(c.updates, u);
      attempt(c);
    }
  }

  // The dimensions along which updates can be dropped: the updates' dimension, and the indices'
  // one that goes with it (none for tensor_scatter's sequence: its updates are consecutive writes).
  struct UpdateDim {
    std::optional<std::size_t> indices;
    std::size_t updates;
  };
  std::vector<UpdateDim> update_dims() const {
    const auto& c = current_;
    const auto axis = static_cast<std::size_t>(std::max<std::int64_t>(0, c.attrs.axis));
    std::vector<UpdateDim> dims;
    switch (c.attrs.op) {
      case Op::scatter_elements:
        for (std::size_t d = 0; d < c.indices.shape().size(); ++d) dims.push_back({d, d});
        break;
      case Op::scatter_nd:
        if (c.indices.rank() == 2) dims.push_back({0, 0});
        break;
      case Op::scatter_update:
        if (c.indices.rank() == 1) dims.push_back({0, axis});
        break;
      case Op::tensor_scatter:
        dims.push_back({std::nullopt, axis});
        break;
    }
    return dims;
  }

  // Updates dropped: halves of each dimension, then quarters, down to single positions.
  bool drop_updates() {
    bool any = false;
    for (const auto dim : update_dims()) {
      const auto size = [&] { return current_.updates.shape()[dim.updates]; };
      for (auto chunk = size() / 2; chunk >= 1; chunk /= 2) {
        for (std::int64_t begin = 0; begin < size() && size() > 1;) {
          const auto end = std::min(begin + chunk, size());
          if (end - begin >= size()) break;
          auto c = copy_of(current_);
          if (dim.indices) c.indices = without(current_.indices, *dim.indices, begin, end);
          c.updates = without(current_.updates, dim.updates, begin, end);
          if (attempt(c)) {
            any = true;  // the same `begin` now holds the next positions
          } else {
            begin = end;
          }
        }
      }
    }
    return any;
  }

  // Data without its position `p` along `dim` (0 or the last), the indices that point past it
  // moved with it, and the updates' matching dimension cut too; nullopt when an index points at it.
  std::optional<Case> cut(std::size_t dim, std::int64_t p) const {
    const auto& cur = current_;
    const auto n = cur.data.shape()[dim];
    auto c = copy_of(cur);
    c.data = without(cur.data, dim, p, p + 1);
    const auto op = cur.attrs.op;
    if (op == Op::tensor_scatter) {  // a batch row goes with its write index; the sequence alone
      if (dim == 0) c.indices = without(cur.indices, 0, p, p + 1);
      if (static_cast<std::int64_t>(dim) != cur.attrs.axis) c.updates = without(cur.updates, dim, p, p + 1);
      return c;
    }
    const bool indexed = (op == Op::scatter_nd && static_cast<std::int64_t>(dim) < cur.indices.shape().back()) ||
                         ((op == Op::scatter_elements || op == Op::scatter_update) &&
                          static_cast<std::int64_t>(dim) == cur.attrs.axis);
    if (indexed) {
      for (std::int64_t i = 0; i < cur.indices.numel(); ++i) {
        if (indexed_dim(cur, i) != dim) continue;
        auto v = index_at(cur.indices, i);
        if ((v < 0 ? v + n : v) == p) return std::nullopt;
        if (v >= 0 && p == 0) --v;      // the positions above p move down
        if (v < 0 && p == n - 1) ++v;   // counted from the end, which moved
        set_index(c.indices, i, v);
      }
      return c;
    }
    switch (op) {
      case Op::scatter_elements:  // indices' position j along dim points at data's position j
        if (p < cur.indices.shape()[dim]) {
          c.indices = without(cur.indices, dim, p, p + 1);
          c.updates = without(cur.updates, dim, p, p + 1);
        }
        return c;
      case Op::scatter_nd:
        if (cur.indices.rank() != 2) return std::nullopt;
        c.updates = without(cur.updates, 1 + dim - static_cast<std::size_t>(cur.indices.shape().back()), p, p + 1);
        return c;
      case Op::scatter_update:
        if (cur.indices.rank() != 1) return std::nullopt;
        c.updates = without(cur.updates, dim, p, p + 1);
        return c;
      case Op::tensor_scatter:
        return std::nullopt;
    }
    return std::nullopt;
  }

  bool cut_data() {
    bool any = false;
    for (std::size_t d = 0; d < current_.data.shape().size(); ++d) {
      bool cut_one = true;
      while (cut_one && current_.data.shape()[d] > 1) {
        cut_one = false;
        for (const auto p : {current_.data.shape()[d] - 1, std::int64_t{0}}) {
          if (const auto c = cut(d, p); c && attempt(*c)) {
            cut_one = any = true;
            break;
          }
        }
      }
    }
    return any;
  }

  // A dimension of size 1 taken out of data (and of indices and updates with it).
  std::optional<Case> without_dim(std::size_t d) const {
    const auto& cur = current_;
    if (cur.data.rank() < 2 || cur.data.shape()[d] != 1) return std::nullopt;
    auto c = copy_of(cur);
    const auto axis = static_cast<std::size_t>(std::max<std::int64_t>(0, cur.attrs.axis));
    c.data = squeezed(cur.data, d);
    switch (cur.attrs.op) {
      case Op::scatter_elements:
        if (d == axis || cur.indices.shape()[d] != 1) return std::nullopt;
        c.indices = squeezed(cur.indices, d);
        c.updates = squeezed(cur.updates, d);
        c.attrs.axis -= d < axis ? 1 : 0;
        return c;
      case Op::scatter_nd: {
        if (cur.indices.rank() != 2) return std::nullopt;
        const auto k = static_cast<std::size_t>(cur.indices.shape().back());
        if (d >= k) {
          c.updates = squeezed(cur.updates, 1 + d - k);
          return c;
        }
        if (k < 2) return std::nullopt;
        const auto n = cur.indices.shape()[0];
        c.indices = Tensor(cur.indices.dtype(), {n, static_cast<std::int64_t>(k - 1)});
        for (std::int64_t t = 0; t < n; ++t) {
          std::int64_t col = 0;
          for (std::size_t j = 0; j < k; ++j) {
            if (j != d) set_index(c.indices, t * static_cast<std::int64_t>(k - 1) + col++, index_at(cur.indices, t * static_cast<std::int64_t>(k) + static_cast<std::int64_t>(j)));
          }
        }
        return c;
      }
      case Op::scatter_update:
        if (d == axis || cur.indices.rank() != 1) return std::nullopt;
        c.updates = squeezed(cur.updates, d);
        c.attrs.axis -= d < axis ? 1 : 0;
        return c;
      case Op::tensor_scatter:
        if (d == 0 || d == axis) return std::nullopt;
        c.updates = squeezed(cur.updates, d);
        c.attrs.axis -= d < axis ? 1 : 0;
        return c;
    }
    return std::nullopt;
  }

  bool lower_rank() {
    bool any = false;
    for (std::size_t d = current_.data.shape().size(); d-- > 0;) {
      if (d >= current_.data.shape().size()) continue;
      if (const auto c = without_dim(d); c && attempt(*c)) any = true;
    }
    return any;
  }

  // Each index to 0, or a negative one to its positive form.
  bool plain_indices() {
    bool any = false;
    for (std::int64_t i = 0; i < current_.indices.numel(); ++i) {
      const auto v = index_at(current_.indices, i);
      const auto extent = current_.data.shape()[indexed_dim(current_, i)];
      for (const auto plain : {std::int64_t{0}, v < 0 ? v + extent : v}) {
        if (plain == v || plain < 0) continue;
        auto c = copy_of(current_);
        set_index(c.indices, i, plain);
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  // Data's (or the updates') values: all 0, all 1, then each element to 0, 1, -1 or its integer part.
  bool plain_values(bool data) {
    bool any = false;
    const auto tensor_of = [data](Case& c) -> Tensor& { return data ? c.data : c.updates; };
    const auto& t = tensor_of(current_);
    const auto n = t.numel();
    const auto total_plainness = [&](const Tensor& values, std::optional<double> fill) {
      double sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += plainness(fill.value_or(element_as_double(values, i)));
      return sum;
    };
    for (const double fill : {0.0, 1.0}) {
      // Only plainer as a whole: 0 everywhere and 1 everywhere must not take turns.
      if (n < 2 || !(total_plainness(tensor_of(current_), fill) < total_plainness(tensor_of(current_), std::nullopt))) {
        continue;
      }
      auto c = copy_of(current_);
      for (std::int64_t i = 0; i < n; ++i) set_value(tensor_of(c), i, fill);
      if (attempt(c)) any = true;
    }
    for (std::int64_t i = 0; i < tensor_of(current_).numel(); ++i) {
      const auto x = element_as_double(tensor_of(current_), i);
      for (const double plain : {0.0, 1.0, -1.0, std::trunc(x)}) {
        if (!(plainness(plain) < plainness(x))) continue;
        auto c = copy_of(current_);
        set_value(tensor_of(c), i, plain);
        if (element_as_double(tensor_of(c), i) != plain) continue;  // out of the dtype's range (uint8's -1)
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  bool init_val_true() {
    if (current_.attrs.use_init_val || current_.attrs.op != Op::scatter_elements) return false;
    auto c = copy_of(current_);
    c.attrs.use_init_val = true;
    return attempt(c);
  }

  Backend& backend_;
  const ShrinkOptions& options_;
  std::string name_;
  Clock::time_point start_;
  Case current_;
  ShrinkResult result_;
  // The failure the search keeps, as the original was judged (unconfirmed, as candidates are).
  struct KeptFailure {
    Status status = Status::failed;
    std::string cause;
    std::string error_tag;
  } kept_;
};

}  // namespace

std::int64_t case_elements(const Case& c) { return c.data.numel() + c.indices.numel() + c.updates.numel(); }

ShrinkResult shrink_case(const Case& c, const std::string& name, Backend& backend, const ShrinkOptions& options) {
  return Shrinker(backend, options, name).run(c);
}

}  // namespace scatter
