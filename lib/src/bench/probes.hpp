#pragma once
// The probes' makers, and the host cache flush that cold host runs share.

#include <memory>
#include <string>

#include "scatter/probe.hpp"

namespace scatter {

/// Host memory: memcpy and random stores on this machine's CPU, `threads` at once.
std::unique_ptr<BandwidthProbe> make_host_probe(int threads = 1);
/// The CUDA device's memory; nullptr when this build or machine has no usable device.
std::unique_ptr<BandwidthProbe> make_cuda_probe();

/// The host CPU's model name ("AMD EPYC 7B13"), or "CPU".
std::string host_cpu_name();

/// Evicts the CPU caches (a cold run's start): writes a buffer larger than any
/// last-level cache.
void flush_host_caches();

}  // namespace scatter
