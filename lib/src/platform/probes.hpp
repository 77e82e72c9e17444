#pragma once
// The probes' makers, the host cache flush that cold host runs share, and the wall clock of
// the bench driver and the probes.

#include <chrono>
#include <memory>
#include <string>

#include "scatter/probe.hpp"

namespace scatter {

/// Seconds of wall time since `start` (steady_clock).
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Host memory: memcpy and random stores on this machine's CPU, `threads` at once.
std::unique_ptr<BandwidthProbe> make_host_probe(int threads = 1);
/// The CUDA device's memory; nullptr when this build or machine has no usable device.
std::unique_ptr<BandwidthProbe> make_cuda_probe();

/// The host CPU's model name ("AMD EPYC 7B13"), or "CPU".
std::string host_cpu_name();

/// Evicts the CPU caches (a cold run's start): writes a buffer larger than any
/// last-level cache.
void flush_host_caches();
/// The same on every CPU at once, a thread pinned to each writing its share: each core's own
/// caches too, wherever the code timed next runs (a box's kernel, on CPUs of its choosing).
void flush_caches_on_every_cpu();

}  // namespace scatter
