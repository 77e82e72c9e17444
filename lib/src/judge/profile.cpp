// What each framework's specification allows, as data: ops, reductions per op,
// dtypes, index dtypes, index signs, duplicates, size.
//   ONNX:     ScatterElements-11/13/16/18, ScatterND-11/13/16/18 (Operators.md)
//   OpenVINO: ScatterUpdate-3, ScatterElementsUpdate-3/12, ScatterNDUpdate-3/15
//   TensorRT: IScatterLayer (ELEMENT and ND modes), TensorRT 10

#include "scatter/profile.hpp"

#include <algorithm>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "core/targets.hpp"

namespace scatter {
namespace {

struct OpRule {
  bool allowed = false;
  std::string name;                    // the framework's op
  std::set<Reduction> reductions;
  bool negative_indices = true;
  bool int32_indices = true;
};

struct Profile {
  std::string name;
  OpRule elements;
  OpRule nd;
  OpRule update;
  OpRule tensor;  ///< tensor_scatter
  std::set<DType> dtypes;
  bool use_init_val_false = false;
  bool duplicates_with_none = true;
  std::int64_t max_elements = INT64_MAX;
};

const std::set<DType> kAllDtypes(std::begin(kDTypes), std::end(kDTypes));

std::set<DType> without(std::set<DType> s, std::initializer_list<DType> drop) {
  for (auto d : drop) s.erase(d);
  return s;
}

std::vector<Profile> profiles() {
  using R = Reduction;
  std::vector<Profile> all;
  auto onnx = [&](const char* name, std::set<Reduction> elements, std::set<Reduction> nd, bool bf16) {
    Profile p;
    p.name = name;
    p.elements = {true, "ScatterElements", elements, true, true};
    // ScatterND's indices are tensor(int64) in every opset.
    p.nd = {true, "ScatterND", nd, true, false};
    p.update = {false, "", {}, false, false};
    p.dtypes = bf16 ? kAllDtypes : without(kAllDtypes, {DType::bfloat16});
    all.push_back(p);
  };
  onnx("onnx:11", {R::none}, {R::none}, false);
  onnx("onnx:13", {R::none}, {R::none}, true);
  onnx("onnx:16", {R::none, R::add, R::mul}, {R::none, R::add, R::mul}, true);
  onnx("onnx:18", {R::none, R::add, R::mul, R::min, R::max}, {R::none, R::add, R::mul, R::min, R::max}, true);
  onnx("onnx:24", {R::none, R::add, R::mul, R::min, R::max}, {R::none, R::add, R::mul, R::min, R::max}, true);
  all.back().tensor = {true, "TensorScatter-24", {R::none}, false, false};  // write_indices: tensor(int64)

  Profile ov3;
  ov3.name = "openvino:3";
  ov3.elements = {true, "ScatterElementsUpdate-3", {R::none}, true, true};
  ov3.nd = {true, "ScatterNDUpdate-3", {R::none}, false, true};
  ov3.update = {true, "ScatterUpdate-3", {R::none}, false, true};
  ov3.dtypes = kAllDtypes;
  all.push_back(ov3);
  Profile ov12 = ov3;
  ov12.name = "openvino:12";
  ov12.elements = {true, "ScatterElementsUpdate-12", {R::none, R::add, R::mul, R::min, R::max, R::mean}, true, true};
  ov12.use_init_val_false = true;
  all.push_back(ov12);
  Profile ov15 = ov12;
  ov15.name = "openvino:15";
  ov15.nd = {true, "ScatterNDUpdate-15", {R::none, R::add, R::sub, R::mul, R::min, R::max}, true, true};
  all.push_back(ov15);

  Profile trt;
  trt.name = "tensorrt:10";
  trt.elements = {true, "IScatterLayer ELEMENT mode", {R::none}, true, true};
  trt.nd = {true, "IScatterLayer ND mode", {R::none}, true, true};
  trt.update = {false, "", {}, false, false};
  trt.dtypes = without(kAllDtypes, {DType::boolean, DType::uint8});
  trt.duplicates_with_none = false;  // "no order guarantee": duplicate writes are undefined
  trt.max_elements = INT32_MAX;
  all.push_back(trt);
  return all;
}

const OpRule& rule_of(const Profile& p, Op op) {
  switch (op) {
    case Op::scatter_elements:
      return p.elements;
    case Op::scatter_nd:
      return p.nd;
    case Op::scatter_update:
      return p.update;
    case Op::tensor_scatter:
      break;
  }
  return p.tensor;
}

std::string reductions_text(const std::set<Reduction>& rs) {
  std::vector<std::string_view> names;
  for (auto r : rs) names.push_back(to_string(r));
  return fmt::format("{}", fmt::join(names, ", "));
}

bool has_duplicates(const Case& c) {
  const auto idx = detail::normalized_indices(c);
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(c.data.numel()), 0);
  bool dup = false;
  detail::visit_targets(c, idx, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    for (std::int64_t j = 0; j < len && !dup; ++j) dup = hit[o + j]++ > 0;
  });
  return dup;
}

}  // namespace

std::vector<std::string> profile_names() {
  std::vector<std::string> names;
  for (const auto& p : profiles()) names.push_back(p.name);
  return names;
}

bool is_profile(const std::string& name) {
  const auto names = profile_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<std::string> profile_violation(const std::string& profile, const CaseDecl& d, const Case* c) {
  const auto all = profiles();
  const auto it = std::find_if(all.begin(), all.end(), [&](const Profile& p) { return p.name == profile; });
  if (it == all.end()) return fmt::format("unknown profile '{}'", profile);
  const auto& p = *it;
  const auto& rule = rule_of(p, d.attrs.op);
  if (!rule.allowed) {
    return fmt::format("{} has no {} op{}", p.name, to_string(d.attrs.op),
                       d.attrs.op == Op::scatter_update ? " (express it as scatter_nd)" : "");
  }
  if (!rule.reductions.count(d.attrs.reduction)) {
    return fmt::format("{} allows reduction {} (not {})", rule.name, reductions_text(rule.reductions),
                       to_string(d.attrs.reduction));
  }
  if (!p.dtypes.count(d.data.dtype)) return fmt::format("{} has no {} data", p.name, to_string(d.data.dtype));
  if (!rule.int32_indices && d.indices.dtype == DType::int32) return fmt::format("{} takes int64 indices only", rule.name);
  if (!p.use_init_val_false && d.attrs.op == Op::scatter_elements && !d.attrs.use_init_val &&
      d.attrs.reduction != Reduction::none) {
    return fmt::format("{} has no use_init_val = false", rule.name);
  }
  for (const auto* t : {&d.data, &d.indices, &d.updates}) {
    if (numel(t->shape) > p.max_elements) {
      return fmt::format("{} tensors hold at most {} elements ({} has {})", p.name, p.max_elements,
                         format_shape(t->shape), numel(t->shape));
    }
  }
  if (c == nullptr) return std::nullopt;
  if (!rule.negative_indices) {
    for (std::int64_t i = 0; i < c->indices.numel(); ++i) {
      if (index_at(c->indices, i) < 0) {
        return fmt::format("{} takes no negative indices (indices{} = {})", rule.name,
                           format_coord(unravel(i, c->indices.shape())), index_at(c->indices, i));
      }
    }
  }
  if (!p.duplicates_with_none && d.attrs.reduction == Reduction::none && has_duplicates(*c)) {
    return fmt::format("{}: duplicate writes are undefined (two updates target one element)", rule.name);
  }
  return std::nullopt;
}

}  // namespace scatter
