// A correct scatter, then 1 added to the output's first element.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  static_cast<float*>(c->out->data)[0] += 1.0f;
  return SP_OK;
}

SCATTER_TEST_PLUGIN("wrong_answer", run)
