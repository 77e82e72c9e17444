// supports() accepts every case, then run() calls it unsupported.
#include "test_plugin.hpp"

static sp_status supports(const sp_case*, char*, size_t) { return SP_OK; }
static sp_status run(const sp_case*) { return SP_UNSUPPORTED; }
static const char* last_error() { return "changed its mind"; }

SCATTER_TEST_PLUGIN_WITH("liar", run, table) {
  table.supports = supports;
  table.last_error = last_error;
}
