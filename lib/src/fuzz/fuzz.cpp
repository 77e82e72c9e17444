#include "scatter/fuzz.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scatter/cancel.hpp"
#include "scatter/files.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/compare.hpp"
#include "scatter/load.hpp"
#include "scatter/reference.hpp"
#include "scatter/shrink.hpp"
#include "scatter/trial.hpp"
#include "core/targets.hpp"
#include "core/text_hash.hpp"

namespace scatter {
namespace {

// The case format's SplitMix64 with the draws the fuzzer needs.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : mix_(seed) {}
  std::uint64_t next() { return mix_.next(); }
  /// Uniform in [lo, hi] (inclusive).
  std::int64_t range(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return static_cast<double>(next() >> 11) * 0x1.0p-53 < p; }
  template <class T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(next() % items.size())];
  }

 private:
  SplitMix64 mix_;
};

// How many distinct targets the indices draw from, relative to what exists.
enum class Density { spread, dense, one, two };

struct Draw {
  Rng& rng;
  Density density;
  double negative;  // probability of writing an index x as x - s

  // An index in [0, s), drawn from a pool that makes duplicates as heavy as asked.
  std::int64_t index(std::int64_t s, bool allow_negative) {
    std::int64_t pool = s;
    if (density == Density::dense) pool = std::max<std::int64_t>(1, s / 4);
    if (density == Density::one) pool = 1;
    if (density == Density::two) pool = std::min<std::int64_t>(2, s);
    const auto x = rng.range(0, pool - 1);
    return allow_negative && rng.chance(negative) ? x - s : x;
  }
};

// A shape of `rank` dims with at most `budget` elements (dims 1..6, rarely 0).
Shape random_shape(Rng& rng, int rank, std::int64_t budget, bool allow_empty) {
  Shape s(static_cast<std::size_t>(rank));
  std::int64_t total = 1;
  for (int d = 0; d < rank; ++d) {
    const auto room = std::max<std::int64_t>(1, budget / total);
    s[static_cast<std::size_t>(d)] = std::min<std::int64_t>(rng.range(1, 6), room);
    total *= s[static_cast<std::size_t>(d)];
  }
  if (allow_empty && rng.chance(0.03)) s[static_cast<std::size_t>(rng.range(0, rank - 1))] = 0;
  return s;
}

// One value of `dtype` as JSON: floats are multiples of 1/64 with rare specials;
// integers mostly small with rare extremes (overflow must wrap); bools.
std::string random_value(Rng& rng, DType dtype, bool specials, bool unit_only) {
  if (dtype == DType::boolean) return rng.chance(0.5) ? "true" : "false";
  if (is_float(dtype)) {
    if (unit_only) return rng.chance(0.5) ? "1" : "-1";
    if (specials && rng.chance(0.06)) {
      static const std::vector<std::string> kSpecial{"\"nan\"", "\"inf\"", "\"-inf\"", "-0.0", "0.0"};
      return rng.pick(kSpecial);
    }
    const auto k = rng.range(-512, 512);
    return fmt::format("{}", static_cast<double>(k) / 64.0);
  }
  std::int64_t lo = -1000, hi = 1000;
  switch (dtype) {
    case DType::int8:
      lo = -128, hi = 127;
      break;
    case DType::uint8:
      lo = 0, hi = 255;
      break;
    case DType::int16:
      lo = rng.chance(0.1) ? -32768 : -300, hi = rng.chance(0.1) ? 32767 : 300;
      break;
    case DType::int32:
      if (rng.chance(0.05)) return rng.chance(0.5) ? "2147483647" : "-2147483648";
      break;
    case DType::int64:
      if (rng.chance(0.05)) return rng.chance(0.5) ? "9223372036854775807" : "-9223372036854775808";
      break;
    default:
      break;
  }
  return fmt::format("{}", rng.range(lo, hi));
}

std::string tensor_json(Rng& rng, DType dtype, const Shape& shape, bool specials, bool unit_only) {
  std::vector<std::string> values(static_cast<std::size_t>(numel(shape)));
  for (auto& v : values) v = random_value(rng, dtype, specials, unit_only);
  return fmt::format(R"({{"dtype": "{}", "shape": {}, "values": [{}]}})", to_string(dtype), format_shape(shape),
                     fmt::join(values, ", "));
}

std::string indices_json(DType dtype, const Shape& shape, const std::vector<std::int64_t>& values) {
  return fmt::format(R"({{"dtype": "{}", "shape": {}, "values": [{}]}})", to_string(dtype), format_shape(shape),
                     fmt::join(values, ", "));
}

// Whether a backend that declares `within` (nullptr: everything) runs op, reduction, dtype.
bool declared(const Capabilities* within, Op op, Reduction r, DType dtype) {
  if (!allows(op, r, dtype)) return false;
  if (!within) return true;
  return within->ops[static_cast<std::size_t>(op)][static_cast<std::size_t>(r)].covers(dtype);
}

std::vector<Reduction> declared_reductions(const Capabilities* within, Op op, DType dtype) {
  std::vector<Reduction> out;
  for (const auto r : kReductions) {
    if (declared(within, op, r, dtype)) out.push_back(r);
  }
  return out;
}

std::vector<DType> declared_dtypes(const Capabilities* within, Op op) {
  std::vector<DType> out;
  for (const auto d : kDTypes) {
    if (!declared_reductions(within, op, d).empty()) out.push_back(d);
  }
  return out;
}

std::vector<Op> declared_ops(const Capabilities* within) {
  std::vector<Op> out;
  for (const auto op : kOps) {
    if (!declared_dtypes(within, op).empty()) out.push_back(op);
  }
  return out;
}

}  // namespace

bool declares_any_case(const Capabilities& within) {
  return !declared_ops(&within).empty() && !within.index_dtypes.empty();
}

namespace {

// The draws that a declaration narrows. Without one they are the unrestricted stream's
// draws, unchanged, so that (seed, iteration) names the same case as it always did.
struct Picks {
  Op op;
  DType dtype;
  Reduction reduction;
  DType index_dtype;
};

Picks pick_kind(Rng& rng, const Capabilities* within) {
  if (!within) {
    const auto op = static_cast<Op>(rng.range(0, static_cast<std::int64_t>(std::size(kOps)) - 1));
    const auto dtype = kDTypes[rng.range(0, 9)];
    const auto reduction = rng.pick(declared_reductions(nullptr, op, dtype));
    return {op, dtype, reduction, rng.chance(0.5) ? DType::int64 : DType::int32};
  }
  const auto op = rng.pick(declared_ops(within));
  const auto dtype = rng.pick(declared_dtypes(within, op));
  const auto reduction = rng.pick(declared_reductions(within, op, dtype));
  return {op, dtype, reduction, rng.pick(within->index_dtypes)};
}

}  // namespace

std::string fuzz_case(std::uint64_t seed, std::int64_t iteration, std::int64_t max_elements,
                      const Capabilities* within, int attempt) {
  Rng rng(seed * 0x100000001B3ull ^ static_cast<std::uint64_t>(iteration) * 0x9E3779B97F4A7C15ull ^
          static_cast<std::uint64_t>(attempt) * 0xD1B54A32D192ED03ull);
  const auto budget = std::max<std::int64_t>(1, max_elements);
  const auto [op, dtype, reduction, index_dtype] = pick_kind(rng, within);
  static const std::vector<Density> kDensities{Density::spread, Density::spread, Density::dense, Density::one,
                                               Density::two};
  static const std::vector<double> kNegatives{0.0, 0.0, 0.3, 1.0};
  const auto density = rng.pick(kDensities);
  const bool never_negative = op == Op::scatter_update || op == Op::tensor_scatter;
  const auto negatives = never_negative ? 0.0 : rng.pick(kNegatives);
  Draw draw{rng, density, within && !within->negative_indices ? 0.0 : negatives};
  const int max_rank = within ? static_cast<int>(std::clamp<std::int64_t>(within->max_rank, 1, 6)) : 6;
  const int rank = std::max(static_cast<int>(rng.range(1, max_rank)), op == Op::tensor_scatter ? 2 : 1);
  const auto data_shape = random_shape(rng, rank, budget, true);
  const auto r = static_cast<std::size_t>(rank);

  std::string attrs;
  Shape index_shape;
  Shape update_shape;
  std::vector<std::int64_t> idx;
  auto write_axis = [&](int axis) {
    const bool negative = rng.chance(0.3);
    return fmt::format(R"("axis": {}, )", negative ? axis - rank : axis);
  };
  switch (op) {
    case Op::scatter_elements: {
      const int axis = static_cast<int>(rng.range(0, rank - 1));
      const bool init = rng.chance(0.5) || (within && !within->use_init_val_false && reduction != Reduction::none);
      attrs = write_axis(axis) + fmt::format(R"("use_init_val": {}, )", init ? "true" : "false");
      const auto s = data_shape[static_cast<std::size_t>(axis)];
      index_shape = data_shape;
      for (std::size_t d = 0; d < r; ++d) {
        // Non-axis dims no larger than data's; the axis may hold more updates than targets.
        if (static_cast<int>(d) == axis) {
          index_shape[d] = s == 0 ? 0 : rng.range(1, std::max<std::int64_t>(1, std::min<std::int64_t>(2 * s + 2, 12)));
        } else {
          index_shape[d] = data_shape[d] == 0 ? 0 : rng.range(1, data_shape[d]);
        }
      }
      while (numel(index_shape) > budget) {
        auto& big = *std::max_element(index_shape.begin(), index_shape.end());
        big = std::max<std::int64_t>(1, big / 2);
      }
      idx.resize(static_cast<std::size_t>(numel(index_shape)));
      for (auto& v : idx) v = draw.index(s, true);
      update_shape = index_shape;
      break;
    }
    case Op::scatter_nd: {
      const int k = static_cast<int>(rng.range(within && !within->empty_index_tuple ? 1 : 0, rank));
      const int batch_rank = static_cast<int>(rng.range(1, 3)) - 1;  // indices rank q = batch_rank + 1
      const auto slice = numel(Shape(data_shape.begin() + k, data_shape.end()));
      const auto tuples_room = std::max<std::int64_t>(1, budget / std::max<std::int64_t>(1, slice));
      index_shape = random_shape(rng, batch_rank, std::min<std::int64_t>(tuples_room, 64), false);
      index_shape.push_back(k);
      if (std::any_of(data_shape.begin(), data_shape.begin() + k, [](auto d) { return d == 0; })) {
        index_shape = {0, k};  // no valid index exists into an empty dim: no tuples at all
      }
      const auto tuples = numel(Shape(index_shape.begin(), index_shape.end() - 1));
      for (std::int64_t m = 0; m < tuples; ++m) {
        for (int j = 0; j < k; ++j) idx.push_back(draw.index(data_shape[static_cast<std::size_t>(j)], true));
      }
      update_shape = Shape(index_shape.begin(), index_shape.end() - 1);
      update_shape.insert(update_shape.end(), data_shape.begin() + k, data_shape.end());
      break;
    }
    case Op::scatter_update: {
      const int axis = static_cast<int>(rng.range(0, rank - 1));
      attrs = write_axis(axis);
      const auto s = data_shape[static_cast<std::size_t>(axis)];
      const int index_rank = static_cast<int>(rng.range(0, 2));
      const auto outer = numel(Shape(data_shape.begin(), data_shape.begin() + axis));
      const auto inner = numel(Shape(data_shape.begin() + axis + 1, data_shape.end()));
      const auto room = std::max<std::int64_t>(1, budget / std::max<std::int64_t>(1, outer * inner));
      index_shape = random_shape(rng, index_rank, std::min<std::int64_t>(room, 2 * s + 2), false);
      if (s == 0) index_shape = {0};  // no valid index into an empty axis
      idx.resize(static_cast<std::size_t>(numel(index_shape)));
      for (auto& v : idx) v = draw.index(s, false);
      update_shape = Shape(data_shape.begin(), data_shape.begin() + axis);
      update_shape.insert(update_shape.end(), index_shape.begin(), index_shape.end());
      update_shape.insert(update_shape.end(), data_shape.begin() + axis + 1, data_shape.end());
      break;
    }
    case Op::tensor_scatter: {
      const int axis = static_cast<int>(rng.range(1, rank - 1));
      const bool circular = rng.chance(0.5);
      attrs = write_axis(axis) + fmt::format(R"("mode": "{}", )", circular ? "circular" : "linear");
      const auto extent = data_shape[static_cast<std::size_t>(axis)];
      update_shape = data_shape;
      update_shape[static_cast<std::size_t>(axis)] = rng.range(0, extent);
      index_shape = {data_shape[0]};
      // Circular positions may pass the extent (taken modulo it); linear ones leave room for the sequence.
      const auto positions = circular ? 2 * extent + 2 : extent - update_shape[static_cast<std::size_t>(axis)] + 1;
      for (std::int64_t b = 0; b < data_shape[0]; ++b) idx.push_back(rng.range(0, positions - 1));
      break;
    }
  }
  // Free-order float mul is exact only when every factor is +-1; elsewhere values roam.
  const bool unit_updates = reduction == Reduction::mul && is_float(dtype);
  const bool specials = rng.chance(0.3);
  const auto name = fmt::format("fuzz-{}-{}", seed, iteration);
  return fmt::format(
      R"({{"name": "{}", "description": "scatterctl fuzz --seed {} case {}", "tags": ["fuzz"],
  "op": "{}", {}"reduction": "{}",
  "inputs": {{
    "data": {},
    "indices": {},
    "updates": {}
  }}
}}
)",
      name, seed, iteration, to_string(op), attrs, to_string(reduction),
      tensor_json(rng, dtype, data_shape, specials, false), indices_json(index_dtype, index_shape, idx),
      tensor_json(rng, dtype, update_shape, specials, unit_updates));
}

namespace {

// A small tensor's elements in row-major order, as the reports print them: "[1, nan, -0]".
std::string elements_text(const Tensor& t) {
  std::vector<std::string> values;
  for (std::int64_t i = 0; i < t.numel(); ++i) values.push_back(format_element(t, i));
  return fmt::format("[{}]", fmt::join(values, ", "));
}

// `c` with one index spoiled (FuzzOptions::invalid_share): element `draw` % n of the indices set
// to its extent or to -extent - 1, as `draw`'s bit 32 says. nullopt where no index can be
// spoiled (tensor_scatter's write positions, no indices).
std::optional<Case> spoiled(const Case& c, std::uint64_t draw) {
  const auto n = c.indices.numel();
  if (c.attrs.op == Op::tensor_scatter || n == 0) return std::nullopt;
  Case out{c.file, c.name, c.attrs, c.data.clone(), c.indices.clone(), c.updates.clone(), std::nullopt, c.tolerance};
  const auto at = static_cast<std::int64_t>(draw % static_cast<std::uint64_t>(n));
  const auto k = c.indices.rank() == 0 ? 1 : c.indices.shape().back();
  const auto dim = c.attrs.op == Op::scatter_nd ? at % k : c.attrs.axis;
  const auto extent = c.data.shape()[static_cast<std::size_t>(dim)];
  const std::int64_t bad = (draw >> 32) & 1 ? extent : -extent - 1;
  if (c.indices.dtype() == DType::int32) {
    if (bad > INT32_MAX || bad < INT32_MIN) return std::nullopt;
    out.indices.data<std::int32_t>()[at] = static_cast<std::int32_t>(bad);
  } else {
    out.indices.data<std::int64_t>()[at] = bad;
  }
  return out;
}

// Draws per case before one outside a declaration's exclusions is kept (and skipped).
constexpr int kDrawAttempts = 16;

// What the cases are drawn within, in turn: each backend's declaration but the oracle's
// (nullopt: everything the spec allows, for a backend that declares nothing or is unavailable).
// Copies: a backend lost mid-run may drop its own.
std::vector<std::optional<Capabilities>> draw_spaces(const std::vector<Backend*>& backends) {
  std::vector<std::optional<Capabilities>> spaces;
  for (const auto* b : backends) {
    if (b->traits().role == BackendRole::oracle) continue;
    const auto* caps = b->availability().available ? b->capabilities() : nullptr;
    spaces.push_back(caps && declares_any_case(*caps) ? std::optional<Capabilities>(*caps) : std::nullopt);
  }
  if (spaces.empty()) spaces.emplace_back();
  return spaces;
}

}  // namespace

void group_by_cause(FuzzSummary& summary) {
  std::map<std::string, int> first;
  for (const auto& f : summary.failures) ++first[fuzz_group(f)];
  for (auto& f : summary.failures) {
    for (auto& other : f.also) {
      if (first[other] <= first[f.cause]) continue;
      std::swap(f.cause, other);
      f.confirmed.clear();  // the confirmation was the first name's
    }
    ++summary.causes[fuzz_group(f)];
  }
}

std::string fuzz_group(const FuzzFailure& f) {
  if (f.status == Status::error) return "error";
  return f.cause.empty() ? "none known" : f.cause;
}

FuzzSummary run_fuzz(const FuzzOptions& options, const std::vector<Backend*>& backends,
                     const std::function<void(const std::string&)>& progress) {
  FuzzSummary summary;
  LoadOptions load_options;
  load_options.max_bytes = default_max_bytes();
  // A case file in --out: STEM.json, where the caller's STEM names the drawn case by its own
  // text (and a minimal case by its backend too), so that no other backend's, seed's or run's
  // case takes its name; a file of other content there already is left as it is and the next
  // free STEM-2... taken. A file that cannot be written is said and the run goes on: "" for its
  // path, the reason in summary.unwritten.
  auto write_case = [&](const std::string& stem, const std::string& text) -> std::string {
    try {
      std::filesystem::create_directories(options.out_dir);
      for (int n = 1; n <= 100; ++n) {
        const auto path =
            (std::filesystem::path(options.out_dir) / (n == 1 ? stem + ".json" : fmt::format("{}-{}.json", stem, n)))
                .string();
        if (identity_of(path) && read_file_text(path) != text) continue;
        write_file_atomically(path, text);
        return path;
      }
      throw Error(ErrorCode::io, "", fmt::format("100 files named {}-N.json are there already", stem));
    } catch (const Error& e) {
      summary.unwritten.push_back(fmt::format("{}: {}", stem, e.message()));
    } catch (const std::filesystem::filesystem_error& e) {
      summary.unwritten.push_back(fmt::format("{}: {}", stem, e.code().message()));
    }
    progress(fmt::format("cannot write the case file {}: {}", stem, summary.unwritten.back()));
    return "";
  };
  const auto stem_of = [](const std::string& name, const std::string& text) {
    return fmt::format("{}-{:08x}", name, detail::fnv1a(text) & 0xffffffffu);
  };
  auto write_failure = [&](const std::string& name, const std::string& text) {
    summary.written.push_back(write_case(stem_of(name, text), text));
    return summary.written.back();
  };
  // Scatterctl's own backends are held to the exact rule, external ones to the spec's.
  TrialOptions trial;
  trial.flags = options.flags;
  trial.expectations = options.expectations;
  trial.exact_builtins = true;
  auto fail = [&](const std::string& name, const std::string& text, const Backend& backend, const std::string& why) {
    const auto path = write_failure(name, text);
    progress(fmt::format("FAIL {} on {}: {} -> {}", name, backend.label(), why, path.empty() ? "(not written)" : path));
  };
  // A failing trial kept, grouped by cause, and shrunk to its minimal case.
  auto keep_failure = [&](const std::string& name, const std::string& text, const Case& c, Backend& backend,
                          const Trial& t, bool invalid) {
    FuzzFailure f;
    f.name = name;
    f.backend = std::string(backend.label());
    f.status = t.status;
    f.cause = t.cause ? t.cause->name : "";
    if (t.cause) f.also = t.cause->also;
    if (t.cause) f.confirmed = t.cause->confirmed;
    f.detail = one_line(t);
    f.case_file = summary.written.back();
    f.elements = case_elements(c);
    // Kept before the shrink: an interrupt there loses the shrink, never the failure.
    summary.failures.push_back(f);
    if (options.shrink_seconds > 0) {
      ShrinkOptions shrink;
      shrink.trial = trial;
      shrink.trial.keep_failed_output = true;  // the minimal case's output, for the report (moved, never copied)
      shrink.max_seconds = options.shrink_seconds;
      shrink.invalid_indices = invalid;
      const auto shrunk = shrink_case(c, name, backend, shrink);
      auto& f = summary.failures.back();
      if (shrunk.fails && shrunk.minimal && shrunk.confirmed) {
        f.minimal_file = write_case(
            safe_file_name(fmt::format("{}@{}", stem_of(name, text), backend.label())) + ".min", shrunk.minimal_json);
        f.minimal_elements = case_elements(*shrunk.minimal);
        f.minimal_data = shrunk.minimal->data.numel();
        f.minimal_updates = shrunk.minimal->updates.numel();
        f.shrink_seconds = shrunk.seconds;
        f.shrink_stopped = shrunk.stopped;
        if (const auto& got = shrunk.final_trial().output; got && got->numel() <= FuzzFailure::kShownElements) {
          const auto& minimal = *shrunk.minimal;
          f.minimal_output = elements_text(*got);
          f.minimal_want = elements_text(minimal.expected ? minimal.expected->clone() : reference_scatter(minimal));
        }
        progress(fmt::format("     shrunk to data {} and {} update(s) in {} calls, {:.2f} s -> {}",
                             format_shape(shrunk.minimal->data.shape()), f.minimal_updates, shrunk.calls, shrunk.seconds,
                             f.minimal_file));
      }
    }
  };
  const auto spaces = draw_spaces(backends);
  // An interrupt ends the loops wherever it lands; what was found is grouped and reported.
  try {
    for (std::int64_t i = options.first; i < options.first + options.iterations; ++i) {
      if (interrupted()) throw Error(ErrorCode::interrupted, "", "interrupted");
      const auto& space = spaces[static_cast<std::size_t>(i) % spaces.size()];
      const Capabilities* within = space ? &*space : nullptr;
      const auto name = fmt::format("fuzz-{}-{}", options.seed, i);
      ++summary.cases;
      std::string text;
      std::optional<Case> c;
      try {
        // Redrawn (a few times at most) while outside the declaration's exclusions and features.
        for (int attempt = 0; attempt < kDrawAttempts; ++attempt) {
          text = fuzz_case(options.seed, i, options.max_elements, within, attempt);
          const auto loaded = load_text(text, name + ".json", load_options);
          if (!loaded.file_errors.empty()) throw loaded.file_errors.front();
          const auto& entry = loaded.cases.front();
          if (!entry.decl) throw *entry.error;
          c = materialize(*entry.decl);
          if (!within || !unsupported_reason(*within, *c, features_of(*c))) break;
        }
      } catch (const Error& e) {
        // The generator made an invalid case: a bug in the fuzzer or in validation.
        summary.add(Status::failed, false, "-", "");
        const auto path = write_failure(name, text);
        progress(fmt::format("FAIL {} (invalid: [{}] {}) -> {}", name, to_string(e.code()), e.message(), path));
        continue;
      }
      // A share of the drawn cases spoiled in one index, by a draw of their own.
      const auto draw = detail::fnv1a(fmt::format("invalid {} {}", options.seed, i));
      const bool invalid = options.invalid_share > 0 &&
                           static_cast<double>(draw % 1000000) < options.invalid_share * 1000000.0;
      bool expect_index_error = false;
      if (invalid) {
        if (auto bad = spoiled(*c, draw >> 20)) {
          text = case_json(*bad, name, "fuzz: a drawn case with one index out of range (--invalid-share)", ErrorCode::index);
          c = std::move(bad);
          expect_index_error = true;
        }
      }
      const CaseFacts facts(*c);
      for (auto* backend : backends) {
        if (interrupted()) throw Error(ErrorCode::interrupted, "", "interrupted");
        const auto t = expect_index_error ? try_invalid_case(*backend, facts, ErrorCode::index, trial)
                                          : try_case(*backend, facts, trial);
        if (t.status != Status::skipped) ++summary.ran_on[std::string(backend->label())];
        if (summary.add(t.status, t.strict, backend->label(), t.status == Status::xfail ? t.expectation : t.detail)) {
          fail(name, text, *backend, t.status == Status::xpass ? t.detail : one_line(t));
          if (t.status != Status::xpass) keep_failure(name, text, *c, *backend, t, expect_index_error);
        }
        // A backend lost mid-run (a sticky device fault) is said once, so that one fault
        // is one line, not one per remaining case.
        if (t.status == Status::skipped) {
          if (const auto a = backend->availability(); !a.available) {
            if (summary.lost.emplace(std::string(backend->label()), a.reason).second) {
              progress(fmt::format("{} is unavailable for the rest of the run: {}", backend->label(), a.reason));
            }
          }
        }
      }
      if (summary.cases % 500 == 0) {
        progress(fmt::format("{} of {} cases, {} failures", summary.cases, options.iterations, summary.failed));
      }
    }
  } catch (const Error& e) {
    if (e.code() != ErrorCode::interrupted) throw;
    summary.interrupted = true;
  }
  group_by_cause(summary);
  return summary;
}

}  // namespace scatter
