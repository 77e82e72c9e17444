#pragma once
/// What every backend's trial of one case shares, computed once (the judge's side of a case).

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "scatter/capabilities.hpp"
#include "scatter/case.hpp"
#include "scatter/tensor.hpp"

namespace scatter {

/// Makes the reference's output faster than reference_scatter, bit for bit the same (bench's:
/// the cpu backend, deterministic, on every core). It may throw; reference_scatter then makes it.
using ReferenceMaker = std::function<Tensor(const Case&)>;

/// The facts of one materialized case, each computed when first asked for and then shared
/// by every backend's trial: features (capabilities, expectations), normalized indices and
/// hits per element (the comparison), the reference's output. The normalized indices are
/// made once and the others read them (8 bytes an index: 2 GiB for 2^28 of them). Each is
/// computed once even when asked from two threads (a caller waits for the other's): bench
/// computes them in the background while the checks' calls run (CaseFacts::prepare).
class CaseFacts {
 public:
  /// share_indices: keep the normalized indices once made, for everything that reads them.
  /// Off (a bench pass without verification: no comparison holds them through its timed
  /// calls), each use makes its own copy and frees it.
  explicit CaseFacts(const Case& c, bool share_indices = true, ReferenceMaker make_reference = {})
      : case_(c), share_indices_(share_indices), make_reference_(std::move(make_reference)) {}
  const Case& c() const { return case_; }
  /// Calls `use` with the normalized indices: the kept ones, or a copy made for the call.
  void with_indices(const std::function<void(const std::vector<std::int64_t>&)>& use) const;
  const CaseFeatures& features() const;
  const std::vector<std::int64_t>& indices() const;
  const std::vector<std::uint32_t>& hits() const;
  /// The reference's output (reference_scatter, or the maker given), computed once.
  const Tensor& reference() const;
  /// What outputs are compared with: the case's `expected`, else the reference's output.
  const Tensor& want() const { return case_.expected ? *case_.expected : reference(); }
  /// The traps the case exercises, as the conformance matrix names them.
  std::vector<std::string> trap_names(bool invalid) const;
  /// Computes every fact a trial asks for, the independent ones on threads of their own. A
  /// failure is dropped: the trial that asks again meets it itself.
  void prepare() const noexcept;

 private:
  const Case& case_;
  bool share_indices_;
  ReferenceMaker make_reference_;
  mutable std::once_flag features_once_, indices_once_, hits_once_, reference_once_;
  mutable std::optional<CaseFeatures> features_;
  mutable std::optional<std::vector<std::int64_t>> indices_;
  mutable std::optional<std::vector<std::uint32_t>> hits_;
  mutable std::optional<Tensor> reference_;
};

}  // namespace scatter
