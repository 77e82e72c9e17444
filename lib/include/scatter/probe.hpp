#pragma once
/// The 100% lines of bench rows: what the memory a backend works in can move. Kept out
/// of the Backend interface: the bench layer (and scatter_bench) ask probe_for(backend).

#include <cstdint>

#include "scatter/backend_traits.hpp"

namespace scatter {

class BandwidthProbe {
 public:
  virtual ~BandwidthProbe() = default;
  /// A large copy, read + write counted: bytes/s.
  virtual double copy() = 0;
  /// 4-byte stores to random 32-byte sectors, 32 bytes counted a store: bytes/s (the
  /// element-scatter ceiling).
  virtual double sector_writes() = 0;
  /// A cold copy that moves `bytes` (a row's working set, read + write): bytes/s, so
  /// that caching cannot lift a row over its line. 0 where the probe has none; then
  /// copy() is the line.
  virtual double copy_of(std::uint64_t /*bytes*/) { return 0.0; }
  /// A hot copy that moves `bytes` (read + write), the caches warm, the best of a few: the
  /// fastest rate a hot row of that working set could move bytes at. 0 where the probe has none.
  virtual double hot_copy_of(std::uint64_t /*bytes*/) { return 0.0; }
};

/// The probe of the fastest that memory of this kind can move bytes on this machine: the host's
/// on every online CPU, or the CUDA device's. nullptr when there is none (no usable device).
BandwidthProbe* fastest_probe(MemoryKind memory);

/// The probe for the memory a backend of these traits works in, made once and kept: the
/// host's on as many threads as it runs for host backends, the device's for cuda. nullptr when
/// unknown (a device worker's memory is not ours to probe): the rows then have no % of copy.
BandwidthProbe* probe_for(const BackendTraits& traits);

}  // namespace scatter
