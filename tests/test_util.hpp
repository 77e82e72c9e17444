#pragma once
// Helpers shared by the tests: cases from JSON text, and exact error checks.

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "scatter/error.hpp"
#include "scatter/load.hpp"

namespace scatter::testing {

/// Loads one case from JSON text as file "test.json" (max_bytes 1 GiB unless given).
inline CaseEntry load_one(const std::string& json, std::uint64_t max_bytes = 1ULL << 30) {
  LoadOptions options;
  options.max_bytes = max_bytes;
  auto result = load_text(json, "test.json", options);
  EXPECT_TRUE(result.file_errors.empty()) << (result.file_errors.empty() ? "" : result.file_errors[0].message());
  EXPECT_EQ(result.cases.size(), 1u);
  return result.cases.empty() ? CaseEntry{} : result.cases[0];
}

/// Loads and materializes one valid case; throws (failing the test) if it is invalid.
inline Case load_case(const std::string& json) {
  auto entry = load_one(json);
  if (entry.error) throw std::runtime_error("the case is invalid: " + entry.error->message());
  if (!entry.decl) throw std::runtime_error("no case was loaded");
  return materialize(*entry.decl);
}

/// The error a case is rejected with, at load or at materialization; nullopt if valid.
inline std::optional<Error> rejection(const std::string& json, std::uint64_t max_bytes = 1ULL << 30) {
  auto entry = load_one(json, max_bytes);
  if (entry.error) return entry.error;
  try {
    materialize(*entry.decl);
  } catch (const Error& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace scatter::testing

/// Expects `json` to be rejected with exactly `code` and `message` (field + detail).
#define EXPECT_REJECTED(json, want_code, want_message)                          \
  do {                                                                        \
    const auto scatter_error_ = ::scatter::testing::rejection(json);          \
    ASSERT_TRUE(scatter_error_.has_value()) << "the case was accepted";       \
    EXPECT_EQ(scatter_error_->code(), want_code) << scatter_error_->message(); \
    EXPECT_EQ(scatter_error_->message(), want_message);                       \
  } while (0)
