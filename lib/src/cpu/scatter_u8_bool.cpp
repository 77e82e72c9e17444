// The cpu backend's scatter for std::uint8_t, Bool (scatter_typed.hpp).

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

SCATTER_CPU_INSTANTIATE(std::uint8_t);
SCATTER_CPU_INSTANTIATE(Bool);

}  // namespace scatter::detail::cpu
