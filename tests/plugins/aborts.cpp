// Calls abort() in run(), as glibc does on a heap it finds overrun: in process that ends the
// run, which must still leave its reports; isolated it costs the case.
#include <cstdlib>

#include "test_plugin.hpp"

static sp_status run(const sp_case*) { std::abort(); }

SCATTER_TEST_PLUGIN("aborts", run)
