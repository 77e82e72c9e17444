// Its capabilities document is not valid JSON.
#include "test_plugin.hpp"

static sp_status run(const sp_case*) { return SP_ERROR; }

SCATTER_TEST_PLUGIN_WITH("bad_capabilities", run, table) {
  table.capabilities_json = R"({"ops": {"scatter_elements": )";
}
