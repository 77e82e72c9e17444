// A correct scatter done on a thread of the plugin's own, the caller only waiting for it: the
// instruction counter must count that thread too (tests/cli/counter.sh).
#include <thread>

#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  std::thread worker([c] { scatter_1d_float32(c); });
  worker.join();
  return SP_OK;
}

SCATTER_TEST_PLUGIN("threaded", run)
