#pragma once
// Reporters that write a file when the run ends keep what they are told here, as
// printable text (text.hpp): a byte from a case file cannot break a report.

#include <string>
#include <vector>

#include "scatter/report.hpp"
#include "text.hpp"

namespace scatter::detail {

class CollectingReporter : public Reporter {
 public:
  CollectingReporter(std::string path, RunContext context)
      : path_(std::move(path)), context_(printable(std::move(context))) {}
  void on_file_error(const Error& error) override { file_errors_.push_back(error); }  // printable when made
  void on_result(const CaseResult& result) override { results_.push_back(printable(result)); }
  void on_end(const RunSummary& summary) override { write_file_atomically(path_, render(printable(summary))); }

 protected:
  virtual std::string render(const RunSummary& summary) const = 0;

  std::string path_;
  RunContext context_;
  std::vector<Error> file_errors_;
  std::vector<CaseResult> results_;
};

}  // namespace scatter::detail
