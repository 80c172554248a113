#include "batch/path_choice.hpp"

#include <algorithm>

#include "batchbloom/parallel.hpp"
#include "core/environment.hpp"
#include "engine/machine.hpp"
#include "batch/threads.hpp"

namespace batchbloom::detail {
namespace {

/// Below this many keys a call is not worth partitioning: its buckets would hold a few keys
/// per region, and growing them would cost more than the call.
constexpr std::size_t min_partitioned_keys = std::size_t(1) << 20;

std::uint64_t filter_bytes(const FilterRef& f) { return f.blocks * layout::info(f.shape).block_bytes; }

}  // namespace

std::uint64_t shared_cache_bytes() {
    const auto& m = machine();
    const std::uint64_t share = 16 * m.l2_bytes * hardware_threads();
    return std::max(m.l2_bytes, m.l3_bytes == 0 ? m.l2_bytes : std::min(m.l3_bytes, share));
}

bool private_copies_pay(const FilterRef& f, unsigned t, std::size_t n) {
    const std::uint64_t bytes = filter_bytes(f);
    return t > 1 && t * bytes <= shared_cache_bytes() && copies_affordable(t, bytes, n);
}

BatchPath choose_path(const FilterRef& f, std::size_t n, unsigned threads, BatchPath path, Op op) {
    if (path != BatchPath::automatic) return path;
    if (const auto& env = environment().batch_path.get(); env && *env != BatchPath::automatic) return *env;
    if (op == Op::probe || n < min_partitioned_keys) return BatchPath::direct;
    if (threads < 2) return filter_bytes(f) > 4 * shared_cache_bytes() ? BatchPath::partitioned : BatchPath::direct;
    return private_copies_pay(f, threads, n) ? BatchPath::direct : BatchPath::partitioned;
}

}  // namespace batchbloom::detail
