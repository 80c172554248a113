#include "batchbloom/filter.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "engine/engine.hpp"
#include "batch/blocked_paths.hpp"
#include "batch/path_choice.hpp"
#include "batch/scratch.hpp"
#include "filters/blocked_probes.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/storage.hpp"

namespace batchbloom {

Filter::Filter(const Params& params, const Hashing& hashing, Backend backend)
    : BatchTuning(params.bytes()), params_(params), hashing_(hashing) {
    params_.validate();
    validate(hashing_);
    set_backend(backend);
    storage_ = detail::allocate_zeroed(params_.bytes(), "the filter");
}

Filter::Filter(const Params& params, const Hashing& hashing, const KeyKinds& kinds, AlignedBuffer storage)
    : BatchTuning(params.bytes()), params_(params), hashing_(hashing), key_kinds_(kinds), storage_(std::move(storage)) {}

Filter::Filter(const Filter& other)
    : BulkSettings(other), BatchTuning(other), params_(other.params_), hashing_(other.hashing_),
      key_kinds_(other.key_kinds_), storage_(detail::clone_storage(other.storage_, "the filter")) {}

Filter& Filter::operator=(const Filter& other) {
    if (this != &other) *this = Filter(other);
    return *this;
}

Filter::Filter(Filter&& other) noexcept
    : BulkSettings(other), BatchTuning(std::move(other)), params_(other.params_), hashing_(other.hashing_),
      key_kinds_(other.key_kinds_), storage_(std::move(other.storage_)) {
    other.become_empty();
}

Filter& Filter::operator=(Filter&& other) noexcept { return detail::move_assign(*this, std::move(other)); }

Filter::~Filter() { detail::release_storage(storage_); }

void Filter::check_mapping() const {
    if (storage_.mapping_lost())
        throw FormatError("the file under this mapped filter was truncated while mapped: its lost pages read as "
                          "zeros, so this probe's answers cannot be trusted; map or load the file again");
}

void Filter::require_writable(const char* operation) const {
    if (is_empty()) detail::throw_moved_from(operation);
    if (storage_.mapped()) detail::throw_mapped(operation);
}

std::span<std::byte> Filter::mutable_bytes() {
    if (storage_.mapped()) detail::throw_mapped("mutable_bytes");
    return {storage_.data(), params_.bytes()};
}

void Filter::add_key_kinds(const KeyKinds& kinds) {
    if (storage_.mapped()) detail::throw_mapped("add_key_kinds");
    key_kinds_ = key_kinds_ | kinds;
}

void Filter::become_empty() noexcept {
    storage_.reset();
    params_.blocks = 0;
    key_kinds_ = KeyKinds::none();
}

namespace {

// Probes take the same reference as inserts and only read through it.
detail::FilterRef ref(const Params& p, const std::byte* data) { return detail::filter_ref(p, data); }

constexpr detail::KeyMode hashed{detail::KeyMode::hashed, 0};

}  // namespace

// ---- keys to engine batches (detail::feed_keys, key_hashes.hpp) ------------------------
// A bulk call resolves its context once, before its work (batch/bulk_call.hpp: the engine on
// every call, so BATCHBLOOM_BACKEND and engines that become available take effect without
// rebuilding filters); the probes are filters/blocked_probes.hpp's. Single keys go to the
// reference engine, with no context.

template <>
struct detail::Forms<Filter> {
    /// The context of a bulk call of n keys on f's blocks under `settings` (detail::blocked_call).
    static detail::BulkCall call(const Filter& f, const BulkSettings& settings, std::size_t n) {
        return detail::bulk_call(settings, n, f.batch_path(), f.scratch());
    }

    template <class Key, bool Hashed = false>
    static void insert_keys(Filter& f, std::span<const Key> keys) {
        f.require_writable("insert");
        if constexpr (!Hashed) f.key_kinds_ = f.key_kinds_ | detail::kinds_of<Key>(keys.size());
        const detail::BulkCall c = call(f, f, keys.size());
        const auto& e = detail::blocked_kernels(c.backend);
        const detail::FilterRef r = ref(f.params_, f.storage_.data());
        detail::feed_keys_on<Hashed>(c.threads_for(keys.size()), f.hashing_, keys,
                                     [&](const std::uint64_t* v, std::size_t n, detail::KeyMode m, std::size_t) {
                                         detail::bulk_insert(e, r, v, n, m, c);
                                     });
    }

    template <class Key, bool Hashed = false>
    static void contains_keys(const Filter& f, std::span<const Key> keys, std::span<std::uint8_t> out) {
        detail::blocked_contains<Hashed>(f, f, keys, out);
        f.check_mapping();
    }

    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const Filter& f, std::span<const Key> keys) {
        const std::size_t found = detail::blocked_count<Hashed>(f, f, keys);
        f.check_mapping();
        return found;
    }

    template <class Key>
    static void bitmap_keys(const Filter& f, std::span<const Key> keys, std::span<std::uint64_t> bitmap) {
        const std::size_t words = (keys.size() + 63) / 64;
        if (bitmap.size() < words)
            throw Error("bitmap has " + std::to_string(bitmap.size()) + " words; " + std::to_string(keys.size()) +
                        " keys need " + std::to_string(words));
        if (f.is_empty()) {
            std::fill_n(bitmap.begin(), words, std::uint64_t{0});
            return;
        }
        const detail::BulkCall c = call(f, f, keys.size());
        const auto& e = detail::blocked_kernels(c.backend);
        const detail::FilterRef r = ref(f.params_, f.storage_.data());
        // Chunks are multiples of 64 keys, so each starts on a bitmap word.
        detail::feed_keys_on(c.threads_for(keys.size()), f.hashing_, keys,
                             [&](const std::uint64_t* v, std::size_t n, detail::KeyMode m, std::size_t at) {
                                 detail::bulk_contains_bits(e, r, v, n, m, bitmap.data() + at / 64, c);
                             });
        f.check_mapping();
    }

    // Single keys: the reference engine directly (no engine resolution or threads for one key).
    static void insert_one_hash(Filter& f, std::uint64_t h) {
        f.require_writable("insert");
        detail::scalar_blocked.insert(ref(f.params_, f.storage_.data()), &h, 1, hashed);
    }
    static bool contains_one_hash(const Filter& f, std::uint64_t h) {
        if (f.is_empty()) return false;
        const bool found = detail::scalar_blocked.count(ref(f.params_, f.storage_.data()), &h, 1, hashed) == 1;
        f.check_mapping();
        return found;
    }
};

template class KeyForms<Filter>;
template class HashForms<Filter>;

detail::BulkCall detail::blocked_call(const Filter& f, const BulkSettings& settings, std::size_t n) {
    return Forms<Filter>::call(f, settings, n);
}

BatchPath Filter::batch_path_for(std::size_t keys, bool insert) const {
    const detail::BulkCall c = detail::blocked_call(*this, *this, keys);
    return detail::path_for(detail::blocked_kernels(c.backend), ref(params_, storage_.data()), keys, c,
                            insert ? detail::Op::insert : detail::Op::probe);
}

void Filter::contains_bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> bitmap) const {
    detail::Forms<Filter>::bitmap_keys(*this, keys, bitmap);
}
void Filter::contains_bitmap(std::span<const std::uint32_t> keys, std::span<std::uint64_t> bitmap) const {
    detail::Forms<Filter>::bitmap_keys(*this, keys, bitmap);
}
void Filter::contains_bitmap(std::span<const std::string_view> keys, std::span<std::uint64_t> bitmap) const {
    detail::Forms<Filter>::bitmap_keys(*this, keys, bitmap);
}
void Filter::contains_bitmap(std::span<const std::string> keys, std::span<std::uint64_t> bitmap) const {
    detail::Forms<Filter>::bitmap_keys(*this, keys, bitmap);
}

// ---- state and estimates -------------------------------------------------------------------

void Filter::clear() {
    if (storage_.mapped()) detail::throw_mapped("clear");
    if (!is_empty()) std::memset(storage_.data(), 0, params_.bytes());
}

namespace {

std::uint64_t popcount_words(const std::byte* data, std::uint64_t bytes) {
    std::uint64_t ones = 0;
    for (std::uint64_t off = 0; off < bytes; off += 8) {
        std::uint64_t w;
        std::memcpy(&w, data + off, 8);
        ones += static_cast<std::uint64_t>(std::popcount(w));
    }
    return ones;
}

}  // namespace

double Filter::fill_ratio() const noexcept {
    if (is_empty()) return 0.0;
    return double(popcount_words(storage_.data(), params_.bytes())) / double(params_.bits());
}

double Filter::current_fpr() const noexcept {
    if (is_empty()) return 0.0;
    return layout::visit_shape(params_.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        using T = layout::shape_traits<S>;
        const auto* words = reinterpret_cast<const typename T::word_type*>(storage_.data());
        // A random query picks a uniform block and, per the layout, c_j bits in word j.
        unsigned per_word[T::words] = {};
        if constexpr (T::one_bit_per_word)
            for (unsigned i = 0; i < params_.k; ++i) ++per_word[i % T::words];
        double sum = 0;
        for (std::uint64_t b = 0; b < params_.blocks; ++b) {
            const auto* block = words + b * T::words;
            if constexpr (T::one_bit_per_word) {
                double p = 1;
                for (unsigned j = 0; j < T::words; ++j)
                    p *= std::pow(std::popcount(block[j]) / double(T::word_bits), per_word[j]);
                sum += p;
            } else {
                unsigned ones = 0;
                for (unsigned j = 0; j < T::words; ++j) ones += unsigned(std::popcount(block[j]));
                sum += std::pow(ones / double(T::words * T::word_bits), params_.k);
            }
        }
        return sum / double(params_.blocks);
    });
}

double Filter::estimated_cardinality() const {
    const double zeros = 1.0 - fill_ratio();
    if (zeros >= 1.0) return 0.0;
    // expected_zero_fraction falls monotonically in n; find where it meets the observed value.
    double lo = 0, hi = double(params_.blocks);
    while (expected_zero_fraction(params_, hi) > zeros) {
        hi *= 2;
        if (hi > 1e18) return std::numeric_limits<double>::infinity();  // saturated filter
    }
    for (int i = 0; i < 200 && hi - lo > 1e-6 * hi; ++i) {
        const double mid = 0.5 * (lo + hi);
        (expected_zero_fraction(params_, mid) > zeros ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
}

// ---- set algebra -----------------------------------------------------------------------
// Plain word loops: the compiler vectorizes them, and they run at memory speed anyway.

bool Filter::compatible(const Filter& other) const noexcept {
    return params_ == other.params_ && hashing_ == other.hashing_;
}

namespace {

void require_compatible(const Filter& a, const Filter& b, const char* op) {
    if (a.params().blocks == 0 || b.params().blocks == 0) detail::throw_moved_from(op);
    if (a.compatible(b)) return;
    auto describe = [](const Filter& f) {
        return std::string(to_string(f.params().shape)) + ", " + std::to_string(f.params().blocks) + " blocks, k=" +
               std::to_string(f.params().k) + ", " + std::string(to_string(f.hashing().kind)) + " seed " +
               std::to_string(f.hashing().seed);
    };
    throw Error(std::string(op) + " of incompatible filters: (" + describe(a) + ") and (" + describe(b) + ")");
}

template <class Op>
void combine(std::byte* dst, const std::byte* src, std::uint64_t bytes, Op op) {
    auto* d = reinterpret_cast<std::uint64_t*>(dst);
    const auto* s = reinterpret_cast<const std::uint64_t*>(src);
    for (std::uint64_t i = 0; i < bytes / 8; ++i) d[i] = op(d[i], s[i]);
}

}  // namespace

Filter& Filter::operator|=(const Filter& other) {
    require_writable("union");
    require_compatible(*this, other, "union");
    key_kinds_ = key_kinds_ | other.key_kinds_;
    combine(storage_.data(), other.storage_.data(), params_.bytes(), [](std::uint64_t a, std::uint64_t b) { return a | b; });
    return *this;
}

Filter& Filter::operator&=(const Filter& other) {
    require_writable("intersection");
    require_compatible(*this, other, "intersection");
    key_kinds_ = key_kinds_ & other.key_kinds_;
    combine(storage_.data(), other.storage_.data(), params_.bytes(), [](std::uint64_t a, std::uint64_t b) { return a & b; });
    return *this;
}

Filter Filter::fold() const {
    if (is_empty()) detail::throw_moved_from("fold");
    if (params_.blocks % 2 != 0)
        throw Error("fold needs an even number of blocks; this filter has " + std::to_string(params_.blocks));
    Filter half(Params::make(params_.shape, params_.blocks / 2, params_.k), hashing_, backend_);
    half.threads_ = threads_;
    half.set_batch_path(batch_path());
    half.key_kinds_ = key_kinds_;
    half.set_scratch_limit(scratch_limit());
    const std::uint64_t block = params_.block_bytes();
    for (std::uint64_t i = 0; i < half.params_.blocks; ++i) {
        std::memcpy(half.storage_.data() + i * block, storage_.data() + 2 * i * block, block);
        combine(half.storage_.data() + i * block, storage_.data() + (2 * i + 1) * block, block,
                [](std::uint64_t a, std::uint64_t b) { return a | b; });
    }
    return half;
}

double estimated_jaccard(const Filter& a, const Filter& b) {
    require_compatible(a, b, "similarity");
    const double na = a.estimated_cardinality(), nb = b.estimated_cardinality();
    const double nu = (a | b).estimated_cardinality();
    if (!(nu > 0.0)) return 1.0;  // two empty filters: the same (empty) set
    return std::clamp((na + nb - nu) / nu, 0.0, 1.0);
}

bool operator==(const Filter& a, const Filter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ &&
           (a.is_empty() || std::memcmp(a.storage_.data(), b.storage_.data(), a.params_.bytes()) == 0);
}

}  // namespace batchbloom
