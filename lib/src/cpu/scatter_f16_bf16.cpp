// The cpu backend's scatter for Float16, BFloat16 (scatter_typed.hpp).

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

SCATTER_CPU_INSTANTIATE(Float16);
SCATTER_CPU_INSTANTIATE(BFloat16);

}  // namespace scatter::detail::cpu
