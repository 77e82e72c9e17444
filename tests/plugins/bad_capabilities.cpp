// Its capabilities document is not valid JSON.
#include "test_plugin.hpp"

static sp_status run(const sp_case*) { return SP_ERROR; }

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("bad_capabilities", run);
    table.capabilities_json = R"({"ops": {"scatter_elements": )";
    return table;
  }();
  return &api;
}
