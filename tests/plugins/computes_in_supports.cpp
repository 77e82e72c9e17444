// Class N1 (work in the untimed supports()): computes the answer in supports() when it is handed
// the buffers, and run() then returns at once. In the box supports() sees shapes and dtypes only:
// the buffers are NULL, nothing is computed, and run()'s output is data's (wrong).
#include "test_plugin.hpp"

static sp_status supports(const sp_case* c, char*, size_t) {
  if (c->out->data != nullptr && c->updates->data != nullptr) scatter_1d_float32(c);
  return SP_OK;
}

static sp_status run(const sp_case*) { return SP_OK; }

SCATTER_TEST_PLUGIN_WITH("computes-in-supports", run, table) {
  table.capabilities_json = kRank1Capabilities;
  table.supports = supports;
}
