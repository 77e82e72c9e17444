// A correct answer, then one element written past the end of out.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  static_cast<float*>(c->out->data)[c->out->shape[0]] = 42.0f;
  return SP_OK;
}

SCATTER_TEST_PLUGIN("overrun", run)
