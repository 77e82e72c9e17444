#pragma once
/// The reports of a run split with --shard, made the report of one run: `scatterctl merge
/// REPORT...` reads each part's JSON report, checks that the parts are one whole (the same
/// selection, the same N, every part exactly once) and writes the whole run's reports.

#include <string>
#include <vector>

#include "scatter/journal.hpp"

namespace scatter {

/// A `run --json` report read back, its summary counted again from its results. Throws
/// Error(io or json) naming the file and the field.
RecoveredRun read_json_report(const std::string& path);

/// Why these reports (read from `paths`) are not the parts of one run: each problem once, in
/// words that name the files; empty when they are. A report with no selection record (not
/// written by `run`) is a problem, as is a missing or twice-given part, or a part that ran
/// other cases or options (backends among them) than the first.
std::vector<std::string> shard_set_problems(const std::vector<std::string>& paths,
                                            const std::vector<RecoveredRun>& parts);

/// The parts as one run: results in part order, a file error that every part reported once,
/// the summary counted again. `command` is the merge's own command line, for the context.
RecoveredRun merge_shards(std::vector<RecoveredRun> parts, const std::string& command);

}  // namespace scatter
