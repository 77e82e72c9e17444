// A right plugin that declares one op, one reduction, one dtype and rank 1: what fuzz must
// draw within (every case runs on it), not around.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  return SP_OK;
}

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("one-op", run);
    table.capabilities_json = kRank1Capabilities;
    return table;
  }();
  return &api;
}
