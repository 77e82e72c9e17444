#pragma once
/// Loading case files: JSON -> declared cases (schema, dtypes, shapes, sizes checked),
/// then, one case at a time, materialized tensors with every index checked.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scatter/case.hpp"
#include "scatter/error.hpp"

namespace scatter {

struct LoadOptions {
  /// Cases needing more host memory than this are rejected with `too_large`.
  std::uint64_t max_bytes = 0;
};

/// Half of physical memory: room for the run itself and for the rest of the machine.
std::uint64_t default_max_bytes();

/// One case of a file, valid or not.
struct CaseEntry {
  std::string file;
  std::string name;  ///< empty when the case has no readable name
  std::vector<std::string> tags;
  std::optional<ErrorCode> expect_error;
  std::optional<CaseDecl> decl;  ///< set when the declaration is valid
  std::optional<Error> error;    ///< set when it is not
};

struct LoadResult {
  std::vector<CaseEntry> cases;
  std::vector<Error> file_errors;  ///< files that could not be read or parsed at all
};

/// Expands directories (every *.json below, sorted) and loads each file.
/// Never throws for bad input: problems land in file_errors or in an entry's error.
LoadResult load_paths(const std::vector<std::string>& paths, const LoadOptions& options);

/// Loads one JSON text as if it were the file `file` (for tests and tools).
LoadResult load_text(const std::string& text, const std::string& file, const LoadOptions& options);

/// Bytes the case needs on the host to run: its inputs, expected, two outputs, and the
/// scratch space of the `indices` generator.
std::uint64_t case_bytes(const CaseDecl& decl);

/// Builds the tensors and checks every index. Throws Error (values, io, dtype,
/// shape, index) naming file, case and field.
Case materialize(const CaseDecl& decl);

/// Like materialize(), every other check included, but index values are left as
/// written, out of range or not: the inputs of an `expect_error: "index"` case for an
/// external backend that must reject them. Never give such a case to `ref` or `cuda`.
Case materialize_unchecked(const CaseDecl& decl);

/// A materialized case as case-file JSON text (one case object) named `name`, every tensor written
/// out as values that read back as the same bits (NaN as "nan", -0 as -0.0), its attributes and
/// tolerance as they are; no `expected` (the reference is the judge of a case made this way).
/// `expect_error` is written when given (a case the spec rejects).
std::string case_json(const Case& c, const std::string& name, const std::string& description,
                      std::optional<ErrorCode> expect_error = std::nullopt);

/// Materializes one tensor (exposed for tests of the generators and .npy reader).
Tensor materialize_tensor(const TensorDecl& tensor, const std::string& field, const CaseDecl& decl);

/// Reads a .npy file with the dtype and shape its header declares ('<V2' is bfloat16).
Tensor read_npy(const std::string& path);

/// Writes a tensor as a .npy file (float16 as '<f2', bfloat16 as '<V2').
void write_npy(const Tensor& tensor, const std::string& path);

/// SplitMix64 as the spec defines it: state += 0x9E3779B97F4A7C15, then mix.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  /// Moves past `draws` draws at once (the state is a counter), so that a thread can start
  /// at any element of a generated tensor.
  void skip(std::uint64_t draws) { state_ += draws * 0x9E3779B97F4A7C15ULL; }

 private:
  std::uint64_t state_;
};

}  // namespace scatter
