#include "outputs.hpp"
#include "bench_list.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "cli_common.hpp"
#include "scatter/load.hpp"
#include "scatter/units.hpp"

namespace scatter::cli {
namespace {

// Cases that need more host memory than this get no byte model in a listing: building
// their tensors takes about a second per 100 MB (every --size small case is under it).
constexpr std::uint64_t kByteModelMaxCaseBytes = std::uint64_t{64} << 20;

struct Listed {
  const BenchItem* item;
  std::optional<ByteModel> bytes;
};

// The byte model needs the indices (distinct elements and sectors hit): the case is
// materialized, and run nowhere.
std::optional<ByteModel> bytes_of(const BenchItem& item) {
  if (case_bytes(item.decl) > kByteModelMaxCaseBytes) return std::nullopt;
  try {
    return byte_model(materialize(item.decl), item.in_place);
  } catch (const Error&) {
    return std::nullopt;  // an invalid case has no bytes; bench reports it as an error row
  }
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      out += fmt::format("\\u{:04x}", c);
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string json_bytes(const std::optional<ByteModel>& m) {
  if (!m) {
    return R"("bytes": null, "bytes_indices": null, "bytes_updates": null, "bytes_writes": null, "bytes_copy": null)";
  }
  return fmt::format(R"("bytes": {}, "bytes_indices": {}, "bytes_updates": {}, "bytes_writes": {}, "bytes_copy": {})",
                     m->total(), m->indices, m->updates, m->writes, m->copy);
}

// {"mode", "size", "suite": [...]}; byte fields as in bench's JSON report, null when not computed.
std::string list_json(const std::vector<Listed>& listed, const BenchListContext& context) {
  std::string out = fmt::format("{{\n  \"mode\": {},\n  \"size\": {},\n  \"suite\": [", json_string(context.mode),
                                json_string(context.size));
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const auto& item = *listed[i].item;
    const auto& d = item.decl;
    out += fmt::format(
        "{}\n    {{\"name\": {}, \"group\": {}, \"op\": {}, \"reduction\": {}, \"axis\": {}, \"dtype\": {}, "
        "\"index_dtype\": {}, \"shapes\": {{\"data\": {}, \"indices\": {}, \"updates\": {}}}, \"in_place\": {}, "
        "\"deterministic\": {}, {}}}",
        i ? "," : "", json_string(item.name), json_string(item.group), json_string(to_string(d.attrs.op)),
        json_string(to_string(d.attrs.reduction)), d.attrs.axis, json_string(to_string(d.data.dtype)),
        json_string(to_string(d.indices.dtype)), format_shape(d.data.shape), format_shape(d.indices.shape),
        format_shape(d.updates.shape), item.in_place, item.deterministic, json_bytes(listed[i].bytes));
  }
  return out + "\n  ]\n}\n";
}

std::string list_table(const std::vector<Listed>& listed, const BenchListContext& context) {
  std::string out;
  for (const auto& [item, bytes] : listed) {
    out += fmt::format("{:<40} {}  moves {}{}{}\n", item->name, case_columns(item->decl),
                       bytes ? decimal_bytes(static_cast<double>(bytes->total())) : "-", item->in_place ? ", in place" : "",
                       item->deterministic ? ", deterministic" : "");
  }
  const auto what = context.mode == "cases" ? std::string("cases")
                                            : fmt::format("mode {}, size {}", context.mode, context.size);
  return out + fmt::format("scatterctl: {} benchmarks selected ({}), none run\n", listed.size(), what);
}

}  // namespace

int list_bench(const std::vector<BenchItem>& items, const BenchListContext& context, const std::string& json_path) {
  if (items.empty()) {
    std::cerr << "scatterctl: nothing selected\n";
    return kExitNothing;
  }
  const bool json_to_stdout = json_path == "-";  // --json was checked by bench (its Outputs)
  std::vector<Listed> listed;
  for (const auto& item : items) listed.push_back({&item, bytes_of(item)});
  const auto unknown = std::count_if(listed.begin(), listed.end(), [](const Listed& l) { return !l.bytes; });
  if (unknown > 0) {
    std::cerr << fmt::format("scatterctl: bytes not computed for {} of {} benchmarks (cases over {} MiB, or invalid)\n",
                             unknown, listed.size(), kByteModelMaxCaseBytes >> 20);
  }
  if (json_to_stdout) {
    std::cout << list_json(listed, context);
    return kExitOk;
  }
  std::cout << list_table(listed, context);
  if (!json_path.empty()) write_text(json_path, list_json(listed, context));
  return kExitOk;
}

}  // namespace scatter::cli
