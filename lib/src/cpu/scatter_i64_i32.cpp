// The cpu backend's scatter for std::int64_t, std::int32_t (scatter_typed.hpp).

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

SCATTER_CPU_INSTANTIATE(std::int64_t);
SCATTER_CPU_INSTANTIATE(std::int32_t);

}  // namespace scatter::detail::cpu
