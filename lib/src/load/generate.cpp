// The spec's generators: arange, fill, uniform, randint and indices, all drawing from
// SplitMix64 in row-major order so any implementation can reproduce the tensors.

#include <cmath>
#include <algorithm>
#include <exception>
#include <limits>
#include <numeric>
#include <thread>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/dispatch.hpp"
#include "detail.hpp"
#include "scatter/cancel.hpp"

namespace scatter {

std::uint64_t SplitMix64::next() {
  state_ += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace detail {
namespace {

// (draw >> 11) * 2^-53: a double in [0, 1).
double unit(std::uint64_t draw) { return static_cast<double>(draw >> 11) * 0x1.0p-53; }

// Runs body(begin, end) over [0, n) in contiguous chunks, one thread each, up to the
// machine's threads, with at least 2^20 elements a chunk (one chunk, on this thread,
// below 2^21). Each chunk goes in row-major order and stops at its first error; the
// error of the lowest chunk that has one is rethrown, so it names the first bad element,
// as one loop would. The tensors are the same bits for any number of threads: every
// draw is SplitMix64's at its own position (SplitMix64::skip). Each thread gets the
// case's deadline, which is thread-local.
template <class Body>
void in_chunks(std::int64_t n, const Body& body) {
  constexpr std::int64_t kMinChunk = std::int64_t{1} << 20;
  const auto cores = static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
  const std::int64_t chunks = std::clamp<std::int64_t>(n / kMinChunk, 1, cores);
  if (chunks == 1) {
    body(std::int64_t{0}, n);
    return;
  }
  const auto deadline = case_seconds_left();
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(chunks));
  {
    // jthread: the threads already started are joined even if starting one more throws.
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(chunks));
    for (std::int64_t c = 0; c < chunks; ++c) {
      threads.emplace_back([&, c] {
        set_case_deadline(deadline);
        try {
          body(n / chunks * c + std::min(c, n % chunks), n / chunks * (c + 1) + std::min(c + 1, n % chunks));
        } catch (...) {
          errors[static_cast<std::size_t>(c)] = std::current_exception();
        }
      });
    }
  }
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

// The generator's stream, moved to draw `at`.
SplitMix64 stream_at(std::uint64_t seed, std::int64_t at) {
  SplitMix64 rng(seed);
  rng.skip(static_cast<std::uint64_t>(at));
  return rng;
}

std::int64_t integral(const Scalar& s, const std::string& field) {
  if (s.kind == Scalar::Kind::integer) return s.integer;
  if (s.kind == Scalar::Kind::real && std::isfinite(s.real) && std::floor(s.real) == s.real &&
      std::fabs(s.real) <= 9007199254740992.0) {
    return static_cast<std::int64_t>(s.real);
  }
  throw Error(ErrorCode::values, field,
              fmt::format("= {} must be an integer for this generator and dtype", s.as_double()));
}

// Integer range of an integer or bool dtype.
std::pair<std::int64_t, std::int64_t> int_range(DType dtype) {
  return dispatch(dtype, [](auto tag) -> std::pair<std::int64_t, std::int64_t> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Bool>) {
      return {0, 1};
    } else if constexpr (kIsInt<T>) {
      return {static_cast<std::int64_t>(std::numeric_limits<T>::lowest()),
              static_cast<std::int64_t>(std::numeric_limits<T>::max())};
    } else {
      return {0, 0};
    }
  });
}

// Stores element i from an int64 (integer dtypes, range already checked) or a double.
template <class T>
void put_int(Tensor& out, std::int64_t i, std::int64_t v) {
  if constexpr (std::is_same_v<T, Bool>) {
    out.data<Bool>()[i].value = static_cast<std::uint8_t>(v);
  } else if constexpr (kIsFloat<T>) {
    out.data<T>()[i] = narrow_float<T>(static_cast<double>(v));
  } else {
    out.data<T>()[i] = static_cast<T>(v);
  }
}

[[noreturn]] void out_of_range(const std::string& field, std::int64_t i, const std::string& value, DType dtype) {
  if (is_float(dtype)) {
    throw Error(ErrorCode::values, field,
                fmt::format("element {} = {} overflows dtype {} (largest finite {})", i, value, to_string(dtype),
                            max_finite(dtype)));
  }
  const auto [lo, hi] = int_range(dtype);
  throw Error(ErrorCode::values, field,
              fmt::format("element {} = {} is out of range [{}, {}] for dtype {}", i, value, lo, hi, to_string(dtype)));
}

void check_int(std::int64_t v, DType dtype, const std::string& field, std::int64_t i) {
  const auto [lo, hi] = int_range(dtype);
  if (v < lo || v > hi) out_of_range(field, i, fmt::format("{}", v), dtype);
}

template <class T>
void put_float_checked(Tensor& out, std::int64_t i, double v, const std::string& field) {
  const T stored = narrow_float<T>(v);
  if (std::isinf(widen(stored)) && std::isfinite(v)) out_of_range(field, i, fmt::format("{}", v), out.dtype());
  out.data<T>()[i] = stored;
}

void arange(const Generator& g, Tensor& out, const std::string& field) {
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      const double start = g.start.as_double();
      const double step = g.step.as_double();
      in_chunks(out.numel(), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();
          put_float_checked<T>(out, i, start + static_cast<double>(i) * step, field);
        }
      });
    } else {
      const auto start = integral(g.start, field + ".start");
      const auto step = integral(g.step, field + ".step");
      in_chunks(out.numel(), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          std::int64_t v = 0;
          if (__builtin_mul_overflow(i, step, &v) || __builtin_add_overflow(start, v, &v)) {
            throw Error(ErrorCode::values, field,
                        fmt::format("element {} = {} + {} * {} overflows int64", i, start, i, step));
          }
          check_int(v, out.dtype(), field, i);
          put_int<T>(out, i, v);
        }
      });
    }
  });
}

void fill(const Generator& g, Tensor& out, const std::string& field) {
  if (out.numel() == 0) return;
  store_scalar(g.value, out, 0, field + ".value");
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::fill(out.data<T>() + 1, out.data<T>() + out.numel(), out.data<T>()[0]);
  });
}

void uniform(const Generator& g, Tensor& out, const std::string& field) {
  const double low = g.low.as_double();
  const double high = g.high.as_double();
  if (!std::isfinite(low) || !std::isfinite(high)) {
    throw Error(ErrorCode::values, field, fmt::format("low = {} and high = {} must be finite", low, high));
  }
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const auto range = int_range(out.dtype());  // not a structured binding: clang cannot capture one
    const auto lo = range.first;
    const auto hi = range.second;
    in_chunks(out.numel(), [&](std::int64_t begin, std::int64_t end) {
      auto rng = stream_at(g.seed, begin);
      for (std::int64_t i = begin; i < end; ++i) {
        if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();
        const double v = low + (high - low) * unit(rng.next());
        if constexpr (kIsFloat<T>) {
          put_float_checked<T>(out, i, v, field);
        } else {
          const double f = std::floor(v);
          if (f < static_cast<double>(lo) || f > static_cast<double>(hi)) {
            out_of_range(field, i, fmt::format("{}", f), out.dtype());
          }
          put_int<T>(out, i, static_cast<std::int64_t>(f));
        }
      }
    });
  });
}

void randint(const Generator& g, Tensor& out, const std::string& field) {
  const auto low = integral(g.low, field + ".low");
  const auto high = integral(g.high, field + ".high");
  if (high <= low) {
    throw Error(ErrorCode::values, field, fmt::format("randint needs high > low, got low = {}, high = {}", low, high));
  }
  if (is_integer(out.dtype()) || out.dtype() == DType::boolean) {
    check_int(low, out.dtype(), field + ".low", 0);
    check_int(high - 1, out.dtype(), field + ".high - 1", 0);
  }
  const auto span = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  dispatch(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    in_chunks(out.numel(), [&](std::int64_t begin, std::int64_t end) {
      auto rng = stream_at(g.seed, begin);
      for (std::int64_t i = begin; i < end; ++i) {
        if ((i & 0xFFFFF) == 0xFFFFF) poll_cancel();
        const auto v = static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + rng.next() % span);
        put_int<T>(out, i, v);
      }
    });
  });
}

// Partial Fisher-Yates of m from [0, n): for j < m, r = j + draw mod (n - j), swap.
// A sparse map stands in for the array when n dwarfs m; both give the same draws.
void partial_fisher_yates(std::int64_t n, std::int64_t m, SplitMix64& rng, std::vector<std::int64_t>& out) {
  out.resize(static_cast<std::size_t>(m));
  if (n <= 4 * m + 1024) {
    std::vector<std::int64_t> a(static_cast<std::size_t>(n));
    std::iota(a.begin(), a.end(), 0);
    for (std::int64_t j = 0; j < m; ++j) {
      const auto r = j + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(n - j));
      std::swap(a[j], a[r]);
      out[j] = a[j];
    }
    return;
  }
  std::unordered_map<std::int64_t, std::int64_t> moved;
  auto at = [&](std::int64_t k) {
    auto it = moved.find(k);
    return it == moved.end() ? k : it->second;
  };
  for (std::int64_t j = 0; j < m; ++j) {
    const auto r = j + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(n - j));
    const auto aj = at(j);
    const auto ar = at(r);
    moved[j] = ar;
    moved[r] = aj;
    out[j] = ar;
  }
}

// Zipf over n targets: the r-th hottest (r from 0) has weight (r + 1)^-alpha. Exact for the
// hottest kZipfHead ranks (a table of cumulative weights), a continuous power law for the rest
// (the sum's midpoint integral): one draw per value, so the stream still splits into chunks.
// Ranks are spread over the targets by r * m mod n (m odd, coprime to n): the hot rows are
// not neighbours, as a vocabulary's or a graph's are not.
class ZipfTargets {
 public:
  static constexpr std::int64_t kZipfHead = 1 << 16;

  ZipfTargets(std::int64_t n, double alpha) : n_(n), alpha_(alpha) {
    const auto head = std::min(n, kZipfHead);
    cumulative_.resize(static_cast<std::size_t>(head));
    double sum = 0.0;
    for (std::int64_t r = 0; r < head; ++r) cumulative_[r] = sum += std::pow(static_cast<double>(r + 1), -alpha);
    tail_from_ = static_cast<double>(head) + 0.5;
    tail_to_ = static_cast<double>(n) + 0.5;
    total_ = sum + (head < n ? antiderivative(tail_to_) - antiderivative(tail_from_) : 0.0);
    multiplier_ = 0x9E3779B97F4A7C15ull;  // odd
    while (std::gcd(multiplier_, static_cast<std::uint64_t>(n)) != 1) multiplier_ += 2;
  }

  std::int64_t operator()(double u) const {
    const double w = u * total_;
    std::int64_t rank;
    if (w < cumulative_.back()) {
      rank = std::upper_bound(cumulative_.begin(), cumulative_.end(), w) - cumulative_.begin();
    } else {
      // Solve F(x) = F(tail_from) + (w - head mass) for x, F the antiderivative of x^-alpha.
      const double x = inverse(antiderivative(tail_from_) + (w - cumulative_.back()));
      rank = static_cast<std::int64_t>(std::floor(x + 0.5)) - 1;
    }
    rank = std::clamp<std::int64_t>(rank, 0, n_ - 1);
    return static_cast<std::int64_t>(static_cast<unsigned __int128>(rank) * multiplier_ % static_cast<std::uint64_t>(n_));
  }

 private:
  bool log_form() const { return std::fabs(alpha_ - 1.0) < 1e-12; }
  double antiderivative(double x) const {
    return log_form() ? std::log(x) : std::pow(x, 1.0 - alpha_) / (1.0 - alpha_);
  }
  double inverse(double f) const { return log_form() ? std::exp(f) : std::pow(f * (1.0 - alpha_), 1.0 / (1.0 - alpha_)); }

  std::int64_t n_;
  double alpha_;
  std::vector<double> cumulative_;
  double tail_from_ = 0.0;
  double tail_to_ = 0.0;
  double total_ = 0.0;
  std::uint64_t multiplier_ = 1;
};

// m values over [0, n) hitting every value m / n times, give or take one, in random order: a
// partial Fisher-Yates of [0, n) when m <= n (each at most once), else a full one of the
// sequence j mod n.
void balanced_draw(std::int64_t n, std::int64_t m, SplitMix64& rng, std::vector<std::int64_t>& out) {
  if (m <= n) {
    partial_fisher_yates(n, m, rng, out);
    return;
  }
  out.resize(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j) out[j] = j % n;
  for (std::int64_t j = 0; j + 1 < m; ++j) {
    const auto r = j + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(m - j));
    std::swap(out[j], out[r]);
  }
}

// The values of a zipf or balanced `indices` generator, into v (the indices' row-major
// elements); returns the draws taken. scatter_nd draws positions of data.shape[:k], one a
// tuple; scatter_elements draws along the axis, balanced per line (line L's draws start at L*m);
// scatter_update draws along the axis.
std::int64_t skewed_indices(const Generator& g, const CaseDecl& d, const Shape& shape, std::vector<std::int64_t>& v) {
  const auto n = static_cast<std::int64_t>(v.size());
  const bool nd = d.attrs.op == Op::scatter_nd;
  const auto k = nd ? shape.back() : 1;
  const Shape prefix = nd ? Shape(d.data.shape.begin(), d.data.shape.begin() + k)
                          : Shape{d.data.shape[static_cast<std::size_t>(d.attrs.axis)]};
  const auto targets = numel(prefix);
  const auto values = k == 0 ? 0 : n / k;  // tuples, or index elements
  std::vector<std::int64_t> drawn(static_cast<std::size_t>(values));
  std::int64_t draws = values;
  if (g.distribution == Generator::Distribution::zipf) {
    const ZipfTargets zipf(targets, g.alpha);
    in_chunks(values, [&](std::int64_t begin, std::int64_t end) {
      auto rng = stream_at(g.seed, begin);
      for (std::int64_t t = begin; t < end; ++t) drawn[t] = zipf(unit(rng.next()));
    });
  } else if (d.attrs.op == Op::scatter_elements && !shape.empty()) {
    // Balanced along each line: every target of the line hit m / extent times.
    const auto axis = static_cast<std::size_t>(d.attrs.axis);
    const auto m = shape[axis];
    const auto stride = strides_of(shape)[axis];
    const auto lines = m == 0 ? 0 : n / m;
    in_chunks(lines, [&](std::int64_t begin, std::int64_t end) {
      std::vector<std::int64_t> line_values;
      for (std::int64_t line = begin; line < end; ++line) {
        auto rng = stream_at(g.seed, line * m);
        balanced_draw(targets, m, rng, line_values);
        const auto base = line / stride * m * stride + line % stride;
        for (std::int64_t j = 0; j < m; ++j) drawn[base + j * stride] = line_values[j];
      }
    });
  } else {
    SplitMix64 rng(g.seed);
    balanced_draw(targets, values, rng, drawn);
  }
  for (std::int64_t t = 0; t < values; ++t) {
    if (!nd) {
      v[t] = drawn[t];
      continue;
    }
    const auto coord = unravel(drawn[t], prefix);
    for (std::int64_t j = 0; j < k; ++j) v[t * k + j] = coord[j];
  }
  return draws;
}

void need_unique(std::int64_t n, std::int64_t m, const std::string& field, const std::string& what);

// broadcast (scatter_elements): one value per coordinate along the axis, drawn as a 1-d
// scatter_update's indices would be (uniform, unique, zipf or balanced over the axis' extent),
// then the same across the other dimensions. Returns the draws taken.
std::int64_t broadcast_indices(const Generator& g, const CaseDecl& d, const Shape& shape, std::vector<std::int64_t>& v,
                               const std::string& field) {
  if (d.attrs.op != Op::scatter_elements) {
    throw Error(ErrorCode::values, field + ".broadcast",
                fmt::format("is for scatter_elements (an index the same along every dimension but the axis), not {}",
                            to_string(d.attrs.op)));
  }
  const auto axis = static_cast<std::size_t>(d.attrs.axis);
  const auto m = shape[axis];
  const auto extent = d.data.shape[axis];
  std::vector<std::int64_t> line(static_cast<std::size_t>(m));
  SplitMix64 rng(g.seed);
  if (g.unique) {
    need_unique(extent, m, field, fmt::format("along data.shape[{}] = {}", axis, extent));
    partial_fisher_yates(extent, m, rng, line);
  } else if (g.distribution == Generator::Distribution::balanced) {
    balanced_draw(extent, m, rng, line);
  } else if (g.distribution == Generator::Distribution::zipf) {
    const ZipfTargets zipf(extent, g.alpha);
    for (auto& x : line) x = zipf(unit(rng.next()));
  } else {
    for (auto& x : line) x = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(extent));
  }
  const auto stride = strides_of(shape)[axis];
  in_chunks(static_cast<std::int64_t>(v.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) v[i] = line[static_cast<std::size_t>(i / stride % m)];
  });
  return m;
}

void need_unique(std::int64_t n, std::int64_t m, const std::string& field, const std::string& what) {
  if (m > n) {
    throw Error(ErrorCode::values, field,
                fmt::format("unique indices: {} values asked from {} {}", m, n, what));
  }
}

void store_index(Tensor& out, std::int64_t i, std::int64_t v, const std::string& field) {
  check_int(v, out.dtype(), field, i);
  if (out.dtype() == DType::int32) {
    out.data<std::int32_t>()[i] = static_cast<std::int32_t>(v);
  } else {
    out.data<std::int64_t>()[i] = v;
  }
}

// tensor_scatter: one write position per batch row, uniform over the valid ones: [0, extent)
// circular, [0, extent - sequence_length] linear (the update must fit).
void write_positions(const Generator& g, Tensor& out, const CaseDecl& d, const std::string& field) {
  if (g.unique || g.broadcast || g.negative > 0.0 || g.distribution != Generator::Distribution::uniform) {
    throw Error(ErrorCode::values, field,
                "tensor_scatter's write positions are drawn uniform over the valid ones; unique, broadcast, negative "
                "and distribution do not apply");
  }
  const auto axis = static_cast<std::size_t>(d.attrs.axis);
  const auto extent = d.data.shape[axis];
  const auto span = d.attrs.mode == WriteMode::circular ? extent : extent - d.updates.shape[axis] + 1;
  if (span <= 0 && out.numel() > 0) {
    throw Error(ErrorCode::values, field,
                fmt::format("no valid write position exists: data.shape[{}] = {} (mode {})", axis, extent,
                            write_mode_name(d.attrs.mode)));
  }
  SplitMix64 rng(g.seed);
  for (std::int64_t i = 0; i < out.numel(); ++i) {
    store_index(out, i, static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(span)), field);
  }
}

void indices(const Generator& g, Tensor& out, const CaseDecl& d, const std::string& field) {
  if (d.attrs.op == Op::tensor_scatter) return write_positions(g, out, d, field);
  const auto& shape = out.shape();
  const auto n = out.numel();
  // The extent index element i draws from: data.shape[axis], or data.shape[j] for
  // component j of a scatter_nd tuple. Computed, not stored: scratch memory per index
  // element is what indices_scratch_bytes promises.
  const auto k = shape.empty() ? 1 : shape.back();
  const auto s = [&](std::int64_t i) {
    return d.attrs.op == Op::scatter_nd ? d.data.shape[static_cast<std::size_t>(i % k)]
                                        : d.data.shape[static_cast<std::size_t>(d.attrs.axis)];
  };
  for (std::int64_t i = 0; i < n; ++i) {
    if (s(i) == 0) {
      throw Error(ErrorCode::values, field, fmt::format("no valid index exists: the indexed extent of data is 0 (data.shape {})",
                                                        format_shape(d.data.shape)));
    }
  }
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  std::int64_t draws = 0;  // taken from the stream before the negative pass
  if (g.broadcast) {
    draws = broadcast_indices(g, d, shape, v, field);
  } else if (g.distribution != Generator::Distribution::uniform) {
    draws = skewed_indices(g, d, shape, v);
  } else if (!g.unique) {
    in_chunks(n, [&](std::int64_t begin, std::int64_t end) {
      auto rng = stream_at(g.seed, begin);
      for (std::int64_t i = begin; i < end; ++i) v[i] = static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(s(i)));
    });
    draws = n;
  } else if (d.attrs.op == Op::scatter_elements) {
    const auto axis = static_cast<std::size_t>(d.attrs.axis);
    const auto m = shape[axis];
    const auto extent = d.data.shape[axis];
    need_unique(extent, m, field, fmt::format("along data.shape[{}] = {}", axis, extent));
    // Lines along the axis, in row-major order of their other coordinates.
    const auto stride = strides_of(shape)[axis];
    const auto lines = m == 0 ? 0 : n / m;
    // Line L takes draws L * m to L * m + m - 1: lines split among threads like elements.
    in_chunks(n, [&](std::int64_t begin, std::int64_t end) {
      const auto first = lines == 0 ? 0 : begin / m;
      const auto last = lines == 0 ? 0 : end / m;
      auto rng = stream_at(g.seed, first * m);
      std::vector<std::int64_t> drawn;
      for (std::int64_t line = first; line < last; ++line) {
        const auto outer = line / stride;
        const auto inner = line % stride;
        const auto base = outer * m * stride + inner;
        partial_fisher_yates(extent, m, rng, drawn);
        for (std::int64_t j = 0; j < m; ++j) v[base + j * stride] = drawn[j];
      }
    });
    draws = lines * m;
  } else if (d.attrs.op == Op::scatter_nd) {
    const auto k = shape.back();
    const Shape prefix(d.data.shape.begin(), d.data.shape.begin() + k);
    const auto positions = numel(prefix);
    const auto tuples = numel(Shape(shape.begin(), shape.end() - 1));
    need_unique(positions, tuples, field, fmt::format("positions of data.shape[:{}] = {}", k, format_shape(prefix)));
    std::vector<std::int64_t> drawn;
    SplitMix64 rng(g.seed);
    partial_fisher_yates(positions, tuples, rng, drawn);
    draws = tuples;
    for (std::int64_t t = 0; t < tuples; ++t) {
      const auto coord = unravel(drawn[t], prefix);
      for (std::int64_t j = 0; j < k; ++j) v[t * k + j] = coord[j];
    }
  } else {
    const auto extent = d.data.shape[d.attrs.axis];
    need_unique(extent, n, field, fmt::format("along data.shape[{}] = {}", d.attrs.axis, extent));
    std::vector<std::int64_t> drawn;
    SplitMix64 rng(g.seed);
    partial_fisher_yates(extent, n, rng, drawn);
    draws = n;
    v = std::move(drawn);
  }
  if (g.negative > 0.0) {
    if (d.attrs.op == Op::scatter_update) {
      throw Error(ErrorCode::values, field + ".negative", "scatter_update takes no negative indices");
    }
    in_chunks(n, [&](std::int64_t begin, std::int64_t end) {
      auto rng = stream_at(g.seed, draws + begin);
      for (std::int64_t i = begin; i < end; ++i) {
        if (unit(rng.next()) < g.negative) v[i] -= s(i);
      }
    });
  }
  in_chunks(n, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) store_index(out, i, v[i], field);
  });
}

}  // namespace

std::uint64_t indices_scratch_bytes(const Generator& gen, std::int64_t n) {
  if (gen.kind != Generator::Kind::indices || n <= 0) return 0;
  const auto count = static_cast<std::uint64_t>(n);
  // The draws (8 bytes each); with `unique`, the partial Fisher-Yates result (8 each)
  // and either its dense array (8 x at most 4m + 1024) or its sparse map (at most 2m
  // nodes of about 40 bytes). Saturating, like case_bytes.
  // zipf and balanced: the drawn values and a line's (8 + 8 each), and zipf's table of the head.
  const bool skewed = gen.distribution != Generator::Distribution::uniform;
  const std::uint64_t per_element = gen.unique ? 8 + 8 + 80 : skewed ? 8 + 8 + 8 : 8;
  const std::uint64_t fixed = 8192u + (skewed ? 8u * ZipfTargets::kZipfHead : 0u);
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, per_element, &bytes) || __builtin_add_overflow(bytes, fixed, &bytes)) {
    return UINT64_MAX;
  }
  return bytes;
}

Tensor run_generator(const Generator& gen, DType dtype, const Shape& shape, const CaseDecl& decl,
                     const std::string& field) {
  Tensor out(dtype, shape);
  switch (gen.kind) {
    case Generator::Kind::arange: arange(gen, out, field); break;
    case Generator::Kind::fill: fill(gen, out, field); break;
    case Generator::Kind::uniform: uniform(gen, out, field); break;
    case Generator::Kind::randint: randint(gen, out, field); break;
    case Generator::Kind::indices: indices(gen, out, decl, field); break;
  }
  return out;
}

}  // namespace detail
}  // namespace scatter
