// The cpu backend's scatter for std::int16_t, std::int8_t (scatter_typed.hpp).

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

SCATTER_CPU_INSTANTIATE(std::int16_t);
SCATTER_CPU_INSTANTIATE(std::int8_t);

}  // namespace scatter::detail::cpu
