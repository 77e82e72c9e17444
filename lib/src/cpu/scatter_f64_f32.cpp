// The cpu backend's scatter for double, float (scatter_typed.hpp).

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

SCATTER_CPU_INSTANTIATE(double);
SCATTER_CPU_INSTANTIATE(float);

}  // namespace scatter::detail::cpu
