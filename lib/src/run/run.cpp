// Running cases: one at a time (memory holds one case), expect_error cases judged by
// their code, each backend's output compared with `expected` or the reference.

#include "scatter/run.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fnmatch.h>
#include <optional>
#include <new>

#include <fmt/format.h>

#include "scatter/cancel.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/abrupt_end.hpp"
#include "scatter/profile.hpp"
#include "scatter/trial.hpp"

#include "core/text_hash.hpp"

namespace scatter {
namespace {

using detail::fnv1a;

bool has_tag(const CaseEntry& e, std::string_view tag) {
  return std::find(e.tags.begin(), e.tags.end(), tag) != e.tags.end();
}

CaseResult base_result(const CaseEntry& entry, std::string backend) {
  CaseResult r;
  r.file = entry.file;
  r.name = entry.name.empty() ? "-" : entry.name;
  r.op = entry.decl ? std::string(to_string(entry.decl->attrs.op)) : "-";
  r.reduction = entry.decl ? std::string(to_string(entry.decl->attrs.reduction)) : "-";
  r.dtype = entry.decl ? std::string(to_string(entry.decl->data.dtype)) : "-";
  r.backend = std::move(backend);
  return r;
}

// An expect_error case passes only when rejected with exactly its code.
CaseResult judge_expected_error(const CaseEntry& entry) {
  auto r = base_result(entry, "-");
  std::optional<Error> error = entry.error;
  if (!error && entry.decl) {
    try {
      materialize(*entry.decl);
    } catch (const Error& e) {
      error = e;
    }
  }
  const auto want = to_string(*entry.expect_error);
  if (error && error->code() == *entry.expect_error) {
    r.status = Status::passed;
    r.detail = fmt::format("rejected as expected [{}]: {}", want, error->message());
  } else if (error) {
    r.status = Status::failed;
    r.detail = fmt::format("expected error [{}], got [{}]: {}", want, to_string(error->code()), error->message());
  } else {
    r.status = Status::failed;
    r.detail = fmt::format("expected error [{}], but the case is valid", want);
  }
  return r;
}

CaseResult invalid_result(const CaseEntry& entry, const Error& error) {
  auto r = base_result(entry, "-");
  r.status = Status::error;
  r.invalid = true;
  r.error = error;
  r.detail = fmt::format("[{}] {}", to_string(error.code()), error.message());
  return r;
}

// A trial's answer as a result row of the case.
CaseResult result_of(const CaseEntry& entry, const Backend& backend, Trial&& t, bool features, const CaseFacts& facts,
                     bool invalid) {
  auto r = base_result(entry, std::string(backend.label()));
  r.version = backend.version();
  r.status = t.status;
  r.detail = std::move(t.detail);
  r.comparison = std::move(t.comparison);
  if (t.error) r.error = Error(*t.error).at(entry.file, entry.name);
  r.strict = t.strict;
  r.seconds = t.seconds;
  r.expectation = std::move(t.expectation);
  r.lowering = std::move(t.lowering);
  if (t.cause) r.cause = std::move(t.cause->name);
  if (features) r.features = facts.trap_names(invalid);
  return r;
}

// Backends that declare what they support list the case's traps (the conformance matrix).
bool lists_traps(const Backend& backend) { return backend.capabilities() != nullptr; }

TrialOptions trial_options_of(const RunOptions& options, bool oracle_alone) {
  TrialOptions t;
  t.flags = options.flags;
  t.expectations = options.expectations;
  t.strict = options.strict;
  t.oracle_alone = oracle_alone;
  t.keep_failed_output = !options.save_failures.empty();
  return t;
}

}  // namespace

void count_result(RunSummary& s, const CaseResult& r, bool strict) {
  if (r.backend != "-") {
    ++s.backend_rows;
    if (r.status != Status::skipped) ++s.backend_verdicts;
  }
  s.add(r.status, strict || r.strict, r.backend, r.status == Status::xfail ? r.expectation : r.detail, r.invalid);
}

void finish_summary(RunSummary& s, bool any_file_errors) {
  const bool nothing = (s.selected == 0 && !any_file_errors && !s.empty_part) || s.nothing_ran();
  s.exit_code = s.decide_exit(s.interrupted, !s.ended_early.empty(), nothing);
}

namespace {

void report_file_errors(const LoadResult& loaded, RunSummary& s, Reporter& reporter) {
  for (const auto& e : loaded.file_errors) {
    reporter.on_file_error(e);
    ++s.failed;
    ++s.invalid;
  }
}

// Cases with expect_error whose tensors can be built (indices out of range) go to the
// external backends, which must refuse them; the others are the loader's alone.
template <class Emit>
void run_invalid_on_external(const CaseEntry& entry, const RunOptions& options, const BackendChoice& backends,
                             Emit&& emit) {
  if (!entry.decl) return;
  std::vector<Backend*> judges;
  for (auto* b : backends.run) {
    if (b->is_external()) judges.push_back(b);
  }
  if (judges.empty()) return;
  std::optional<Case> c;
  try {
    set_case_deadline(options.timeout);
    c = materialize_unchecked(*entry.decl);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    return;  // not buildable into tensors: nothing to hand to a backend
  } catch (const std::bad_alloc&) {
    return;
  }
  const CaseFacts facts(*c);
  const auto trial_options = trial_options_of(options, false);
  for (auto* b : judges) {
    mark_in_flight(base_result(entry, std::string(b->label())));
    emit(result_of(entry, *b, try_invalid_case(*b, facts, *entry.expect_error, trial_options), true, facts, true));
  }
}

}  // namespace


namespace {

// The selection's steps, in the order why_none_selected() reports them.
bool passes_filters(const CaseEntry& e, const Selection& sel) {
  bool any_include = false;
  bool included = false;
  for (const auto& f : sel.filters) {
    if (!f.empty() && f[0] == '-') {
      if (fnmatch(f.c_str() + 1, e.name.c_str(), 0) == 0) return false;
    } else {
      any_include = true;
      included = included || fnmatch(f.c_str(), e.name.c_str(), 0) == 0;
    }
  }
  return !any_include || included;
}

bool passes_tags(const CaseEntry& e, const Selection& sel) {
  return sel.tags.empty() ||
         std::any_of(sel.tags.begin(), sel.tags.end(), [&](const std::string& t) { return has_tag(e, t); });
}

bool passes_large(const CaseEntry& e, const Selection& sel) {
  const bool asked_large =
      sel.include_large || std::find(sel.tags.begin(), sel.tags.end(), "large") != sel.tags.end();
  return !has_tag(e, "large") || asked_large;
}

bool in_shard(const CaseEntry& e, const Selection& sel) {
  return static_cast<int>(fnv1a(e.name) % static_cast<std::uint64_t>(sel.shard_count)) == sel.shard_index - 1;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& item : items) quoted.push_back("'" + item + "'");
  return fmt::format("{}", fmt::join(quoted, ", "));
}

// "423 cases loaded; --filter 'nd_*' kept 0": each step of the selection with what it kept,
// for a selection that kept nothing.
std::string why_none_selected(const LoadResult& loaded, const Selection& sel) {
  int filtered = 0, tagged = 0, sized = 0;
  for (const auto& e : loaded.cases) {
    if (!passes_filters(e, sel)) continue;
    ++filtered;
    if (!passes_tags(e, sel)) continue;
    ++tagged;
    sized += passes_large(e, sel);
  }
  auto why = fmt::format("{} case{} loaded", loaded.cases.size(), loaded.cases.size() == 1 ? "" : "s");
  if (!sel.filters.empty()) why += fmt::format("; --filter {} kept {}", quoted_list(sel.filters), filtered);
  if (!sel.tags.empty()) why += fmt::format("; --tag {} kept {}", quoted_list(sel.tags), tagged);
  if (sized < tagged) why += fmt::format("; {} tagged 'large' left out (--include-large runs them)", tagged - sized);
  if (sel.shard_count > 1) why += fmt::format("; --shard {}/{} kept none of {}", sel.shard_index, sel.shard_count, sized);
  return why;
}

// In the selection before --shard splits it.
bool in_whole_selection(const CaseEntry& e, const Selection& sel) {
  return passes_filters(e, sel) && passes_tags(e, sel) && passes_large(e, sel);
}

}  // namespace

std::string selection_fingerprint(const std::vector<std::string>& sorted_names) {
  return fmt::format("{:016x}", fnv1a(fmt::format("{}", fmt::join(sorted_names, "\n"))));
}

bool is_selected(const CaseEntry& e, const Selection& sel) {
  // Every loaded case has a name (the loader derives one); a hand-made entry may not.
  if (e.name.empty()) return sel.shard_index == 1;
  return in_whole_selection(e, sel) && in_shard(e, sel);
}

SelectionRecord record_selection(const LoadResult& loaded, const RunOptions& options, const BackendChoice& backends) {
  const auto& sel = options.selection;
  std::vector<std::string> names;
  for (const auto& e : loaded.cases) {
    if (in_whole_selection(e, sel)) names.push_back(e.name);
  }
  // Sorted: the fingerprint is of the set of cases, not of the order the files were listed in.
  std::sort(names.begin(), names.end());
  SelectionRecord record;
  record.shard_index = sel.shard_index;
  record.shard_count = sel.shard_count;
  record.whole = static_cast<int>(names.size());
  record.fingerprint = selection_fingerprint(names);
  // The backends asked for, whether they run here or are skipped (cuda on a machine without a
  // GPU), sorted: which of them a machine can run must not change the record.
  std::vector<std::string> asked;
  for (const auto* b : backends.run) asked.emplace_back(b->label());
  for (const auto& [b, why] : backends.skipped) asked.emplace_back(b->label());
  std::sort(asked.begin(), asked.end());
  // Everything that can change a result: parts that differ in one of them are not one run.
  record.options = fmt::format("backends [{}], filters [{}], tags [{}], include_large {}, profile '{}', in_place {}, "
                               "deterministic {}, strict {}, expectations {}, timeout {}, max_bytes '{}'",
                               fmt::join(asked, ", "), quoted_list(sel.filters), quoted_list(sel.tags),
                               sel.include_large, options.profile, options.flags.in_place,
                               options.flags.deterministic, options.strict,
                               options.expectations ? "used" : "none", options.timeout ? fmt::format("{:g} s", *options.timeout) : "none",
                               options.max_bytes);
  return record;
}

namespace {

// --shard auto: where CI systems put a parallel job's index and the number of jobs.
struct ShardVariables {
  const char* index;
  const char* count;  ///< null: the system gives none (--shard auto/N)
  int first;          ///< the first job's index: 0 or 1
};
constexpr ShardVariables kShardVariables[] = {
    {"CI_NODE_INDEX", "CI_NODE_TOTAL", 1},                           // GitLab `parallel:`
    {"BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", 0},  // Buildkite `parallelism:`
    {"CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", 0},                   // CircleCI `parallelism:`
    {"JOB_COMPLETION_INDEX", nullptr, 0},                            // Kubernetes Indexed Job
};

std::optional<int> env_int(const char* name) {
  const char* text = name ? std::getenv(name) : nullptr;
  if (text == nullptr) return std::nullopt;
  int value = 0;
  const auto end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end) {
    throw Error(ErrorCode::schema, "--shard", fmt::format("= 'auto' but ${} = '{}' is not an integer", name, text));
  }
  return value;
}

// "auto" or "auto/N": I (and N) from the first of kShardVariables that is set.
void shard_from_environment(const std::string& text, Selection& sel) {
  std::optional<int> given;
  if (text != "auto") {
    int n = 0;
    const auto digits = text.substr(5);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (text.rfind("auto/", 0) != 0 || ec != std::errc() || ptr != digits.data() + digits.size() || n < 1) {
      throw Error(ErrorCode::schema, "--shard", fmt::format("= '{}' must be I/N, auto or auto/N", text));
    }
    given = n;
  }
  for (const auto& vars : kShardVariables) {
    const auto index = env_int(vars.index);
    if (!index) continue;
    const auto count = vars.count ? env_int(vars.count) : std::nullopt;
    if (!count && !given) {
      throw Error(ErrorCode::schema, "--shard",
                  fmt::format("= 'auto': ${} = {} gives no count of jobs; say it, --shard auto/N", vars.index, *index));
    }
    if (count && given && *count != *given) {
      throw Error(ErrorCode::schema, "--shard",
                  fmt::format("= '{}' but ${} = {}", text, vars.count, *count));
    }
    const int n = count ? *count : *given;
    const int i = *index - vars.first + 1;
    if (n < 1 || i < 1 || i > n) {
      throw Error(ErrorCode::schema, "--shard",
                  fmt::format("= 'auto': ${} = {} is not a job of {} (the first is {})", vars.index, *index, n,
                              vars.first));
    }
    sel.shard_index = i;
    sel.shard_count = n;
    return;
  }
  // Never the whole suite: a job that was meant to run a part and finds no index is an error.
  std::vector<std::string> names;
  for (const auto& vars : kShardVariables) names.push_back(std::string("$") + vars.index);
  throw Error(ErrorCode::schema, "--shard",
              fmt::format("= '{}' but none of {} is set; give --shard I/N", text, fmt::join(names, ", ")));
}

}  // namespace

void parse_shard(const std::string& text, Selection& sel) {
  if (text.rfind("auto", 0) == 0) return shard_from_environment(text, sel);
  // Each number whole, in an int (sscanf's %d wrapped 4294967297 to 1: a shard of everything).
  const auto number = [&](std::string_view part) {
    int v = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    return ec == std::errc() && end == part.data() + part.size() ? v : 0;
  };
  const auto slash = text.find('/');
  const int i = slash == std::string::npos ? 0 : number(std::string_view(text).substr(0, slash));
  const int n = slash == std::string::npos ? 0 : number(std::string_view(text).substr(slash + 1));
  if (n < 1 || i < 1 || i > n) {
    throw Error(ErrorCode::schema, "--shard", fmt::format("= '{}' must be I/N with 1 <= I <= N, or auto", text));
  }
  sel.shard_index = i;
  sel.shard_count = n;
}

RunSummary run_cases(const LoadResult& loaded, const RunOptions& options, const BackendChoice& backends,
                     Reporter& reporter) {
  RunSummary s;
  report_file_errors(loaded, s, reporter);
  std::vector<const CaseEntry*> selected;
  for (const auto& entry : loaded.cases) {
    if (is_selected(entry, options.selection)) {
      selected.push_back(&entry);
    } else if (!options.selection.include_large && has_tag(entry, "large")) {
      Selection with_large = options.selection;
      with_large.include_large = true;
      if (is_selected(entry, with_large)) ++s.large_left_out;
    }
  }
  s.selected = static_cast<int>(selected.size());
  if (selected.empty() && !loaded.cases.empty()) {
    s.none_selected = why_none_selected(loaded, options.selection);
    s.empty_part = options.selection.shard_count > 1 &&
                   std::any_of(loaded.cases.begin(), loaded.cases.end(),
                               [&](const CaseEntry& e) { return in_whole_selection(e, options.selection); });
  }
  // Say so when the large cases were asked for (by a filter, or as all that was loaded),
  // not on every run of a folder that holds some.
  if (s.selected > 0 && options.selection.filters.empty()) s.large_left_out = 0;
  auto emit = [&](const CaseResult& r) {
    count_result(s, r, options.strict);
    reporter.on_result(r);
  };
  int index = 0;
  for (const auto* entry_ptr : selected) {
    const auto& entry = *entry_ptr;
    if (interrupted()) {
      s.interrupted = true;
      break;
    }
    if (options.fail_fast && s.failed > 0) {
      s.stopped_early = true;
      break;
    }
    reporter.on_case_start(entry.name, ++index, s.selected);
    mark_in_flight(base_result(entry, "-"));
    if (entry.expect_error) {
      emit(judge_expected_error(entry));
      try {
        run_invalid_on_external(entry, options, backends, emit);
      } catch (const Error& e) {
        if (e.code() != ErrorCode::interrupted) throw;
        s.interrupted = true;
        break;
      }
      continue;
    }
    if (entry.error) {
      emit(invalid_result(entry, *entry.error));
      continue;
    }
    try {
      set_case_deadline(options.timeout);
      std::optional<Case> c;
      try {
        c = materialize(*entry.decl);
      } catch (const Error& e) {
        if (e.code() == ErrorCode::interrupted) throw;
        auto r = invalid_result(entry, e);
        r.invalid = e.code() != ErrorCode::timeout;  // a timeout is the run's limit, not a bad case
        emit(r);
        continue;
      } catch (const std::bad_alloc&) {
        emit(invalid_result(entry, Error(ErrorCode::too_large, "", "out of host memory while building the inputs")
                                       .at(entry.file, entry.name)));
        continue;
      }
      if (!options.profile.empty()) {
        if (const auto why = profile_violation(options.profile, *entry.decl, &*c)) {
          auto r = base_result(entry, "-");
          r.status = Status::skipped;
          r.detail = fmt::format("outside profile {}: {}", options.profile, *why);
          emit(r);
          continue;
        }
      }
      const CaseFacts facts(*c);
      auto trial_options = trial_options_of(options, backends.run.size() == 1);
      for (auto* backend : backends.run) {
        mark_in_flight(base_result(entry, std::string(backend->label())));
        auto t = try_case(*backend, facts, trial_options);
        if (t.output) {
          // A bundle is an aid, not the verdict: a full disk costs the bundle, not the run.
          try {
            save_failure_bundle(options.save_failures, *entry.decl, *c, std::string(backend->label()), *t.output,
                                facts.want());
          } catch (const Error& e) {
            if (e.code() != ErrorCode::io) throw;
            ++s.warnings[fmt::format("--save-failures: {}", e.message())];
          }
        }
        emit(result_of(entry, *backend, std::move(t), lists_traps(*backend), facts, false));
      }
      for (const auto& [backend, reason] : backends.skipped) {
        auto r = base_result(entry, std::string(backend->label()));
        r.status = Status::skipped;
        r.detail = reason;
        emit(r);
      }
    } catch (const Error& e) {
      if (e.code() != ErrorCode::interrupted) throw;
      s.interrupted = true;
      break;
    }
  }
  set_case_deadline(std::nullopt);
  clear_in_flight();
  finish_summary(s, !loaded.file_errors.empty());
  reporter.on_end(s);
  return s;
}

RunSummary run_cases(const LoadResult& loaded, const Selection& selection, const BackendChoice& backends,
                     Reporter& reporter) {
  RunOptions options;
  options.selection = selection;
  return run_cases(loaded, options, backends, reporter);
}

RunSummary validate_cases(const LoadResult& loaded, const Selection& selection, Reporter& reporter,
                          const std::string& profile) {
  RunSummary s;
  report_file_errors(loaded, s, reporter);
  for (const auto& entry : loaded.cases) {
    if (interrupted()) {
      s.interrupted = true;
      break;
    }
    if (!is_selected(entry, selection)) continue;
    ++s.selected;
    CaseResult r;
    if (entry.expect_error) {
      r = judge_expected_error(entry);
    } else if (entry.error) {
      r = invalid_result(entry, *entry.error);
    } else {
      try {
        const auto c = materialize(*entry.decl);
        r = base_result(entry, "-");
        r.status = Status::passed;
        r.detail = profile.empty() ? "valid" : fmt::format("valid under {}", profile);
        if (!profile.empty()) {
          if (const auto why = profile_violation(profile, *entry.decl, &c)) {
            r.status = Status::failed;
            r.invalid = true;
            r.detail = fmt::format("[profile {}] {}", profile, *why);
          }
        }
      } catch (const Error& e) {
        r = invalid_result(entry, e);
      }
    }
    count_result(s, r, false);
    reporter.on_result(r);
  }
  finish_summary(s, !loaded.file_errors.empty());
  reporter.on_end(s);
  return s;
}

}  // namespace scatter
