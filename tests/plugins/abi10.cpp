// Built as a plugin of ABI 1.0 would be: its table ends at last_error_code (no `memory`), and
// it says minor 0. It must load unchanged and get host tensors.
#include <cstddef>

#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  if (c->stream != nullptr || c->data->device.device_type != SP_DEVICE_CPU) return SP_ERROR;
  scatter_1d_float32(c);
  return SP_OK;
}

SCATTER_TEST_PLUGIN_WITH("abi10", run, table) {
  table.struct_size = offsetof(sp_plugin_api, last_error_code) + sizeof(table.last_error_code);
  table.abi_minor = 0;
  table.capabilities_json = kRank1Capabilities;
  table.memory = 77;  // past struct_size: scatterctl must not read it
}
