#pragma once
// Internals of the loader shared by its files. nlohmann::json stays in the loader's
// files (and capabilities.cpp, which reads backends' declarations).

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "scatter/case.hpp"
#include "scatter/load.hpp"

namespace scatter::detail {

/// A JSON value as written, cut to a few dozen characters, for error messages.
std::string excerpt(const nlohmann::json& value);

/// Parses a JSON number, bool or "nan"/"inf"/"-inf" string as written; throws
/// Error(values) naming `field` for anything else.
Scalar parse_scalar(const nlohmann::json& value, const std::string& field);

/// Stores one scalar into element `offset` of `out`, checking that the dtype can hold
/// it exactly enough (integers in range and integral, finite floats not overflowing).
void store_scalar(const Scalar& value, Tensor& out, std::int64_t offset, const std::string& field);

/// Parses a `values` field (nested, flat, or a bare scalar) into a tensor.
std::shared_ptr<const Tensor> parse_values(const nlohmann::json& values, DType dtype, const Shape& shape);

/// Runs a generator for one tensor of a case.
Tensor run_generator(const Generator& gen, DType dtype, const Shape& shape, const CaseDecl& decl,
                     const std::string& field);

/// Host memory the `indices` generator needs besides its output, for n index elements
/// (0 for the other generators, which write straight into the output).
std::uint64_t indices_scratch_bytes(const Generator& gen, std::int64_t n);

/// Whose file a .npy is: a case file's (links followed, as a user means them) or a worker's
/// answer (never through a link, and owned by this user).
enum class NpyTrust { user_file, worker_file };

/// Reads a .npy file and checks it holds dtype and shape. Never blocks on a FIFO or device.
Tensor read_npy(const std::string& path, DType dtype, const Shape& shape, NpyTrust trust = NpyTrust::user_file);

/// Writes a .npy file that must not exist yet (created exclusively, mode 0600, never
/// through a link): a request's tensors for a worker.
void write_new_npy(const Tensor& tensor, const std::string& path);

/// The semantic rules: reductions per op and dtype, dtypes, axis, shapes. Normalizes
/// the axis. Throws Error naming the field.
void validate_decl(CaseDecl& decl, bool axis_given);

/// One parsed case file (a case, or {"cases": [...]}) into `out`: its cases, each
/// valid or with its error, and errors of the file as a whole.
void load_json(const nlohmann::json& doc, const std::string& file, const LoadOptions& options, LoadResult& out);

/// Checks every index value of a materialized case against data's shape.
void check_indices(const Case& c);

}  // namespace scatter::detail
