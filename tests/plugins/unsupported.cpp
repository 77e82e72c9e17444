// supports() declines every case with a reason; run() must never be reached.
#include <cstdio>

#include "test_plugin.hpp"

static sp_status supports(const sp_case*, char* reason, size_t reason_len) {
  std::snprintf(reason, reason_len, "the unsupported test plugin supports nothing");
  return SP_UNSUPPORTED;
}

static sp_status run(const sp_case*) { return SP_ERROR; }

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("unsupported", run);
    table.supports = supports;
    return table;
  }();
  return &api;
}
