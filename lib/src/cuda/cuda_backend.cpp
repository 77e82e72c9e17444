// The cuda backend: owns the device, a stream and two events; uploads a case,
// times the op alone with events, downloads the output. Every CUDA call is checked.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "device.hpp"
#include "launch.hpp"
#include "scatter/backend.hpp"

namespace scatter::cuda {
namespace {

// SCATTER_CUDA_L2_BYTES: the L2 size the planner assumes, so that the chunked path (sized by
// L2) runs on small cases; the GPU tests set it. Only a whole number of bytes from 0 to 2^40
// counts; reports name the value, or that it was ignored.
std::optional<std::int64_t> pretend_l2_bytes(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long bytes = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || bytes < 0 || bytes > (1LL << 40)) return std::nullopt;
  return bytes;
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
      reason_ = no_gpu_reason(e);
      return;
    }
    if (count == 0) {
      reason_ = "no usable GPU: the CUDA runtime sees no device";
      return;
    }
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, 0) != cudaSuccess) {
      reason_ = "cannot read the CUDA device's properties";
      return;
    }
    sm_count_ = props.multiProcessorCount;
    l2_bytes_ = props.l2CacheSize;
    const char* pretend_l2 = std::getenv("SCATTER_CUDA_L2_BYTES");
    const auto pretend = pretend_l2_bytes(pretend_l2);
    if (pretend) l2_bytes_ = *pretend;
    flush_ = std::make_unique<L2Flush>(static_cast<std::size_t>(std::max(props.l2CacheSize, 1 << 20)), sm_count_);
    int driver = 0;
    int runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    int sm_khz = 0;
    int mem_khz = 0;
    cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    properties_ = {{"cuda_driver_version", fmt::format("{}.{}", driver / 1000, driver % 1000 / 10)},
                   {"cuda_runtime_version", fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10)},
                   {"gpu_name", props.name},
                   {"compute_capability", fmt::format("{}.{}", props.major, props.minor)},
                   {"sm_count", std::to_string(props.multiProcessorCount)},
                   {"sm_clock_max_mhz", std::to_string(sm_khz / 1000)},
                   {"memory_clock_max_mhz", std::to_string(mem_khz / 1000)},
                   {"memory_bus_width_bits", std::to_string(props.memoryBusWidth)},
                   {"l2_cache_bytes", std::to_string(props.l2CacheSize)},
                   {"global_memory_bytes", std::to_string(props.totalGlobalMem)}};
    if (pretend_l2 != nullptr) {
      properties_.emplace_back("planned_l2_bytes (SCATTER_CUDA_L2_BYTES)",
                               pretend ? std::to_string(l2_bytes_)
                                       : fmt::format("ignored: '{}' is not a byte count from 0 to 2^40", pretend_l2));
    }
    device_ = fmt::format("{} (sm_{}{}, {} SMs, {:.0f} GiB)", props.name, props.major, props.minor,
                          props.multiProcessorCount, static_cast<double>(props.totalGlobalMem) / (1ULL << 30));
    available_ = true;
  }

  std::string_view name() const override { return "cuda"; }
  BackendTraits traits() const override { return {BackendRole::builtin, MemoryKind::device, 1}; }
  std::string device() const override { return available_ ? device_ : "none"; }
  std::vector<std::pair<std::string, std::string>> properties() const override { return properties_; }

  Availability availability() const override { return {available_ && fault_.empty(), fault_.empty() ? reason_ : fault_}; }

  // A sticky CUDA error (an illegal address, a trap) loses the context for the rest of
  // the process: the backend says so, names the kernel, and refuses every later case, so
  // that one fault costs one case and the run's other backends go on.
  BackendOutput run(const Case& c, const RunFlags& flags) override {
    if (!available_ || !fault_.empty()) throw Error(ErrorCode::backend, "", "unavailable: " + availability().reason);
    LaunchTrace trace;
    trace.check = flags.check_launches;
    try {
      return run_on_device(c, flags, trace);
    } catch (const Error& e) {
      const cudaError_t sticky = lost_context();
      if (sticky == cudaSuccess) throw;
      fault_ = fault_reason(trace, sticky);
      throw Error(ErrorCode::backend, "", fmt::format("{}; the cuda backend is unavailable for the rest of the run ({})",
                                                      fault_, e.message()));
    }
  }

 private:
  // A case on the device: its launch (from the host's scans of indices and values), its
  // buffers and uploads. Kept after the run, so that the next bench sample of the same
  // case (RunFlags::same_inputs) starts from it instead of uploading and scanning again.
  struct Prepared {
    const Case* source = nullptr;
    bool in_place = false;
    bool deterministic = false;
    Launch launch;
    std::unique_ptr<DeviceMemory> out, data, updates, indices, scratch, guard;
    std::unique_ptr<DeviceMemory> pristine;  ///< in place: data, to restore the output from on the device
  };

  BackendOutput run_on_device(const Case& c, const RunFlags& flags, LaunchTrace& trace) {
    const bool reuse = flags.same_inputs && prepared_ && prepared_->source == &c &&
                       prepared_->in_place == flags.in_place && prepared_->deterministic == flags.deterministic;
    if (!reuse) {
      prepared_.reset();  // the previous case's buffers go first
      prepared_ = prepare(c, flags);
    }
    try {
      if (reuse) restore(*prepared_, c);
      return execute(*prepared_, c, flags, trace);
    } catch (...) {
      prepared_.reset();
      throw;
    }
  }

  // The host's part, once per case: the geometry, the launch's choices, the memory check,
  // the allocations and the uploads.
  std::unique_ptr<Prepared> prepare(const Case& c, const RunFlags& flags) {
    std::string why;
    const auto geometry = make_geometry(c, why);
    if (!geometry) throw Error(ErrorCode::backend, "", "the cuda backend cannot run " + why);
    auto p = std::make_unique<Prepared>();
    p->source = &c;
    p->in_place = flags.in_place;
    p->deterministic = flags.deterministic;
    p->launch = make_launch(c, *geometry, flags, sm_count_, l2_bytes_);
    const Launch& launch = p->launch;
    if (launch.deterministic && geometry->u > INT32_MAX) {
      throw Error(ErrorCode::backend, "",
                  fmt::format("--deterministic sorts at most 2^31 - 1 updates; updates has {} elements", geometry->u));
    }
    if (launch.reduction == Reduction::mean && geometry->u > UINT32_MAX) {
      throw Error(ErrorCode::backend, "",
                  fmt::format("mean counts hits in 32 bits: at most 2^32 - 1 updates; updates has {} elements",
                              geometry->u));
    }

    const std::size_t scratch = scratch_bytes(launch);
    const std::size_t flush = flags.flush_caches ? flush_->bytes_to_allocate() : 0;
    const std::size_t need =
        c.data.nbytes() * (flags.in_place ? 1 : 2) + 3 + c.updates.nbytes() + c.indices.nbytes() + scratch + flush;
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    SCATTER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes) {
      throw Error(ErrorCode::too_large, "",
                  fmt::format("the case needs {:.2f} GiB of device memory; {:.2f} GiB are free",
                              static_cast<double>(need) / (1ULL << 30), static_cast<double>(free_bytes) / (1ULL << 30)));
    }
    // 1-byte elements are reduced through their aligned 32-bit word (cas_combine, the bool
    // atomics), which for the last elements reaches up to 3 bytes past nbytes.
    // Those pad bytes are cleared: the word's CAS reads them (initcheck), never keeps them.
    const std::size_t padded = (c.data.nbytes() + 3) / 4 * 4;
    p->out = std::make_unique<DeviceMemory>(padded);
    if (padded > c.data.nbytes()) {
      SCATTER_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(p->out->get()) + c.data.nbytes(), 0,
                                         padded - c.data.nbytes(), stream_.get()));
    }
    p->data = std::make_unique<DeviceMemory>(flags.in_place ? 0 : c.data.nbytes());
    p->updates = std::make_unique<DeviceMemory>(c.updates.nbytes());
    p->indices = std::make_unique<DeviceMemory>(c.indices.nbytes());
    p->scratch = std::make_unique<DeviceMemory>(scratch);
    p->guard = std::make_unique<DeviceMemory>(sizeof(int));
    upload(flags.in_place ? p->out->get() : p->data->get(), c.data);
    upload(p->updates->get(), c.updates);
    upload(p->indices->get(), c.indices);  // empty for scatter_nd with k = 0: no copy at all
    // In place, later samples restore the output from a device copy of data where it fits
    // (else from the host).
    if (flags.in_place && c.data.nbytes() > 0 && need + c.data.nbytes() <= free_bytes) {
      p->pristine = std::make_unique<DeviceMemory>(c.data.nbytes());
      SCATTER_CUDA_CHECK(cudaMemcpyAsync(p->pristine->get(), p->out->get(), c.data.nbytes(), cudaMemcpyDeviceToDevice,
                                         stream_.get()));
    }
    return p;
  }

  // A later sample of the same case: out of place the inputs are untouched (the timed
  // region copies data into the output); in place the output goes back to data.
  void restore(const Prepared& p, const Case& c) {
    if (!p.in_place || c.data.nbytes() == 0) return;
    if (p.pristine) {
      SCATTER_CUDA_CHECK(cudaMemcpyAsync(p.out->get(), p.pristine->get(), c.data.nbytes(), cudaMemcpyDeviceToDevice,
                                         stream_.get()));
    } else {
      upload(p.out->get(), c.data);
    }
  }

  // The device's part, every run: the guard, the cold flush, the timed op, the download.
  BackendOutput execute(const Prepared& p, const Case& c, const RunFlags& flags, LaunchTrace& trace) {
    SCATTER_CUDA_CHECK(cudaMemsetAsync(p.guard->get(), 0, sizeof(int), stream_.get()));
    // Cold: the uploads above left inputs in L2; reading a buffer of several L2 sizes
    // (L2Flush) evicts them before the timed region, on the same stream.
    if (flags.flush_caches) flush_->run(stream_.get());

    // The timed region: out of place, the copy of data into the output is part of the op
    // (fused into the path's own kernel where the plan says so).
    const bool fused_copy = plan_of(p.launch).fuses_copy;
    stream_.record_start();
    if (!flags.in_place && !fused_copy && c.data.nbytes() > 0) {
      SCATTER_CUDA_CHECK(cudaMemcpyAsync(p.out->get(), p.data->get(), c.data.nbytes(), cudaMemcpyDeviceToDevice,
                                         stream_.get()));
    }
    Buffers buffers;
    buffers.out = p.out->get();
    buffers.data = fused_copy ? p.data->get() : nullptr;
    buffers.updates = p.updates->get();
    buffers.indices = p.indices->get();
    buffers.scratch = p.scratch->get();
    buffers.guard = static_cast<int*>(p.guard->get());
    SCATTER_CUDA_CHECK(enqueue_scatter(p.launch, buffers, stream_.get(), trace));
    stream_.record_stop();

    // A bench sample whose output nobody looks at skips the download (1 GiB for a large case:
    // 0.1-0.3 s a sample); the check before timing downloaded and judged it.
    Tensor result = flags.output_unused ? Tensor() : Tensor(c.data.dtype(), c.data.shape());
    int guard_hit = 0;
    if (!flags.output_unused && c.data.nbytes() > 0) {
      SCATTER_CUDA_CHECK(cudaMemcpyAsync(result.bytes(), p.out->get(), c.data.nbytes(), cudaMemcpyDeviceToHost,
                                         stream_.get()));
    }
    SCATTER_CUDA_CHECK(cudaMemcpyAsync(&guard_hit, p.guard->get(), sizeof(int), cudaMemcpyDeviceToHost, stream_.get()));
    SCATTER_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
    if (guard_hit) {
      throw Error(ErrorCode::index, "", "inputs.indices: an index maps outside the output (the device-side guard caught what the host check missed)");
    }
    return {std::move(result), stream_.elapsed(), {}, {}, {}};
  }

  // A tensor's bytes to a device buffer on the stream; nothing for an empty tensor (whose
  // device pointer is null).
  void upload(void* device, const Tensor& tensor) {
    if (tensor.nbytes() == 0) return;
    SCATTER_CUDA_CHECK(cudaMemcpyAsync(device, tensor.bytes(), tensor.nbytes(), cudaMemcpyHostToDevice, stream_.get()));
  }

  bool available_ = false;
  std::string reason_;
  std::string fault_;  ///< set by a sticky device fault: the backend is lost for the run
  std::string device_;
  int sm_count_ = 1;
  std::int64_t l2_bytes_ = 0;  ///< Path::chunked sizes its chunks by it
  std::vector<std::pair<std::string, std::string>> properties_;
  std::unique_ptr<L2Flush> flush_;  ///< cold samples (RunFlags::flush_caches)
  std::unique_ptr<Prepared> prepared_;  ///< the last case's device state (see Prepared)
  TimedStream stream_;
};

}  // namespace
}  // namespace scatter::cuda

namespace scatter {

std::unique_ptr<Backend> make_cuda_backend() { return std::make_unique<cuda::CudaBackend>(); }

}  // namespace scatter
