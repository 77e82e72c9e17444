// run() calls exit(0): in process that must not end the run with 0 (the exit guard makes it 1
// and names the case); isolated it costs the case.
#include <cstdlib>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) { std::exit(0); }

SCATTER_TEST_PLUGIN("exits", run)
