// The human table: one row per case and backend as results arrive, a failure
// report under each failing row, and the closing line that CI greps for. On a
// terminal, a one-line progress indicator on stderr for runs longer than 2 s.

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <ostream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "scatter/report.hpp"
#include "text.hpp"

namespace scatter {
namespace {

using detail::comparison_text;
using detail::time_text;
using detail::cause_text;
using detail::diagnosed;
using detail::worst_text;

constexpr const char* kRed = "\033[31m";
constexpr const char* kGreen = "\033[32m";
constexpr const char* kYellow = "\033[33m";
constexpr const char* kReset = "\033[0m";

// The recap at the end of a run: one line a failure, at most this many (the reports hold all).
constexpr std::size_t kRecapLines = 40;
constexpr std::size_t kRecapReason = 160;  // characters of the first reason

// The table's columns, in characters. A longer case name or backend label is shortened in the
// middle, keeping a third of the room for its start and two for its end (the end tells apart
// most: a plugin's file name, a case's dtype suffix); the recap and the reports keep it whole.
constexpr std::size_t kCaseColumn = 40;
constexpr std::size_t kOpColumn = 17;
constexpr std::size_t kBackendColumn = 20;
constexpr std::size_t kStatusColumn = 8;

bool is_continuation_byte(char ch) { return (static_cast<unsigned char>(ch) & 0xC0) == 0x80; }

// `text` (valid UTF-8) in at most `width` characters, padded to them: "head...tail" when longer.
// Characters are code points: a wide (CJK) character takes two cells and shifts the row.
std::string column(const std::string& text, std::size_t width) {
  std::vector<std::size_t> starts;  // where each character begins
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!is_continuation_byte(text[i])) starts.push_back(i);
  }
  if (starts.size() <= width) return text + std::string(width - starts.size(), ' ');
  const std::size_t keep = width - 3;
  const std::size_t head = (keep + 2) / 3;
  const std::size_t tail = keep - head;
  return text.substr(0, starts[head]) + "..." + text.substr(starts[starts.size() - tail]);
}

// The first columns of a row.
std::string row_start(const CaseResult& r) {
  return column(r.name, kCaseColumn) + " " + column(r.op, kOpColumn) + " " + column(r.backend, kBackendColumn) + " ";
}

// The first reason a result failed, on one line: its error, the worst element, or its detail.
std::string first_reason(const CaseResult& r) {
  std::string text = r.error ? describe(*r.error) : r.comparison && !r.comparison->passed ? worst_text(r) : r.detail;
  for (auto& ch : text) ch = ch == '\n' ? ' ' : ch;
  if (text.size() > kRecapReason) text = text.substr(0, kRecapReason - 3) + "...";
  return text;
}

// "[12/332] case_name 3.1s" redrawn on stderr every 200 ms once the run is 2 s old.
class Progress {
 public:
  explicit Progress(std::mutex& io) : io_(io), start_(Clock::now()), thread_([this] { loop(); }) {}
  ~Progress() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    thread_.join();
    clear();
  }
  void set(const std::string& name, int index, int total) {
    std::lock_guard lock(mutex_);
    name_ = name;
    index_ = index;
    total_ = total;
  }
  /// Erases the line; the caller holds the io mutex.
  void clear() {
    if (shown_) {
      std::fputs("\r\033[K", stderr);
      std::fflush(stderr);
      shown_ = false;
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  void loop() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return done_; })) {
      const std::chrono::duration<double> elapsed = Clock::now() - start_;
      if (elapsed.count() < 2.0 || total_ == 0) continue;
      const auto line = fmt::format("\r\033[K[{}/{}] {} {:.1f}s", index_, total_, name_, elapsed.count());
      std::lock_guard io(io_);
      std::fputs(line.c_str(), stderr);
      std::fflush(stderr);
      shown_ = true;
    }
  }
  std::mutex& io_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Clock::time_point start_;
  std::string name_;
  int index_ = 0;
  int total_ = 0;
  bool done_ = false;
  bool shown_ = false;
  std::thread thread_;
};

class TableReporter final : public Reporter {
 public:
  TableReporter(std::ostream& out, TableOptions options) : out_(out), options_(options) {
    if (options_.progress) progress_ = std::make_unique<Progress>(io_);
  }

  void on_case_start(const std::string& name, int index, int total) override {
    if (progress_) progress_->set(printable_text(name), index, total);
  }

  void on_file_error(const Error& error) override {
    std::lock_guard lock(io_);
    clear_progress();
    out_ << paint(kRed, "ERROR") << "  " << describe(error) << std::endl;
  }

  void on_result(const CaseResult& raw) override {
    const auto r = detail::printable(raw);  // no byte of a file name or a backend reaches the terminal as it is
    const bool bad = r.status == Status::failed || r.status == Status::error || (r.status == Status::xpass && r.strict);
    std::lock_guard lock(io_);
    if (bad) {
      const char* word = r.status == Status::error ? "ERROR" : r.status == Status::xpass ? "XPASS" : "FAILED";
      recap_.push_back(fmt::format("{} {} [{}]: {}", word, r.name, r.backend, first_reason(r)));
    }
    if (options_.quiet && !bad) return;
    clear_progress();
    if (!header_printed_) {
      // The columns, once, above the first row.
      header_printed_ = true;
      out_ << column("case", kCaseColumn) << " " << column("op", kOpColumn) << " "
           << column("backend", kBackendColumn) << " " << column("status", kStatusColumn) << " "
           << fmt::format("{:<60} {}\n", "worst error and where", "time");
    }
    if (r.status == Status::skipped && !options_.verbose) {
      if (skipped_[r.backend]++ > 0) return;
      out_ << row_start(r) << paint(kYellow, column("skipped", kStatusColumn)) << " " << r.detail
           << " (shown once; -v shows every case)" << std::endl;
      return;
    }
    const auto status = column(std::string(to_string(r.status)), kStatusColumn);
    out_ << row_start(r)
         << paint(r.status == Status::passed || r.status == Status::xfail ? kGreen
                  : r.status == Status::skipped || r.status == Status::xpass ? kYellow
                                                                             : kRed,
                  status)
         << " "
         << fmt::format("{:<60} {}", worst_text(r), time_text(r.seconds)) << "\n";
    if (r.error) out_ << "    " << describe(*r.error) << "\n";
    if (diagnosed(r)) out_ << "    " << cause_text(r) << "\n";
    // A wrong output's detail says which recorded divergences were tried (docs/backends.md).
    if ((r.status == Status::xfail || r.status == Status::xpass || r.status == Status::failed) && r.comparison &&
        !r.detail.empty()) {
      out_ << "    " << r.detail << "\n";
    }
    if (options_.verbose && !r.lowering.empty()) out_ << "    lowering: " << r.lowering << "\n";
    if (r.comparison && ((!r.comparison->passed && r.status != Status::xfail) || options_.verbose)) {
      out_ << comparison_text(*r.comparison, "    ");
    }
    out_.flush();
  }

  void on_end(const RunSummary& raw) override {
    const auto summary = detail::printable(raw);
    progress_.reset();
    for (const auto& [backend, n] : skipped_) {
      if (n > 1 && !options_.verbose) out_ << fmt::format("({} skipped on {} cases)\n", backend, n);
    }
    if (!summary.skip_reasons.empty()) {
      out_ << "skipped, by reason:\n";
      for (const auto& [reason, n] : summary.skip_reasons) out_ << fmt::format("  {:>5}  {}\n", n, reason);
    }
    if (!summary.xfail_ids.empty()) {
      out_ << fmt::format("xfail (known divergences): {}\n", summary.xfailed);
      for (const auto& [id, n] : summary.xfail_ids) out_ << fmt::format("  {:>5}  {}\n", n, id);
    }
    if (summary.xpassed > 0) out_ << fmt::format("XPASS (recorded divergences that passed): {}\n", summary.xpassed);
    if (summary.large_left_out > 0) {
      out_ << fmt::format("{} case{} tagged 'large' matched but did not run: add --include-large to run {}\n",
                          summary.large_left_out, summary.large_left_out == 1 ? "" : "s",
                          summary.large_left_out == 1 ? "it" : "them");
    }
    for (const auto& [warning, n] : summary.warnings) {
      out_ << fmt::format("warning: {}{}; the run went on\n", warning, n > 1 ? fmt::format(" ({} times)", n) : "");
    }
    if (!recap_.empty()) {
      // As pytest's short summary: a failing run ends with what failed, whatever scrolled by.
      out_ << "short summary of failures and errors:\n";
      for (std::size_t i = 0; i < recap_.size() && i < kRecapLines; ++i) out_ << "  " << recap_[i] << "\n";
      if (recap_.size() > kRecapLines) {
        out_ << fmt::format("  ... and {} more (every one is in the reports and the rows above)\n",
                            recap_.size() - kRecapLines);
      }
    }
    if (summary.nothing_ran()) out_ << "nothing ran: every case was skipped on every backend (exit 4)\n";
    if (summary.empty_part) {
      out_ << "this part holds no case (the other parts run them; merge checks they did): " << summary.none_selected
           << "\n";
    } else if (!summary.none_selected.empty()) {
      out_ << "no case selected: " << summary.none_selected << "\n";
    }
    if (summary.interrupted) out_ << "interrupted: the results above are the cases that finished\n";
    if (summary.stopped_early) out_ << "stopped at the first failure (--fail-fast)\n";
    out_ << closing_line(summary) << std::endl;
  }

 private:
  std::string paint(const char* color, const std::string& text) const {
    return options_.color ? std::string(color) + text + kReset : text;
  }
  void clear_progress() {
    if (progress_) progress_->clear();
  }

  std::ostream& out_;
  TableOptions options_;
  std::map<std::string, int> skipped_;
  std::vector<std::string> recap_;  ///< one line a failed, errored or strict-xpass result
  bool header_printed_ = false;
  std::mutex io_;
  std::unique_ptr<Progress> progress_;
};

}  // namespace

std::string closing_line(const RunSummary& s) {
  // The spec's closing line, then xfail and XPASS, counted apart from passed (as pytest does), when
  // there are some: a line that starts as the spec's still reads the same.
  auto line = fmt::format("scatterctl: {} passed, {} failed, {} skipped", s.passed, s.failed, s.skipped);
  if (s.xfailed > 0) line += fmt::format(", {} xfailed", s.xfailed);
  if (s.xpassed > 0) line += fmt::format(", {} xpassed", s.xpassed);
  if (!s.ended_early.empty()) line += fmt::format(" (the run ended early: {})", s.ended_early);
  if (s.interrupted && s.ended_early.empty()) line += " (interrupted)";  // merge prints no "interrupted:" line above
  return line;
}

std::string describe(const Error& e) {
  std::string where;
  if (!e.file().empty()) where += e.file() + ": ";
  if (!e.case_name().empty()) where += fmt::format("case '{}': ", e.case_name());
  return fmt::format("{}[{}] {}", where, to_string(e.code()), e.message());
}

std::unique_ptr<Reporter> make_table_reporter(std::ostream& out, const TableOptions& options) {
  return std::make_unique<TableReporter>(out, options);
}

}  // namespace scatter
