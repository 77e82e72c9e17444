// supports() accepts every case, then run() calls it unsupported.
#include "test_plugin.hpp"

static sp_status supports(const sp_case*, char*, size_t) { return SP_OK; }
static sp_status run(const sp_case*) { return SP_UNSUPPORTED; }
static const char* last_error() { return "changed its mind"; }

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("liar", run);
    table.supports = supports;
    table.last_error = last_error;
    return table;
  }();
  return &api;
}
