#include "batch/threads.hpp"

#include "batchbloom/bulk_settings.hpp"
#include "batchbloom/error.hpp"

#include <string>

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

void check_threads_option(unsigned threads, const char* owner) {
    if (threads > max_threads)
        throw Error(std::string(owner) + ": threads must be in [0, " + std::to_string(max_threads) +
                    "] (0: every core), got " + std::to_string(threads));
}

}  // namespace batchbloom::detail
