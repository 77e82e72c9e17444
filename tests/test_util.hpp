#pragma once
// Helpers shared by the tests: case JSON written from parts, cases loaded from JSON
// text, tensor elements, and exact error checks (one at a time or as a table).

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "scatter/compare.hpp"
#include "scatter/backend.hpp"
#include "scatter/error.hpp"
#include "scatter/fuzz.hpp"
#include "scatter/load.hpp"
#include "scatter/tensor.hpp"

namespace scatter::testing {

/// The op attribute of a scatter_elements case, as case files write it.
inline const std::string kElements = R"("op": "scatter_elements")";

/// A case's output compared with its `expected`, by the spec's rules.
inline scatter::Comparison compare_expected(const scatter::Case& c, const scatter::Tensor& got,
                                            const scatter::CompareOptions& options = {}) {
  return scatter::compare_outputs(c, got, *c.expected, true, options);
}

/// A tensor given by its values: {"dtype": dtype, "shape": shape, "values": values} (JSON text).
inline std::string tensor(const std::string& dtype, const std::string& shape, const std::string& values) {
  return R"({"dtype": ")" + dtype + R"(", "shape": )" + shape + R"(, "values": )" + values + "}";
}

/// A case named "t": `attrs` are its keys before "inputs" (op, axis, ...), `extra` its
/// members after them (", " first: expected, tolerance, ...).
inline std::string make_case(const std::string& attrs, const std::string& data, const std::string& indices,
                             const std::string& updates, const std::string& extra = "") {
  return R"({"name": "t", )" + attrs + R"(, "inputs": {"data": )" + data + R"(, "indices": )" + indices +
         R"(, "updates": )" + updates + "}" + extra + "}";
}

/// `json` of make_case with the case named `name` instead of "t".
inline std::string renamed(std::string json, const std::string& name) {
  return json.replace(json.find(R"("t")"), 3, '"' + name + '"');
}

/// make_case with an "expected" tensor (then `extra`).
inline std::string expecting_case(const std::string& attrs, const std::string& data, const std::string& indices,
                                  const std::string& updates, const std::string& expected,
                                  const std::string& extra = "") {
  return make_case(attrs, data, indices, updates, R"(, "expected": )" + expected + extra);
}

/// A scatter_elements case named `name` whose data is {"dtype", "shape", <source>}, where
/// `source` is the data's source member ("values": ..., "generate": ...); indices and
/// updates are the smallest valid ones for data of rank `rank`.
inline std::string data_case(const std::string& name, const std::string& dtype, const std::string& shape,
                             const std::string& source, std::size_t rank) {
  std::string ones = "[";
  for (std::size_t i = 0; i < rank; ++i) ones += i ? ", 1" : "1";
  ones += "]";
  const std::string zero = "[0]";  // a flat array of the one element, whatever the rank
  return R"({"name": ")" + name + R"(", "op": "scatter_elements", "inputs": {"data": {"dtype": ")" + dtype +
         R"(", "shape": )" + shape + ", " + source + R"(}, "indices": {"dtype": "int64", "shape": )" + ones +
         R"(, "values": )" + zero + R"(}, "updates": {"dtype": ")" + dtype + R"(", "shape": )" + ones +
         R"(, "generate": {"kind": "fill", "value": 0}}}})";
}

/// What a right backend returns: the reference of the inputs it was given (the case's, with the
/// variation of a bench call, RunFlags::vary).
inline Tensor right_output(const Case& c, const RunFlags& flags) {
  if (!flags.vary || flags.vary->empty()) return reference_scatter(c);
  return reference_scatter(varied_copy(c, *flags.vary));
}

/// The tensor's elements reinterpreted as T (T the storage type, or same-size bits).
template <class T>
std::vector<T> elements(const Tensor& t) {
  EXPECT_EQ(sizeof(T), size_of(t.dtype()));
  std::vector<T> out(static_cast<std::size_t>(t.numel()));
  if (!out.empty()) std::memcpy(out.data(), t.bytes(), t.nbytes());
  return out;
}

/// The scatter::Error that `f()` throws; a test failure, and an empty io error, if none.
template <class F>
Error thrown(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no scatter::Error was thrown";
  return Error(ErrorCode::io, "", "");
}

/// Load options with this --max-bytes.
inline LoadOptions load_options(std::uint64_t max_bytes) {
  LoadOptions options;
  options.max_bytes = max_bytes;
  return options;
}

/// Loads one case from JSON text as file "test.json" (max_bytes 1 GiB unless given).
inline CaseEntry load_one(const std::string& json, std::uint64_t max_bytes = 1ULL << 30) {
  auto result = load_text(json, "test.json", load_options(max_bytes));
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

/// Calls check(text, case) on cases 0 .. count - 1 of the fuzz stream `seed` (tensors of at most
/// `max_elements`), until a check fails.
template <class Check>
void for_each_fuzzed_case(std::uint64_t seed, std::int64_t count, std::int64_t max_elements, Check&& check) {
  for (std::int64_t i = 0; i < count && !::testing::Test::HasFailure(); ++i) {
    const auto text = fuzz_case(seed, i, max_elements);
    check(text, load_case(text));
  }
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

/// A fixture with a fresh directory for each test, removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(info->test_suite_name()) + "_" + info->name();
    std::replace(name.begin(), name.end(), '/', '_');  // parameterized tests' names have slashes
    dir_ = std::filesystem::temp_directory_path() / ("scatter_test_" + std::to_string(::getpid()) + "_" + name);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  /// The path of `name` in the directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Writes `text` to `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
    return path(name);
  }
  std::filesystem::path dir_;
};

/// One row of a table of rejections: the case JSON `json` is rejected with exactly
/// `code` and `message`; `name` names the row in the test's name.
struct Rejection {
  std::string name;
  std::string json;
  ErrorCode code;
  std::string message;
};

inline void PrintTo(const Rejection& r, std::ostream* os) { *os << r.name; }

/// The test name of a table row, for INSTANTIATE_TEST_SUITE_P.
inline std::string rejection_name(const ::testing::TestParamInfo<Rejection>& info) { return info.param.name; }

/// The bundled cases' folder: the checkout's cases/, or SCATTER_CASES_DIR where it is set (a
/// test binary carried to a machine whose checkout lies elsewhere, as a GPU loan's).
inline std::string cases_dir() {
  const char* moved = std::getenv("SCATTER_CASES_DIR");
  return moved != nullptr && *moved != '\0' ? moved : SCATTER_CASES_DIR;
}

/// A bundled case (cases/) that reaches a backend: valid, not `large`, materialized.
struct BundledCase {
  std::string what;  ///< "file: name"
  Case c;
};

/// Every bundled case that reaches a backend (the others are skipped: expect_error,
/// tagged large, or rejected at materialization).
inline std::vector<BundledCase> bundled_cases() {
  LoadOptions options;
  options.max_bytes = default_max_bytes();
  const auto loaded = load_paths({cases_dir()}, options);
  std::vector<BundledCase> cases;
  for (const auto& entry : loaded.cases) {
    const bool large = std::find(entry.tags.begin(), entry.tags.end(), "large") != entry.tags.end();
    if (!entry.decl || entry.expect_error || large) continue;
    try {
      cases.push_back({entry.file + ": " + entry.name, materialize(*entry.decl)});
    } catch (const Error&) {
      // rejected at materialization (index, values): never reaches a backend
    }
  }
  return cases;
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
