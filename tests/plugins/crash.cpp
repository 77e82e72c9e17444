// Dies of SIGSEGV in run(): only an isolated child (--isolate) survives it.
#include <csignal>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) {
  std::raise(SIGSEGV);
  return SP_ERROR;
}

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = test_plugin_table("crash", run);
  return &api;
}
