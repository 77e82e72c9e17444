// A correct scatter, then 1 added to the output's first element.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  static_cast<float*>(c->out->data)[0] += 1.0f;
  return SP_OK;
}

extern "C" const sp_plugin_api* scatter_plugin_get_api(uint32_t, uint32_t) {
  static const sp_plugin_api api = test_plugin_table("wrong_answer", run);
  return &api;
}
