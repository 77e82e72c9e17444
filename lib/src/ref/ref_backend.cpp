// The CPU reference backend: the oracle. Copy data, then apply every update in
// row-major order with the case's reduction (core/reference.cpp). Obvious first, fast
// only where it stays obvious (whole runs copied with memcpy for `none`).

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "platform/probes.hpp"
#include "platform/counted.hpp"
#include "scatter/backend.hpp"

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
    return {std::move(out), took.count(), {}, {}, {}};
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Backend> make_ref_backend() { return std::make_unique<detail::RefBackend>(); }

}  // namespace scatter
