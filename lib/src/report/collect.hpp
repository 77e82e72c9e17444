#pragma once
// Reporters that write a file when the run ends keep what they are told here.

#include <string>
#include <vector>

#include "scatter/report.hpp"

namespace scatter::detail {

class CollectingReporter : public Reporter {
 public:
  CollectingReporter(std::string path, RunContext context) : path_(std::move(path)), context_(std::move(context)) {}
  void on_file_error(const Error& error) override { file_errors_.push_back(error); }
  void on_result(const CaseResult& result) override { results_.push_back(result); }
  void on_end(const RunSummary& summary) override { write_file_atomically(path_, render(summary)); }

 protected:
  virtual std::string render(const RunSummary& summary) const = 0;

  std::string path_;
  RunContext context_;
  std::vector<Error> file_errors_;
  std::vector<CaseResult> results_;
};

}  // namespace scatter::detail
