// Asks for device tensors (ABI 1.1, SP_MEMORY_CUDA). Without a GPU it must be unavailable, with
// the reason; run() never dereferences its pointers, so on a GPU it is an error per case.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  return c->data->device.device_type == SP_DEVICE_CUDA && c->stream != nullptr ? SP_ERROR : SP_UNSUPPORTED;
}

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = [] {
    auto table = test_plugin_table("device_tensors", run);
    table.memory = SP_MEMORY_CUDA;
    return table;
  }();
  return &api;
}
