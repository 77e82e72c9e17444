// Shard reports made one run's: each part's JSON report read back, checked against the first
// (the same cases, options and backends, the same N) and for each part exactly once, then
// joined and counted again, so that the exit code is the whole run's.

#include "scatter/merge.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "result_json.hpp"
#include "scatter/journal.hpp"
#include "scatter/run.hpp"

namespace scatter {
namespace {

using nlohmann::ordered_json;

std::string part_name(const SelectionRecord& s) { return fmt::format("{}/{}", s.shard_index, s.shard_count); }

// Whether the results of the parts are the whole selection, each case in one part: a part's
// count of cases must be what its results hold (a part whose results were removed, cut or
// copied from another run says otherwise), no row may be given twice, and the cases of all the
// parts must be the selection the fingerprint names. A part that ended early (interrupted,
// stopped at a failure, crashed) may hold fewer: its own exit code is the merge's then.
std::vector<std::string> result_problems(const std::vector<std::string>& paths, const std::vector<RecoveredRun>& parts,
                                         const SelectionRecord& want) {
  std::vector<std::string> problems;
  std::map<std::pair<std::string, std::string>, std::size_t> part_of;  // (file, case) -> the part that holds it
  std::set<std::tuple<std::string, std::string, std::string>> rows;
  bool ended_early = false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& part = parts[i];
    const bool whole_part = !part.summary.interrupted && !part.summary.stopped_early && part.summary.ended_early.empty();
    ended_early = ended_early || !whole_part;
    std::set<std::pair<std::string, std::string>> cases;
    for (const auto& r : part.results) {
      if (!rows.insert({r.file, r.name, r.backend}).second) {
        problems.push_back(fmt::format("'{}' holds the result of case '{}' of {} on {} that another result holds too",
                                       paths[i], printable_text(r.name), printable_text(r.file), printable_text(r.backend)));
        return problems;
      }
      const auto [it, first] = part_of.try_emplace({r.file, r.name}, i);
      if (!first && it->second != i) {
        problems.push_back(fmt::format("case '{}' of {} has results in '{}' and in '{}': a case runs in one part",
                                       printable_text(r.name), printable_text(r.file), paths[it->second], paths[i]));
        return problems;
      }
      cases.insert({r.file, r.name});
    }
    const auto held = static_cast<int>(cases.size());
    if (held != part.summary.selected && (whole_part || held > part.summary.selected)) {
      problems.push_back(fmt::format("'{}' says it ran {} case{} but holds the results of {}{}", paths[i],
                                     part.summary.selected, part.summary.selected == 1 ? "" : "s", held,
                                     held == 0 ? " (its results were removed?)" : ""));
    }
  }
  if (!problems.empty() || ended_early) return problems;
  std::vector<std::string> names;
  for (const auto& [file_and_case, part] : part_of) names.push_back(file_and_case.second);
  std::sort(names.begin(), names.end());
  if (selection_fingerprint(names) != want.fingerprint) {
    problems.push_back(fmt::format("the cases of the parts' results are not the selection the parts record "
                                   "(fingerprint {} of their {} cases, {} recorded): results of another run?",
                                   selection_fingerprint(names), names.size(), want.fingerprint));
  }
  return problems;
}

}  // namespace

RecoveredRun read_json_report(const std::string& path) {
  const auto text = read_file_text(path);
  if (looks_like_journal(text)) {
    throw Error(ErrorCode::json, "",
                fmt::format("'{}' is a run's journal: `scatterctl merge --recover {}` writes its reports", path, path));
  }
  const auto doc = detail::parse_json(text, fmt::format("'{}'", path));
  // A bench report (another schema) or any other JSON is refused here, before a field is read.
  if (!doc.is_object() || !doc.contains("schema_version") || doc["schema_version"] != kRunReportSchema ||
      !doc.contains("results")) {
    throw Error(ErrorCode::json, "", fmt::format("'{}' is not a scatterctl run's JSON report (run --json)", path));
  }
  RecoveredRun run;
  try {
    run.context = detail::context_from_json(doc.at("context"));
    const auto& file_errors = doc.value("file_errors", ordered_json::array());
    if (!file_errors.is_array()) throw Error(ErrorCode::json, "file_errors", "is not an array");
    for (const auto& e : file_errors) run.file_errors.push_back(detail::error_from_json(e));
    const auto& results = doc.at("results");
    if (!results.is_array()) {
      throw Error(ErrorCode::json, "results", fmt::format("= {} is not an array of results", detail::preview(results)));
    }
    for (const auto& r : results) run.results.push_back(detail::result_from_json(r));
    const auto& summary = doc.at("summary");
    if (!summary.is_object()) throw Error(ErrorCode::json, "summary", "is not an object");
    const auto selected = summary.value("selected", ordered_json(0));
    if (!selected.is_number_integer() || selected.get<std::int64_t>() < 0 || selected.get<std::int64_t>() > INT32_MAX) {
      throw Error(ErrorCode::json, "summary.selected", fmt::format("= {} is not a count of cases", detail::preview(selected)));
    }
    run.summary.selected = selected.get<int>();
    run.summary.interrupted = summary.value("interrupted", false);
    run.summary.stopped_early = summary.value("stopped_early", false);
    run.summary.ended_early = summary.value("ended_early", "");
  } catch (const Error& e) {
    throw Error(e.code(), e.field(), fmt::format("'{}': {}", path, e.detail()));
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::json, "", fmt::format("'{}': {}", path, e.what()));
  }
  count_recovered(run);
  return run;
}

std::vector<std::string> shard_set_problems(const std::vector<std::string>& paths,
                                            const std::vector<RecoveredRun>& parts) {
  std::vector<std::string> problems;
  std::size_t first = parts.size();  // the first report that records its selection
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i].context.selection) {
      problems.push_back(fmt::format("'{}' records no selection: it was not written by `scatterctl run`, or by an "
                                     "older one",
                                     paths[i]));
    } else if (first == parts.size()) {
      first = i;
    }
  }
  if (first == parts.size()) return problems;
  const auto& want = *parts[first].context.selection;
  std::map<int, std::vector<std::string>> given;  // part index -> the reports that claim it
  int selected = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& got = parts[i].context.selection;
    if (!got) continue;
    const auto differs = [&](const std::string& here, const std::string& there) {
      problems.push_back(fmt::format("'{}' {} but '{}' {}: they are not parts of one run", paths[i], here,
                                     paths[first], there));
    };
    if (got->shard_count != want.shard_count) {
      differs(fmt::format("is part {}", part_name(*got)), fmt::format("is part {}", part_name(want)));
      continue;
    }
    if (got->fingerprint != want.fingerprint || got->whole != want.whole) {
      differs(fmt::format("selected {} cases (fingerprint {})", got->whole, got->fingerprint),
              fmt::format("{} (fingerprint {})", want.whole, want.fingerprint));
    }
    if (got->options != want.options) differs("ran with " + got->options, "with " + want.options);
    given[got->shard_index].push_back(paths[i]);
    selected += parts[i].summary.selected;
  }
  for (const auto& [index, reports] : given) {
    if (reports.size() > 1) {
      problems.push_back(fmt::format("part {}/{} is given {} times: '{}'", index, want.shard_count, reports.size(),
                                     fmt::join(reports, "', '")));
    }
  }
  // The missing parts: counted, and the first few named (a count of 2^31 - 1 is no list to print).
  const auto missing = static_cast<std::int64_t>(want.shard_count) - static_cast<std::int64_t>(given.size());
  if (missing > 0) {
    constexpr std::int64_t kNamed = 8;
    std::vector<std::string> named;
    for (std::int64_t index = 1; index <= want.shard_count && static_cast<std::int64_t>(named.size()) < kNamed; ++index) {
      if (!given.count(static_cast<int>(index))) named.push_back(fmt::format("{}/{}", index, want.shard_count));
    }
    problems.push_back(fmt::format("{} {} missing: no report of {} was given",
                                   missing == 1 ? "part " + named.front()
                                                : fmt::format("{} parts ({}{})", missing, fmt::join(named, ", "),
                                                              missing > kNamed ? fmt::format(" and {} more", missing - kNamed) : ""),
                                   missing == 1 ? "is" : "are", missing == 1 ? "it" : "theirs"));
  }
  // Alike and each part once, the parts must hold the selection between them.
  if (problems.empty() && selected != want.whole) {
    problems.push_back(fmt::format("the parts ran {} cases between them, but the selection holds {}", selected,
                                   want.whole));
  }
  if (problems.empty()) problems = result_problems(paths, parts, want);
  return problems;
}

RecoveredRun merge_shards(std::vector<RecoveredRun> parts, const std::string& command) {
  // By part index (an index vector: moving whole runs about in a sort is needless work).
  std::vector<std::pair<int, std::size_t>> order;
  for (std::size_t i = 0; i < parts.size(); ++i) order.emplace_back(parts[i].context.selection->shard_index, i);
  std::sort(order.begin(), order.end());
  RecoveredRun whole;
  whole.context = parts.front().context;
  whole.context.command = command;
  auto& record = *whole.context.selection;
  record.shard_index = record.shard_count = 1;
  std::set<std::string> hosts, versions, commits, build_types;
  std::set<std::string> file_errors_seen;
  std::vector<std::string> ended_early;
  for (const auto& [index, at] : order) {
    auto& part = parts[at];
    hosts.insert(part.context.hostname);
    // Parts of other builds are not refused (a matrix may build each job), but the merged
    // context records every one of them.
    versions.insert(part.context.version);
    commits.insert(part.context.git_commit);
    build_types.insert(part.context.build_type);
    // Every part loads every file, so each reports the same unreadable ones.
    for (auto& e : part.file_errors) {
      if (file_errors_seen.insert(describe(e)).second) whole.file_errors.push_back(std::move(e));
    }
    for (auto& r : part.results) whole.results.push_back(std::move(r));
    whole.summary.selected += part.summary.selected;
    whole.summary.interrupted = whole.summary.interrupted || part.summary.interrupted;
    whole.summary.stopped_early = whole.summary.stopped_early || part.summary.stopped_early;
    if (!part.summary.ended_early.empty()) {
      ended_early.push_back(fmt::format("part {}: {}", part_name(*part.context.selection), part.summary.ended_early));
    }
  }
  whole.context.hostname = fmt::format("{}", fmt::join(hosts, ", "));
  whole.context.version = fmt::format("{}", fmt::join(versions, ", "));
  whole.context.git_commit = fmt::format("{}", fmt::join(commits, ", "));
  whole.context.build_type = fmt::format("{}", fmt::join(build_types, ", "));
  whole.summary.ended_early = fmt::format("{}", fmt::join(ended_early, "; "));
  count_recovered(whole);
  return whole;
}

}  // namespace scatter
