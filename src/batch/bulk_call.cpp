#include "batch/bulk_call.hpp"

#include "batch/threads.hpp"

namespace batchbloom::detail {

unsigned BulkCall::threads_for(std::size_t keys) const noexcept { return detail::threads_for(keys, threads); }

BulkCall bulk_call(const BulkSettings& settings, std::size_t n, BatchPath path, BatchScratch* scratch) {
    return {resolve_backend(settings.backend()), detail::threads_for(n, resolve_threads(settings.threads())), path,
            scratch};
}

}  // namespace batchbloom::detail
