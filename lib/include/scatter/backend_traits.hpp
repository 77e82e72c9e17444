#pragma once
/// A backend's traits: what the judge, the bench and the machine's probes decide by, below the
/// Backend interface itself (backend.hpp).

namespace scatter {

/// What a backend is, as data (not its name): the trial, the bench and the probes decide by it.
/// oracle: the reference, which checks the others (nothing checks it without `expected`);
/// builtin: scatterctl's own fast backends, held to the exact verdict by fuzz; external: a
/// framework worker, a plugin or another scatterctl executable, which times itself, runs
/// cases with expect_error too (a rejection passes) and is held to the spec's rules.
enum class BackendRole { oracle, builtin, external };
/// Where a backend's memory lives: host backends are measured against the host's copy line.
enum class MemoryKind { host, device };
struct BackendTraits {
  BackendRole role = BackendRole::builtin;
  MemoryKind memory = MemoryKind::host;
  int threads = 1;  ///< host threads it runs on (the host copy line is measured on as many)
  /// Its output is handed to it already holding data (a plugin's `out`), the copy made outside
  /// the timed call: the byte floor then does not count that copy.
  bool given_data_copy = false;
};

}  // namespace scatter
