// Running cases: one at a time (memory holds one case), expect_error cases judged by
// their code, each backend's output compared with `expected` or the reference.

#include "scatter/run.hpp"

#include <algorithm>
#include <fnmatch.h>
#include <new>

#include <fmt/format.h>

#include "scatter/cancel.hpp"
#include "scatter/capabilities.hpp"
#include "scatter/profile.hpp"
#include "scatter/report.hpp"

namespace scatter {
namespace {

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  return h;
}

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

// What an external backend's result needs from the case, computed once per case.
struct CaseContext {
  const CaseEntry& entry;
  const Case& c;
  std::optional<CaseFeatures> features;
  bool alone = false;  ///< a single backend runs: nothing else checks ref's output
  const CaseFeatures& get_features() {
    if (!features) features = features_of(c);
    return *features;
  }
};

// The traps a case exercises, as the conformance matrix names them.
std::vector<std::string> trap_names(CaseContext& ctx, bool invalid) {
  std::vector<std::string> names;
  const auto& f = ctx.get_features();
  if (f.negative_indices) names.emplace_back("negative indices");
  if (f.duplicates) names.emplace_back("duplicate targets");
  if (f.empty_index_tuple) names.emplace_back("k = 0");
  if (!ctx.c.attrs.use_init_val) names.emplace_back("use_init_val = false");
  if (ctx.c.updates.numel() == 0) names.emplace_back("empty updates");
  if (invalid) names.emplace_back("invalid input (expect_error)");
  return names;
}

std::string citation_of(const Expectation& e) { return e.citation.empty() ? "" : e.citation.front(); }

// A failure an expectations entry covers becomes xfail, naming the entry.
void apply_expectations(CaseResult& r, CaseContext& ctx, const Backend& backend, const RunOptions& options,
                        Outcome outcome, std::string_view message) {
  if (!options.expectations) return;
  const auto* e = options.expectations->covering(backend.name(), backend.version(), ctx.c, ctx.get_features(), outcome,
                                                 r.comparison ? &*r.comparison : nullptr, message);
  if (!e) return;
  r.status = Status::xfail;
  r.expectation = e->id;
  // A failed comparison has no detail of its own (the report shows the comparison).
  r.detail = fmt::format("xfail [{}] {} ({}){}", e->id, e->reason, citation_of(*e),
                         r.detail.empty() ? "" : "; was: " + r.detail);
}

// A pass of a case that an entry says fails: XPASS (fixed upstream, or a wrong entry).
void apply_xpass(CaseResult& r, CaseContext& ctx, const Backend& backend, const RunOptions& options) {
  if (!options.expectations) return;
  const auto* e = options.expectations->expecting_failure(backend.name(), backend.version(), ctx.c, ctx.get_features());
  if (!e) return;
  r.status = Status::xpass;
  r.expectation = e->id;
  r.strict = options.strict || e->strict;
  r.detail = fmt::format("XPASS [{}]: expected to fail ({}), but passed{}", e->id, e->reason,
                         r.strict ? " (--strict: a failure)" : "");
}

// One backend on one case: run, then compare with expected, or with the reference.
// On a mismatch, `failed_output` keeps what the backend produced (for bundles).
CaseResult run_one(CaseContext& ctx, Backend& backend, const RunOptions& options, std::optional<Tensor>& reference,
                   std::optional<Tensor>& failed_output) {
  const auto& entry = ctx.entry;
  const auto& c = ctx.c;
  auto r = base_result(entry, std::string(backend.name()));
  r.version = backend.version();
  // Available when the run began: a backend lost since (a sticky device fault) skips the
  // rest of the run with its reason.
  if (const auto a = backend.availability(); !a.available) {
    r.status = Status::skipped;
    r.detail = "unavailable: " + a.reason;
    return r;
  }
  if (const auto* caps = backend.capabilities()) {
    r.features = trap_names(ctx, false);
    if (auto why = unsupported_reason(*caps, c, ctx.get_features())) {
      r.status = Status::skipped;
      r.detail = "unsupported: " + *why;
      return r;
    }
  }
  try {
    auto out = backend.run(c, options.flags);
    r.seconds = out.seconds;
    r.lowering = out.lowering;
    const Tensor* want = c.expected ? &*c.expected : nullptr;
    if (!want && backend.name() != "ref") {
      if (!reference) reference = reference_scatter(c);
      want = &*reference;
    }
    if (!want) {
      // ref is the oracle: without `expected` its output is checked only by the others.
      r.status = ctx.alone ? Status::skipped : Status::passed;
      r.detail = ctx.alone ? "nothing to compare: the case has no expected output and ref is the only backend run "
                             "(add another backend to check it against ref)"
                           : "no expected output: ref is the oracle for the other backends";
      return r;
    }
    r.comparison = compare_outputs(c, out.output, *want, c.expected.has_value());
    r.status = r.comparison->passed ? Status::passed : Status::failed;
    if (!r.comparison->passed) {
      failed_output = std::move(out.output);
      apply_expectations(r, ctx, backend, options, Outcome::failed, "");
    } else {
      apply_xpass(r, ctx, backend, options);
    }
  } catch (const Unsupported& u) {
    r.status = Status::skipped;
    r.detail = fmt::format("unsupported: {}", u.what());
  } catch (const Rejected& rej) {
    r.status = Status::error;
    r.detail = fmt::format("rejected a valid case [{}]: {}", rej.code().empty() ? "?" : rej.code(), rej.what());
    apply_expectations(r, ctx, backend, options, Outcome::rejected, rej.what());
  } catch (const Crashed& crash) {
    r.status = Status::error;
    r.detail = fmt::format("[crashed] {}", crash.what());
    apply_expectations(r, ctx, backend, options, Outcome::error, crash.what());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    r.status = Status::error;
    r.error = Error(e).at(entry.file, entry.name);
    r.detail = fmt::format("[{}] {}", to_string(e.code()), e.message());
    apply_expectations(r, ctx, backend, options, Outcome::error, e.message());
  } catch (const std::bad_alloc&) {
    r.status = Status::error;
    r.detail = "out of host memory (lower the case's size or raise --max-bytes only if memory allows)";
  }
  return r;
}

// A case with expect_error on a backend that judges invalid cases: it must refuse it.
CaseResult run_invalid_one(CaseContext& ctx, Backend& backend, const RunOptions& options) {
  auto r = base_result(ctx.entry, std::string(backend.name()));
  r.version = backend.version();
  r.features = trap_names(ctx, true);
  const auto want = to_string(*ctx.entry.expect_error);
  if (const auto* caps = backend.capabilities()) {
    if (auto why = unsupported_reason(*caps, ctx.c, ctx.get_features())) {
      r.status = Status::skipped;
      r.detail = "unsupported: " + *why;
      return r;
    }
  }
  try {
    auto out = backend.run(ctx.c, options.flags);
    r.lowering = out.lowering;
    r.status = Status::failed;
    r.detail = fmt::format("accepted an invalid case (expected error [{}]) and returned an output", want);
    apply_expectations(r, ctx, backend, options, Outcome::accepted, "");
  } catch (const Rejected& rej) {
    r.status = Status::passed;
    r.detail = fmt::format("rejected as expected [{}]: {}", rej.code().empty() ? "?" : rej.code(), rej.what());
  } catch (const Unsupported& u) {
    r.status = Status::skipped;
    r.detail = fmt::format("unsupported: {}", u.what());
  } catch (const Crashed& crash) {
    r.status = Status::error;
    r.detail = fmt::format("[crashed] memory-safety finding: crashed on an invalid case (expected error [{}]): {}", want,
                           crash.what());
    apply_expectations(r, ctx, backend, options, Outcome::error, crash.what());
  } catch (const BackendFault& fault) {
    // Writing outside out, breaking the protocol, giving up: never a refusal.
    r.status = Status::error;
    r.detail = fmt::format("[backend] on an invalid case (expected error [{}]): {}", want, fault.message());
    apply_expectations(r, ctx, backend, options, Outcome::error, fault.message());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    if (e.code() == ErrorCode::timeout) {
      r.status = Status::error;
      r.detail = fmt::format("[timeout] {}", e.message());
      return r;
    }
    // The framework raised without saying why: it did refuse the case.
    r.status = Status::passed;
    r.detail = fmt::format("rejected (raised, expected error [{}]): {}", want, e.message());
  }
  return r;
}

void count(RunSummary& s, const CaseResult& r, bool strict) {
  switch (r.status) {
    case Status::passed:
      ++s.passed;
      break;
    case Status::xfail:
      ++s.passed;
      ++s.xfailed;
      ++s.xfail_ids[fmt::format("{}: {}", r.backend, r.expectation)];
      break;
    case Status::xpass:
      ++s.xpassed;
      if (strict || r.strict) {
        ++s.failed;
      } else {
        ++s.passed;
      }
      break;
    case Status::skipped:
      ++s.skipped;
      ++s.skip_reasons[fmt::format("{}: {}", r.backend, r.detail)];
      break;
    case Status::failed:
    case Status::error:
      ++s.failed;
      if (r.invalid) ++s.invalid;
      break;
  }
}

void finish(RunSummary& s, const LoadResult& loaded) {
  if (s.interrupted) {
    s.exit_code = kExitInterrupted;
  } else if (s.invalid > 0) {
    s.exit_code = kExitInvalid;
  } else if (s.failed > 0) {
    s.exit_code = kExitFailed;
  } else if (s.selected == 0 && loaded.file_errors.empty()) {
    s.exit_code = kExitNothing;
  } else {
    s.exit_code = kExitOk;
  }
}

void report_file_errors(const LoadResult& loaded, RunSummary& s, Reporter& reporter) {
  for (const auto& e : loaded.file_errors) {
    reporter.on_file_error(e);
    ++s.failed;
    ++s.invalid;
  }
}

// Cases with expect_error whose tensors can be built (indices out of range) go to the
// backends that judge invalid cases; the others are the loader's alone.
template <class Emit>
void run_invalid_on_external(const CaseEntry& entry, const RunOptions& options, const BackendChoice& backends, Emit&& emit) {
  if (!entry.decl) return;
  std::vector<Backend*> judges;
  for (auto* b : backends.run) {
    if (b->judges_invalid_cases()) judges.push_back(b);
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
  CaseContext ctx{entry, *c, std::nullopt};
  for (auto* b : judges) emit(run_invalid_one(ctx, *b, options));
}

}  // namespace

std::string_view to_string(Status status) {
  constexpr std::string_view kNames[] = {"passed", "FAILED", "ERROR", "skipped", "xfail", "XPASS"};  // Status's order
  return kNames[static_cast<int>(status)];
}

bool is_selected(const CaseEntry& e, const Selection& sel) {
  // Every loaded case has a name (the loader derives one); a hand-made entry may not.
  if (e.name.empty()) return sel.shard_index == 1;
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
  if (any_include && !included) return false;
  if (!sel.tags.empty() &&
      std::none_of(sel.tags.begin(), sel.tags.end(), [&](const std::string& t) { return has_tag(e, t); })) {
    return false;
  }
  const bool asked_large =
      sel.include_large || std::find(sel.tags.begin(), sel.tags.end(), "large") != sel.tags.end();
  if (has_tag(e, "large") && !asked_large) return false;
  return static_cast<int>(fnv1a(e.name) % static_cast<std::uint64_t>(sel.shard_count)) == sel.shard_index - 1;
}

void parse_shard(const std::string& text, Selection& sel) {
  int i = 0;
  int n = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &i, &n, &extra) != 2 || n < 1 || i < 1 || i > n) {
    throw Error(ErrorCode::schema, "--shard", fmt::format("= '{}' must be I/N with 1 <= I <= N", text));
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
  // Say so when the large cases were asked for (by a filter, or as all that was loaded),
  // not on every run of a folder that holds some.
  if (s.selected > 0 && options.selection.filters.empty()) s.large_left_out = 0;
  auto emit = [&](const CaseResult& r) {
    count(s, r, options.strict);
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
      std::optional<Tensor> reference;
      CaseContext ctx{entry, *c, std::nullopt, backends.run.size() == 1};
      for (auto* backend : backends.run) {
        std::optional<Tensor> failed_output;
        const auto r = run_one(ctx, *backend, options, reference, failed_output);
        if (failed_output && !options.save_failures.empty()) {
          const Tensor& want = c->expected ? *c->expected : *reference;
          save_failure_bundle(options.save_failures, *entry.decl, *c, r.backend, *failed_output, want);
        }
        emit(r);
      }
      for (const auto& [backend, reason] : backends.skipped) {
        auto r = base_result(entry, std::string(backend->name()));
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
  finish(s, loaded);
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
    count(s, r, false);
    reporter.on_result(r);
  }
  finish(s, loaded);
  reporter.on_end(s);
  return s;
}

}  // namespace scatter
