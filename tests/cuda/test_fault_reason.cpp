// What the cuda backend says after a sticky device fault (device.hpp's fault_reason):
// the kernel whose check failed under --check-launches, else the kernels the launch
// enqueued. Host code only: built with CUDA, runs without a GPU.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../lib/src/cuda/device.hpp"

namespace {

using scatter::cuda::fault_reason;
using scatter::cuda::LaunchTrace;

TEST(FaultReason, NamesTheKernelWhoseCheckFailed) {
  LaunchTrace trace;
  trace.check = true;
  trace.record("k_identity");
  trace.record("k_reduce");
  trace.failed = "k_reduce";
  EXPECT_EQ(fault_reason(trace, cudaErrorIllegalAddress),
            "device fault in k_reduce (cudaErrorIllegalAddress: an illegal memory access was encountered)");
}

TEST(FaultReason, WithoutChecksListsTheEnqueuedKernelsAndTheFlag) {
  LaunchTrace trace;
  trace.record("k_winners");
  trace.record("k_write_winners");
  const auto text = fault_reason(trace, cudaErrorLaunchFailure);
  EXPECT_EQ(text.rfind("device fault in one of k_winners, k_write_winners (cudaErrorLaunchFailure: ", 0), 0u) << text;
  EXPECT_NE(text.find("--check-launches names the kernel"), std::string::npos) << text;
}

TEST(FaultReason, AKernelLaunchedAgainInARowIsListedOnce) {
  LaunchTrace trace;
  trace.record("k_chunk_count");
  trace.record("k_chunk_partition");
  for (int step = 0; step < 65; ++step) trace.record("k_chunk_step");
  const auto text = fault_reason(trace, cudaErrorLaunchFailure);
  EXPECT_EQ(text.rfind("device fault in one of k_chunk_count, k_chunk_partition, k_chunk_step (", 0), 0u) << text;
}

TEST(FaultReason, OneKernelIsNamedAndNoneIsSaid) {
  LaunchTrace one;
  one.record("k_mean");
  EXPECT_EQ(fault_reason(one, cudaErrorIllegalAddress).rfind("device fault in k_mean (", 0), 0u);
  EXPECT_EQ(fault_reason(LaunchTrace{}, cudaErrorIllegalAddress).rfind("device fault outside the kernels (", 0), 0u);
}

TEST(FaultReason, TheTraceKeepsTheFirstKernelsOnly) {
  LaunchTrace trace;
  std::vector<std::string> names;
  for (int i = 0; i < LaunchTrace::kMax + 3; ++i) names.push_back("k" + std::to_string(i));
  for (const auto& name : names) trace.record(name.c_str());
  EXPECT_EQ(trace.count, LaunchTrace::kMax);
  EXPECT_STREQ(trace.kernels[LaunchTrace::kMax - 1], names[LaunchTrace::kMax - 1].c_str());
}

}  // namespace
