// Cannot serve the host's ABI: the entry point returns NULL.
#include "test_plugin.hpp"

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) { return nullptr; }
