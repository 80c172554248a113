#include "engine/parallel.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace batchbloom::detail {

unsigned resolve_threads(unsigned requested) {
#ifdef _OPENMP
    return requested == 0 ? static_cast<unsigned>(std::max(1, omp_get_max_threads())) : requested;
#else
    (void)requested;
    return 1;
#endif
}

}  // namespace batchbloom::detail
