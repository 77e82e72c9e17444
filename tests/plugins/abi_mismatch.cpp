// Built for a future ABI 2.0.
#include "test_plugin.hpp"

static sp_status run(const sp_case*) { return SP_ERROR; }

SCATTER_TEST_PLUGIN_WITH("abi_mismatch", run, table) {
  table.abi_major = 2;
  table.abi_minor = 0;
}
