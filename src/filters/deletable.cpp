#include "batchbloom/deletable.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <istream>
#include <ostream>
#include <string>

#include "format/family_file.hpp"
#include "filters/key_hashes.hpp"

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

/// Calls f(word pointer, word index in the block, mask) for each non-empty word of the key's
/// pattern, and returns the index of the key's block.
template <class F>
std::uint64_t for_pattern_words(Filter& bits, std::uint64_t hash, F&& f) {
    const Params& p = bits.params();
    const std::uint64_t block = layout::block_index(hash, p.blocks);
    layout::visit_shape(p.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        using T = layout::shape_traits<S>;
        auto* words = reinterpret_cast<typename T::word_type*>(bits.mutable_bytes().data()) + block * T::words;
        const auto pat = layout::make_pattern<S>(static_cast<std::uint32_t>(hash), p.k);
        for (unsigned j = 0; j < T::words; ++j)
            if (pat.w[j] != 0) f(words[j], j * T::word_bits, std::uint64_t{pat.w[j]});
    });
    return block;
}

}  // namespace

DeletableFilter::DeletableFilter(const Params& params, unsigned region_bits, const Hashing& hashing, Backend backend)
    : bits_(params, hashing, backend), region_bits_(region_bits) {
    check_region_bits(params, region_bits);
    collisions_.assign(bitmap_words(params, region_bits), 0);
}

void DeletableFilter::insert_hash(std::uint64_t hash) {
    const std::uint64_t block_bits = params().block_bytes() * 8;
    const std::uint64_t block = layout::block_index(hash, params().blocks);
    for_pattern_words(bits_, hash, [&](auto& word, unsigned first_bit, std::uint64_t mask) {
        for (std::uint64_t hit = std::uint64_t(word) & mask; hit != 0; hit &= hit - 1) {
            const std::uint64_t region = (block * block_bits + first_bit + std::countr_zero(hit)) / region_bits_;
            collisions_[region / 64] |= std::uint64_t(1) << (region % 64);
        }
        word |= static_cast<std::remove_reference_t<decltype(word)>>(mask);
    });
}

EraseResult DeletableFilter::erase_hash(std::uint64_t hash) {
    if (!bits_.contains_hash(hash)) return EraseResult::absent;
    const std::uint64_t block_bits = params().block_bytes() * 8;
    const std::uint64_t block = layout::block_index(hash, params().blocks);
    bool cleared = false;
    for_pattern_words(bits_, hash, [&](auto& word, unsigned first_bit, std::uint64_t mask) {
        std::uint64_t clear = 0;
        for (std::uint64_t m = mask; m != 0; m &= m - 1) {
            const std::uint64_t region = (block * block_bits + first_bit + std::countr_zero(m)) / region_bits_;
            if (((collisions_[region / 64] >> (region % 64)) & 1) == 0) clear |= m & -m;
        }
        word &= static_cast<std::remove_reference_t<decltype(word)>>(~clear);
        cleared |= clear != 0;
    });
    return cleared ? EraseResult::erased : EraseResult::not_deletable;
}

template <class Key>
void DeletableFilter::insert_keys(std::span<const Key> keys) {
    detail::for_hash_chunks(hashing(), keys, [&](const std::uint64_t* h, std::size_t n, std::size_t) {
        for (std::size_t i = 0; i < n; ++i) insert_hash(h[i]);
    });
}

template <class Key>
std::size_t DeletableFilter::erase_keys(std::span<const Key> keys, std::span<EraseResult> results) {
    if (!results.empty() && results.size() != keys.size())
        throw Error("erase results have " + std::to_string(results.size()) + " entries for " +
                    std::to_string(keys.size()) + " keys");
    std::size_t erased = 0;
    detail::for_hash_chunks(hashing(), keys, [&](const std::uint64_t* h, std::size_t n, std::size_t at) {
        for (std::size_t i = 0; i < n; ++i) {
            const EraseResult r = erase_hash(h[i]);
            erased += r == EraseResult::erased;
            if (!results.empty()) results[at + i] = r;
        }
    });
    return erased;
}

void DeletableFilter::insert(std::span<const std::uint64_t> keys) { insert_keys(keys); }
void DeletableFilter::insert(std::span<const std::string_view> keys) { insert_keys(keys); }
std::size_t DeletableFilter::erase(std::span<const std::uint64_t> keys, std::span<EraseResult> results) {
    return erase_keys(keys, results);
}
std::size_t DeletableFilter::erase(std::span<const std::string_view> keys, std::span<EraseResult> results) {
    return erase_keys(keys, results);
}

std::uint64_t DeletableFilter::collided_regions() const noexcept {
    std::uint64_t n = 0;
    for (auto w : collisions_) n += static_cast<std::uint64_t>(std::popcount(w));
    return n;
}

bool operator==(const DeletableFilter& a, const DeletableFilter& b) noexcept {
    return a.region_bits_ == b.region_bits_ && a.bits_ == b.bits_ && a.collisions_ == b.collisions_;
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

// ---- persistence --------------------------------------------------------------------------
// Payload: the filter's blocks, then the collision bitmap (ceil(regions / 64) little-endian
// words). The header's kind-specific field is the bits per region.

void DeletableFilter::save(std::ostream& out) const {
    detail::FamilyHeader h;
    h.kind = FileKind::deletable;
    h.params = params();
    h.hashing = hashing();
    h.extra = region_bits_;
    const auto bitmap = std::as_bytes(std::span<const std::uint64_t>(collisions_));
    h.payload_bytes = params().bytes() + bitmap.size();
    const std::span<const std::byte> pieces[] = {bits_.bytes(), bitmap};
    detail::write_family(out, h, pieces);
}

void DeletableFilter::save(const std::filesystem::path& path) const {
    detail::save_atomically(path, [&](std::ostream& out) { save(out); });
}

DeletableFilter DeletableFilter::load(std::istream& in) {
    const auto h = detail::read_family_header(in, FileKind::deletable);
    if (h.extra == 0 || h.extra > h.params.block_bytes() * 8 || !std::has_single_bit(h.extra))
        throw FormatError("corrupt header: " + std::to_string(h.extra) + " bits per region");
    const auto region_bits = static_cast<unsigned>(h.extra);
    const std::uint64_t expected = h.params.bytes() + 8 * bitmap_words(h.params, region_bits);
    if (h.payload_bytes != expected)
        throw FormatError("corrupt header: payload length " + std::to_string(h.payload_bytes) + " does not match " +
                          std::to_string(expected) + " bytes of blocks and collision bitmap");
    const auto payload = detail::read_family_payload(in, h);
    DeletableFilter f(h.params, region_bits, h.hashing);
    auto dst = f.bits_.mutable_bytes();
    std::memcpy(dst.data(), payload.data(), dst.size());
    std::memcpy(f.collisions_.data(), payload.data() + dst.size(), 8 * f.collisions_.size());
    if (f.regions() % 64 != 0 && (f.collisions_.back() >> (f.regions() % 64)) != 0)
        throw FormatError("corrupt payload: collision bits set past the last region");
    return f;
}

DeletableFilter DeletableFilter::load(const std::filesystem::path& path) {
    return detail::load_family_file<DeletableFilter>(path, [](std::istream& in) { return load(in); });
}

}  // namespace batchbloom
