// Built for a future ABI 2.0.
#include "test_plugin.hpp"

static sp_status run(const sp_case*) { return SP_ERROR; }

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("abi_mismatch", run);
    table.abi_major = 2;
    table.abi_minor = 0;
    return table;
  }();
  return &api;
}
