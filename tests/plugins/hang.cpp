// Never returns from run() (sleeping, so a hung test costs no CPU): for --timeout.
#include <unistd.h>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) {
  for (;;) sleep(1);
}

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = test_plugin_table("hang", run);
  return &api;
}
