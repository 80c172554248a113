// The deletable filter's kernels: a key's bits are set in the blocked filter as usual, and the
// region of every bit that was set already is marked as collided; an erase clears only the
// bits whose regions never collided. Per key and in order (a later key's collision depends on
// an earlier key's bits), so only the scalar engine has them.
#include <bit>
#include <type_traits>

#include "batchbloom/deletable.hpp"
#include "engine/engine.hpp"

namespace batchbloom::detail {
namespace {

/// Calls f(word, index of the word's first bit in the block, mask) for each non-empty word of
/// the key's pattern, and returns the index of the key's block.
template <class F>
std::uint64_t for_pattern_words(const FilterRef& bits, std::uint64_t hash, F&& f) {
    const std::uint64_t block = layout::block_index(hash, bits.blocks);
    layout::visit_shape(bits.shape, [&](auto tag) {
        constexpr Shape S = decltype(tag)::value;
        using T = layout::shape_traits<S>;
        auto* words = reinterpret_cast<typename T::word_type*>(bits.data) + block * T::words;
        const auto pat = layout::make_pattern<S>(static_cast<std::uint32_t>(hash), bits.k);
        for (unsigned j = 0; j < T::words; ++j)
            if (pat.w[j] != 0) f(words[j], j * T::word_bits, std::uint64_t{pat.w[j]});
    });
    return block;
}

bool contains(const FilterRef& bits, std::uint64_t hash) {
    bool all = true;
    for_pattern_words(bits, hash, [&](auto& word, unsigned, std::uint64_t mask) { all &= (word & mask) == mask; });
    return all;
}

void insert(const DeletableRef& f, const std::uint64_t* hashes, std::size_t n) {
    const std::uint64_t block_bits = layout::info(f.bits.shape).block_bytes * 8;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t block = layout::block_index(hashes[i], f.bits.blocks);
        for_pattern_words(f.bits, hashes[i], [&](auto& word, unsigned first_bit, std::uint64_t mask) {
            for (std::uint64_t hit = std::uint64_t(word) & mask; hit != 0; hit &= hit - 1) {
                const std::uint64_t region = (block * block_bits + first_bit + std::countr_zero(hit)) / f.region_bits;
                f.collisions[region / 64] |= std::uint64_t(1) << (region % 64);
            }
            word |= static_cast<std::remove_reference_t<decltype(word)>>(mask);
        });
    }
}

EraseResult erase_one(const DeletableRef& f, std::uint64_t hash) {
    if (!contains(f.bits, hash)) return EraseResult::absent;
    const std::uint64_t block_bits = layout::info(f.bits.shape).block_bytes * 8;
    const std::uint64_t block = layout::block_index(hash, f.bits.blocks);
    bool cleared = false;
    for_pattern_words(f.bits, hash, [&](auto& word, unsigned first_bit, std::uint64_t mask) {
        std::uint64_t clear = 0;
        for (std::uint64_t m = mask; m != 0; m &= m - 1) {
            const std::uint64_t region = (block * block_bits + first_bit + std::countr_zero(m)) / f.region_bits;
            if (((f.collisions[region / 64] >> (region % 64)) & 1) == 0) clear |= m & -m;
        }
        word &= static_cast<std::remove_reference_t<decltype(word)>>(~clear);
        cleared |= clear != 0;
    });
    return cleared ? EraseResult::erased : EraseResult::not_deletable;
}

std::size_t erase(const DeletableRef& f, const std::uint64_t* hashes, std::size_t n, EraseResult* out) {
    std::size_t erased = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const EraseResult r = erase_one(f, hashes[i]);
        erased += r == EraseResult::erased;
        if (out != nullptr) out[i] = r;
    }
    return erased;
}

}  // namespace

constinit const DeletableKernels scalar_deletable{Backend::scalar, insert, erase};

}  // namespace batchbloom::detail
