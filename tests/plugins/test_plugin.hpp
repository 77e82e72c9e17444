#pragma once
// What the broken test plugins share: a valid table to start from, and a capabilities
// document (scatter_elements none on float32). Each plugin breaks exactly one rule.

#include "scatter/plugin_abi.h"

inline constexpr const char* kTestCapabilities = R"({"ops": {"scatter_elements": {"none": ["float32"]}}})";
/// The same, limited to what scatter_1d_float32 answers right: rank 1.
inline constexpr const char* kRank1Capabilities =
    R"({"ops": {"scatter_elements": {"none": ["float32"]}}, "max_rank": 1})";

inline sp_plugin_api test_plugin_table(const char* name, sp_status (*run)(const sp_case*)) {
  sp_plugin_api api{};
  api.struct_size = sizeof(sp_plugin_api);
  api.abi_major = SP_ABI_MAJOR;
  api.abi_minor = SP_ABI_MINOR;
  api.name = name;
  api.version = "0.1";
  api.capabilities_json = kTestCapabilities;
  api.run = run;
  return api;
}

/// Defines the plugin's entry point: test_plugin_table(name, run) as it is.
#define SCATTER_TEST_PLUGIN(name, run)                                           \
  extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) { \
    static const sp_plugin_api api = test_plugin_table(name, run);             \
    return &api;                                                               \
  }

/// The same, with the body after it changing in `table` the one thing the plugin breaks or declares:
///   SCATTER_TEST_PLUGIN_WITH("one-op", run, table) { table.capabilities_json = kRank1Capabilities; }
#define SCATTER_TEST_PLUGIN_WITH(name, run, table)                              \
  static void adjust_test_plugin(sp_plugin_api& table);                        \
  extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) { \
    static const sp_plugin_api api = [] {                                      \
      auto adjusted = test_plugin_table(name, run);                            \
      adjust_test_plugin(adjusted);                                            \
      return adjusted;                                                         \
    }();                                                                       \
    return &api;                                                               \
  }                                                                            \
  static void adjust_test_plugin(sp_plugin_api& table)

/// out[indices[i]] = updates[i] for rank-1 float32 data (a correct answer to build on).
inline void scatter_1d_float32(const sp_case* c) {
  auto* out = static_cast<float*>(c->out->data);
  const auto* updates = static_cast<const float*>(c->updates->data);
  for (int64_t i = 0; i < c->indices->shape[0]; ++i) {
    int64_t x = c->indices->dtype.bits == 32 ? static_cast<const int32_t*>(c->indices->data)[i]
                                             : static_cast<const int64_t*>(c->indices->data)[i];
    if (x < 0) x += c->out->shape[0];
    out[x] = updates[i];
  }
}
