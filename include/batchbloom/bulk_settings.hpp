#pragma once
// The engine and the thread count of a filter's bulk calls, declared once for the filter
// classes that hold them (Filter, CountingFilter, ClassicFilter, DeletableFilter, ScalableFilter).
// They are settings of the object, not part of the filter's value: never saved or compared, and
// copied and moved with it. Each bulk call reads them once, at its start: what they mean for the
// call (the engine `automatic` stands for, the threads its keys get) is resolved then.
#include "backend.hpp"
#include "environment.hpp"

namespace batchbloom {

/// The most threads any bulk call of any filter type starts. A larger request (set_threads
/// cannot refuse one) runs on this many; the option structs (JoinFilterOptions,
/// parquet::AddOptions), the command line and Python refuse one, naming this range. Without
/// a cap a huge count reached OpenMP as it was, which overflowed its stack or aborted.
inline constexpr unsigned max_threads = 1024;

class BulkSettings {
public:
    /// Engine of the bulk calls; `automatic` (the default) resolves on each call (to
    /// BATCHBLOOM_BACKEND if set, environment.hpp, else the best CPU engine here). Which kernels
    /// an engine runs for each filter type, and the fallback where it has none, is the table in
    /// docs/architecture.md. Throws Error if the engine is not available on this machine.
    void set_backend(Backend b);
    Backend backend() const noexcept { return backend_; }

    /// Threads the bulk operations may use; 0 (the default) means every core, and a count above
    /// max_threads means max_threads. Batches too small to pay for threads run on one. The
    /// results never depend on this setting.
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
