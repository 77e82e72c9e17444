#pragma once
// What a worker's or a box's answers mean, read in one place for both (docs/backends.md):
// its hello, and a run's status other than "ok".

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scatter/backend.hpp"
#include "scatter/capabilities.hpp"

namespace scatter::external {

/// The answer's string member `key`, or "" (absent, or not a string).
std::string text_of(const nlohmann::json& answer, const char* key);

/// The answer's boolean member `key`; false when absent or of another type.
bool flag_of(const nlohmann::json& answer, const char* key);

/// A time the worker measured: positive, finite, and not under a nanosecond, which no timer
/// resolves. Throws BackendFault naming `who` ("the numpy worker"), its `protocol` and `field`
/// otherwise.
double time_of(const nlohmann::json& value, const std::string& field, std::string_view who, int protocol);

/// How long a worker or a box may take to start and answer its hello: 120 s (importing torch or
/// jax takes seconds), or with --timeout that, but never under 10 s. --timeout bounds each call;
/// an interpreter that loads numpy takes over a second on a loaded machine, and an honest
/// kernel was refused as "did not answer within 1 s" beside a parallel test.
double hello_seconds(std::optional<double> timeout);

/// What a hello that answered "ok" says of the backend.
struct Hello {
  std::string version;
  std::string device = "?";
  int threads = 1;
  bool given_data_copy = false;  ///< its output arrives holding data (BackendTraits)
  std::string role;  ///< "builtin", "oracle" or "" (what another scatterctl says it serves)
  std::vector<std::pair<std::string, std::string>> properties;  ///< its versions and settings
  Capabilities capabilities;
};
/// Throws Error naming `who` for invalid capabilities.
Hello read_hello(const nlohmann::json& answer, std::string_view who);

/// Why a hello that did not answer "ok" leaves the backend unavailable.
std::string unavailable_reason(const nlohmann::json& answer);

/// A run's answer whose status is not "ok": throws what it means (Unsupported, Rejected,
/// BackendFault, Error). `availability` turns false where the answer says the backend is gone.
/// `name` is the backend's, `who` its process ("the numpy worker").
[[noreturn]] void throw_for_status(const nlohmann::json& answer, std::string_view name, std::string_view who,
                                   int protocol, Availability& availability);

/// The far side's answer for the exception in flight (call it in a catch): unsupported (its own
/// declared check), rejected, or an error (a fault of the plugin rules where it is one); a JSON
/// error of the request is named after `malformed` ("malformed request: ").
nlohmann::json answer_of_exception(const nlohmann::json& id, std::string_view malformed);

}  // namespace scatter::external
