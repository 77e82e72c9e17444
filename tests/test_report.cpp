// Report text: printable_text (valid UTF-8, no control characters) and the JSON, JUnit
// and Markdown reporters given bytes no report may carry as they are.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scatter/error.hpp"
#include "scatter/journal.hpp"
#include "scatter/report.hpp"
#include "scatter/run.hpp"

namespace scatter {
namespace {

using namespace std::string_literals;

TEST(PrintableText, LeavesPrintableTextAsItIs) {
  EXPECT_EQ(printable_text(""), "");
  EXPECT_EQ(printable_text("plain ascii, tab\tand\nnewline"), "plain ascii, tab\tand\nnewline");
  // Two-, three- and four-byte sequences: é, €, U+FFFD, U+10FFFF, 😀.
  const auto utf8 = "caf\xc3\xa9 \xe2\x82\xac \xef\xbf\xbd \xf4\x8f\xbf\xbf \xf0\x9f\x98\x80"s;
  EXPECT_EQ(printable_text(utf8), utf8);
  EXPECT_EQ(printable_text("a\\xe9"), "a\\xe9");  // a backslash is not an escape of ours
}

TEST(PrintableText, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable_text("caf\xe9"), "caf\\xe9");                          // Latin-1
  EXPECT_EQ(printable_text("\xff\xfe{}"), "\\xff\\xfe{}");                   // a UTF-16 byte-order mark
  EXPECT_EQ(printable_text("\xe2\x82"), "\\xe2\\x82");                       // cut short at the end
  EXPECT_EQ(printable_text("\xe2\x82x"), "\\xe2\\x82x");                     // cut short before ASCII
  EXPECT_EQ(printable_text("\x80 \xbf"), "\\x80 \\xbf");                     // continuations alone
  EXPECT_EQ(printable_text("\xc0\xaf \xc1\xbf"), "\\xc0\\xaf \\xc1\\xbf");   // overlong two-byte
  EXPECT_EQ(printable_text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");              // overlong three-byte
  EXPECT_EQ(printable_text("\xf0\x80\x80\xaf"), "\\xf0\\x80\\x80\\xaf");     // overlong four-byte
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");              // a UTF-16 surrogate
  EXPECT_EQ(printable_text("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");     // past U+10FFFF
  EXPECT_EQ(printable_text("\xf5\xf8\xfe"), "\\xf5\\xf8\\xfe");              // never a lead byte
  EXPECT_EQ(printable_text("\xe9\xc3\xa9"), "\\xe9\xc3\xa9");                // a bad byte, then é
}

TEST(PrintableText, EscapesControlCharacters) {
  EXPECT_EQ(printable_text("a\x01z"), "a\\x01z");
  EXPECT_EQ(printable_text("\x1b[31mred"), "\\x1b[31mred");  // no terminal escapes
  EXPECT_EQ(printable_text("a\rb"), "a\\x0db");
  EXPECT_EQ(printable_text("del\x7f"), "del\\x7f");
  EXPECT_EQ(printable_text("nul\0!"s), "nul\\x00!");
  EXPECT_EQ(printable_text("\xc2\x85\xc2\x9b"), "\\u0085\\u009b");  // C1: NEL, CSI
  EXPECT_EQ(printable_text("\xc2\xa0"), "\xc2\xa0");                 // U+00A0 is printable
  EXPECT_EQ(printable_text("\xef\xbf\xbe\xef\xbf\xbf"), "\\uFFFE\\uFFFF");  // not XML 1.0 characters
}

// Any bytes: the result is valid UTF-8 (nlohmann's strict dump accepts it), holds no
// control character but tab and newline, and printable_text leaves it as it is.
TEST(PrintableText, AnyBytesComeOutPrintableAndStable) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string bytes(rng() % 24, '\0');
    for (auto& b : bytes) {
      // Mostly the bytes that matter: controls, leads, continuations, a few ASCII.
      static constexpr unsigned char kPicks[] = {0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x41, 0x5c, 0x7f, 0x80, 0x85,
                                                 0x9f, 0xa0, 0xbe, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0,
                                                 0xf4, 0xf5, 0xff};
      b = static_cast<char>(rng() % 4 == 0 ? rng() % 256 : kPicks[rng() % sizeof kPicks]);
    }
    const auto out = printable_text(bytes);
    ASSERT_NO_THROW((void)nlohmann::json(out).dump()) << ::testing::PrintToString(bytes);
    for (unsigned char c : out) ASSERT_TRUE(c >= 0x20 || c == '\t' || c == '\n') << ::testing::PrintToString(bytes);
    ASSERT_EQ(printable_text(out), out) << ::testing::PrintToString(bytes);
  }
}

TEST(PrintableText, ErrorsArePrintableWhenMade) {
  // A parse error quotes the file's bytes; the file's name is the user's.
  auto e = Error(ErrorCode::json, "", "invalid string: ill-formed UTF-8 byte; last read: '\"caf\xe9'")
               .at("dir/caf\xe9\x01.json", "n\x1b");
  EXPECT_EQ(e.message(), "invalid string: ill-formed UTF-8 byte; last read: '\"caf\\xe9'");
  EXPECT_EQ(std::string(e.what()), e.message());
  EXPECT_EQ(e.file(), "dir/caf\\xe9\\x01.json");
  EXPECT_EQ(e.case_name(), "n\\x1b");
  e.within("inputs\xff");
  EXPECT_EQ(e.field(), "inputs\\xff");
  EXPECT_EQ(describe(e), "dir/caf\\xe9\\x01.json: case 'n\\x1b': [json] inputs\\xff: invalid string: ill-formed UTF-8 "
                         "byte; last read: '\"caf\\xe9'");
  EXPECT_EQ(Error(ErrorCode::schema, "na\x02me", "= 1").message(), "na\\x02me = 1");
}

class ReportFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("scatter_test_report_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the three file reporters over `results` and `file_errors`; returns json, xml, md.
  std::array<std::string, 3> write(const std::vector<CaseResult>& results, const std::vector<Error>& file_errors,
                                   const RunSummary& summary, const RunContext& context) {
    const std::array<std::string, 3> paths{(dir_ / "r.json").string(), (dir_ / "r.xml").string(),
                                           (dir_ / "r.md").string()};
    std::vector<std::unique_ptr<Reporter>> sinks;
    sinks.push_back(make_json_reporter(paths[0], context));
    sinks.push_back(make_junit_reporter(paths[1], context));
    sinks.push_back(make_markdown_reporter(paths[2], context));
    auto tee = make_tee_reporter(std::move(sinks));
    for (const auto& e : file_errors) tee->on_file_error(e);
    for (const auto& r : results) tee->on_result(r);
    tee->on_end(summary);
    std::array<std::string, 3> out;
    for (int i = 0; i < 3; ++i) {
      std::ifstream in(paths[i], std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      out[i] = text.str();
      EXPECT_FALSE(out[i].empty()) << paths[i];
    }
    return out;
  }

  std::filesystem::path dir_;
};

// A run's summary of `failed` results (`invalid` of them the cases' own) and nothing passed.
RunSummary summary_of(int failed, int invalid, int exit_code) {
  RunSummary summary;
  summary.failed = failed;
  summary.invalid = invalid;
  summary.exit_code = exit_code;
  return summary;
}

CaseResult result(std::string name, Status status) {
  CaseResult r;
  r.file = "cases/x.json";
  r.name = std::move(name);
  r.op = "scatter_nd";
  r.reduction = "none";
  r.dtype = "float32";
  r.backend = "ref";
  r.status = status;
  return r;
}

TEST_F(ReportFiles, BytesFromCaseFilesAndBackendsCannotBreakAReport) {
  auto bad = result("na\x01me", Status::failed);
  bad.file = "lat/caf\xe9.json";
  bad.detail = "a backend said \xff\xfe\x1b[2J";
  bad.features = {"trap\xe9"};
  bad.lowering = "lowered \x80";
  bad.version = "1.0\xc0";
  Comparison c;
  c.passed = false;
  c.elements = 1;
  c.mismatches = 1;
  c.rule = "exact\x07";
  c.worst.push_back({});
  c.worst[0].coord = {0};
  c.worst[0].expected = "1\xe9";
  c.worst[0].actual = "2\x02";
  bad.comparison = c;
  auto backend_error = result("crashes", Status::error);
  backend_error.detail = "[backend] stderr: \xe9\x00\x1f"s;
  auto skipped = result("skips", Status::skipped);
  skipped.detail = "unsupported \xe9";
  const auto file_error = Error(ErrorCode::json, "", "last read: '\"caf\xe9'").at("bad/binary\xff.json", "");

  auto summary = summary_of(3, 1, kExitInvalid);
  summary.skipped = 1;
  summary.skip_reasons["ref: unsupported \xe9"] = 1;
  summary.xfail_ids["ref: entry\xff"] = 1;
  RunContext context;
  context.version = "0.1.0";
  context.command = "scatterctl run lat/caf\xe9.json";
  context.hostname = "host\x01";
  context.backends.push_back({"plugin", false, "dlopen: \xff\xfe not found", ""});
  context.backends.push_back({"ref", true, "", "cpu \x80"});

  std::array<std::string, 3> reports;
  ASSERT_NO_THROW(reports = write({bad, backend_error, skipped}, {file_error}, summary, context));
  for (const auto& text : reports) {
    EXPECT_EQ(printable_text(text), text) << text;  // valid UTF-8, no control character but newline
  }
  const auto& [json_text, xml, md] = reports;

  nlohmann::json doc;
  ASSERT_NO_THROW(doc = nlohmann::json::parse(json_text));
  EXPECT_EQ(doc["context"]["command"], "scatterctl run lat/caf\\xe9.json");
  EXPECT_EQ(doc["file_errors"][0]["file"], "bad/binary\\xff.json");
  EXPECT_EQ(doc["file_errors"][0]["message"], "last read: '\"caf\\xe9'");
  EXPECT_EQ(doc["results"][0]["file"], "lat/caf\\xe9.json");
  EXPECT_EQ(doc["results"][0]["case"], "na\\x01me");
  EXPECT_EQ(doc["results"][0]["detail"], "a backend said \\xff\\xfe\\x1b[2J");
  EXPECT_EQ(doc["results"][0]["comparison"]["worst"][0]["expected"], "1\\xe9");
  EXPECT_EQ(doc["summary"]["skip_reasons"]["ref: unsupported \\xe9"], 1);

  EXPECT_NE(xml.find("name=\"bad/binary\\xff.json\" file=\"bad/binary\\xff.json\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("file=\"lat/caf\\xe9.json\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"na\\x01me@ref\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"[backend] stderr: \\xe9\\x00\\x1f\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("expected 1\\xe9, got 2\\x02"), std::string::npos) << xml;
  EXPECT_NE(xml.find("dlopen: \\xff\\xfe not found"), std::string::npos) << xml;

  EXPECT_NE(md.find("bad/binary\\xff.json"), std::string::npos) << md;
  EXPECT_NE(md.find("na\\x01me"), std::string::npos) << md;
}

// An invalid file or case did not run to a verdict: JUnit and JSON call it an error,
// never a failure; the closing line still counts it as failed.
TEST_F(ReportFiles, InvalidFilesAndCasesAreErrorsNotFailures) {
  auto mismatch = result("wrong", Status::failed);
  auto invalid = result("bad_index", Status::error);
  invalid.backend = "-";
  invalid.invalid = true;
  invalid.error = Error(ErrorCode::index, "inputs.indices[0,0]", "= 7 is out of range");
  invalid.detail = "[index] inputs.indices[0,0] = 7 is out of range";
  auto outside_profile = result("outside_profile", Status::failed);  // validate --profile's invalid case
  outside_profile.backend = "-";
  outside_profile.invalid = true;
  outside_profile.detail = "[profile onnx:18] reduction max needs opset 18";
  const auto unreadable = Error(ErrorCode::json, "", "syntax error").at("bad/binary.json", "");
  const auto summary = summary_of(4, 3, kExitInvalid);
  const auto [json_text, xml, md] = write({mismatch, invalid, outside_profile}, {unreadable}, summary, RunContext{});

  const auto doc = nlohmann::json::parse(json_text);
  EXPECT_EQ(doc["summary"]["failed"], 4);  // the closing line's count
  EXPECT_EQ(doc["summary"]["failures"], 1);
  EXPECT_EQ(doc["summary"]["errors"], 3);
  EXPECT_EQ(doc["summary"]["closing_line"], "scatterctl: 0 passed, 4 failed, 0 skipped");
  EXPECT_EQ(doc["file_errors"][0]["status"], "error");
  EXPECT_EQ(doc["results"][0]["status"], "failed");
  EXPECT_EQ(doc["results"][1]["status"], "error");
  EXPECT_EQ(doc["results"][2]["status"], "error");

  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" errors=\"3\""), std::string::npos) << xml;
  const auto at = xml.find("name=\"outside_profile@-\"");
  ASSERT_NE(at, std::string::npos) << xml;
  EXPECT_EQ(xml.compare(xml.find('\n', at) + 1, 13, "      <error "), 0) << xml.substr(at);
  EXPECT_EQ(xml.find("<failure", at), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error message=\"[index] inputs.indices[0,0] = 7 is out of range\" type=\"index\"/>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase classname=\"load\" name=\"bad/binary.json\" file=\"bad/binary.json\""), std::string::npos)
      << xml;
}

// A run that dies after some results: the reports written from its journal hold exactly what
// the reports of the run itself would have held for those results, every field of every
// result, and the error of the trial in flight.
TEST_F(ReportFiles, AJournalGivesBackEveryFieldOfEveryFinishedResult) {
  auto mismatch = result("wrong", Status::failed);
  Comparison c;
  c.passed = false;
  c.elements = 12;
  c.mismatches = 2;
  c.exact_mismatches = 1;
  c.max_error = std::numeric_limits<double>::infinity();
  c.needed_atol = std::numeric_limits<double>::infinity();
  c.allclose_atol = 0.00123;
  c.tolerance_applies = true;
  c.float_output = true;
  c.max_error_coord = {1, 2};
  c.mismatch_features = {kElementDup | kElementNanMismatch};
  c.rule = "allclose(atol=1e-05, rtol=1e-05)";
  Mismatch m;
  m.offset = 5;
  m.coord = {1, 2};
  m.expected = "nan";
  m.actual = "-0";
  m.error = std::numeric_limits<double>::infinity();
  m.rule = Rule::allclose;
  m.allowed = 1e-5;
  m.hits = 2;
  m.updates = {{0}, {3}};
  c.worst = {m};
  mismatch.comparison = c;
  auto xfail = result("known", Status::xfail);
  xfail.backend = "onnxruntime";
  xfail.expectation = "ort-dup-order";
  xfail.version = "1.20";
  xfail.lowering = "ScatterND opset 18";
  xfail.features = {"dup", "neg_index"};
  xfail.seconds = 0.25;
  auto strict_xpass = result("strictly", Status::xpass);
  strict_xpass.strict = true;
  auto invalid = result("bad_index", Status::failed);
  invalid.backend = "-";
  invalid.invalid = true;
  invalid.error = Error(ErrorCode::index, "inputs.indices[0,0]", "= 7 is out of range").at("cases/x.json", "bad_index");
  const auto unreadable = Error(ErrorCode::json, "", "syntax error").at("bad/binary.json", "");
  const std::vector<CaseResult> finished{mismatch, xfail, strict_xpass, invalid};
  const auto direct = nlohmann::json::parse(write(finished, {unreadable}, RunSummary{}, RunContext{})[0]);

  const ReportPaths paths{(dir_ / "j.json").string(), "", ""};
  RunContext context;
  context.command = "scatterctl run cases/";
  context.backends.push_back({"onnxruntime", true, "", "CPU", ""});
  {
    auto journaled = make_journaling_reporter(make_tee_reporter({}), paths, context, "/nonexistent/scatterctl");
    journaled->on_file_error(unreadable);
    journaled->on_case_start("wrong", 1, 9);
    for (const auto& r : finished) journaled->on_result(r);
    auto in_flight = result("dies", Status::passed);
    in_flight.backend = "plugin:/p.so";
    mark_in_flight(in_flight);
    clear_in_flight();
  }  // no on_end: the run "died" here
  const auto journal = journal_path_for(paths, ::getpid());
  const auto run = recover_journal(journal);
  std::filesystem::remove(journal);
  EXPECT_EQ(run.reports.json, std::filesystem::absolute(paths.json).string());
  EXPECT_EQ(run.context.command, context.command);
  ASSERT_EQ(run.context.backends.size(), 1u);
  EXPECT_EQ(run.context.backends[0].device, "CPU");
  ASSERT_EQ(run.results.size(), finished.size() + 1);
  const auto recovered = nlohmann::json::parse(write(run.results, run.file_errors, run.summary, run.context)[0]);
  for (std::size_t i = 0; i < finished.size(); ++i) EXPECT_EQ(recovered["results"][i], direct["results"][i]) << i;
  EXPECT_EQ(recovered["file_errors"], direct["file_errors"]);
  const auto& dies = recovered["results"][finished.size()];
  EXPECT_EQ(dies["case"], "dies");
  EXPECT_EQ(dies["backend"], "plugin:/p.so");
  EXPECT_EQ(dies["status"], "error");
  // mismatch, the strict xpass, the invalid case, the file error and the case in flight fail;
  // the xfail is counted apart. Never exit 0; 3: invalid cases come first.
  EXPECT_EQ(run.summary.failed, 5);
  EXPECT_EQ(run.summary.passed, 0);
  EXPECT_EQ(run.summary.xfailed, 1);
  EXPECT_EQ(run.summary.selected, 9);
  EXPECT_EQ(run.summary.exit_code, kExitInvalid);
  EXPECT_NE(run.summary.ended_early.find("without a word"), std::string::npos) << run.summary.ended_early;
}

}  // namespace
}  // namespace scatter

namespace {
// A passed scatter_nd row of `backend`.
scatter::CaseResult passed_row(const std::string& name, const std::string& backend) {
  scatter::CaseResult r;
  r.name = name;
  r.op = "scatter_nd";
  r.backend = backend;
  return r;
}
}  // namespace

// The run table names its columns once, above the first row, and ends with the closing line.
TEST(TableReport, HeaderOnceAboveTheRows) {
  std::ostringstream out;
  auto table = scatter::make_table_reporter(out, {});
  auto r = passed_row("first", "ref");
  r.detail = "fine";
  table->on_result(r);
  r.name = "second";
  table->on_result(r);
  scatter::RunSummary s;
  s.passed = 2;
  table->on_end(s);
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> all;
  while (std::getline(lines, line)) all.push_back(line);
  ASSERT_EQ(all.size(), 4u) << out.str();
  EXPECT_EQ(all[0].rfind("case ", 0), 0u) << all[0];
  EXPECT_NE(all[0].find("status"), std::string::npos);
  EXPECT_EQ(all[1].rfind("first ", 0), 0u);
  EXPECT_EQ(all[2].rfind("second ", 0), 0u);
  EXPECT_EQ(all[3], "scatterctl: 2 passed, 0 failed, 0 skipped");
}

// Long names keep the columns: shortened in the middle to the column's width (the start and
// the end kept, a UTF-8 character never cut), whole in the recap.
TEST(TableReport, LongNamesAreShortenedInTheMiddleAndWholeInTheRecap) {
  std::ostringstream out;
  auto table = scatter::make_table_reporter(out, {});
  const std::string name = "onnx_scatternd_with_a_very_long_descriptive_name_\u00e9\u00e9_float16";  // 59 characters
  const std::string plugin = "plugin:/home/someone/build/plugins/libmy_scatter_kernel.so";
  auto r = passed_row(name, plugin);
  r.status = scatter::Status::failed;
  r.detail = "wrong";
  table->on_result(r);
  table->on_end({});
  std::istringstream lines(out.str());
  std::string header, row;
  std::getline(lines, header);
  std::getline(lines, row);
  // 40 characters, the first 13 and the last 24 (two of them two bytes), then a space; 17; 20,
  // the first 6 and the last 11.
  EXPECT_EQ(row.substr(0, 43), "onnx_scattern...criptive_name_\u00e9\u00e9_float16 ") << row;
  EXPECT_EQ(row.substr(43, 18), "scatter_nd        ");
  EXPECT_EQ(row.substr(61, 21), "plugin...r_kernel.so ");
  EXPECT_EQ(row.substr(82, 6), "FAILED");
  EXPECT_EQ(header.find("status"), 80u) << header;  // the header's columns are the rows'
  EXPECT_NE(out.str().find("FAILED " + name + " [" + plugin + "]"), std::string::npos) << out.str();
}

// A failing run ends with its recap, one line a failure or error (case, backend, first reason),
// after whatever scrolled by; a run without one has none.
TEST(TableReport, AFailingRunEndsWithItsRecap) {
  std::ostringstream out;
  auto table = scatter::make_table_reporter(out, {});
  auto r = passed_row("fine", "ref");
  table->on_result(r);
  r.name = "dies";
  r.backend = "plugin:/p.so";
  r.status = scatter::Status::error;
  r.error = scatter::Error(scatter::ErrorCode::backend, "", "plugin p: it crashed\nwith a second line");
  table->on_result(r);
  scatter::RunSummary s;
  s.passed = 1;
  s.failed = 1;
  table->on_end(s);
  const auto text = out.str();
  const auto recap = text.find("short summary of failures and errors:\n  ERROR dies [plugin:/p.so]: [backend] plugin p: "
                               "it crashed with a second line\n");
  ASSERT_NE(recap, std::string::npos) << text;
  EXPECT_LT(recap, text.find("scatterctl: 1 passed, 1 failed"));
  EXPECT_EQ(text.find("fine ["), std::string::npos);  // only the failures

  std::ostringstream clean;
  auto quiet = scatter::make_table_reporter(clean, {});
  r.status = scatter::Status::passed;
  r.error.reset();
  quiet->on_result(r);
  quiet->on_end({});
  EXPECT_EQ(clean.str().find("short summary"), std::string::npos) << clean.str();
}

// What an adapter built around an upstream bug is visible: at -v under the row, and in the
// Markdown matrix, counted per backend and cited issue.
TEST(TableReport, VerboseShowsTheLoweringAndTheMatrixCitesWhatWasLoweredAround) {
  scatter::CaseResult r;
  r.name = "se_case";
  r.op = "scatter_elements";
  r.reduction = "add";
  r.dtype = "float32";
  r.backend = "tvm";
  r.version = "0.27";
  r.lowering = "scatter_elements on data[:2], put back with concat (apache/tvm#20182)";
  for (const bool verbose : {false, true}) {
    std::ostringstream out;
    scatter::TableOptions options;
    options.verbose = verbose;
    auto table = scatter::make_table_reporter(out, options);
    table->on_result(r);
    EXPECT_EQ(out.str().find("    lowering: scatter_elements on data[:2]") != std::string::npos, verbose) << out.str();
  }
  const auto path = (std::filesystem::temp_directory_path() / ("lowered-" + std::to_string(::getpid()) + ".md")).string();
  auto md = scatter::make_markdown_reporter(path, {});
  md->on_result(r);
  auto plain = r;
  plain.lowering = "scatter_elements";
  md->on_result(plain);
  md->on_end({});
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove(path);
  EXPECT_NE(text.find("- `tvm`, apache/tvm#20182: 1 case results, e.g. `scatter_elements on data[:2], put back with "
                      "concat (apache/tvm#20182)`"),
            std::string::npos)
      << text;
}
