// The CPU reference backend: the oracle. Copy data, then apply every update in
// row-major order with the case's reduction (scatter_loop.hpp). Obvious first, fast
// only where it stays obvious (whole runs copied with memcpy for `none`).

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "../bench/probes.hpp"
#include "../counted.hpp"
#include "../dispatch.hpp"
#include "scatter/backend.hpp"
#include "scatter_loop.hpp"

namespace scatter {
namespace detail {
namespace {

class RefBackend final : public Backend {
 public:
  std::string_view name() const override { return "ref"; }
  Availability availability() const override { return {true, ""}; }
  BackendTraits traits() const override { return {BackendRole::oracle, MemoryKind::host, 1}; }
  std::string device() const override {
    return fmt::format("{} ({} threads)", host_cpu_name(), std::thread::hardware_concurrency());
  }
  // Out of place, the copy of data is part of the op; in place it is done first,
  // outside the timed region. The reference has one order only: deterministic.
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    using Clock = std::chrono::steady_clock;
    // The output is allocated, and its pages touched, before the timed region (as the
    // cuda backend allocates before its events): page faults are no part of the op, and
    // they made the timing of small cases bimodal from process to process.
    Tensor out = flags.in_place ? c.data.clone() : Tensor(c.data.dtype(), c.data.shape());
    if (!flags.in_place) std::memset(out.bytes(), 0, out.nbytes());
    if (flags.flush_caches) flush_host_caches();
    auto start = Clock::now();
    {
      const CountedRegion counted;
      if (!flags.in_place) std::memcpy(out.bytes(), c.data.bytes(), c.data.nbytes());
      reference_scatter_into(c, out);
    }
    const std::chrono::duration<double> took = Clock::now() - start;
    return {std::move(out), took.count(), {}, {}, {}, {}};
  }
};

}  // namespace
}  // namespace detail

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

std::unique_ptr<Backend> make_ref_backend() { return std::make_unique<detail::RefBackend>(); }

}  // namespace scatter
