#include "batchbloom/deletable.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "batch/bulk_call.hpp"
#include "engine/engine.hpp"
#include "filters/blocked_probes.hpp"
#include "filters/key_forms_impl.hpp"
#include "filters/key_hashes.hpp"
#include "filters/storage.hpp"

namespace batchbloom {

namespace {

void check_region_bits(const Params& p, unsigned region_bits) {
    const std::uint64_t block_bits = p.block_bytes() * 8;
    if (region_bits == 0 || !std::has_single_bit(region_bits) || region_bits > block_bits)
        throw Error("bits per region must be a power of two from 1 to " + std::to_string(block_bits) + ", got " +
                    std::to_string(region_bits));
}

std::uint64_t bitmap_words(const Params& p, unsigned region_bits) {
    return (p.bits() / region_bits + 63) / 64;
}

detail::DeletableRef ref(Filter& bits, AlignedBuffer& collisions, unsigned region_bits) {
    const Params& p = bits.params();
    return {{bits.mutable_bytes().data(), p.blocks, p.shape, p.k}, collisions.as<std::uint64_t>(), region_bits};
}

}  // namespace

DeletableFilter::DeletableFilter(const Params& params, unsigned region_bits, const Hashing& hashing, Backend backend)
    : bits_(params, hashing), region_bits_(region_bits) {
    set_backend(backend);
    check_region_bits(params, region_bits);
    collisions_ = detail::allocate_zeroed(8 * bitmap_words(params, region_bits), "the collision bitmap");
}

DeletableFilter::DeletableFilter(const DeletableFilter& other)
    : BulkSettings(other), bits_(other.bits_), region_bits_(other.region_bits_),
      collisions_(detail::clone_storage(other.collisions_, "the collision bitmap")) {}

DeletableFilter& DeletableFilter::operator=(const DeletableFilter& other) { return detail::copy_assign(*this, other); }

// Filter and AlignedBuffer both leave the moved-from side empty, as the class promises.
DeletableFilter::DeletableFilter(DeletableFilter&& other) noexcept = default;
DeletableFilter& DeletableFilter::operator=(DeletableFilter&& other) noexcept = default;

EraseResult DeletableFilter::erase_hash(std::uint64_t hash) {
    if (params().blocks == 0) return EraseResult::absent;
    EraseResult r;
    detail::scalar_deletable.erase(ref(bits_, collisions_, region_bits_), &hash, 1, &r);
    return r;
}

// With Hashed, the keys are hashes already. Probes are the bit array's, under this filter's
// settings (filters/blocked_probes.hpp); inserts and erases take the engine of the call's context
// (bulk_call.hpp) and run on the calling thread.
template <>
struct detail::Forms<DeletableFilter> {
    template <class Key, bool Hashed = false>
    static void insert_keys(DeletableFilter& f, std::span<const Key> keys) {
        if (f.params().blocks == 0) detail::throw_moved_from("insert");
        const auto& k = detail::deletable_kernels(detail::bulk_call(f, keys.size()).backend);
        const auto r = ref(f.bits_, f.collisions_, f.region_bits_);
        if constexpr (Hashed) {
            k.insert(r, keys.data(), keys.size());
        } else {
            f.add_key_kinds(detail::kinds_of<Key>(keys.size()));
            detail::for_hash_chunks(f.hashing(), keys, [&](const std::uint64_t* h, std::size_t n, std::size_t) { k.insert(r, h, n); });
        }
    }

    template <class Key, bool Hashed = false>
    static std::size_t erase_keys(DeletableFilter& f, std::span<const Key> keys, std::span<EraseResult> results) {
        if (!results.empty() && results.size() != keys.size())
            throw Error("erase results have " + std::to_string(results.size()) + " entries for " +
                        std::to_string(keys.size()) + " keys");
        if (f.params().blocks == 0) {
            std::fill(results.begin(), results.end(), EraseResult::absent);
            return 0;
        }
        const auto& k = detail::deletable_kernels(detail::bulk_call(f, keys.size()).backend);
        const auto r = ref(f.bits_, f.collisions_, f.region_bits_);
        if constexpr (Hashed) return k.erase(r, keys.data(), keys.size(), results.empty() ? nullptr : results.data());
        std::size_t erased = 0;
        detail::for_hash_chunks(f.hashing(), keys, [&](const std::uint64_t* h, std::size_t n, std::size_t at) {
            erased += k.erase(r, h, n, results.empty() ? nullptr : results.data() + at);
        });
        return erased;
    }

    template <class Key, bool Hashed = false>
    static void contains_keys(const DeletableFilter& f, std::span<const Key> keys, std::span<std::uint8_t> out) {
        detail::blocked_contains<Hashed>(f.bits_, f, keys, out);
    }
    template <class Key, bool Hashed = false>
    static std::size_t count_keys(const DeletableFilter& f, std::span<const Key> keys) {
        return detail::blocked_count<Hashed>(f.bits_, f, keys);
    }

    // Single keys: the reference kernels directly, as for Filter.
    static void insert_one_hash(DeletableFilter& f, std::uint64_t hash) {
        if (f.params().blocks == 0) detail::throw_moved_from("insert");
        detail::scalar_deletable.insert(ref(f.bits_, f.collisions_, f.region_bits_), &hash, 1);
    }
    static bool contains_one_hash(const DeletableFilter& f, std::uint64_t hash) { return f.bits_.contains_hash(hash); }
};

std::size_t DeletableFilter::erase_hashes(std::span<const std::uint64_t> hashes, std::span<EraseResult> results) {
    return detail::Forms<DeletableFilter>::erase_keys<std::uint64_t, true>(*this, hashes, results);
}

template class KeyForms<DeletableFilter>;
template class HashForms<DeletableFilter>;
template class EraseForms<DeletableFilter, EraseResult>;

std::uint64_t DeletableFilter::collided_regions() const noexcept {
    std::uint64_t n = 0;
    for (auto w : collisions()) n += static_cast<std::uint64_t>(std::popcount(w));
    return n;
}

// The collisions go with the keys: a collision bit only guards keys that are present, and one
// left set would make keys inserted afterwards undeletable for no reason.
void DeletableFilter::clear() noexcept {
    bits_.clear();  // never throws here: a deletable filter's bits are never a mapping
    std::ranges::fill(collisions_.bytes(), std::byte{0});
}

bool operator==(const DeletableFilter& a, const DeletableFilter& b) noexcept {
    return a.region_bits_ == b.region_bits_ && a.bits_ == b.bits_ && std::ranges::equal(a.collisions(), b.collisions());
}

// ---- model --------------------------------------------------------------------------------

namespace {

double binomial_pmf(std::uint64_t n, double p, std::uint64_t x) {
    if (p <= 0) return x == 0 ? 1.0 : 0.0;
    if (p >= 1) return x == n ? 1.0 : 0.0;
    const double dn = double(n), dx = double(x);
    return std::exp(std::lgamma(dn + 1) - std::lgamma(dx + 1) - std::lgamma(dn - dx + 1) + dx * std::log(p) +
                    (dn - dx) * std::log1p(-p));
}

}  // namespace

double predicted_deletability(const Params& params, unsigned region_bits, std::uint64_t n) {
    params.validate();
    check_region_bits(params, region_bits);
    if (n == 0) throw Error("deletability needs at least one key");
    const auto info = layout::info(params.shape);
    // Bits one other key of the block throws into the span that holds one of our regions.
    const double span = info.one_bit_per_word ? info.word_bits : 8.0 * info.block_bytes;
    const unsigned per_key = info.one_bit_per_word ? 1 : params.k;
    const double rho = std::min(1.0, region_bits / span);
    const double q_block = 1.0 / double(params.blocks);
    const double mean_l = double(n - 1) * q_block;
    const auto l_max = static_cast<std::uint64_t>(
        std::min(double(n - 1), mean_l + 12 * std::sqrt(mean_l + 1) + 20));
    double total = 0;
    for (std::uint64_t l = 0; l <= l_max; ++l) {
        const double pl = binomial_pmf(n - 1, q_block, l);
        if (pl < 1e-300) continue;
        const std::uint64_t throws = l * per_key;
        double q = 0, distinct = 1;  // P(region collision-free | L = l)
        for (std::uint64_t t = 0; t <= throws && distinct > 0; ++t) {
            if (t > 0) distinct *= std::max(0.0, 1.0 - double(t) / region_bits);
            q += binomial_pmf(throws, rho, t) * distinct;
        }
        total += pl * (1.0 - std::pow(1.0 - q, double(params.k)));
    }
    return total;
}

}  // namespace batchbloom
