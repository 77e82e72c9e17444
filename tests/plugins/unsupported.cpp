// supports() declines every case with a reason; run() must never be reached.
#include <cstdio>

#include "test_plugin.hpp"

static sp_status supports(const sp_case*, char* reason, size_t reason_len) {
  std::snprintf(reason, reason_len, "the unsupported test plugin supports nothing");
  return SP_UNSUPPORTED;
}

static sp_status run(const sp_case*) { return SP_ERROR; }

SCATTER_TEST_PLUGIN_WITH("unsupported", run, table) {
  table.supports = supports;
}
