// `scatterctl explain`: the reference's loop again, narrated. It applies the same
// functors in the same order as the reference, one line per update run.

#include "scatter/explain.hpp"

#include <ostream>

#include <fmt/format.h>

#include "dispatch.hpp"
#include "ref/reduce.hpp"
#include "scatter/backend.hpp"
#include "targets.hpp"

namespace scatter {
namespace {

using detail::Combine;

// A slice's coordinate: the leading coordinates of `offset`, ':' for the last `tail` dims.
std::string slice_coord(std::int64_t offset, const Shape& shape, std::size_t tail) {
  auto coord = unravel(offset, shape);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < coord.size(); ++i) {
    parts.push_back(i + tail >= coord.size() ? ":" : fmt::format("{}", coord[i]));
  }
  return fmt::format("[{}]", fmt::join(parts, ","));
}

// Up to 8 elements of a run: "[1, 2, 3, ...]".
std::string run_values(const Tensor& t, std::int64_t start, std::int64_t len) {
  std::vector<std::string> parts;
  for (std::int64_t j = 0; j < len && j < 8; ++j) parts.push_back(format_element(t, start + j));
  if (len > 8) parts.push_back(fmt::format("... ({} in all)", len));
  return fmt::format("[{}]", fmt::join(parts, ", "));
}

// "indices[0,1] = [1,0,3,2]": the index (tuple) behind the run that starts at update u.
std::string index_text(const Case& c, std::int64_t u, std::int64_t len) {
  const auto& ind = c.indices;
  switch (c.attrs.op) {
    case Op::scatter_elements:
      return fmt::format("indices{} = {}", format_coord(unravel(u, ind.shape())), index_at(ind, u));
    case Op::scatter_nd: {
      const auto k = ind.shape().back();
      const auto m = len == 0 ? 0 : u / len;
      std::vector<std::int64_t> tuple;
      for (std::int64_t j = 0; j < k; ++j) tuple.push_back(index_at(ind, m * k + j));
      const Shape lead(ind.shape().begin(), ind.shape().end() - 1);
      return fmt::format("indices{} = {}", format_coord(unravel(m, lead)), format_coord(tuple));
    }
    case Op::scatter_update: {
      const auto i = (len == 0 ? 0 : u / len) % std::max<std::int64_t>(ind.numel(), 1);
      return fmt::format("indices{} = {}", format_coord(unravel(i, ind.shape())), index_at(ind, i));
    }
  }
  return "";
}

std::size_t slice_rank(const Case& c) {
  const auto r = static_cast<std::size_t>(c.data.rank());
  if (c.attrs.op == Op::scatter_nd) return r - static_cast<std::size_t>(c.indices.shape().back());
  if (c.attrs.op == Op::scatter_update) return r - static_cast<std::size_t>(c.attrs.axis) - 1;
  return 0;
}

template <class T>
void narrate(const Case& c, std::ostream& out, const ExplainOptions& options) {
  Tensor result = c.data.clone();
  T* o = result.data<T>();
  const T* u = c.updates.data<T>();
  const Combine<T> combine{c.attrs.reduction};
  const auto reduction = c.attrs.reduction;
  const auto idx = detail::normalized_indices(c);
  const auto tail = slice_rank(c);
  const bool fresh = !c.attrs.use_init_val && reduction != Reduction::none;
  std::vector<std::int64_t> count;
  if (reduction == Reduction::mean) count.assign(static_cast<std::size_t>(result.numel()), 0);

  std::int64_t runs = 0;
  detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t, std::int64_t) { ++runs; });
  out << fmt::format("{} ({}), reduction {}{}: {} update {}\n", c.name, to_string(c.attrs.op), to_string(reduction),
                     fresh ? ", use_init_val = false" : "", runs, tail == 0 ? "elements" : "slices");
  out << fmt::format("f(out, u) = {}\n", reduction == Reduction::none  ? "u"
                                         : reduction == Reduction::add ? "out + u"
                                         : reduction == Reduction::sub ? "out - u"
                                         : reduction == Reduction::mul ? "out * u"
                                         : reduction == Reduction::min ? "min(out, u)"
                                         : reduction == Reduction::max ? "max(out, u)"
                                                                       : "out + u (a sum; divided by the count at the end)");
  if (fresh) {
    T id = combine.identity();
    Tensor id_t(c.data.dtype(), {1});
    id_t.data<T>()[0] = id;
    out << fmt::format("every targeted element starts from {} (use_init_val = false)\n", format_element(id_t, 0));
    detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t oi, std::int64_t len) { std::fill(o + oi, o + oi + len, id); });
  }
  if (runs > options.limit) out << fmt::format("(the first {} of {} are shown; --limit N for more)\n", options.limit, runs);

  std::int64_t shown = 0;
  detail::visit_targets(c, idx, [&](std::int64_t ui, std::int64_t oi, std::int64_t len) {
    const bool print = shown++ < options.limit;
    std::string before;
    if (print) before = len == 1 ? format_element(result, oi) : run_values(result, oi, len);
    for (std::int64_t j = 0; j < len; ++j) {
      o[oi + j] = reduction == Reduction::none ? u[ui + j] : combine.apply(o[oi + j], u[ui + j]);
      if (!count.empty()) ++count[oi + j];
    }
    if (!print) return;
    const auto target = tail == 0 ? format_coord(unravel(oi, c.data.shape())) : slice_coord(oi, c.data.shape(), tail);
    const auto source = tail == 0 ? format_coord(unravel(ui, c.updates.shape())) : slice_coord(ui, c.updates.shape(), tail);
    const auto value = len == 1 ? format_element(c.updates, ui) : run_values(c.updates, ui, len);
    const auto after = len == 1 ? format_element(result, oi) : run_values(result, oi, len);
    out << fmt::format("{} -> output{} = f({}, updates{} = {}) = {}\n", index_text(c, ui, len), target, before, source,
                       value, after);
  });
  if constexpr (!std::is_same_v<T, detail::Bool>) {
   if (!count.empty()) {
    const std::int64_t init = c.attrs.use_init_val ? 1 : 0;
    std::int64_t printed = 0;
    for (std::int64_t i = 0; i < result.numel(); ++i) {
      if (count[i] == 0) continue;
      const auto sum = format_element(result, i);
      o[i] = detail::mean_of(o[i], count[i] + init);
      if (printed++ < options.limit) {
        out << fmt::format("mean: output{} = {} / {} = {}\n", format_coord(unravel(i, c.data.shape())), sum,
                           count[i] + init, format_element(result, i));
      }
    }
   }
  }
  if (result.numel() <= options.max_printed) {
    out << "output = " << format_tensor(result) << "\n";
  } else {
    out << fmt::format("output: {} elements, not printed\n", result.numel());
  }
}

void nested(const Tensor& t, std::size_t dim, std::int64_t& next, std::string& out) {
  if (dim == t.shape().size()) {
    out += format_element(t, next++);
    return;
  }
  out += '[';
  for (std::int64_t i = 0; i < t.shape()[dim]; ++i) {
    if (i > 0) out += ", ";
    nested(t, dim + 1, next, out);
  }
  out += ']';
}

}  // namespace

std::string format_tensor(const Tensor& t) {
  std::string out;
  std::int64_t next = 0;
  nested(t, 0, next, out);
  return out;
}

void explain(const Case& c, std::ostream& out, const ExplainOptions& options) {
  detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    narrate<T>(c, out, options);
  });
}

}  // namespace scatter
