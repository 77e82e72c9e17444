// One case on one backend, once. Every driver's verdict comes from here, so the same
// answer gets the same status in `run`, `bench` and `fuzz`.

#include "scatter/trial.hpp"

#include <new>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "core/targets.hpp"

namespace scatter {

namespace {

std::string citation_of(const Expectation& e) { return e.citation.empty() ? "" : e.citation.front(); }

// A failure an expectations entry covers becomes xfail, naming the entry. A wrong output
// (`output`) is covered only by an entry whose model computes it, or that names the case.
void apply_expectations(Trial& t, const Backend& backend, const CaseFacts& facts, const TrialOptions& options,
                        Outcome outcome, std::string_view message, const Tensor* output = nullptr,
                        const CompareOptions* compare = nullptr) {
  t.outcome = outcome;
  if (!options.expectations) return;
  const Expectation* e = nullptr;
  const Expectation* also = nullptr;
  if (output != nullptr && t.comparison) {
    auto explanation = options.expectations->explaining(backend.name(), backend.version(), facts.c(), facts.features(),
                                                        *t.comparison, *output, *compare);
    e = explanation.entry;
    also = explanation.also;
    if (!e && !explanation.tried.empty()) {
      t.detail = fmt::format("no recorded divergence computes this output; tried {}", fmt::join(explanation.tried, "; "));
    }
  } else {
    e = options.expectations->covering(backend.name(), backend.version(), facts.c(), facts.features(), outcome,
                                       t.comparison ? &*t.comparison : nullptr, message);
  }
  if (!e) return;
  t.status = Status::xfail;
  if (also) {
    t.expectation = fmt::format("{} + {}", e->id, also->id);
    t.detail = fmt::format("xfail [{}] and [{}] together: {} ({}); {} ({})", e->id, also->id, e->reason,
                           citation_of(*e), also->reason, citation_of(*also));
    return;
  }
  t.expectation = e->id;
  // A failed comparison has no detail of its own (the report shows the comparison).
  t.detail = fmt::format("xfail [{}]{} {} ({}){}", e->id, e->model ? "" : " (unmodelled: it names its cases)", e->reason,
                         citation_of(*e), t.detail.empty() ? "" : "; was: " + t.detail);
}

// A pass of a case that an entry says fails: XPASS (fixed upstream, or a wrong entry).
void apply_xpass(Trial& t, const Backend& backend, const CaseFacts& facts, const TrialOptions& options) {
  if (!options.expectations) return;
  const auto* e =
      options.expectations->expecting_failure(backend.name(), backend.version(), facts.c(), facts.features());
  if (!e) return;
  t.status = Status::xpass;
  t.expectation = e->id;
  t.strict = options.strict || e->strict;
  t.detail = fmt::format("XPASS [{}]: expected to fail ({}), but passed{}", e->id, e->reason,
                         t.strict ? " (--strict: a failure)" : "");
}

Trial skipped(std::string why) {
  Trial t;
  t.status = Status::skipped;
  t.detail = std::move(why);
  return t;
}

// The verdict on an output: the exact rule for scatterctl's own backends when asked (fuzz),
// and for every backend under --deterministic, which promises the reference's order (an
// external kernel's too: its duplicates' last write must win, its sums keep the order), where
// the reference is what it is compared with (a case's own `expected` keeps the spec's rules);
// the spec's comparison otherwise.
void judge_output(Trial& t, Backend& backend, const CaseFacts& facts, const TrialOptions& options, Tensor&& output,
                  const Tensor& want) {
  const auto& c = facts.c();
  t.checked = true;
  bool passed = true;
  CompareOptions compare;  // the case's indices and hits, computed once for every comparison
  compare.indices = &facts.indices();
  compare.hits = &facts.hits();
  // The reference keeps data's bits where nothing lands, so against it untouched elements may
  // be judged against want: the same verdict, and whole blocks equal to want pass at once.
  compare.untouched_from_want = !c.expected.has_value();
  if ((options.flags.deterministic && !c.expected) || (options.exact_builtins && !backend.is_external())) {
    t.detail = exact_verdict(c, output, want, options.flags.deterministic, &facts.hits());
    passed = t.detail.empty();
  } else {
    t.comparison = compare_outputs(c, output, want, c.expected.has_value(), compare);
    passed = t.comparison->passed;
  }
  if (passed) {
    t.status = Status::passed;
    apply_xpass(t, backend, facts, options);
    return;
  }
  t.status = Status::failed;
  apply_expectations(t, backend, facts, options, Outcome::failed, "", &output, &compare);
  // Against a case's own `expected`, an output the spec computes is no bug of the backend's:
  // no cause is named for it, and the row says whose number is wrong.
  if (t.status == Status::failed && c.expected && compare_outputs(c, output, facts.reference(), false, compare).passed) {
    t.detail = "the output is the spec's (scatterctl's reference computes it): the case's `expected` disagrees with "
               "the spec";
  } else if (t.status == Status::failed) {
    t.cause = diagnose(c, output, compare);
    if (options.confirm_causes) confirm_trial_cause(t, backend, c, options);
  }
  if (options.keep_failed_output) t.output = std::move(output);
}

}  // namespace

std::string one_line(const Trial& t) {
  if (!t.comparison || t.comparison->passed) return t.cause ? fmt::format("{}; cause: {}", t.detail, t.cause->name) : t.detail;
  const auto& cmp = *t.comparison;
  auto line = fmt::format("{} of {} elements differ ({})", cmp.mismatches, cmp.elements, cmp.rule);
  if (!cmp.worst.empty()) {
    const auto& m = cmp.worst.front();
    line += fmt::format("; worst at {}: got {}, want {}", format_coord(m.coord), m.actual, m.expected);
  }
  if (t.cause) line += fmt::format("; cause: {}", t.cause->name);
  return t.detail.empty() ? line : fmt::format("{}; {}", t.detail, line);
}

std::optional<Trial> admit(const Backend& backend, const CaseFacts& facts) {
  // Available when the run began: a backend lost since (a sticky device fault) skips the
  // rest of the run with its reason.
  if (const auto a = backend.availability(); !a.available) return skipped("unavailable: " + a.reason);
  if (const auto* caps = backend.capabilities()) {
    if (auto why = unsupported_reason(*caps, facts.c(), facts.features())) return skipped("unsupported: " + *why);
  }
  return std::nullopt;
}

Trial failed_trial(std::exception_ptr failure, const Backend& backend, const CaseFacts& facts,
                   const TrialOptions& options) {
  Trial t;
  t.status = Status::error;
  try {
    std::rethrow_exception(failure);
  } catch (const Unsupported& u) {
    return skipped(fmt::format("unsupported: {}", u.what()));
  } catch (const Rejected& rej) {
    t.detail = fmt::format("rejected a valid case [{}]: {}", rej.code().empty() ? "?" : rej.code(), rej.what());
    apply_expectations(t, backend, facts, options, Outcome::rejected, rej.what());
  } catch (const Crashed& crash) {
    t.detail = fmt::format("[crashed] {}", crash.what());
    apply_expectations(t, backend, facts, options, Outcome::error, crash.what());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    t.error = e;
    t.detail = fmt::format("[{}] {}", to_string(e.code()), e.message());
    apply_expectations(t, backend, facts, options, Outcome::error, e.message());
  } catch (const std::bad_alloc&) {
    t.detail = "out of host memory (lower the case's size or raise --max-bytes only if memory allows)";
  } catch (const std::exception& e) {
    t.detail = fmt::format("[backend] {}", e.what());
    apply_expectations(t, backend, facts, options, Outcome::error, e.what());
  }
  return t;
}

Trial try_case(Backend& backend, const CaseFacts& facts, const TrialOptions& options) {
  if (auto skip = admit(backend, facts)) return std::move(*skip);
  Trial t;
  try {
    auto out = backend.run(facts.c(), options.flags);
    t.seconds = out.seconds;
    t.lowering = out.lowering;
    if (backend.traits().role == BackendRole::oracle && !facts.c().expected) {
      // The oracle without `expected`: its output is what the others are checked against.
      t.status = options.oracle_alone ? Status::skipped : Status::passed;
      t.detail = options.oracle_alone
                     ? "nothing to compare: the case has no expected output and ref is the only backend run "
                       "(add another backend to check it against ref)"
                     : "no expected output: ref is the oracle for the other backends";
      return t;
    }
    judge_output(t, backend, facts, options, std::move(out.output), facts.want());
  } catch (...) {
    auto failed = failed_trial(std::current_exception(), backend, facts, options);
    failed.lowering = t.lowering;
    return failed;
  }
  return t;
}

void confirm_trial_cause(Trial& t, Backend& backend, const Case& c, const TrialOptions& options) {
  if (!t.cause) return;
  const auto passes = [&](const Case& without) -> std::optional<bool> {
    const CaseFacts facts(without);
    if (admit(backend, facts)) return std::nullopt;
    auto flags = options.flags;
    flags.same_inputs = false;
    flags.vary = nullptr;
    try {
      auto out = backend.run(without, flags);
      Trial again;
      auto plain = options;
      plain.expectations = nullptr;
      plain.confirm_causes = false;
      judge_output(again, backend, facts, plain, std::move(out.output), facts.want());
      return again.status == Status::passed;
    } catch (const Error& e) {
      if (e.code() == ErrorCode::interrupted) throw;
      return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;  // it could not run the case: the name is neither confirmed nor refuted
    }
  };
  t.cause = confirm_cause(std::move(*t.cause), c, passes);
}

Trial judge(Backend& backend, const CaseFacts& facts, const TrialOptions& options, Tensor output, const Tensor* want) {
  Trial t;
  judge_output(t, backend, facts, options, std::move(output), want ? *want : facts.want());
  return t;
}

Trial try_invalid_case(Backend& backend, const CaseFacts& facts, ErrorCode expected, const TrialOptions& options) {
  if (auto skip = admit(backend, facts)) return std::move(*skip);
  const auto want = to_string(expected);
  Trial t;
  t.status = Status::error;
  try {
    auto out = backend.run(facts.c(), options.flags);
    t.lowering = out.lowering;
    t.status = Status::failed;
    t.detail = fmt::format("accepted an invalid case (expected error [{}]) and returned an output", want);
    apply_expectations(t, backend, facts, options, Outcome::accepted, "");
    if (t.status == Status::failed && expected == ErrorCode::index) t.cause = diagnose_accepted(facts.c(), out.output);
  } catch (const Rejected& rej) {
    t.status = Status::passed;
    t.detail = fmt::format("rejected as expected [{}]: {}", rej.code().empty() ? "?" : rej.code(), rej.what());
  } catch (const Unsupported& u) {
    return skipped(fmt::format("unsupported: {}", u.what()));
  } catch (const Crashed& crash) {
    t.detail = fmt::format("[crashed] memory-safety finding: crashed on an invalid case (expected error [{}]): {}",
                           want, crash.what());
    apply_expectations(t, backend, facts, options, Outcome::error, crash.what());
  } catch (const BackendFault& fault) {
    // Writing outside out, breaking the protocol, giving up: never a refusal.
    t.detail = fmt::format("[backend] on an invalid case (expected error [{}]): {}", want, fault.message());
    apply_expectations(t, backend, facts, options, Outcome::error, fault.message());
  } catch (const Error& e) {
    if (e.code() == ErrorCode::interrupted) throw;
    if (e.code() == ErrorCode::timeout) {
      t.detail = fmt::format("[timeout] {}", e.message());
      return t;
    }
    // The framework raised without saying why: it did refuse the case.
    t.status = Status::passed;
    t.detail = fmt::format("rejected (raised, expected error [{}]): {}", want, e.message());
  } catch (const std::bad_alloc&) {
    t.detail = "out of host memory while running an invalid case";
  } catch (const std::exception& e) {
    t.detail = fmt::format("[backend] on an invalid case (expected error [{}]): {}", want, e.what());
  }
  return t;
}

}  // namespace scatter
