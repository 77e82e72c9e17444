// Never returns from run() (sleeping, so a hung test costs no CPU): for --timeout.
#include <unistd.h>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) {
  for (;;) sleep(1);
}

SCATTER_TEST_PLUGIN("hang", run)
