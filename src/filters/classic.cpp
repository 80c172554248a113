// ClassicFilter: construction, bulk calls over the engine's classic kernels (on threads), set
// algebra. Its sizing (ClassicParams) is with every filter type's, in core/params.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "batchbloom/classic.hpp"
#include "batchbloom/params.hpp"
#include "core/classic_scheme.hpp"
#include "core/enum_names.hpp"
#include "core/number_text.hpp"
#include "engine/engine.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/storage.hpp"
#include "batch/bulk_call.hpp"
#include "batch/scratch.hpp"
#include "batch/threads.hpp"

namespace batchbloom {

// ---- names and parameters ---------------------------------------------------------------------

namespace {
constexpr detail::EnumName<ClassicScheme> scheme_names[] = {{ClassicScheme::double_hashing, "double_hashing"},
                                                            {ClassicScheme::spark_v1, "spark_v1"},
                                                            {ClassicScheme::spark_v2, "spark_v2"}};
}  // namespace

std::string_view to_string(ClassicScheme scheme) { return detail::name_of(scheme_names, scheme); }
ClassicScheme parse_classic_scheme(std::string_view name) {
    return detail::value_named(scheme_names, name, "classic scheme");
}

void validate(const ClassicHashing& h, const ClassicParams& p) {
    p.validate();
    switch (h.scheme) {
        case ClassicScheme::double_hashing: validate(Hashing{h.kind, h.seed}); return;
        case ClassicScheme::spark_v1:
            if (h.seed != 0) throw Error("spark_v1 filters have no seed (it must be 0)");
            break;
        case ClassicScheme::spark_v2:
            if (h.seed > 0xFFFFFFFFULL) throw Error("Spark seeds are 32-bit; got " + std::to_string(h.seed));
            break;
        default: throw Error("unknown classic scheme " + std::to_string(unsigned(h.scheme)));
    }
    if (p.bits % 64 != 0)
        throw Error("Spark filters have a whole number of 64-bit words; " + std::to_string(p.bits) + " bits is not");
}

// ---- construction -------------------------------------------------------------------------------

ClassicFilter::ClassicFilter(const ClassicParams& params, const ClassicHashing& hashing, Backend backend)
    : params_(params), hashing_(hashing) {
    validate(hashing_, params_);
    set_backend(backend);
    words_ = detail::allocate_zeroed(params_.bytes(), "the classic filter");
}

ClassicFilter::ClassicFilter(const ClassicFilter& other)
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_), key_kinds_(other.key_kinds_),
      words_(detail::clone_storage(other.words_, "the classic filter")) {}

ClassicFilter& ClassicFilter::operator=(const ClassicFilter& other) { return detail::copy_assign(*this, other); }

ClassicFilter::ClassicFilter(ClassicFilter&& other) noexcept
    : BulkSettings(other), params_(other.params_), hashing_(other.hashing_),
      key_kinds_(std::exchange(other.key_kinds_, KeyKinds::none())), words_(std::move(other.words_)) {
    other.params_.bits = 0;  // the moved-from state: no words, 0 bits
}

ClassicFilter& ClassicFilter::operator=(ClassicFilter&& other) noexcept {
    return detail::move_assign(*this, std::move(other));
}

ClassicFilter::~ClassicFilter() { detail::release_storage(words_); }

ClassicFilter ClassicFilter::spark(std::uint64_t n, double fpp, ClassicScheme scheme, std::int32_t seed) {
    if (scheme == ClassicScheme::double_hashing) throw Error("ClassicFilter::spark needs a Spark scheme");
    return ClassicFilter(ClassicParams::spark(n, fpp),
                         ClassicHashing{scheme, HashKind::xxh3, static_cast<std::uint32_t>(seed)});
}

// ---- bulk operations -----------------------------------------------------------------------------
// Keys become their starts (core/classic_scheme.hpp) in L1-sized chunks, which the engine's
// classic kernels turn into positions.

namespace {

using detail::for_start_chunks;

detail::ClassicRef ref(std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h) {
    return {words, p.bits, p.k, h.scheme};
}

template <class Key>
std::uint64_t start_of(const ClassicHashing& h, const Key& key) {
    return detail::with_scheme(h.scheme, [&]<class Scheme>(Scheme) { return Scheme::start(h, key); });
}

/// Bulk insert of the call's keys on its t threads (bulk_call.hpp). A classic filter's k bits
/// land anywhere in the array, so no thread owns a region: small filters get a private copy per
/// extra thread, ORed in afterwards (an atomic OR costs more than a cache-resident plain one),
/// and larger ones are shared, with atomic ORs, where the cache misses dominate.
template <bool Hashed = false, class Key>
void insert_all(const detail::ClassicKernels& kernels, std::span<std::uint64_t> words, const ClassicParams& p,
                const ClassicHashing& h, std::span<const Key> keys, unsigned t) {
    const auto insert_range = [&](std::uint64_t* into, std::span<const Key> part, bool shared) {
        for_start_chunks<Hashed>(h, part, [&](const std::uint64_t* starts, std::size_t n, std::size_t) {
            kernels.insert(ref(into, p, h), starts, n, shared);
        });
    };
    if (t == 1) return insert_range(words.data(), keys, false);
    const std::uint64_t bytes = words.size() * sizeof(std::uint64_t);
    if (detail::copies_affordable(t, bytes, keys.size())) {
        // Each copy had and zeroed by the thread that first needs it (its pages faulted in
        // there, not by the caller before any work starts), from a spare arena where one fits.
        std::vector<detail::ScratchArena> copies(t);
        try {
            detail::insert_into_copies(
                words.data(), words.size(), t,
                [&](unsigned slot) { return reinterpret_cast<std::uint64_t*>(copies[slot].get(bytes, false, detail::copy_spare_most(bytes))); },
                true, keys.size(), 1,
                [&](std::uint64_t* into, detail::Range r) { insert_range(into, keys.subspan(r.begin, r.size()), false); });
            return;
        } catch (const std::bad_alloc&) {
            // A copy's memory could not be had: the shared array below needs none. The bits
            // already set stay set (setting them again changes nothing).
        }
    }
    detail::each_part(keys.size(), t, 1,
                      [&](detail::Range r) { insert_range(words.data(), keys.subspan(r.begin, r.size()), true); });
}

/// Bulk probe: contiguous ranges of the call's keys on its t threads; out may be null when only
/// the count (returned) is wanted.
template <bool Hashed = false, class Key>
std::size_t probe_all(const detail::ClassicKernels& kernels, const std::uint64_t* words, const ClassicParams& p,
                      const ClassicHashing& h, std::span<const Key> keys, std::uint8_t* out, unsigned t) {
    if (p.bits == 0) {  // moved from: contains nothing
        if (out != nullptr) std::fill_n(out, keys.size(), std::uint8_t{0});
        return 0;
    }
    const auto r0 = ref(const_cast<std::uint64_t*>(words), p, h);  // probes only read
    return detail::sum_parts(keys.size(), t, 1, [&](detail::Range r) {
        std::uint8_t hits[2048];
        std::size_t mine = 0;
        for_start_chunks<Hashed>(h, keys.subspan(r.begin, r.size()), [&](const std::uint64_t* starts, std::size_t n, std::size_t at) {
            std::uint8_t* dst = out != nullptr ? out + r.begin + at : hits;
            kernels.contains(r0, starts, n, dst);
            for (std::size_t i = 0; i < n; ++i) mine += dst[i];
        });
        return mine;
    });
}

void insert_start(std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, std::uint64_t start) {
    detail::scalar_classic.insert(ref(words, p, h), &start, 1, false);
}

bool contains_start(const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, std::uint64_t start) {
    if (p.bits == 0) return false;  // moved from
    std::uint8_t hit = 0;
    detail::scalar_classic.contains(ref(const_cast<std::uint64_t*>(words), p, h), &start, 1, &hit);
    return hit == 1;
}

void check_out(std::size_t keys, std::size_t out) {
    if (keys != out)
        throw Error("contains: output has " + std::to_string(out) + " entries for " + std::to_string(keys) + " keys");
}

}  // namespace

// A key's hash: Spark's first hash of it (start_of).
std::uint64_t ClassicFilter::hash(std::uint64_t key) const noexcept { return start_of(hashing_, key); }
std::uint64_t ClassicFilter::hash(std::string_view key) const noexcept { return start_of(hashing_, key); }

// With Hashed, the keys are hashes already.
template <>
struct detail::Forms<ClassicFilter> {
    template <class Key, bool Hashed = false>
    static void insert_keys(ClassicFilter& f, std::span<const Key> keys) {
        if (f.words_.empty()) detail::throw_moved_from("insert");
        if constexpr (!Hashed) f.add_key_kinds(detail::kinds_of<Key>(keys.size()));
        const detail::BulkCall call = detail::bulk_call(f, keys.size());
        insert_all<Hashed>(detail::classic_kernels(call.backend), f.mutable_words(), f.params_, f.hashing_, keys,
                           call.threads);
    }
    /// Answers into out if it is not null; returns the number of hits.
    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const ClassicFilter& f, std::span<const Key> keys, std::uint8_t* out = nullptr) {
        const detail::BulkCall call = detail::bulk_call(f, keys.size());
        return probe_all<Hashed>(detail::classic_kernels(call.backend), f.words().data(), f.params_, f.hashing_, keys,
                                 out, call.threads);
    }
    template <class Key, bool Hashed = false>
    static void contains_keys(const ClassicFilter& f, std::span<const Key> keys, std::span<std::uint8_t> out) {
        check_out(keys.size(), out.size());
        count_keys<Key, Hashed>(f, keys, out.data());
    }
    // Single keys: the reference kernels directly (no engine resolution or threads for one key).
    static void insert_one_hash(ClassicFilter& f, std::uint64_t hash) {
        if (f.words_.empty()) detail::throw_moved_from("insert");
        insert_start(f.mutable_words().data(), f.params_, f.hashing_, hash);
    }
    static bool contains_one_hash(const ClassicFilter& f, std::uint64_t hash) {
        return contains_start(f.words().data(), f.params_, f.hashing_, hash);
    }
};

template class KeyForms<ClassicFilter>;
template class HashForms<ClassicFilter>;

// ---- state and algebra --------------------------------------------------------------------------

void ClassicFilter::clear() noexcept { std::ranges::fill(mutable_words(), 0); }

double ClassicFilter::fill_ratio() const noexcept {
    if (words_.empty()) return 0.0;
    std::uint64_t set = 0;
    for (const auto w : words()) set += static_cast<std::uint64_t>(std::popcount(w));
    return double(set) / double(params_.bits);
}

double ClassicFilter::classic_fpr_of(const ClassicParams& p, std::uint64_t n) {
    p.validate();
    return classic_fpr(p.bits, p.k, n);
}

bool operator==(const ClassicFilter& a, const ClassicFilter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ && std::ranges::equal(a.words(), b.words());
}

bool ClassicFilter::compatible(const ClassicFilter& other) const noexcept {
    return params_ == other.params_ && hashing_ == other.hashing_;
}

namespace {

void require_compatible(const ClassicFilter& a, const ClassicFilter& b, const char* op) {
    if (a.params().bits == 0 || b.params().bits == 0) detail::throw_moved_from(std::string("classic filter ") + op);
    if (a.compatible(b)) return;
    throw Error(std::string("classic filter ") + op + ": incompatible filters (" + std::to_string(a.params().bits) +
                " bits, k " + std::to_string(a.params().k) + ", " + std::string(to_string(a.hashing().scheme)) +
                " vs " + std::to_string(b.params().bits) + " bits, k " + std::to_string(b.params().k) + ", " +
                std::string(to_string(b.hashing().scheme)) + "; hashing must match too)");
}

}  // namespace

ClassicFilter& ClassicFilter::operator|=(const ClassicFilter& other) {
    require_compatible(*this, other, "union");
    key_kinds_ = key_kinds_ | other.key_kinds_;
    const auto mine = mutable_words();
    const auto theirs = other.words();
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] |= theirs[i];
    return *this;
}

ClassicFilter& ClassicFilter::operator&=(const ClassicFilter& other) {
    require_compatible(*this, other, "intersection");
    key_kinds_ = key_kinds_ & other.key_kinds_;
    const auto mine = mutable_words();
    const auto theirs = other.words();
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] &= theirs[i];
    return *this;
}

}  // namespace batchbloom
