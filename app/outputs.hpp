#pragma once
// The one door out (docs/reliability.md, "One door out"): a command names here every file it
// reads and every file or folder it writes, and check() refuses, before any work, whatever
// would lose something: an output over one of the inputs (a case file, the expectations, a
// kernel's source, a plugin, an exe: program, a merge part), two outputs on one path, a report
// path that is a link, a directory, a device, a FIFO or a socket ("-" streams to stdout), a
// folder that is a file. Files are then written by write_file_atomically (files.hpp), which
// refuses the same nodes again at the moment of writing.

#include <string>
#include <utility>
#include <vector>

#include "cli_common.hpp"

namespace scatter::cli {

class Outputs {
 public:
  /// Files (or folders: every file beneath them) the command reads.
  Outputs& reads(const std::vector<std::string>& paths);
  Outputs& reads(const std::string& path);
  /// Case files or folders of them, and the tensor files (.npy) their cases name.
  Outputs& reads_cases(const std::vector<std::string>& paths);
  /// The kernels, plugins, programs and interpreters that --backend and --python run.
  Outputs& reads(const BackendFlags& flags);
  /// The --expectations file or folder (the bundled one too).
  Outputs& reads(const ExpectationFlags& flags);
  /// A report that `flag` names ("" when not given: nothing to check).
  Outputs& file(const std::string& flag, const std::string& path);
  /// A folder that `flag` names, written into (fuzz --out, dump --out, --save-failures).
  Outputs& folder(const std::string& flag, const std::string& path);

  /// Refuses a clash (Error(schema): exit 2) or a path that cannot be written (Error(io)),
  /// naming the flag and the path; makes the reports' folders and the output folders.
  void check() const;

 private:
  std::vector<std::string> inputs_;
  std::vector<std::pair<std::string, std::string>> files_;    ///< {flag, path}
  std::vector<std::pair<std::string, std::string>> folders_;  ///< {flag, path}
};

}  // namespace scatter::cli
