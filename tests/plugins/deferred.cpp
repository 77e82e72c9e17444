// Class N2 (work after it returns): run() leaves the scatter to a thread and returns at once. The
// box is frozen when run()'s answer arrives, and scatterctl reads out then: unfinished.
#include <chrono>
#include <cstdint>
#include <thread>

#include "test_plugin.hpp"

static sp_status run(const sp_case* c) {
  // The buffers outlive the call (scatterctl's regions); the sp_tensors do not: plain values only.
  auto* out = static_cast<float*>(c->out->data);
  const auto* updates = static_cast<const float*>(c->updates->data);
  const void* indices = c->indices->data;
  const bool narrow = c->indices->dtype.bits == 32;
  const int64_t count = c->indices->shape[0], size = c->out->shape[0];
  std::thread([=] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int64_t i = 0; i < count; ++i) {
      int64_t x = narrow ? static_cast<const int32_t*>(indices)[i] : static_cast<const int64_t*>(indices)[i];
      if (x < 0) x += size;
      out[x] = updates[i];
    }
  }).detach();
  return SP_OK;
}

SCATTER_TEST_PLUGIN_WITH("deferred", run, table) { table.capabilities_json = kRank1Capabilities; }
