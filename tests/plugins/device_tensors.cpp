// Asks for device tensors (ABI 1.1, SP_MEMORY_CUDA). Without a GPU it must be unavailable, with
// the reason; run() never dereferences its pointers, so on a GPU it is an error per case.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  return c->data->device.device_type == SP_DEVICE_CUDA && c->stream != nullptr ? SP_ERROR : SP_UNSUPPORTED;
}

SCATTER_TEST_PLUGIN_WITH("device_tensors", run, table) {
  table.memory = SP_MEMORY_CUDA;
}
