#pragma once
// The engine and the thread count of a filter's bulk calls, declared once for the filter
// classes that hold them (Filter, CountingFilter, ClassicFilter). They are settings of the
// object, not part of the filter's value: never saved or compared, and copied and moved with it.
#include "backend.hpp"

namespace batchbloom {

class BulkSettings {
public:
    /// Engine of the bulk calls; `automatic` (the default) resolves on each call. Which kernels
    /// an engine runs for each filter type, and the fallback where it has none, is the table in
    /// docs/architecture.md. Throws Error if the engine is not available on this machine.
    void set_backend(Backend b);
    Backend backend() const noexcept { return backend_; }

    /// Threads the bulk operations may use; 0 (the default) means every core. Batches too
    /// small to pay for threads run on one. The results never depend on this setting.
    void set_threads(unsigned threads) noexcept { threads_ = threads; }
    unsigned threads() const noexcept { return threads_; }

protected:
    BulkSettings() = default;
    ~BulkSettings() = default;
    BulkSettings(const BulkSettings&) = default;
    BulkSettings& operator=(const BulkSettings&) = default;

    Backend backend_ = Backend::automatic;
    unsigned threads_ = 0;
};

}  // namespace batchbloom
