// The cpu backend's instantiations (scatter_typed.hpp), second half: the narrower integer
// dtypes and bool. The halves build in about the same time, one on each core.

#include <cstdint>

#include "scatter_typed.hpp"

namespace scatter::detail::cpu {

template void scatter_typed<std::int32_t>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<std::int16_t>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<std::int8_t>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<std::uint8_t>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);
template void scatter_typed<Bool>(const Case&, Prepared&, Tensor&, bool, Pool&, std::vector<Scratch>&);

}  // namespace scatter::detail::cpu
