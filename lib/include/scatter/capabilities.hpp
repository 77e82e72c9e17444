#pragma once
/// What an external backend declares it supports (docs/backends.md, "Capabilities"),
/// and the rule a case breaks when it is outside that.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/dtype.hpp"

namespace scatter {

/// A narrower exclusion with its own reason ("exclude" in the document).
struct CapabilityExclusion {
  std::vector<Op> ops;                ///< empty: any
  std::vector<Reduction> reductions;  ///< empty: any
  std::vector<DType> dtypes;          ///< data dtypes; empty: any
  std::vector<DType> index_dtypes;    ///< empty: any
  std::string feature;                ///< "", negative_indices, duplicates, empty_index_tuple, use_init_val_false
  std::string reason;
};

struct Capabilities {
  /// Per op, per reduction: whether supported, and for which data dtypes (empty with
  /// `all_dtypes` false: none). Indexed by Op and Reduction.
  struct Entry {
    bool supported = false;
    bool all_dtypes = false;
    std::vector<DType> dtypes;
    /// Supported on this data dtype.
    bool covers(DType dtype) const {
      return supported && (all_dtypes || std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end());
    }
  };
  std::array<std::array<Entry, std::size(kReductions)>, std::size(kOps)> ops{};
  std::vector<DType> index_dtypes{DType::int32, DType::int64};
  bool negative_indices = true;
  bool empty_index_tuple = true;
  std::int64_t max_rank = 64;
  bool use_init_val_false = true;
  /// Per op: whether out-of-range indices are rejected.
  std::array<bool, std::size(kOps)> checks_indices = [] {
    std::array<bool, std::size(kOps)> all{};
    all.fill(true);
    return all;
  }();
  std::vector<CapabilityExclusion> exclude;

  /// Everything the spec allows (a backend that declares nothing).
  static Capabilities everything();
};

/// Parses a capabilities document; throws Error(schema) naming `origin` and the field
/// ("capabilities.ops.scatter_nd.add[2]: 'float8' is not a dtype").
Capabilities parse_capabilities(std::string_view json_text, std::string_view origin);

/// Facts about a case that capabilities and expectations match on, computed once.
struct CaseFeatures {
  bool negative_indices = false;   ///< an index below zero
  bool duplicates = false;         ///< two updates target one output element
  bool empty_index_tuple = false;  ///< scatter_nd with k = 0
  bool out_of_range = false;       ///< an index outside its dimension (expect_error cases)
};
/// Scans the case's indices (out-of-range values are allowed and flagged).
CaseFeatures features_of(const Case& c);
/// The same from the indices already normalized (CaseFacts::indices): no copy of them is
/// made unless some index is out of range.
CaseFeatures features_of(const Case& c, const std::vector<std::int64_t>& normalized);

/// nullopt when the backend supports the case; else the rule it breaks, as a short
/// sentence ("scatter_nd add on bfloat16 is not declared", "negative indices: <reason>").
std::optional<std::string> unsupported_reason(const Capabilities& caps, const Case& c, const CaseFeatures& features);

}  // namespace scatter
