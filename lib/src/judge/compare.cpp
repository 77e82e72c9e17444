// The spec's comparison: untouched elements bit for bit; integers, bool, and float
// none/min/max exactly (any NaN equals any NaN); `none` duplicates may hold any of
// their updates; float add/sub/mul/mean duplicates within a tolerance that grows
// with the number of updates (the case's `tolerance` overrides it).

#include "scatter/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "scatter/cancel.hpp"
#include "core/on_cores.hpp"
#include "core/targets.hpp"

namespace scatter {
namespace {

using detail::visit_targets;

bool same_bits(const Tensor& a, std::int64_t i, const Tensor& b, std::int64_t j) {
  const auto size = size_of(a.dtype());
  return std::memcmp(a.bytes() + i * size, b.bytes() + j * size, size) == 0;
}

// Equal under the exact rule: same bits, or both NaN.
bool exact_equal(const Tensor& a, std::int64_t i, const Tensor& b, std::int64_t j) {
  if (same_bits(a, i, b, j)) return true;
  return is_float(a.dtype()) && std::isnan(element_as_double(a, i)) && std::isnan(element_as_double(b, j));
}

double abs_error(const Tensor& got, const Tensor& want, std::int64_t i) {
  const double g = element_as_double(got, i);
  const double w = element_as_double(want, i);
  if (std::isnan(g) != std::isnan(w)) return std::numeric_limits<double>::infinity();
  if (std::isnan(g)) return 0.0;
  if (std::isinf(g) || std::isinf(w)) return g == w ? 0.0 : std::numeric_limits<double>::infinity();
  return std::fabs(g - w);
}

// Keeps the k worst mismatches: a heap whose front is the least bad one kept.
class Worst {
 public:
  explicit Worst(std::size_t k) : k_(k) {}
  void add(Mismatch m) {
    if (items_.size() < k_) {
      items_.push_back(std::move(m));
      std::push_heap(items_.begin(), items_.end(), worse);
    } else if (k_ > 0 && worse(m, items_.front())) {
      std::pop_heap(items_.begin(), items_.end(), worse);
      items_.back() = std::move(m);
      std::push_heap(items_.begin(), items_.end(), worse);
    }
  }
  std::vector<Mismatch> sorted() {
    std::sort(items_.begin(), items_.end(), worse);
    return items_;
  }

 private:
  static bool worse(const Mismatch& a, const Mismatch& b) {
    return a.error != b.error ? a.error > b.error : a.offset < b.offset;
  }
  std::size_t k_;
  std::vector<Mismatch> items_;
};

// Whether the update run starting at `u` (of `len` elements, as visit_targets gives it)
// came from an index written negative.
bool negative_run(const Case& c, std::int64_t u, std::int64_t len) {
  switch (c.attrs.op) {
    case Op::scatter_elements:
      return index_at(c.indices, u) < 0;
    case Op::scatter_nd: {
      const auto k = c.indices.shape().back();
      const auto m = u / len;
      for (std::int64_t j = 0; j < k; ++j) {
        if (index_at(c.indices, m * k + j) < 0) return true;
      }
      return false;
    }
    case Op::scatter_update:
    case Op::tensor_scatter:
      return false;  // the spec takes their indices in [0, s) only
  }
  return false;
}

// NaN, infinity and zero among the values that went into an element (floats only).
std::uint32_t value_features(const Tensor& t, std::int64_t i) {
  const double v = element_as_double(t, i);
  if (std::isnan(v)) return kElementNanInvolved;
  if (std::isinf(v)) return kElementInfInvolved;
  return v == 0.0 ? kElementZeroInvolved : 0u;
}

// Marks a differing element in the vector mismatch_features() fills.
constexpr std::uint32_t kFailed = 1u << 31;

// The distinct ElementFeature sets of the differing elements (those marked kFailed in
// `bits`): what went into each (data where it enters the result, the updates that target
// it, their indices) and how expected and actual differ. One more pass over the targets,
// made only when the comparison failed.
std::vector<std::uint32_t> mismatch_features(const Case& c, const Tensor& got, const Tensor& want,
                                             const std::vector<std::int64_t>& idx,
                                             const std::vector<std::uint32_t>& hits, std::vector<std::uint32_t>& bits) {
  const bool fl = is_float(want.dtype());
  visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
    int negative = -1;  // computed once per run, only when it hits a failed element
    for (std::int64_t j = 0; j < len; ++j) {
      auto& b = bits[o + j];
      if (!(b & kFailed)) continue;
      if (fl) b |= value_features(c.updates, u + j);
      if (negative < 0) negative = negative_run(c, u, len) ? 1 : 0;
      if (negative == 1) b |= kElementNegIndex;
    }
  });
  std::set<std::uint32_t> distinct;
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (!(bits[i] & kFailed)) continue;
    auto f = bits[i] & ~kFailed;
    if (hits[i] >= 2) f |= kElementDup;
    if (hits[i] == 0) f |= kElementUntouched;
    if (fl) {
      // data goes into the element unless use_init_val is false and an update targets it.
      if (c.attrs.use_init_val || hits[i] == 0) f |= value_features(c.data, i);
      const double g = element_as_double(got, i);
      const double w = element_as_double(want, i);
      if (g == 0.0 && w == 0.0) f |= kElementSignedZero;  // they differ, so in sign
      if (std::isnan(g) != std::isnan(w)) f |= kElementNanMismatch;
    }
    distinct.insert(f);
  }
  return {distinct.begin(), distinct.end()};
}

constexpr std::array<std::pair<ElementFeature, std::string_view>, 8> kFeatureNames{{
    {kElementDup, "dup"},
    {kElementNanInvolved, "nan_involved"},
    {kElementNanMismatch, "nan_mismatch"},
    {kElementSignedZero, "signed_zero"},
    {kElementZeroInvolved, "zero_involved"},
    {kElementInfInvolved, "inf_involved"},
    {kElementNegIndex, "neg_index"},
    {kElementUntouched, "untouched"},
}};

}  // namespace

std::string_view element_feature_name(ElementFeature feature) {
  for (const auto& [f, name] : kFeatureNames) {
    if (f == feature) return name;
  }
  return "?";
}

std::uint32_t parse_element_feature(std::string_view name) {
  for (const auto& [f, n] : kFeatureNames) {
    if (n == name) return f;
  }
  return 0;
}

std::string_view to_string(Rule rule) {
  constexpr std::string_view kNames[] = {"exact", "any-of-duplicates", "allclose"};  // Rule's order
  return kNames[static_cast<int>(rule)];
}

double round_up_3_digits(double x) {
  if (!(x > 0)) return 0.0;
  if (!std::isfinite(x)) return x;
  // The nearest three-digit decimal, "d.dde+X"; one unit in the last digit more if it is below x.
  const auto text = fmt::format("{:.2e}", x);
  double v = std::strtod(text.c_str(), nullptr);
  if (v >= x) return v;
  const auto e = text.find('e');
  const long digits = std::strtol((text.substr(0, 1) + text.substr(2, e - 2)).c_str(), nullptr, 10);
  const long exponent = std::strtol(text.c_str() + e + 1, nullptr, 10);
  v = std::strtod(fmt::format("{}e{}", digits + 1, exponent - 2).c_str(), nullptr);
  return v;
}

namespace {

// A float dtype's machine epsilon, and its smallest normal value: below that, a backend that
// flushes subnormals to zero differs from the reference by up to this much a step, which is
// rounding, not a bug. Both 0 for integers.
struct FloatFormat {
  double epsilon;
  double smallest_normal;
};

FloatFormat format_of(DType dtype) {
  switch (dtype) {
    case DType::float64:
      return {0x1.0p-52, 0x1.0p-1022};
    case DType::float32:
      return {0x1.0p-23, 0x1.0p-126};
    case DType::float16:
      return {0x1.0p-10, 0x1.0p-14};
    case DType::bfloat16:
      return {0x1.0p-7, 0x1.0p-126};
    default:
      return {0.0, 0.0};
  }
}

double smallest_normal_of(DType dtype) { return format_of(dtype).smallest_normal; }

}  // namespace

double epsilon_of(DType dtype) { return format_of(dtype).epsilon; }

// Elements compared a block at a time: the unit of the bitwise fast path. A thread takes a part
// of blocks, and the parts of a slab are judged before the next slab's are made: the interrupt
// is polled, and a slab's suspects (8 bytes each) held, a slab at a time.
constexpr std::int64_t kBlockElements = 4096;
constexpr std::int64_t kPartElements = 256 * kBlockElements;
constexpr std::int64_t kSlabElements = 16 * kPartElements;

Comparison compare_outputs(const Case& c, const Tensor& got, const Tensor& want, bool against_expected,
                           const CompareOptions& options) {
  Comparison r;
  r.against_expected = against_expected;
  r.elements = want.numel();
  if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
    r.passed = false;
    r.mismatches = r.elements;
    r.rule = fmt::format("the output is {} {}, expected {} {}", to_string(got.dtype()), format_shape(got.shape()),
                         to_string(want.dtype()), format_shape(want.shape()));
    return r;
  }
  const auto n = want.numel();
  std::vector<std::int64_t> normalized;
  if (!options.indices) normalized = detail::normalized_indices(c);
  const auto& idx = options.indices ? *options.indices : normalized;
  std::vector<std::uint32_t> counted;
  if (!options.hits) counted = detail::hits_per_element(c, idx);
  const auto& hits = options.hits ? *options.hits : counted;

  const bool tolerant = is_order_dependent(c.attrs.reduction, c.data.dtype());
  const bool dup_any = c.attrs.reduction == Reduction::none;
  // Elements that are not equal but may pass by their duplicates' rule (allocated at the
  // first: a large output's bytes, zeroed, for every comparison otherwise).
  std::vector<std::uint8_t> pending;
  std::int64_t pending_count = 0;
  Worst worst(options.max_reported);
  std::vector<std::uint32_t> failed;  // kFailed per differing element; allocated on a failure
  auto fail = [&](std::int64_t i, Rule rule, double allowed) {
    ++r.mismatches;
    if (rule != Rule::allclose) ++r.exact_mismatches;
    if (failed.empty()) failed.assign(static_cast<std::size_t>(n), 0);
    failed[i] = kFailed;
    Mismatch m;
    m.offset = i;
    m.error = abs_error(got, want, i);
    m.rule = rule;
    m.allowed = allowed;
    m.hits = hits[i];
    worst.add(std::move(m));
  };
  auto note_error = [&](std::int64_t i) {
    const double e = abs_error(got, want, i);
    if (e > r.max_error || (r.max_error_coord.empty() && e > 0)) {
      r.max_error = e;
      r.max_error_coord = unravel(i, want.shape());
    }
  };

  // Untouched elements keep data bit for bit (NaN payloads included). The elements that are not
  // plainly equal (suspects) are found on every core, a slab at a time, and taken here in order,
  // as one pass would take them: the verdict and its worst elements do not depend on the threads.
  const Tensor& untouched = options.untouched_from_want ? want : c.data;
  const auto width = size_of(want.dtype());
  struct Suspects {
    std::vector<std::int64_t> at;
    std::int64_t duplicates = 0;  // elements that take two updates or more
  };
  const auto find_suspects = [&](std::int64_t begin, std::int64_t end, Suspects& found) {
    for (std::int64_t start = begin; start < end; start += kBlockElements) {
      const auto block_end = std::min(end, start + kBlockElements);
      // A block equal to want bit for bit passes whole when untouched elements are judged against
      // want too: the element loop would find every element same_bits. A large output that
      // passes is compared at memcmp's speed rather than one dtype dispatch per element.
      if (options.untouched_from_want &&
          std::memcmp(got.bytes() + static_cast<std::size_t>(start) * width,
                      want.bytes() + static_cast<std::size_t>(start) * width,
                      static_cast<std::size_t>(block_end - start) * width) == 0) {
        for (auto i = start; i < block_end; ++i) found.duplicates += hits[i] >= 2 ? 1 : 0;
        continue;
      }
      for (auto i = start; i < block_end; ++i) {
        if (hits[i] >= 2) ++found.duplicates;
        if (exact_equal(got, i, want, i) && (hits[i] > 0 || same_bits(got, i, untouched, i))) continue;
        found.at.push_back(i);
      }
    }
  };
  const auto judge_suspect = [&](std::int64_t i) {
    if (hits[i] >= 2 && (dup_any || tolerant)) {
      if (pending.empty()) pending.assign(static_cast<std::size_t>(n), 0);
      pending[i] = 1;
      ++pending_count;
      return;
    }
    note_error(i);
    fail(i, Rule::exact, 0.0);
  };
  for (std::int64_t slab = 0; slab < n; slab += kSlabElements) {
    poll_cancel();
    const auto slab_end = std::min(n, slab + kSlabElements);
    const auto parts = static_cast<std::size_t>((slab_end - slab + kPartElements - 1) / kPartElements);
    std::vector<Suspects> found(parts);
    const auto part_of = [&](std::size_t p) {
      const auto begin = slab + static_cast<std::int64_t>(p) * kPartElements;
      find_suspects(begin, std::min(slab_end, begin + kPartElements), found[p]);
    };
    if (parts == 1) {
      part_of(0);
    } else {
      detail::for_each_part_on_cores(parts, part_of);
    }
    for (const auto& part : found) {
      r.duplicate_elements += part.duplicates;
      for (const auto i : part.at) judge_suspect(i);
    }
  }

  std::string tolerance_text;
  if (pending_count > 0 && dup_any) {
    // `none`: an element hit several times may hold any one of its updates.
    visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
      for (std::int64_t j = 0; j < len; ++j) {
        if (pending[o + j] == 1 && exact_equal(c.updates, u + j, got, o + j)) pending[o + j] = 2;
      }
    });
    for (std::int64_t i = 0; i < n; ++i) {
      if (pending[i] == 2) ++r.accepted_duplicates;
      if (pending[i] == 1) fail(i, Rule::any_of_duplicates, 0.0);
      if (pending[i] != 0) note_error(i);
    }
  } else if (pending_count > 0) {
    // Float add/sub/mul/mean: |got - want| <= atol + rtol * |want|. The default grows
    // with the h updates an element takes: rtol = h * eps, atol = h * eps * sum of
    // the magnitudes that went into it (the classic bound on reordered sums). Summed and
    // bounded in long double: float64 magnitudes past DBL_MAX would make the bound infinite,
    // and an infinite bound passes NaN and inf (a tolerance that overflows is none).
    std::vector<long double> magnitude(static_cast<std::size_t>(n), 0.0L);
    visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
      for (std::int64_t j = 0; j < len; ++j) {
        if (pending[o + j]) magnitude[o + j] += std::fabs(element_as_double(c.updates, u + j));
      }
    });
    const double eps = epsilon_of(want.dtype());
    // The hint: a `tolerance` replaces the defaults of every allclose element, so it must
    // cover the ones that pass by their default too. With the hint's rtol (the case's, or
    // 0), each element needs atol >= |got - want| - rtol * |want|.
    const double hint_rtol = c.tolerance ? c.tolerance->rtol : 0.0;
    double hint_atol = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (!pending[i]) continue;
      note_error(i);
      const long double h = hits[i];
      long double m = magnitude[i] + (c.attrs.use_init_val ? std::fabs(element_as_double(c.data, i)) : 0.0);
      if (c.attrs.reduction == Reduction::mean) m /= h + (c.attrs.use_init_val ? 1.0L : 0.0L);
      const long double atol = c.tolerance ? c.tolerance->atol : h * eps * m;
      const long double rtol = c.tolerance ? c.tolerance->rtol : h * eps;
      const double w = element_as_double(want, i);
      const double e = abs_error(got, want, i);
      const long double reorder_bound = h * (eps * (m + std::fabs(w)) + smallest_normal_of(want.dtype()));
      if (e > 0 && std::isfinite(e)) {
        r.order_excess = std::max(r.order_excess, reorder_bound > 0 ? static_cast<double>(e / reorder_bound)
                                                                    : std::numeric_limits<double>::infinity());
      }
      const long double allowed = atol + rtol * std::fabs(w);
      // A bound that is not finite is none: it comes of an inf or NaN among the element's inputs
      // or its want, whose answer no order changes (elements that equal want never get here).
      if (!(e <= allowed) || !std::isfinite(allowed) || !std::isfinite(w)) {
        fail(i, Rule::allclose, static_cast<double>(allowed));
      }
      hint_atol = std::max(hint_atol, std::isinf(e) ? e : e - hint_rtol * std::fabs(w));
    }
    // Rounded up for printing, then checked the way the comparison checks (atol + rtol *
    // |want| in double): one more step up wherever that rounding would fail an element.
    hint_atol = round_up_3_digits(hint_atol);
    for (std::int64_t i = 0; i < n && std::isfinite(hint_atol); ++i) {
      if (!pending[i]) continue;
      const double w = std::fabs(element_as_double(want, i));
      while (!(abs_error(got, want, i) <= hint_atol + hint_rtol * w) && std::isfinite(hint_atol)) {
        hint_atol = round_up_3_digits(std::nextafter(hint_atol, std::numeric_limits<double>::infinity()));
      }
    }
    r.allclose_atol = hint_atol;
    r.needed_rtol = hint_rtol;
    tolerance_text = c.tolerance ? fmt::format("allclose(atol={}, rtol={})", c.tolerance->atol, c.tolerance->rtol)
                                 : "allclose(rtol=h*eps, atol=h*eps*sum|x|)";
  }

  r.passed = r.mismatches == 0;
  r.tolerance_applies = tolerant && r.duplicate_elements > 0;
  if (!r.passed) {
    r.needed_atol = r.exact_mismatches > 0 ? std::numeric_limits<double>::infinity() : r.allclose_atol;
  }
  if (!r.passed) r.mismatch_features = mismatch_features(c, got, want, idx, hits, failed);
  r.float_output = is_float(want.dtype());
  std::vector<std::string> rules{"exact"};
  if (dup_any && r.duplicate_elements > 0) rules.push_back("any-of-duplicates");
  if (tolerant && r.duplicate_elements > 0) {
    rules.push_back(!tolerance_text.empty() ? tolerance_text
                    : c.tolerance          ? fmt::format("allclose(atol={}, rtol={})", c.tolerance->atol, c.tolerance->rtol)
                                           : "allclose(rtol=h*eps, atol=h*eps*sum|x|)");
  }
  r.rule = fmt::format("{}", fmt::join(rules, " + "));

  // The worst elements, with the updates that target them.
  r.worst = worst.sorted();
  for (auto& m : r.worst) {
    m.coord = unravel(m.offset, want.shape());
    m.expected = format_element(want, m.offset);
    m.actual = format_element(got, m.offset);
  }
  if (!r.worst.empty()) {
    constexpr std::size_t kMaxListed = 8;
    visit_targets(c, idx, [&](std::int64_t u, std::int64_t o, std::int64_t len) {
      for (auto& m : r.worst) {
        if (m.offset >= o && m.offset < o + len && m.updates.size() < kMaxListed) {
          m.updates.push_back(unravel(u + (m.offset - o), c.updates.shape()));
        }
      }
    });
  }
  return r;
}

std::string exact_verdict(const Case& c, const Tensor& got, const Tensor& want, bool deterministic,
                          const std::vector<std::uint32_t>* hits_known) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) {
    return fmt::format("output is {}{}, want {}{}", to_string(got.dtype()), format_shape(got.shape()),
                       to_string(want.dtype()), format_shape(want.shape()));
  }
  const bool order_dependent = is_order_dependent(c.attrs.reduction, c.data.dtype());
  // `none` in free order: a duplicate target may keep any of its candidates (the spec's
  // comparison; the cuda backend's plain stores). --deterministic asks for the last writer.
  const bool any_candidate = c.attrs.reduction == Reduction::none && !deterministic;
  if (order_dependent) {
    const auto cmp = compare_outputs(c, got, want, false);
    if (!cmp.passed) {
      const auto& m = cmp.worst.front();
      return fmt::format("{} of {} elements differ beyond {}; worst at {}: got {}, want {}", cmp.mismatches,
                         cmp.elements, cmp.rule, format_coord(m.coord), m.actual, m.expected);
    }
    if (!deterministic) return "";
  }
  // Bit for bit (any NaN equals any NaN), duplicates of `none` included (--deterministic); under
  // --deterministic, the float reductions only where an element takes at most
  // kDeterministicExactHits updates (they passed the tolerance above everywhere).
  std::vector<std::uint32_t> counted;
  if (order_dependent && !hits_known) counted = detail::hits_per_element(c, detail::normalized_indices(c));
  const auto& hits = !order_dependent ? counted : hits_known ? *hits_known : counted;
  const auto size = size_of(got.dtype());
  std::int64_t bad = 0;
  std::int64_t first = -1;
  const auto n = got.numel();
  for (std::int64_t start = 0; start < n; start += kBlockElements) {
    const auto end = std::min(n, start + kBlockElements);
    const auto offset = static_cast<std::size_t>(start) * size;
    // Most blocks are equal bit for bit: one memcmp, not one an element.
    if (std::memcmp(got.bytes() + offset, want.bytes() + offset, static_cast<std::size_t>(end - start) * size) == 0) {
      continue;
    }
    for (std::int64_t i = start; i < end; ++i) {
      if (!hits.empty() && hits[static_cast<std::size_t>(i)] > kDeterministicExactHits) continue;
      if (std::memcmp(got.bytes() + static_cast<std::size_t>(i) * size, want.bytes() + static_cast<std::size_t>(i) * size,
                      size) == 0) {
        continue;
      }
      if (is_float(got.dtype()) && std::isnan(element_as_double(got, i)) && std::isnan(element_as_double(want, i))) {
        continue;
      }
      if (bad++ == 0) first = i;
    }
  }
  if (bad == 0) return "";
  if (any_candidate && compare_outputs(c, got, want, false).passed) return "";  // a duplicate kept another candidate
  return fmt::format("{} of {} elements differ bit for bit; first at {}: got {}, want {}", bad, got.numel(),
                     format_coord(unravel(first, got.shape())), format_element(got, first),
                     format_element(want, first));
}

}  // namespace scatter
