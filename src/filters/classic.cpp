// ClassicFilter: sizing, construction, insert and probe (scalar kernels templated on the
// scheme, AVX-512 gather probe for double hashing), set algebra.
#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <new>
#include <string>
#include <vector>

#include "batchbloom/classic.hpp"
#include "batchbloom/params.hpp"
#include "filters/classic_scheme.hpp"
#include "engine/parallel.hpp"
#if BATCHBLOOM_HAVE_SIMD
#include "cpu/classic_avx512.hpp"
#endif

namespace batchbloom {

// ---- names and parameters ---------------------------------------------------------------------

std::string_view to_string(ClassicScheme scheme) {
    switch (scheme) {
        case ClassicScheme::double_hashing: return "double_hashing";
        case ClassicScheme::spark_v1: return "spark_v1";
        case ClassicScheme::spark_v2: return "spark_v2";
    }
    return "unknown";
}

ClassicScheme parse_classic_scheme(std::string_view name) {
    for (const auto s : {ClassicScheme::double_hashing, ClassicScheme::spark_v1, ClassicScheme::spark_v2})
        if (name == to_string(s)) return s;
    throw Error("unknown classic scheme '" + std::string(name) + "' (expected double_hashing, spark_v1 or spark_v2)");
}

void ClassicParams::validate() const {
    if (bits == 0) throw Error("classic filter: bits must be at least 1");
    if (bits > max_bits)
        throw Error("classic filter: " + std::to_string(bits) + " bits exceed the limit of " + std::to_string(max_bits));
    if (k == 0 || k > max_k)
        throw Error("classic filter: k must be in 1.." + std::to_string(max_k) + ", got " + std::to_string(k));
}

namespace {

void check_n(std::uint64_t n) {
    if (n == 0) throw Error("classic filter: the number of keys must be at least 1");
}

unsigned optimal_k(double bits_per_key) {
    return static_cast<unsigned>(std::clamp(std::round(bits_per_key * std::log(2.0)), 1.0, double(ClassicParams::max_k)));
}

ClassicParams checked(ClassicParams p) {
    p.validate();
    return p;
}

}  // namespace

ClassicParams ClassicParams::for_fpr(std::uint64_t n, double fpr) {
    check_n(n);
    if (!(fpr > 0.0 && fpr < 1.0)) throw Error("classic filter: fpr must be in (0, 1), got " + std::to_string(fpr));
    const double ln2 = std::log(2.0);
    const double ideal = std::ceil(double(n) * -std::log(fpr) / (ln2 * ln2));
    if (ideal > double(max_bits)) throw Error("classic filter: n and fpr need more than " + std::to_string(max_bits) + " bits");
    ClassicParams p{static_cast<std::uint64_t>(ideal), optimal_k(ideal / double(n))};
    // The rounded k can leave the FPR a hair above the target: grow m until it is met.
    while (classic_fpr(p.bits, p.k, n) > fpr && p.bits < max_bits) p.bits += std::max<std::uint64_t>(1, p.bits / 4096);
    return checked(p);
}

ClassicParams ClassicParams::for_bits_per_key(std::uint64_t n, double bits_per_key) {
    check_n(n);
    if (!(bits_per_key > 0.0) || !std::isfinite(bits_per_key))
        throw Error("classic filter: bits per key must be positive, got " + std::to_string(bits_per_key));
    const double bits = std::ceil(double(n) * bits_per_key);
    if (bits > double(max_bits)) throw Error("classic filter: too many bits (" + std::to_string(bits) + ")");
    return checked({static_cast<std::uint64_t>(bits), optimal_k(bits_per_key)});
}

ClassicParams ClassicParams::spark(std::uint64_t n, double fpp) {
    check_n(n);
    if (!(fpp > 0.0 && fpp < 1.0)) throw Error("classic filter: fpp must be in (0, 1), got " + std::to_string(fpp));
    // Spark's optimalNumOfBits and optimalNumOfHashFunctions, in Java's order of operations.
    const double ln2 = std::log(2.0);
    const double raw = -double(n) * std::log(fpp) / (ln2 * ln2);
    if (!(raw >= 1.0)) throw Error("classic filter: Spark would size this filter to 0 bits");
    if (raw > double(max_bits)) throw Error("classic filter: n and fpp need more than " + std::to_string(max_bits) + " bits");
    const auto bits = static_cast<std::uint64_t>(raw);
    const double k = std::floor(double(bits) / double(n) * ln2 + 0.5);  // Math.round
    if (k > double(max_k)) throw Error("classic filter: Spark would use " + std::to_string(k) + " hash functions");
    return checked({(bits + 63) / 64 * 64, static_cast<unsigned>(std::max(1.0, k))});
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
    : params_(params), hashing_(hashing), backend_(Backend::automatic) {
    validate(hashing_, params_);
    set_backend(backend);
    words_.assign(params_.words(), 0);
}

ClassicFilter ClassicFilter::spark(std::uint64_t n, double fpp, ClassicScheme scheme, std::int32_t seed) {
    if (scheme == ClassicScheme::double_hashing) throw Error("ClassicFilter::spark needs a Spark scheme");
    return ClassicFilter(ClassicParams::spark(n, fpp),
                         ClassicHashing{scheme, HashKind::xxh3, static_cast<std::uint32_t>(seed)});
}

void ClassicFilter::set_backend(Backend b) {
    resolve_backend(b);  // throws if unavailable here
    backend_ = b;
}

// ---- kernels ------------------------------------------------------------------------------------

namespace {

using detail::with_scheme;

template <class Scheme, class Key>
void insert_key(std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, const Key& key) {
    auto probe = Scheme::start(h, key);
    for (unsigned i = 0; i < p.k; ++i) {
        const std::uint64_t pos = Scheme::next(probe, p.bits);
        words[pos >> 6] |= std::uint64_t(1) << (pos & 63);
    }
}

template <class Scheme, class Key>
bool probe_key(const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, const Key& key) {
    auto probe = Scheme::start(h, key);
    for (unsigned i = 0; i < p.k; ++i) {
        const std::uint64_t pos = Scheme::next(probe, p.bits);
        if (((words[pos >> 6] >> (pos & 63)) & 1) == 0) return false;
    }
    return true;
}

// The bulk kernels: while key i is handled, the k positions of key i + window are computed
// and their words prefetched, so that window * k cache misses are in flight instead of one
// (the classic filter's cost out of cache). Same positions, same bits as the per-key code.
template <class Scheme, class Key, class Visit>
void pipelined(const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, std::span<const Key> keys,
               Visit&& visit) {
    constexpr std::size_t window = 8;
    std::vector<std::uint64_t> pos(window * p.k);
    const auto fill = [&](std::size_t i) {
        auto probe = Scheme::start(h, keys[i]);
        std::uint64_t* slot = pos.data() + (i % window) * p.k;
        for (unsigned j = 0; j < p.k; ++j) {
            slot[j] = Scheme::next(probe, p.bits);
            __builtin_prefetch(words + (slot[j] >> 6));
        }
    };
    for (std::size_t i = 0; i < std::min(window, keys.size()); ++i) fill(i);
    for (std::size_t i = 0; i < keys.size(); ++i) {
        visit(i, pos.data() + (i % window) * p.k);
        if (i + window < keys.size()) fill(i + window);
    }
}

/// Sets the keys' bits; `Shared`: other threads set bits in the same words at the same time,
/// so each word is ORed atomically (relaxed: OR commutes, so the bits are the same).
template <bool Shared, class Key>
void insert_range(std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h, std::span<const Key> keys) {
    with_scheme(h.scheme, [&]<class Scheme>(Scheme) {
        pipelined<Scheme>(words, p, h, keys, [&](std::size_t, const std::uint64_t* pos) {
            for (unsigned j = 0; j < p.k; ++j) {
                const std::uint64_t bit = std::uint64_t(1) << (pos[j] & 63);
                if constexpr (Shared)
                    std::atomic_ref<std::uint64_t>(words[pos[j] >> 6]).fetch_or(bit, std::memory_order_relaxed);
                else
                    words[pos[j] >> 6] |= bit;
            }
        });
    });
}

/// Bulk insert on up to `threads` threads. A classic filter's k bits land anywhere in the
/// array, so no thread owns a region: small filters get a private copy per extra thread,
/// ORed in afterwards (an atomic OR costs more than a cache-resident plain one), and larger
/// ones are shared, with atomic ORs, where the cache misses dominate.
template <class Key>
void insert_all(std::vector<std::uint64_t>& words, const ClassicParams& p, const ClassicHashing& h,
                std::span<const Key> keys, unsigned threads) {
    const unsigned t = detail::threads_for(keys.size(), detail::resolve_threads(threads));
    if (t == 1) return insert_range<false>(words.data(), p, h, keys);
    const std::uint64_t bytes = words.size() * sizeof(std::uint64_t);
    std::vector<std::vector<std::uint64_t>> copies;
    if (detail::copies_affordable(t, bytes, keys.size())) {
        try {  // before any bit is set; without the memory, the shared array below needs none
            for (unsigned v = 1; v < t; ++v) copies.emplace_back(words.size(), 0);
        } catch (const std::bad_alloc&) {
            copies.clear();
        }
    }
    if (!copies.empty()) {
        detail::each_thread(t, [&](unsigned v) {
            const detail::Range r = detail::part(keys.size(), t, v, 1);
            insert_range<false>(v == 0 ? words.data() : copies[v - 1].data(), p, h, keys.subspan(r.begin, r.size()));
        });
        detail::or_copies_into(words.data(), words.size(), copies, t);
        return;
    }
    detail::each_thread(t, [&](unsigned v) {
        const detail::Range r = detail::part(keys.size(), t, v, 1);
        insert_range<true>(words.data(), p, h, keys.subspan(r.begin, r.size()));
    });
}

template <class Key>
void probe_scalar(const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h,
                  std::span<const Key> keys, std::uint8_t* out) {
    with_scheme(h.scheme, [&]<class Scheme>(Scheme) {
        pipelined<Scheme>(words, p, h, keys, [&](std::size_t i, const std::uint64_t* pos) {
            std::uint64_t all = 1;
            for (unsigned j = 0; j < p.k; ++j) all &= words[pos[j] >> 6] >> (pos[j] & 63);
            out[i] = static_cast<std::uint8_t>(all & 1);
        });
    });
}

#if BATCHBLOOM_HAVE_SIMD
// The gather kernel: double hashing only (its positions are a multiply, not a division), and
// m < 2^32 so that the 64x32-bit high multiply is exact in 32-bit lanes. Only on request: it
// measured no faster than the prefetching scalar pipeline (bench/RESULTS.md, "Classic"),
// so `automatic` keeps the scalar code.
bool gather_applies(Backend b, const ClassicParams& p, const ClassicHashing& h) {
    return b == Backend::avx512 && h.scheme == ClassicScheme::double_hashing && p.bits < (std::uint64_t(1) << 32);
}

template <class Key>
void probe_gather(const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h,
                  std::span<const Key> keys, std::uint8_t* out) {
    constexpr std::size_t chunk = 512;
    std::array<std::uint64_t, chunk> hashes;
    for (std::size_t at = 0; at < keys.size(); at += chunk) {
        const std::size_t len = std::min(chunk, keys.size() - at);
        for (std::size_t i = 0; i < len; ++i) hashes[i] = detail::DoubleHashingScheme::start(h, keys[at + i]).h;
        detail::classic_probe_avx512(words, p.bits, p.k, hashes.data(), len, out + at);
    }
}
#endif

template <class Key>
void probe_range(Backend b, const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h,
                 std::span<const Key> keys, std::uint8_t* out) {
#if BATCHBLOOM_HAVE_SIMD
    if (gather_applies(b, p, h)) return probe_gather(words, p, h, keys, out);
#else
    (void)b;
#endif
    probe_scalar(words, p, h, keys, out);
}

/// Bulk probe: contiguous ranges of the batch on up to `threads` threads.
template <class Key>
void probe_all(Backend b, const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h,
               std::span<const Key> keys, std::uint8_t* out, unsigned threads) {
    const unsigned t = detail::threads_for(keys.size(), detail::resolve_threads(threads));
    detail::each_thread(t, [&](unsigned v) {
        const detail::Range r = detail::part(keys.size(), t, v, 1);
        probe_range(b, words, p, h, keys.subspan(r.begin, r.size()), out + r.begin);
    });
}

void check_out(std::size_t keys, std::size_t out) {
    if (keys != out)
        throw Error("contains: output has " + std::to_string(out) + " entries for " + std::to_string(keys) + " keys");
}

template <class Key>
std::size_t count_all(Backend b, const std::uint64_t* words, const ClassicParams& p, const ClassicHashing& h,
                      std::span<const Key> keys, unsigned threads) {
    const unsigned t = detail::threads_for(keys.size(), detail::resolve_threads(threads));
    std::atomic<std::size_t> total{0};
    detail::each_thread(t, [&](unsigned v) {
        const detail::Range r = detail::part(keys.size(), t, v, 1);
        std::array<std::uint8_t, 4096> hits;
        std::size_t mine = 0;
        for (std::size_t at = r.begin; at < r.end; at += hits.size()) {
            const auto chunk = keys.subspan(at, std::min(hits.size(), r.end - at));
            probe_range(b, words, p, h, chunk, hits.data());
            for (std::size_t i = 0; i < chunk.size(); ++i) mine += hits[i];
        }
        total += mine;
    });
    return total;
}

}  // namespace

void ClassicFilter::insert(std::uint64_t key) {
    with_scheme(hashing_.scheme, [&]<class Scheme>(Scheme) { insert_key<Scheme>(words_.data(), params_, hashing_, key); });
}
void ClassicFilter::insert(std::span<const std::uint64_t> keys) { insert_all(words_, params_, hashing_, keys, threads_); }
void ClassicFilter::insert(std::string_view key) {
    with_scheme(hashing_.scheme, [&]<class Scheme>(Scheme) { insert_key<Scheme>(words_.data(), params_, hashing_, key); });
}
void ClassicFilter::insert(std::span<const std::string_view> keys) { insert_all(words_, params_, hashing_, keys, threads_); }

bool ClassicFilter::contains(std::uint64_t key) const {
    return with_scheme(hashing_.scheme,
                       [&]<class Scheme>(Scheme) { return probe_key<Scheme>(words_.data(), params_, hashing_, key); });
}
bool ClassicFilter::contains(std::string_view key) const {
    return with_scheme(hashing_.scheme,
                       [&]<class Scheme>(Scheme) { return probe_key<Scheme>(words_.data(), params_, hashing_, key); });
}
void ClassicFilter::contains(std::span<const std::uint64_t> keys, std::span<std::uint8_t> out) const {
    check_out(keys.size(), out.size());
    probe_all(backend_, words_.data(), params_, hashing_, keys, out.data(), threads_);
}
void ClassicFilter::contains(std::span<const std::string_view> keys, std::span<std::uint8_t> out) const {
    check_out(keys.size(), out.size());
    probe_all(backend_, words_.data(), params_, hashing_, keys, out.data(), threads_);
}
std::size_t ClassicFilter::count(std::span<const std::uint64_t> keys) const {
    return count_all(backend_, words_.data(), params_, hashing_, keys, threads_);
}
std::size_t ClassicFilter::count(std::span<const std::string_view> keys) const {
    return count_all(backend_, words_.data(), params_, hashing_, keys, threads_);
}

// ---- state and algebra --------------------------------------------------------------------------

void ClassicFilter::clear() noexcept { std::fill(words_.begin(), words_.end(), 0); }

double ClassicFilter::fill_ratio() const noexcept {
    std::uint64_t set = 0;
    for (const auto w : words_) set += static_cast<std::uint64_t>(std::popcount(w));
    return double(set) / double(params_.bits);
}

double ClassicFilter::classic_fpr_of(const ClassicParams& p, std::uint64_t n) {
    p.validate();
    return classic_fpr(p.bits, p.k, n);
}

bool operator==(const ClassicFilter& a, const ClassicFilter& b) noexcept {
    return a.params_ == b.params_ && a.hashing_ == b.hashing_ && a.words_ == b.words_;
}

bool ClassicFilter::compatible(const ClassicFilter& other) const noexcept {
    return params_ == other.params_ && hashing_ == other.hashing_;
}

namespace {

void require_compatible(const ClassicFilter& a, const ClassicFilter& b, const char* op) {
    if (a.compatible(b)) return;
    throw Error(std::string("classic filter ") + op + ": incompatible filters (" + std::to_string(a.params().bits) +
                " bits, k " + std::to_string(a.params().k) + ", " + std::string(to_string(a.hashing().scheme)) +
                " vs " + std::to_string(b.params().bits) + " bits, k " + std::to_string(b.params().k) + ", " +
                std::string(to_string(b.hashing().scheme)) + "; hashing must match too)");
}

}  // namespace

ClassicFilter& ClassicFilter::operator|=(const ClassicFilter& other) {
    require_compatible(*this, other, "union");
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= other.words_[i];
    return *this;
}

ClassicFilter& ClassicFilter::operator&=(const ClassicFilter& other) {
    require_compatible(*this, other, "intersection");
    for (std::size_t i = 0; i < words_.size(); ++i) words_[i] &= other.words_[i];
    return *this;
}

}  // namespace batchbloom
