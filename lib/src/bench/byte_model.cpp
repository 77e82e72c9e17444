// The bytes a case must move at least (docs/perf-model.md): indices, updates, the sectors its
// distinct targets lie in, and the copy of data out of place.

#include <algorithm>
#include <vector>

#include "core/targets.hpp"
#include "scatter/bench.hpp"

namespace scatter {

ByteModel byte_model(const Case& c, bool in_place) { return byte_model(c, in_place, detail::normalized_indices(c)); }

ByteModel byte_model(const Case& c, bool in_place, const std::vector<std::int64_t>& normalized) {
  ByteModel m;
  const auto e = size_of(c.data.dtype());
  const auto n = c.data.numel();
  m.indices = static_cast<std::uint64_t>(c.indices.nbytes());
  // Distinct elements hit and distinct 32-byte sectors they lie in.
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n), 0);
  std::int64_t longest = 0;
  detail::visit_targets(c, normalized, [&](std::int64_t, std::int64_t o, std::int64_t len) {
    std::fill(hit.begin() + o, hit.begin() + o + len, 1);
    longest = std::max(longest, len);
  });
  m.run_bytes = static_cast<std::uint64_t>(longest) * e;
  std::uint64_t sectors = 0;
  std::int64_t last_sector = -1;
  for (std::int64_t i = 0; i < n; ++i) {
    if (!hit[i]) continue;
    ++m.distinct;
    const auto sector = static_cast<std::int64_t>((static_cast<std::uint64_t>(i) * e) / 32);
    if (sector != last_sector) {
      ++sectors;
      last_sector = sector;
    }
  }
  const bool read_modify_write = c.attrs.reduction != Reduction::none;
  m.updates = read_modify_write ? static_cast<std::uint64_t>(c.updates.nbytes()) : m.distinct * e;
  m.writes = sectors * 32 * (read_modify_write ? 2 : 1);
  m.copy = in_place ? 0 : 2 * static_cast<std::uint64_t>(n) * e;
  m.stores = static_cast<std::uint64_t>(c.updates.numel());
  return m;
}

}  // namespace scatter
