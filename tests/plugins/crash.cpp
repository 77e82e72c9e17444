// Dies of SIGSEGV in run(): only an isolated child (--isolate) survives it.
#include <csignal>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) {
  std::raise(SIGSEGV);
  return SP_ERROR;
}

SCATTER_TEST_PLUGIN("crash", run)
