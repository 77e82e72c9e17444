// The cpu backend's instantiations (scatter_typed.hpp), first half: the floating-point dtypes
// and int64. The halves build in about the same time, one on each core.

#include <cstdint>

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

template void scatter_typed<double>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<float>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<Float16>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<BFloat16>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<std::int64_t>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);

}  // namespace scatter::detail::cpu
