// Shard reports made one run's: each part's JSON report read back, checked against the first
// (the same cases, options and backends, the same N) and for each part exactly once, then
// joined and counted again, so that the exit code is the whole run's.

#include "scatter/merge.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "result_json.hpp"
#include "scatter/run.hpp"

namespace scatter {
namespace {

using nlohmann::ordered_json;

std::string part_name(const SelectionRecord& s) { return fmt::format("{}/{}", s.shard_index, s.shard_count); }

}  // namespace

RecoveredRun read_json_report(const std::string& path) {
  const auto text = read_file_text(path);
  const auto doc = ordered_json::parse(text, nullptr, false);
  // A bench report (another schema) or any other JSON is refused here, before a field is read.
  const bool run_report = !doc.is_discarded() && doc.is_object() && doc.contains("schema_version") &&
                          doc["schema_version"] == kRunReportSchema && doc.contains("results");
  if (!run_report) {
    throw Error(ErrorCode::json, "",
                looks_like_journal(text)
                    ? fmt::format("'{}' is a run's journal: `scatterctl merge --recover {}` writes its reports", path,
                                  path)
                    : fmt::format("'{}' is not a scatterctl run's JSON report (run --json)", path));
  }
  RecoveredRun run;
  try {
    run.context = detail::context_from_json(doc.at("context"));
    for (const auto& e : doc.value("file_errors", ordered_json::array())) {
      run.file_errors.push_back(detail::error_from_json(e));
    }
    for (const auto& r : doc.at("results")) run.results.push_back(detail::result_from_json(r));
    const auto& summary = doc.at("summary");
    run.summary.selected = summary.value("selected", 0);
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
  std::vector<std::string> missing;
  for (int index = 1; index <= want.shard_count; ++index) {
    const auto it = given.find(index);
    if (it == given.end()) {
      missing.push_back(fmt::format("{}/{}", index, want.shard_count));
    } else if (it->second.size() > 1) {
      problems.push_back(fmt::format("part {}/{} is given {} times: '{}'", index, want.shard_count, it->second.size(),
                                     fmt::join(it->second, "', '")));
    }
  }
  if (!missing.empty()) {
    problems.push_back(fmt::format("part{} {} {} missing: no report of {} was given", missing.size() == 1 ? "" : "s",
                                   fmt::join(missing, ", "), missing.size() == 1 ? "is" : "are",
                                   missing.size() == 1 ? "it" : "theirs"));
  }
  // Alike and each part once, the parts must hold the selection between them.
  if (problems.empty() && selected != want.whole) {
    problems.push_back(fmt::format("the parts ran {} cases between them, but the selection holds {}", selected,
                                   want.whole));
  }
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
  std::set<std::string> hosts;
  std::set<std::string> file_errors_seen;
  std::vector<std::string> ended_early;
  for (const auto& [index, at] : order) {
    auto& part = parts[at];
    hosts.insert(part.context.hostname);
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
  whole.summary.ended_early = fmt::format("{}", fmt::join(ended_early, "; "));
  count_recovered(whole);
  return whole;
}

}  // namespace scatter
