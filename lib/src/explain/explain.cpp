// `scatterctl explain`: the reference's own loop, narrated through its hook, one line
// per update run.

#include "scatter/explain.hpp"

#include <ostream>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "core/scatter_loop.hpp"
#include "scatter/backend.hpp"

namespace scatter {
namespace {

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
    case Op::tensor_scatter: {
      const auto batch = c.updates.numel() == 0 ? 0 : unravel(u, c.updates.shape())[0];
      return fmt::format("write position indices[{}] = {}", batch, index_at(ind, batch));
    }
  }
  return "";
}

std::size_t slice_rank(const Case& c) {
  const auto r = static_cast<std::size_t>(c.data.rank());
  if (c.attrs.op == Op::scatter_nd) return r - static_cast<std::size_t>(c.indices.shape().back());
  if (c.attrs.op == Op::scatter_update || c.attrs.op == Op::tensor_scatter) {
    return r - static_cast<std::size_t>(c.attrs.axis) - 1;
  }
  return 0;
}

// The reference's loop (scatter_loop.hpp), watched: one line per update run, one per mean.
template <class T>
class Narrator : public detail::NoHook {
 public:
  Narrator(const Case& c, Tensor& result, std::ostream& out, const ExplainOptions& options, std::int64_t runs)
      : c_(c), result_(result), out_(out), options_(options), runs_(runs), tail_(slice_rank(c)) {}

  void start_from(T identity) {
    Tensor id(c_.data.dtype(), {1});
    id.data<T>()[0] = identity;
    out_ << fmt::format("every targeted element starts from {} (use_init_val = false)\n", format_element(id, 0));
  }
  void before_run(std::int64_t, std::int64_t oi, std::int64_t len) {
    if (shown_ == 0 && runs_ > options_.limit) {
      out_ << fmt::format("(the first {} of {} are shown; --limit N for more)\n", options_.limit, runs_);
    }
    print_ = shown_++ < options_.limit;
    if (print_) before_ = len == 1 ? format_element(result_, oi) : run_values(result_, oi, len);
  }
  void after_run(std::int64_t ui, std::int64_t oi, std::int64_t len) {
    if (!print_) return;
    const auto& dshape = c_.data.shape();
    const auto& ushape = c_.updates.shape();
    const auto target = tail_ == 0 ? format_coord(unravel(oi, dshape)) : slice_coord(oi, dshape, tail_);
    const auto source = tail_ == 0 ? format_coord(unravel(ui, ushape)) : slice_coord(ui, ushape, tail_);
    const auto value = len == 1 ? format_element(c_.updates, ui) : run_values(c_.updates, ui, len);
    const auto after = len == 1 ? format_element(result_, oi) : run_values(result_, oi, len);
    out_ << fmt::format("{} -> output{} = f({}, updates{} = {}) = {}\n", index_text(c_, ui, len), target, before_,
                        source, value, after);
  }
  void before_mean(std::int64_t oi, std::int64_t count) {
    sum_ = format_element(result_, oi);
    count_ = count;
  }
  void after_mean(std::int64_t oi) {
    if (means_++ >= options_.limit) return;
    out_ << fmt::format("mean: output{} = {} / {} = {}\n", format_coord(unravel(oi, c_.data.shape())), sum_, count_,
                        format_element(result_, oi));
  }

 private:
  const Case& c_;
  Tensor& result_;
  std::ostream& out_;
  const ExplainOptions& options_;
  std::int64_t runs_;
  std::size_t tail_;
  std::int64_t shown_ = 0;
  std::int64_t means_ = 0;
  bool print_ = false;
  std::string before_;
  std::string sum_;
  std::int64_t count_ = 0;
};

template <class T>
void narrate(const Case& c, std::ostream& out, const ExplainOptions& options) {
  const auto reduction = c.attrs.reduction;
  const auto idx = detail::normalized_indices(c);
  const bool fresh = !c.attrs.use_init_val && reduction != Reduction::none;
  std::int64_t runs = 0;
  detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t, std::int64_t) { ++runs; });
  out << fmt::format("{} ({}), reduction {}{}: {} update {}\n", c.name, to_string(c.attrs.op), to_string(reduction),
                     fresh ? ", use_init_val = false" : "", runs, slice_rank(c) == 0 ? "elements" : "slices");
  out << fmt::format("f(out, u) = {}\n", info_of(reduction).formula);

  Tensor result = c.data.clone();
  detail::scatter_loop<T>(c, idx, result, Narrator<T>(c, result, out, options, runs));
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
