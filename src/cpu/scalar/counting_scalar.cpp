// The counting filter's reference kernels: plain words, the pattern from layout.hpp.
#include "cpu/counting_kernel.hpp"

namespace batchbloom::detail {

constinit const CountingKernels scalar_counting{Backend::scalar, counting::kernels<counting::ScalarLanes>::insert,
                                                counting::kernels<counting::ScalarLanes>::erase,
                                                counting::kernels<counting::ScalarLanes>::contains};

}  // namespace batchbloom::detail
