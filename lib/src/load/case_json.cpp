// A materialized case written back as case-file JSON (load.hpp, case_json): the shrinker's
// candidates and its minimal case, each read back through the loader's own rules.

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/dispatch.hpp"
#include "scatter/load.hpp"

namespace scatter {
namespace {

// One element as JSON text that the loader reads back as the same bits.
template <class T>
std::string value_text(T v) {
  if constexpr (std::is_same_v<T, detail::Bool>) {
    return v.value ? "true" : "false";
  } else if constexpr (detail::kIsFloat<T>) {
    const double x = detail::widen(v);
    if (std::isnan(x)) return "\"nan\"";
    if (std::isinf(x)) return x > 0 ? "\"inf\"" : "\"-inf\"";
    if (x == 0) return std::signbit(x) ? "-0.0" : "0";
    return fmt::format("{}", x);  // the shortest text that reads back as this double
  } else {
    return fmt::format("{}", static_cast<std::int64_t>(v));
  }
}

std::string tensor_json(const Tensor& t) {
  std::string values;
  detail::dispatch(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (std::int64_t i = 0; i < t.numel(); ++i) values += (i ? ", " : "") + value_text(p[i]);
  });
  return fmt::format(R"({{"dtype": "{}", "shape": {}, "values": [{}]}})", to_string(t.dtype()), format_shape(t.shape()),
                     values);
}

}  // namespace

std::string case_json(const Case& c, const std::string& name, const std::string& description,
                      std::optional<ErrorCode> expect_error) {
  const auto text = [](const std::string& s) { return nlohmann::json(s).dump(); };
  std::string out = fmt::format("{{\n  \"name\": {},\n  \"description\": {},\n  \"op\": \"{}\",\n", text(name),
                                text(description), to_string(c.attrs.op));
  if (c.attrs.op != Op::scatter_nd) out += fmt::format("  \"axis\": {},\n", c.attrs.axis);
  if (c.attrs.reduction != Reduction::none) out += fmt::format("  \"reduction\": \"{}\",\n", to_string(c.attrs.reduction));
  if (c.attrs.op == Op::scatter_elements) out += fmt::format("  \"use_init_val\": {},\n", c.attrs.use_init_val);
  if (c.attrs.op == Op::tensor_scatter) out += fmt::format("  \"mode\": \"{}\",\n", write_mode_name(c.attrs.mode));
  if (c.tolerance) out += fmt::format("  \"tolerance\": {{\"atol\": {}, \"rtol\": {}}},\n", c.tolerance->atol, c.tolerance->rtol);
  if (expect_error) out += fmt::format("  \"expect_error\": \"{}\",\n", to_string(*expect_error));
  out += fmt::format("  \"inputs\": {{\n    \"data\": {},\n    \"indices\": {},\n    \"updates\": {}\n  }}\n}}\n",
                     tensor_json(c.data), tensor_json(c.indices), tensor_json(c.updates));
  return out;
}

}  // namespace scatter
