// A correct answer, but it writes into its read-only input data.
#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  scatter_1d_float32(c);
  static_cast<float*>(c->data->data)[0] += 1.0f;
  return SP_OK;
}

SCATTER_TEST_PLUGIN("input_writer", run)
