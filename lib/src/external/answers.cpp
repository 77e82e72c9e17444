// A worker's and a box's answers (answers.hpp).

#include "answers.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace scatter::external {
namespace {

constexpr double kShortestTime = 1e-9;  // seconds

}  // namespace

std::string text_of(const nlohmann::json& answer, const char* key) {
  const auto it = answer.find(key);
  return it != answer.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag_of(const nlohmann::json& answer, const char* key) {
  const auto it = answer.find(key);
  return it != answer.end() && it->is_boolean() && it->get<bool>();
}

double hello_seconds(std::optional<double> timeout) {
  constexpr double kHelloSeconds = 120.0;
  constexpr double kShortestHello = 10.0;
  return timeout ? std::max(*timeout, kShortestHello) : kHelloSeconds;
}

double time_of(const nlohmann::json& value, const std::string& field, std::string_view who, int protocol) {
  if (!value.is_number() || !(value.get<double>() >= kShortestTime) || !std::isfinite(value.get<double>())) {
    throw BackendFault(fmt::format("{} broke protocol {}: {} = {} is not a time of 1 ns or more", who, protocol, field,
                                   value.is_primitive() ? value.dump() : "a " + std::string(value.type_name())));
  }
  return value.get<double>();
}

Hello read_hello(const nlohmann::json& answer, std::string_view who) {
  Hello hello;
  hello.version = text_of(answer, "version");
  if (const auto device = text_of(answer, "device"); !device.empty()) hello.device = device;
  if (const auto it = answer.find("threads"); it != answer.end() && it->is_number_integer()) {
    hello.threads = std::clamp(it->get<int>(), 1, 4096);
  }
  hello.role = text_of(answer, "role");
  hello.given_data_copy = flag_of(answer, "given_data_copy");
  for (const char* group : {"versions", "settings"}) {
    if (const auto it = answer.find(group); it != answer.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) hello.properties.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
    }
  }
  const auto caps = answer.find("capabilities");
  hello.capabilities = caps == answer.end() ? Capabilities::everything()
                                            : parse_capabilities(caps->dump(), fmt::format("worker {}", who));
  return hello;
}

std::string unavailable_reason(const nlohmann::json& answer) {
  auto reason = text_of(answer, "reason");
  if (reason.empty()) reason = text_of(answer, "message");
  return reason.empty() ? fmt::format("the worker answered status '{}'", text_of(answer, "status")) : reason;
}

void throw_for_status(const nlohmann::json& answer, std::string_view name, std::string_view who, int protocol,
                      Availability& availability) {
  const auto status = text_of(answer, "status");
  // A backend lost for good (a plugin's GPU context): this case says why, the rest are skipped.
  if (const auto lost = text_of(answer, "lost"); !lost.empty()) availability = {false, lost};
  if (status == "unsupported") {
    // A refusal that the capabilities did not announce is the declaration's fault: an error (a
    // claimed but unimplemented case), unless the backend's own declared check (a plugin's
    // supports(), a kernel's NotImplementedError) declined it.
    if (flag_of(answer, "declared")) throw Unsupported(text_of(answer, "reason"));
    throw BackendFault(fmt::format("{} declared support for the case but refused it at run time: {}", name,
                                   text_of(answer, "reason")));
  }
  if (status == "rejected") throw Rejected(text_of(answer, "code"), text_of(answer, "message"));
  if (status == "error" && flag_of(answer, "fault")) {
    throw BackendFault(fmt::format("{}: {}", name, text_of(answer, "message")));  // a breach its host found
  }
  if (status == "unavailable") {
    availability = {false, text_of(answer, "reason")};
    throw BackendFault(fmt::format("{} is unavailable: {}", name, availability.reason));
  }
  if (status != "error") {
    throw BackendFault(fmt::format("{} broke protocol {}: answered status '{}'", who, protocol, status.substr(0, 40)));
  }
  auto message = text_of(answer, "message");
  if (message.empty()) message = "answered status 'error' without a message";
  throw Error(ErrorCode::backend, "", fmt::format("{}: {}", name, message));
}

nlohmann::json answer_of_exception(const nlohmann::json& id, std::string_view malformed) {
  nlohmann::json answer = {{"id", id}, {"status", "error"}};
  try {
    throw;
  } catch (const Unsupported& e) {
    answer["status"] = "unsupported";
    answer["declared"] = true;  // the plugin's supports() declined it: part of its declaration
    answer["reason"] = e.what();
  } catch (const Rejected& e) {
    answer["status"] = "rejected";
    answer["code"] = e.code();
    answer["message"] = e.what();
  } catch (const BackendFault& e) {
    // Not a refusal: the driving side tells a case with expect_error apart by "fault".
    answer["message"] = e.message();
    answer["fault"] = true;
  } catch (const Error& e) {
    answer["message"] = e.message();
  } catch (const nlohmann::json::exception& e) {
    answer["message"] = fmt::format("{}{}", malformed, e.what());
  } catch (const std::exception& e) {
    answer["message"] = e.what();
  }
  return answer;
}

}  // namespace scatter::external
