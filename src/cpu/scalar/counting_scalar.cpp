// The counting filter's reference kernels: plain words, the pattern from layout.hpp.
#include "cpu/counting_kernel.hpp"

namespace batchbloom::detail::counting {

constinit const Kernels scalar_kernels{kernels<ScalarLanes>::insert, kernels<ScalarLanes>::erase,
                                       kernels<ScalarLanes>::contains};

}  // namespace batchbloom::detail::counting
