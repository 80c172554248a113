#include "batchbloom/join.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "batch/threads.hpp"
#include "filters/join_engine.hpp"
#include "filters/key_hashes.hpp"
#if BATCHBLOOM_HAVE_CUDA
#include "batchbloom/cuda.hpp"
#endif

namespace batchbloom {

#if BATCHBLOOM_HAVE_CUDA
struct JoinFilter::Device {
    cuda::DeviceFilter filter;
};
#else
struct JoinFilter::Device {};
#endif

namespace {

const JoinFilterOptions& checked(const JoinFilterOptions& o) {
    if (!(o.bits_per_key >= 0.0))
        throw Error("join filter: bits_per_key must be positive (or 0 to size by FPR), got " +
                    std::to_string(o.bits_per_key));
    if (o.chunk_rows == 0) throw Error("join filter: chunk_rows must be at least 1");
    detail::check_threads_option(o.threads, "join filter");
    return o;
}

template <class Key>
std::uint64_t hash_of(const Hashing& h, const Key& key) {
    if constexpr (std::is_integral_v<Key>)
        return hash_key(h, std::uint64_t{key});
    else
        return hash_key(h, std::string_view(key));
}

/// The distinct hashes of the build keys when the filter is sized from them (the caller gave no
/// expected_keys); distinct keys have distinct 64-bit hashes but with negligible probability.
template <class Key>
std::vector<std::uint64_t> distinct_hashes(std::span<const Key> keys, const JoinFilterOptions& o) {
    if (o.expected_keys > 0) return {};
    std::vector<std::uint64_t> hashes(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = hash_of(o.hashing, keys[i]);
    std::sort(hashes.begin(), hashes.end());
    hashes.erase(std::unique(hashes.begin(), hashes.end()), hashes.end());
    return hashes;
}

Params params_for(std::uint64_t n, const JoinFilterOptions& o) {
    return o.bits_per_key > 0 ? Params::for_bits_per_key(n, o.bits_per_key, o.shape) : Params::for_fpr(n, o.fpr, o.shape);
}

/// Rows per chunk of a whole-column probe of `rows` rows: chunk_rows rounded up to a multiple of
/// 64, where a chunk_rows beyond the column (SIZE_MAX included) means one chunk; computed from
/// the smaller of the two, so the rounding cannot overflow.
std::size_t chunk_for(std::size_t chunk_rows, std::size_t rows) {
    const std::size_t n = std::max<std::size_t>(std::min(chunk_rows, rows), 1);
    return (n + 63) / 64 * 64;
}

std::size_t popcount(std::span<const std::uint64_t> words) {
    std::size_t ones = 0;
    for (std::uint64_t w : words) ones += static_cast<std::size_t>(std::popcount(w));
    return ones;
}

/// Writes base + i for every set bit i of `words`, ascending, from `out` on; returns the end.
template <class Index>
Index* expand(std::span<const std::uint64_t> words, std::uint64_t base, Index* out) {
    for (std::size_t w = 0; w < words.size(); ++w) {
        for (std::uint64_t bits = words[w]; bits != 0; bits &= bits - 1)
            *out++ = static_cast<Index>(base + 64 * w + static_cast<unsigned>(std::countr_zero(bits)));
    }
    return out;
}

void check_bitmap(std::size_t keys, std::size_t words) {
    if (words < (keys + 63) / 64)
        throw Error("bitmap has " + std::to_string(words) + " words; " + std::to_string(keys) + " rows need " +
                    std::to_string((keys + 63) / 64));
}

}  // namespace

void bitmap_to_selection(std::span<const std::uint64_t> bitmap, std::size_t n, std::uint64_t base,
                         std::vector<std::uint64_t>& out) {
    check_bitmap(n, bitmap.size());
    const auto full = bitmap.first(n / 64);
    // Bits past n in a partial last word do not count.
    const std::uint64_t tail[1] = {n % 64 == 0 ? 0 : bitmap[n / 64] & ((std::uint64_t(1) << (n % 64)) - 1)};
    const std::size_t at = out.size();
    out.resize(at + popcount(full) + popcount(tail));
    expand<std::uint64_t>(tail, base + 64 * full.size(), expand<std::uint64_t>(full, base, out.data() + at));
}

// ---- build ------------------------------------------------------------------------------

template <class Key>
JoinFilter::JoinFilter(std::span<const Key> keys, const JoinFilterOptions& o, std::vector<std::uint64_t> hashes)
    : options_(o),
      // At least 1, so that an empty build side still gets a (rejecting) filter.
      sized_for_(o.expected_keys > 0 ? o.expected_keys : std::max<std::uint64_t>(hashes.size(), 1)),
      filter_(params_for(sized_for_, o), o.hashing, detail::join_host_engine(o.backend)) {
    filter_.set_threads(options_.threads);
    // The hashes are already at hand when they sized the filter: the same bits, no second hashing.
    if (o.expected_keys > 0) {
        filter_.insert(keys);
    } else {
        filter_.insert_hashes(hashes);
        filter_.add_key_kinds(detail::kinds_of<Key>(keys.size()));
    }
    prepare_probes();
}

JoinFilter::JoinFilter(Filter filter, std::uint64_t sized_for, const JoinFilterOptions& o)
    : options_(checked(o)), sized_for_(std::max<std::uint64_t>(sized_for, 1)), filter_(std::move(filter)) {
    options_.shape = filter_.params().shape;
    options_.hashing = filter_.hashing();
    filter_.set_backend(detail::join_host_engine(o.backend));
    prepare_probes();
}

void JoinFilter::prepare_probes() {
    // Probes run chunk by chunk, each on one thread; the threads are spread over chunks.
    filter_.set_threads(1);
    if (options_.backend == Backend::cuda) {
        resolve_backend(Backend::cuda);  // throws, naming the reason, where there is no GPU
#if BATCHBLOOM_HAVE_CUDA
        device_ = std::make_unique<Device>(Device{cuda::DeviceFilter(filter_)});
#endif
    }
}

JoinFilter::JoinFilter(std::span<const std::uint64_t> keys, const JoinFilterOptions& o)
    : JoinFilter(keys, checked(o), distinct_hashes(keys, o)) {}

JoinFilter::JoinFilter(std::span<const std::uint32_t> keys, const JoinFilterOptions& o)
    : JoinFilter(keys, checked(o), distinct_hashes(keys, o)) {}

JoinFilter::JoinFilter(std::span<const std::string_view> keys, const JoinFilterOptions& o)
    : JoinFilter(keys, checked(o), distinct_hashes(keys, o)) {}

JoinFilter::JoinFilter(std::span<const std::string> keys, const JoinFilterOptions& o)
    : JoinFilter(keys, checked(o), distinct_hashes(keys, o)) {}

JoinFilter::JoinFilter(JoinFilter&&) noexcept = default;
JoinFilter& JoinFilter::operator=(JoinFilter&&) noexcept = default;
JoinFilter::~JoinFilter() = default;

double JoinFilter::predicted_fpr() const {
    if (filter_.params().blocks == 0) return 0.0;  // moved from: rejects every row
    return batchbloom::predicted_fpr(filter_.params(), sized_for_);
}

// ---- probes -----------------------------------------------------------------------------

template <class Key>
std::size_t JoinFilter::select_chunk_keys(std::span<const Key> keys, std::span<std::uint32_t> sel) const {
    if (keys.size() > std::numeric_limits<std::uint32_t>::max())
        throw Error("a chunk holds at most 2^32 - 1 rows, got " + std::to_string(keys.size()));
    if (sel.size() < keys.size())
        throw Error("selection vector has " + std::to_string(sel.size()) + " entries for " +
                    std::to_string(keys.size()) + " rows");
    // A stack bitmap per slice keeps the answers in L1 between the probe and the expansion.
    constexpr std::size_t slice = 4096;
    std::uint64_t bits[slice / 64];
    std::uint32_t* out = sel.data();
    for (std::size_t begin = 0; begin < keys.size(); begin += slice) {
        const std::size_t n = std::min(slice, keys.size() - begin);
        const std::span<std::uint64_t> words(bits, (n + 63) / 64);
        filter_.contains_bitmap(keys.subspan(begin, n), words);
        out = expand<std::uint32_t>(words, begin, out);
    }
    return static_cast<std::size_t>(out - sel.data());
}

template <class Key>
void JoinFilter::bitmap_keys(std::span<const Key> keys, std::span<std::uint64_t> bitmap) const {
    check_bitmap(keys.size(), bitmap.size());
#if BATCHBLOOM_HAVE_CUDA
    if (device_) {
        // One call for the whole column: the device filter streams it through pinned buffers.
        const auto bits = bitmap.first((keys.size() + 63) / 64);
        if constexpr (std::is_same_v<Key, std::uint64_t>) {
            device_->filter.contains_bitmap(keys, bits);
        } else if constexpr (std::is_integral_v<Key>) {
            const std::vector<std::uint64_t> widened(keys.begin(), keys.end());  // the same keys
            device_->filter.contains_bitmap(widened, bits);
        } else {
            // The GPU engine takes integers: strings are hashed here.
            std::vector<std::uint64_t> hashes(keys.size());
            for (std::size_t i = 0; i < keys.size(); ++i) hashes[i] = hash_of(options_.hashing, keys[i]);
            device_->filter.contains_bitmap(hashes, bits, cuda::Input::hashes);
        }
        return;
    }
#endif
    const std::size_t chunk = chunk_for(options_.chunk_rows, keys.size());
    const std::size_t chunks = (keys.size() + chunk - 1) / chunk;
    detail::each_chunk(chunks, detail::resolve_threads(options_.threads), [&](std::size_t c) {
        const std::size_t begin = c * chunk, n = std::min(chunk, keys.size() - begin);
        filter_.contains_bitmap(keys.subspan(begin, n), bitmap.subspan(begin / 64, (n + 63) / 64));
    });
}

template <class Key>
std::vector<std::uint64_t> JoinFilter::select_keys(std::span<const Key> keys) const {
    std::vector<std::uint64_t> bits((keys.size() + 63) / 64);
    bitmap_keys(keys, bits);
    // Count per chunk, then expand each chunk at its offset: the output is in row order
    // whatever the thread count.
    const std::size_t chunk_words = chunk_for(options_.chunk_rows, keys.size()) / 64;
    const std::size_t chunks = (bits.size() + chunk_words - 1) / chunk_words;
    const unsigned threads = detail::resolve_threads(options_.threads);
    auto words_of = [&](std::size_t c) {
        const std::size_t first = c * chunk_words;
        return std::span<const std::uint64_t>(bits).subspan(first, std::min(chunk_words, bits.size() - first));
    };
    std::vector<std::size_t> offset(chunks + 1, 0);
    detail::each_chunk(chunks, threads, [&](std::size_t c) { offset[c + 1] = popcount(words_of(c)); });
    for (std::size_t c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
    std::vector<std::uint64_t> sel(offset[chunks]);
    detail::each_chunk(chunks, threads, [&](std::size_t c) {
        expand<std::uint64_t>(words_of(c), 64 * c * chunk_words, sel.data() + offset[c]);
    });
    return sel;
}

std::size_t JoinFilter::select_chunk(std::span<const std::uint64_t> keys, std::span<std::uint32_t> sel) const {
    return select_chunk_keys(keys, sel);
}
std::size_t JoinFilter::select_chunk(std::span<const std::uint32_t> keys, std::span<std::uint32_t> sel) const {
    return select_chunk_keys(keys, sel);
}
std::size_t JoinFilter::select_chunk(std::span<const std::string_view> keys, std::span<std::uint32_t> sel) const {
    return select_chunk_keys(keys, sel);
}
std::size_t JoinFilter::select_chunk(std::span<const std::string> keys, std::span<std::uint32_t> sel) const {
    return select_chunk_keys(keys, sel);
}

std::vector<std::uint64_t> JoinFilter::select(std::span<const std::uint64_t> keys) const { return select_keys(keys); }
std::vector<std::uint64_t> JoinFilter::select(std::span<const std::uint32_t> keys) const { return select_keys(keys); }
std::vector<std::uint64_t> JoinFilter::select(std::span<const std::string_view> keys) const {
    return select_keys(keys);
}
std::vector<std::uint64_t> JoinFilter::select(std::span<const std::string> keys) const { return select_keys(keys); }

void JoinFilter::bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> out) const {
    bitmap_keys(keys, out);
}
void JoinFilter::bitmap(std::span<const std::uint32_t> keys, std::span<std::uint64_t> out) const {
    bitmap_keys(keys, out);
}
void JoinFilter::bitmap(std::span<const std::string_view> keys, std::span<std::uint64_t> out) const {
    bitmap_keys(keys, out);
}
void JoinFilter::bitmap(std::span<const std::string> keys, std::span<std::uint64_t> out) const {
    bitmap_keys(keys, out);
}

template <class Key>
std::size_t JoinFilter::count_keys(std::span<const Key> keys) const {
    std::vector<std::uint64_t> bits((keys.size() + 63) / 64);
    bitmap_keys(keys, bits);
    return popcount(bits);
}

std::size_t JoinFilter::count(std::span<const std::uint64_t> keys) const { return count_keys(keys); }
std::size_t JoinFilter::count(std::span<const std::uint32_t> keys) const { return count_keys(keys); }
std::size_t JoinFilter::count(std::span<const std::string_view> keys) const { return count_keys(keys); }
std::size_t JoinFilter::count(std::span<const std::string> keys) const { return count_keys(keys); }

}  // namespace batchbloom
