#pragma once
/// Spec profiles: whether a case is legal under one framework's specification
/// (onnx:11, onnx:13, onnx:16, onnx:18, openvino:3, openvino:12, openvino:15,
/// tensorrt:10), and the rule it breaks when not.

#include <optional>
#include <string>
#include <vector>

#include "scatter/case.hpp"

namespace scatter {

/// Every profile name, in order.
std::vector<std::string> profile_names();
bool is_profile(const std::string& name);

/// The first rule of `profile` the case breaks, or nullopt when it is legal there.
/// Rules on index values (negative indices, duplicates) are checked only when the
/// materialized case is given.
std::optional<std::string> profile_violation(const std::string& profile, const CaseDecl& decl, const Case* c);

}  // namespace scatter
