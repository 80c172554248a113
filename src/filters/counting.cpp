#include "batchbloom/counting.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "batch/block_owners.hpp"
#include "batch/bulk_call.hpp"
#include "batch/threads.hpp"
#include "engine/engine.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/storage.hpp"

namespace batchbloom {

namespace {

void check_size(std::size_t keys, std::size_t out, const char* what) {
    if (keys != out)
        throw Error(std::string(what) + " has " + std::to_string(out) + " entries for " + std::to_string(keys) +
                    " keys");
}

}  // namespace

CountingFilter::CountingFilter(const Params& params, const Hashing& hashing, Backend backend)
    : params_(params), hashing_(hashing) {
    params_.validate();
    validate(hashing_);
    set_backend(backend);
    planes_ = detail::allocate_zeroed(4 * params_.bytes(), "the counting filter");
}

CountingFilter::CountingFilter(const CountingFilter& other)
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_), key_kinds_(other.key_kinds_),
      planes_(detail::clone_storage(other.planes_, "the counting filter")) {}

CountingFilter& CountingFilter::operator=(const CountingFilter& other) { return detail::copy_assign(*this, other); }

CountingFilter::CountingFilter(CountingFilter&& other) noexcept
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_), key_kinds_(other.key_kinds_),
      planes_(std::move(other.planes_)) {
    other.become_empty();
}

CountingFilter& CountingFilter::operator=(CountingFilter&& other) noexcept {
    return detail::move_assign(*this, std::move(other));
}

void CountingFilter::become_empty() noexcept {
    planes_.reset();
    params_.blocks = 0;
    key_kinds_ = KeyKinds::none();
}

namespace {
// Probes take the same reference as inserts and only read through it.
detail::CountingRef ref(const Params& p, const std::byte* data) {
    return {const_cast<std::byte*>(data), p.blocks, p.shape, p.k};
}
}  // namespace

// ---- bulk operations ---------------------------------------------------------------------

namespace {

// A batch as chunks of hashes: source(begin, end, fn) calls fn(hashes, n, at) for the hashes
// of batch positions [begin, end), in order, `at` being the first one's position.
template <class Key>
auto key_source(const Hashing& hashing, std::span<const Key> keys) {
    return [&hashing, keys](std::size_t begin, std::size_t end, auto&& fn) {
        detail::for_hash_chunks(hashing, keys.subspan(begin, end - begin),
                                [&](const std::uint64_t* h, std::size_t n, std::size_t at) { fn(h, n, begin + at); });
    };
}
auto hash_source(std::span<const std::uint64_t> hashes) {
    return [hashes](std::size_t begin, std::size_t end, auto&& fn) {
        for (std::size_t at = begin; at < end; at += detail::hash_chunk)
            fn(hashes.data() + at, std::min(detail::hash_chunk, end - at), at);
    };
}
/// The source of a batch of keys or, with Hashed, of hashes already.
template <bool Hashed, class Key>
auto source_of(const Hashing& hashing, std::span<const Key> keys) {
    if constexpr (Hashed)
        return hash_source(keys);
    else
        return key_source(hashing, keys);
}

}  // namespace

// With Hashed, the keys are hashes already.
template <>
struct detail::Forms<CountingFilter> {
    template <class Key, bool Hashed = false>
    static void insert_keys(CountingFilter& f, std::span<const Key> keys) {
        if (f.is_empty()) detail::throw_moved_from("insert");
        const std::size_t n = keys.size();
        const auto source = source_of<Hashed>(f.hashing_, keys);
        const detail::BulkCall call = detail::bulk_call(f, n);
        const auto& k = detail::counting_kernels(call.backend);
        const auto r = ref(f.params_, f.planes_.data());
        const unsigned t = call.threads;
        if (t == 1) {
            source(0, n, [&](const std::uint64_t* h, std::size_t m, std::size_t) { k.insert(r, h, m); });
        } else {
            detail::each_block_owner<detail::hash_chunk>(f.params_.blocks, t, [&](auto& own) {
                source(0, n, [&](const std::uint64_t* h, std::size_t m, std::size_t at) {
                    own.select(h, m, at);
                    k.insert(r, own.h, own.n);
                });
            });
        }
        if constexpr (!Hashed) f.add_key_kinds(detail::kinds_of<Key>(n));
    }

    template <class Key, bool Hashed = false>
    static std::size_t erase_keys(CountingFilter& f, std::span<const Key> keys, std::span<std::uint8_t> erased) {
        const std::size_t n = keys.size();
        const auto source = source_of<Hashed>(f.hashing_, keys);
        if (!erased.empty()) check_size(n, erased.size(), "erase output");
        if (f.is_empty()) {  // contains nothing: every erase is refused
            std::fill(erased.begin(), erased.end(), std::uint8_t{0});
            return 0;
        }
        const detail::BulkCall call = detail::bulk_call(f, n);
        const auto& k = detail::counting_kernels(call.backend);
        const auto r = ref(f.params_, f.planes_.data());
        const unsigned t = call.threads;
        std::atomic<std::size_t> total{0};
        if (t == 1) {
            source(0, n, [&](const std::uint64_t* h, std::size_t m, std::size_t at) {
                total += k.erase(r, h, m, erased.empty() ? nullptr : erased.data() + at);
            });
            return total;
        }
        detail::each_block_owner<detail::hash_chunk>(f.params_.blocks, t, [&](auto& own) {
            std::uint8_t done[detail::hash_chunk];
            std::size_t mine = 0;
            source(0, n, [&](const std::uint64_t* h, std::size_t m, std::size_t at) {
                own.select(h, m, at);
                mine += k.erase(r, own.h, own.n, done);
                if (!erased.empty())
                    for (std::size_t j = 0; j < own.n; ++j) erased[own.at[j]] = done[j];
            });
            total += mine;
        });
        return total;
    }

    template <class Key, bool Hashed = false>
    static void contains_keys(const CountingFilter& f, std::span<const Key> keys, std::span<std::uint8_t> answers) {
        const std::size_t n = keys.size();
        const auto source = source_of<Hashed>(f.hashing_, keys);
        check_size(n, answers.size(), "output");
        std::uint8_t* out = answers.data();
        if (f.is_empty()) {
            std::fill_n(out, n, std::uint8_t{0});
            return;
        }
        const detail::BulkCall call = detail::bulk_call(f, n);
        const auto& k = detail::counting_kernels(call.backend);
        const auto r = ref(f.params_, f.planes_.data());
        detail::each_part(n, call.threads, 1, [&](detail::Range range) {
            source(range.begin, range.end,
                   [&](const std::uint64_t* h, std::size_t m, std::size_t at) { k.contains(r, h, m, out + at); });
        });
    }

    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const CountingFilter& f, std::span<const Key> keys) {
        if (f.is_empty()) return 0;
        const std::size_t n = keys.size();
        const auto source = source_of<Hashed>(f.hashing_, keys);
        // Answers in chunks per thread, summed: no output array the size of the batch.
        const detail::BulkCall call = detail::bulk_call(f, n);
        const auto& k = detail::counting_kernels(call.backend);
        const auto r = ref(f.params_, f.planes_.data());
        return detail::sum_parts(n, call.threads, 1, [&](detail::Range range) {
            std::uint8_t out[detail::hash_chunk];
            std::size_t mine = 0;
            source(range.begin, range.end, [&](const std::uint64_t* h, std::size_t m, std::size_t) {
                k.contains(r, h, m, out);
                for (std::size_t i = 0; i < m; ++i) mine += out[i];
            });
            return mine;
        });
    }

    static void insert_one_hash(CountingFilter& f, std::uint64_t hash) { insert_keys<std::uint64_t, true>(f, {&hash, 1}); }

    static bool contains_one_hash(const CountingFilter& f, std::uint64_t hash) {
        if (f.is_empty()) return false;
        std::uint8_t r = 0;
        detail::scalar_counting.contains(ref(f.params_, f.planes_.data()), &hash, 1, &r);
        return r == 1;
    }
};

// ---- hashes ----------------------------------------------------------------------------

std::size_t CountingFilter::erase_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> erased) {
    return detail::Forms<CountingFilter>::erase_keys<std::uint64_t, true>(*this, hashes, erased);
}

template class KeyForms<CountingFilter>;
template class HashForms<CountingFilter>;
template class EraseForms<CountingFilter, std::uint8_t>;

// ---- state -----------------------------------------------------------------------------

unsigned CountingFilter::counter(std::uint64_t block, unsigned bit) const {
    const std::uint64_t block_bytes = params_.block_bytes();
    if (block >= params_.blocks || bit >= block_bytes * 8)
        throw Error("counter (" + std::to_string(block) + ", " + std::to_string(bit) + ") is out of range (" +
                    std::to_string(params_.blocks) + " blocks of " + std::to_string(block_bytes * 8) + " counters)");
    // Bit `bit` of a little-endian block is bit bit%8 of byte bit/8, whatever the word size.
    const std::byte* planes = planes_.data() + block * 4 * block_bytes;
    unsigned value = 0;
    for (unsigned j = 0; j < 4; ++j)
        value |= unsigned((std::to_integer<unsigned>(planes[j * block_bytes + bit / 8]) >> (bit % 8)) & 1u) << j;
    return value;
}

std::uint64_t CountingFilter::saturated_counters() const noexcept {
    const std::uint64_t block_words = params_.block_bytes() / 8;
    const std::byte* p = planes_.data();
    std::uint64_t n = 0;
    for (std::uint64_t b = 0; b < params_.blocks; ++b, p += 4 * block_words * 8) {
        for (std::uint64_t w = 0; w < block_words; ++w) {
            std::uint64_t all = ~std::uint64_t(0);
            for (unsigned j = 0; j < 4; ++j) {
                std::uint64_t plane;
                std::memcpy(&plane, p + (j * block_words + w) * 8, 8);
                all &= plane;
            }
            n += static_cast<std::uint64_t>(std::popcount(all));
        }
    }
    return n;
}

Filter CountingFilter::to_filter() const {
    if (is_empty()) detail::throw_moved_from("to_filter");
    Filter f(params_, hashing_);
    f.add_key_kinds(key_kinds_);
    const std::uint64_t block_bytes = params_.block_bytes();
    auto dst = f.mutable_bytes();
    const std::byte* src = planes_.data();
    for (std::uint64_t b = 0; b < params_.blocks; ++b, src += 4 * block_bytes)
        for (std::uint64_t i = 0; i < block_bytes; ++i)
            dst[b * block_bytes + i] = src[i] | src[block_bytes + i] | src[2 * block_bytes + i] | src[3 * block_bytes + i];
    return f;
}

void CountingFilter::clear() noexcept {
    if (!is_empty()) std::memset(planes_.data(), 0, 4 * params_.bytes());
}

bool operator==(const CountingFilter& a, const CountingFilter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ &&
           (a.is_empty() || std::memcmp(a.planes_.data(), b.planes_.data(), 4 * a.params_.bytes()) == 0);
}

}  // namespace batchbloom
