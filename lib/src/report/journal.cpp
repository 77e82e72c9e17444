// The journal (scatter/journal.hpp): one JSON object a line, each written with one write(2)
// so that a process killed at any moment leaves at most its last line cut short.
//   {"journal": 1, "pid": ..., "context": {...}, "reports": {"json": ..., "junit": ..., "markdown": ...}}
//   {"start": {"case": ..., "index": ..., "total": ...}}   a case begins (total: the selection)
//   {"begin": {"file": ..., "case": ..., "backend": ...}}  a trial begins, as a result so far ("-": building the inputs)
//   {"file_error": {...}}  {"result": {...}}               as the reports receive them
//   {"end": {...}}                                          the run reached its end
//   {"ended_early": {"why": ..., "kind": ...}}              it did not (end_run_abruptly)

#include "scatter/journal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <set>
#include <type_traits>

#include <fmt/format.h>

#include "platform/signal_safe.hpp"
#include "result_json.hpp"
#include "scatter/run.hpp"
#include "text.hpp"

extern char** environ;

namespace scatter {
namespace {

namespace fs = std::filesystem;
using detail::concat;
using detail::ordered_json;
using detail::write_all;

// What the journal's part of an abrupt end (RunJournal::end) needs, in plain buffers: it runs
// in signal handlers and exit handlers, after any static destructor, and may not allocate.
struct JournalFiles {
  std::atomic<int> journal_fd{-1};
  char journal_path[4096] = {};
  char self_exe[4096] = {};
  // The run's own report paths: the recovery writes them there (merge --recover follows no
  // journal's header by itself).
  char json_path[4096] = {};
  char junit_path[4096] = {};
  char markdown_path[4096] = {};
};
JournalFiles g_end;

void copy_text(char* to, std::size_t size, std::string_view from) {
  const auto n = std::min(size - 1, from.size());
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

void append(const ordered_json& record) {
  const int fd = g_end.journal_fd.load();
  if (fd < 0) return;
  const auto line = record.dump(-1, ' ', false, ordered_json::error_handler_t::replace) + "\n";
  if (write_all(fd, line.data(), line.size())) return;
  // Without its journal the run still ends normally; only a crash would lose the reports.
  std::cerr << fmt::format("scatterctl: cannot write the journal '{}': {}; a crash from here on would lose the "
                           "reports\n",
                           g_end.journal_path, std::strerror(errno));
  g_end.journal_fd.store(-1);
  ::close(fd);
}

class JournalingReporter final : public Reporter {
 public:
  explicit JournalingReporter(std::unique_ptr<Reporter> reporters) : reporters_(std::move(reporters)) {}
  ~JournalingReporter() override { close_journal(); }
  JournalingReporter(const JournalingReporter&) = delete;
  JournalingReporter& operator=(const JournalingReporter&) = delete;

  void on_case_start(const std::string& name, int index, int total) override {
    append({{"start", {{"case", printable_text(name)}, {"index", index}, {"total", total}}}});
    reporters_->on_case_start(name, index, total);
  }
  void on_file_error(const Error& error) override {
    append({{"file_error", detail::to_json(error)}});
    reporters_->on_file_error(error);
  }
  void on_result(const CaseResult& result) override {
    append({{"result", detail::to_json(detail::printable(result))}});
    reporters_->on_result(result);
  }
  void on_end(const RunSummary& s) override {
    append({{"end",
             {{"interrupted", s.interrupted}, {"stopped_early", s.stopped_early}, {"selected", s.selected},
              {"large_left_out", s.large_left_out}, {"warnings", detail::printable(s).warnings}}}});
    reporters_->on_end(s);
    if (reporters_->write_errors().empty()) {
      ::unlink(g_end.journal_path);
    } else {
      std::cerr << fmt::format("scatterctl: the journal '{}' is kept: `scatterctl merge --recover {}` writes the "
                               "reports from it\n",
                               g_end.journal_path, g_end.journal_path);
    }
    close_journal();
  }
  std::vector<std::string> write_errors() const override { return reporters_->write_errors(); }

 private:
  static void close_journal() {
    const int fd = g_end.journal_fd.exchange(-1);
    if (fd >= 0) ::close(fd);
  }

  std::unique_ptr<Reporter> reporters_;
};

// A signal handler's JSON string: `why` is ours (ASCII), but quote what needs it anyway.
std::size_t json_quote(char* to, std::size_t size, const char* text) noexcept {
  std::size_t n = 0;
  auto put = [&](char ch) {
    if (n + 1 < size) to[n++] = ch;
  };
  put('"');
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p == '"' || *p == '\\') put('\\');
    put(static_cast<unsigned char>(*p) < 0x20 ? ' ' : *p);
  }
  put('"');
  to[n] = '\0';
  return n;
}

const char* kind_name(EndKind kind) noexcept {
  switch (kind) {
    case EndKind::timed_out:
      return "timed_out";
    case EndKind::interrupted:
      return "interrupted";
    case EndKind::crashed:
      break;
  }
  return "crashed";
}

// fork() runs the atfork handlers, which may wait on a lock the crashed thread holds.
pid_t fork_from_handler() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return _Fork();
#else
  return fork();
#endif
}

// `self merge --recover JOURNAL --json P ...` (the run's own report paths) in a child; true when
// it wrote every report.
bool recover_in_child() noexcept {
  char* argv[12] = {g_end.self_exe, const_cast<char*>("merge"), const_cast<char*>("--recover"), g_end.journal_path};
  int argc = 4;
  const auto report = [&](const char* flag, char* path) {
    if (path[0] == '\0') return;
    argv[argc++] = const_cast<char*>(flag);
    argv[argc++] = path;
  };
  report("--json", g_end.json_path);
  report("--junit", g_end.junit_path);
  report("--markdown", g_end.markdown_path);
  argv[argc] = nullptr;
  const pid_t pid = fork_from_handler();
  if (pid < 0) return false;
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // a handler's mask would outlive the exec
    execve(g_end.self_exe, argv, environ);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) != kExitUsage && WEXITSTATUS(status) != kExitIo &&
         WEXITSTATUS(status) != 127;
}

// The journal as the abrupt end of a run sees it (abrupt_end.hpp).
class RunJournal final : public EndJournal {
 public:
  void begin(const CaseResult& trial) override { append({{"begin", detail::to_json(detail::printable(trial))}}); }
  bool open() const noexcept override { return g_end.journal_fd.load() >= 0; }
  void end(const char* why, EndKind kind) const noexcept override {
    const int fd = g_end.journal_fd.load();
    if (fd < 0) return;
    char line[2048];
    char quoted[1024];
    json_quote(quoted, sizeof quoted, why);
    auto n = concat(line, sizeof line, {"{\"ended_early\":{\"why\":", quoted, ",\"kind\":\"", kind_name(kind), "\"}}\n"});
    (void)write_all(fd, line, n);
    if (!recover_in_child()) {
      n = concat(line, sizeof line,
                 {"scatterctl: the reports could not be written from the journal; `scatterctl merge --recover ",
                  g_end.journal_path, "` tries again\n"});
      (void)write_all(STDERR_FILENO, line, n);
    }
  }
};
RunJournal g_run_journal;

}  // namespace

std::string journal_path_for(const ReportPaths& paths, long pid) {
  const auto& first = !paths.json.empty() ? paths.json : !paths.junit.empty() ? paths.junit : paths.markdown;
  return fmt::format("{}.journal-{}", first, pid);
}

std::vector<std::string> stale_journals(const ReportPaths& paths) {
  const fs::path pattern = journal_path_for(paths, 0);
  const auto prefix = pattern.filename().string().substr(0, pattern.filename().string().size() - 1);  // "r.json.journal-"
  std::vector<std::string> stale;
  std::error_code ec;
  const auto dir = pattern.has_parent_path() ? pattern.parent_path() : fs::path(".");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) stale.push_back(entry.path().string());
  }
  std::sort(stale.begin(), stale.end());
  return stale;
}

std::unique_ptr<Reporter> make_journaling_reporter(std::unique_ptr<Reporter> reporters, const ReportPaths& paths,
                                                   const RunContext& context, const std::string& self_exe) {
  const auto absolute = [](const std::string& p) { return p.empty() ? p : fs::absolute(p).lexically_normal().string(); };
  const auto path = absolute(journal_path_for(paths, ::getpid()));
  // Ours alone: created afresh, never through a link, closed in every child.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorCode::io, "", fmt::format("cannot create the journal '{}': {}", path, std::strerror(errno)));
  copy_text(g_end.journal_path, sizeof g_end.journal_path, path);
  copy_text(g_end.self_exe, sizeof g_end.self_exe, self_exe);
  copy_text(g_end.json_path, sizeof g_end.json_path, absolute(paths.json));
  copy_text(g_end.junit_path, sizeof g_end.junit_path, absolute(paths.junit));
  copy_text(g_end.markdown_path, sizeof g_end.markdown_path, absolute(paths.markdown));
  g_end.journal_fd.store(fd);
  set_end_journal(&g_run_journal);
  append({{"journal", 1},
          {"pid", static_cast<long>(::getpid())},
          {"context", detail::to_json(detail::printable(context))},
          {"reports", {{"json", absolute(paths.json)}, {"junit", absolute(paths.junit)}, {"markdown", absolute(paths.markdown)}}}});
  return std::make_unique<JournalingReporter>(std::move(reporters));
}

std::vector<std::unique_ptr<Reporter>> make_file_reporters(const ReportPaths& paths, const RunContext& context) {
  std::vector<std::unique_ptr<Reporter>> reporters;
  if (!paths.json.empty()) reporters.push_back(make_json_reporter(paths.json, context));
  if (!paths.junit.empty()) reporters.push_back(make_junit_reporter(paths.junit, context));
  if (!paths.markdown.empty()) reporters.push_back(make_markdown_reporter(paths.markdown, context));
  return reporters;
}

bool looks_like_journal(const std::string& text) {
  // The header's first member, as append() writes it (no spaces).
  return text.rfind("{\"journal\":1,", 0) == 0;
}

namespace {

// A member of a journal record, of the type the journal writes there; a missing one is `fallback`.
template <class T>
T typed(const ordered_json& record, const char* key, T fallback, const std::string& where) {
  const auto it = record.find(key);
  if (it == record.end()) return fallback;
  const bool ok = std::is_same_v<T, bool>          ? it->is_boolean()
                  : std::is_same_v<T, std::string> ? it->is_string()
                                                   : it->is_number_integer() && it->template get<std::int64_t>() >= 0 &&
                                                         it->template get<std::int64_t>() <= INT32_MAX;
  if (!ok) {
    throw Error(ErrorCode::json, key, fmt::format("{}: = {} is not what a journal holds here", where, detail::preview(*it)));
  }
  return it->template get<T>();
}

const ordered_json& object_at(const ordered_json& value, const char* what, const std::string& where) {
  if (!value.is_object()) {
    throw Error(ErrorCode::json, what, fmt::format("{}: = {} is not an object", where, detail::preview(value)));
  }
  return value;
}

// The first line of a journal: {"journal": 1, "pid": ..., "context": {...}, "reports": {...}},
// whole (a header is written before anything else, so a cut-short one is no journal).
void read_header(const std::string& text, const std::string& path, RecoveredRun& run) {
  const auto newline = text.find('\n');
  const auto not_a_journal = [&](const std::string& why) {
    return Error(ErrorCode::json, "",
                 fmt::format("'{}' is not a scatterctl journal ({}): nothing recovered, the file is left as it is", path,
                             why));
  };
  if (text.empty()) throw not_a_journal("it is empty");
  if (newline == std::string::npos) throw not_a_journal("its first line is not a whole journal header");
  ordered_json header;
  try {
    header = detail::parse_json(text.substr(0, newline), fmt::format("'{}' line 1", path));
  } catch (const Error&) {
    throw not_a_journal("its first line is not JSON");
  }
  if (!looks_like_journal(text) || !header.is_object() || !header.contains("context") || !header.contains("reports") ||
      !header["reports"].is_object()) {
    throw not_a_journal("its first line is not a journal header of this version");
  }
  const auto where = fmt::format("{} line 1", path);
  try {
    const auto pid = header.value("pid", ordered_json(0));
    if (!pid.is_number_integer()) throw Error(ErrorCode::json, "pid", fmt::format("{}: = {} is not a process id", where, detail::preview(pid)));
    run.pid = pid.get<long>();
    run.context = detail::context_from_json(header.at("context"));
    const auto& reports = header.at("reports");
    run.reports = {typed<std::string>(reports, "json", "", where), typed<std::string>(reports, "junit", "", where),
                   typed<std::string>(reports, "markdown", "", where)};
  } catch (const Error& e) {
    throw Error(e.code(), e.field(), fmt::format("{}: {}", where, e.detail()));
  }
}

}  // namespace

RecoveredRun recover_journal(const std::string& path, FileIdentity* read_as) {
  const auto text = read_file_text(path, kMaxInputFileBytes, read_as);
  RecoveredRun run;
  read_header(text, path, run);
  std::optional<CaseResult> in_flight;
  std::optional<ordered_json> end;
  std::optional<ordered_json> ended_early;
  std::size_t line_start = text.find('\n') + 1;
  for (int number = 2; line_start < text.size(); ++number) {
    const auto newline = text.find('\n', line_start);
    const bool cut_short = newline == std::string::npos;
    const auto line = text.substr(line_start, cut_short ? std::string::npos : newline - line_start);
    line_start = cut_short ? text.size() : newline + 1;
    const auto where = fmt::format("{} line {}", path, number);
    ordered_json record;
    try {
      record = detail::parse_json(line, where);
    } catch (const Error&) {
      if (cut_short) break;  // the process died while writing its last line
      throw;
    }
    if (!record.is_object() || record.size() == 0) {
      if (cut_short) break;
      throw Error(ErrorCode::json, "", fmt::format("{}: not a journal record", where));
    }
    try {
      // The first member names the record (items() would hand out a key of a temporary iterator).
      const auto first = record.begin();
      const std::string key = first.key();
      const auto& value = first.value();
      if (key == "start") {
        run.summary.selected = typed<int>(object_at(value, "start", where), "total", 0, where);
      } else if (key == "begin") {
        in_flight = detail::result_from_json(value);
      } else if (key == "file_error") {
        run.file_errors.push_back(detail::error_from_json(value));
      } else if (key == "result") {
        run.results.push_back(detail::result_from_json(value));
        in_flight.reset();
      } else if (key == "end") {
        end = object_at(value, "end", where);
        run.summary.interrupted = typed<bool>(*end, "interrupted", false, where);
        run.summary.stopped_early = typed<bool>(*end, "stopped_early", false, where);
        run.summary.large_left_out = typed<int>(*end, "large_left_out", 0, where);
        const auto warnings = end->value("warnings", ordered_json::object());
        for (const auto& [text_of_warning, count] : object_at(warnings, "end.warnings", where).items()) {
          if (!count.is_number_integer() || count.get<std::int64_t>() < 0 || count.get<std::int64_t>() > INT32_MAX) {
            throw Error(ErrorCode::json, "end.warnings",
                        fmt::format("{}: = {} is not a count", where, detail::preview(count)));
          }
          run.summary.warnings[text_of_warning] = count.get<int>();
        }
      } else if (key == "ended_early") {
        ended_early = object_at(value, "ended_early", where);
        typed<std::string>(*ended_early, "why", "", where);
        typed<std::string>(*ended_early, "kind", "", where);
      }
    } catch (const Error& e) {
      throw Error(e.code(), e.field(), e.detail().rfind(where, 0) == 0 ? e.detail() : fmt::format("{}: {}", where, e.detail()));
    } catch (const nlohmann::json::exception& e) {
      throw Error(ErrorCode::json, "", fmt::format("{}: {}", where, e.what()));
    }
  }

  auto& s = run.summary;
  if (!end) {
    const auto kind = ended_early ? ended_early->value("kind", "crashed") : "crashed";
    s.ended_early = ended_early ? ended_early->value("why", "")
                                : "the process ended without a word: SIGKILL, the out-of-memory killer or a power loss";
    if (kind == "interrupted") {
      s.interrupted = true;
    } else if (in_flight) {
      auto r = std::move(*in_flight);
      const auto code = kind == "timed_out" ? ErrorCode::timeout : ErrorCode::backend;
      r.status = Status::error;
      r.error = Error(code, "", fmt::format("the run ended during this case: {}", s.ended_early)).at(r.file, r.name);
      r.detail = fmt::format("[{}] {}", to_string(code), r.error->message());
      run.results.push_back(std::move(r));
    }
  }
  // A run that says it ended, but whose journal holds fewer cases than it started, is no pass.
  std::set<std::pair<std::string, std::string>> cases;
  for (const auto& r : run.results) cases.insert({r.file, r.name});
  if (end && !s.interrupted && !s.stopped_early && static_cast<int>(cases.size()) < s.selected) {
    s.ended_early = fmt::format("the journal holds the results of {} of the {} cases its run selected",
                                cases.size(), s.selected);
  }
  count_recovered(run);
  return run;
}

void count_recovered(RecoveredRun& run) {
  auto& s = run.summary;
  for (const auto& r : run.results) count_result(s, r, false);  // each result carries its own strictness
  s.failed += static_cast<int>(run.file_errors.size());
  s.invalid += static_cast<int>(run.file_errors.size());
  finish_summary(s, !run.file_errors.empty());
  // A run that ended early (or a part of one) is never a pass, whatever finished passed; nor one
  // that says it stopped at a failure (--fail-fast) and holds none.
  const bool failure_held = s.failed > 0;
  if (s.exit_code == kExitOk && (!s.ended_early.empty() || (s.stopped_early && !failure_held))) s.exit_code = kExitFailed;
}

}  // namespace scatter
