#include "scatter/suggest.hpp"

#include <algorithm>

namespace scatter {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const auto up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::optional<std::string_view> closest(std::string_view word, const std::vector<std::string_view>& known,
                                        std::size_t max_distance) {
  std::optional<std::string_view> best;
  std::size_t best_distance = max_distance + 1;
  for (const auto k : known) {
    const auto apart = word.size() > k.size() ? word.size() - k.size() : k.size() - word.size();
    if (apart > max_distance) continue;
    const auto d = edit_distance(word, k);
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace scatter
