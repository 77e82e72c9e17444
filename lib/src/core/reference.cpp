// The reference's scatter, the oracle's one loop (scatter_loop.hpp) over every dtype: the ref
// backend runs it, and the judge computes the output it compares with from it.

#include "scatter/reference.hpp"

#include "core/dispatch.hpp"
#include "core/scatter_loop.hpp"
#include "core/targets.hpp"

namespace scatter {

namespace {
void scatter_normalized(const Case& c, const std::vector<std::int64_t>& normalized, Tensor& out) {
  detail::dispatch(c.data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::scatter_loop<T>(c, normalized, out);
  });
}
}  // namespace

Tensor reference_scatter(const Case& c) { return reference_scatter(c, detail::normalized_indices(c)); }

void reference_scatter_into(const Case& c, Tensor& out) { scatter_normalized(c, detail::normalized_indices(c), out); }

Tensor reference_scatter(const Case& c, const std::vector<std::int64_t>& normalized) {
  Tensor out = c.data.clone();
  scatter_normalized(c, normalized, out);
  return out;
}

}  // namespace scatter
