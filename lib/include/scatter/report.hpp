#pragma once
/// Reporters: the human table on stdout (more formats plug in behind Reporter).

#include <iosfwd>
#include <memory>

#include "scatter/run.hpp"

namespace scatter {

struct TableOptions {
  bool color = false;
  bool quiet = false;    ///< only failures and the closing line
  bool verbose = false;  ///< every mismatch and the rule of each passing case
};

/// Streams one row per result, failure reports under failing rows, and the
/// closing line `scatterctl: N passed, N failed, N skipped`.
std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const TableOptions& options);

/// The closing line, without newline.
std::string closing_line(const RunSummary& summary);

/// "file: case 'name': [code] message" (file and case left out when unknown).
std::string describe(const Error& error);

}  // namespace scatter
