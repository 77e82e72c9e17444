#pragma once
/// "Did you mean": the closest of the known words to a misspelt one.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace scatter {

/// Levenshtein distance: insertions, deletions and substitutions of single bytes.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The known word closest to `word` within `max_distance` edits (the first of equals),
/// or nullopt. Words whose lengths differ by more than max_distance are not compared,
/// so a huge word costs nothing.
std::optional<std::string_view> closest(std::string_view word, const std::vector<std::string_view>& known,
                                        std::size_t max_distance = 2);

}  // namespace scatter
