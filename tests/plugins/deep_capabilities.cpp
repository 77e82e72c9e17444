// Its capabilities document nests 300,000 arrays deep (reliability-probe-3, finding 26): a
// recursive reader would overflow its stack, in process as in the box.
#include <string>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) { return SP_ERROR; }

SCATTER_TEST_PLUGIN_WITH("deep_capabilities", run, table) {
  static const std::string deep = R"({"ops": )" + std::string(300000, '[') + std::string(300000, ']') + "}";
  table.capabilities_json = deep.c_str();
}
