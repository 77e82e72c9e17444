// A right plugin that declares one op, one reduction, one dtype and rank 1: what fuzz must
// draw within (every case runs on it), not around.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  return SP_OK;
}

SCATTER_TEST_PLUGIN_WITH("one-op", run, table) {
  table.capabilities_json = kRank1Capabilities;
}
