#pragma once
// FNV-1a of a text: a short, stable name for it (shard membership, selection and case-file
// fingerprints). Not for tensors (tensor.cpp hashes their bytes in four chains).

#include <cstdint>
#include <string_view>

namespace scatter::detail {

inline std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char ch : text) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace scatter::detail
