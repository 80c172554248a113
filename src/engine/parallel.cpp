#include "engine/parallel.hpp"

#include "batchbloom/bulk_settings.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace batchbloom::detail {

unsigned resolve_threads(unsigned requested) {
#ifdef _OPENMP
    const unsigned t = requested == 0 ? static_cast<unsigned>(std::max(1, omp_get_max_threads())) : requested;
    return std::min(t, max_threads);
#else
    (void)requested;
    return 1;
#endif
}

}  // namespace batchbloom::detail
