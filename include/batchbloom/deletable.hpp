#pragma once
// Deletable Bloom filter (Rothenberg, Macapuna, Verdi, Magalhães 2010): a blocked filter
// (Filter) plus one collision bit per region of its bit array, so that some keys can be
// erased without counters and without false negatives.
//
// The bit array is the Filter's (same layout, hashing and bits: filter() is usable as any
// Filter), cut into regions of `region_bits` consecutive bits (bit b of block i is bit
// i * block bits + b; a region never straddles a block). Inserting a key that finds one of
// its bits already set marks that bit's region as collided. A bit in a region without
// collisions was set by exactly one key, so clearing it cannot hurt another key: erase clears
// the key's bits that lie in collision-free regions, and succeeds if there was at least one.
// With the one-bit-per-word shapes a key's bits lie in different words, so regions of at
// most a word give it up to k chances.
//
// Erase refuses a key that does not test positive (it is certainly absent), and reports
// not_deletable when all of its regions have collisions. Collision bits are never cleared
// (a filter cannot tell when a collision is gone), so deletability falls as keys are added.
// Inserting a key twice marks its regions: it cannot be erased afterwards. As with any
// deletion scheme, erasing a key that was never inserted but tests positive (a false
// positive) can clear a bit of a present key: erase only keys you inserted.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "aligned_buffer.hpp"
#include "backend.hpp"
#include "bulk_settings.hpp"
#include "error.hpp"
#include "filter.hpp"
#include "hash.hpp"
#include "key_forms.hpp"
#include "params.hpp"

namespace batchbloom {

/// Outcome of erasing one key from a DeletableFilter.
enum class EraseResult : std::uint8_t {
    absent = 0,         ///< the key tests negative: certainly not in the filter; nothing changed
    erased = 1,         ///< at least one of its bits was in a collision-free region and was cleared
    not_deletable = 2,  ///< every one of its bits lies in a region with collisions; nothing changed
};

/// Engines and threads (BulkSettings): inserts and erases go key by key, in order, on the scalar
/// engine's kernels whichever engine is asked for (the fallback rule of docs/architecture.md), on
/// one thread; probes run the engine's blocked-filter kernels, on the threads set.
class DeletableFilter : public KeyForms<DeletableFilter>,
                        public HashForms<DeletableFilter>,
                        public EraseForms<DeletableFilter, EraseResult>,
                        public BulkSettings {
public:
    static constexpr unsigned default_region_bits = 8;  // 12.5% extra memory; ~half the keys deletable at 10 bits/key

    /// region_bits: a power of two from 1 to the block's bits. Throws Error on invalid
    /// arguments or if the storage cannot be allocated.
    explicit DeletableFilter(const Params& params, unsigned region_bits = default_region_bits,
                             const Hashing& hashing = {}, Backend backend = Backend::automatic);

    DeletableFilter(const DeletableFilter& other);
    DeletableFilter& operator=(const DeletableFilter& other);
    /// A moved-from deletable filter is empty, as a moved-from Filter is (filter.hpp, "After a
    /// move"): no bits and no collision bitmap, params().blocks 0; probes answer 0, erase
    /// answers absent for every key; insert and save throw Error.
    DeletableFilter(DeletableFilter&& other) noexcept;
    DeletableFilter& operator=(DeletableFilter&& other) noexcept;
    ~DeletableFilter() = default;

    const Params& params() const noexcept { return bits_.params(); }
    const Hashing& hashing() const noexcept { return bits_.hashing(); }
    unsigned region_bits() const noexcept { return region_bits_; }
    std::uint64_t regions() const noexcept { return params().bits() / region_bits_; }

    // ---- keys (insert, contains, count: KeyForms; bulk erase: EraseForms, key_forms.hpp) --
    EraseResult erase(std::uint64_t key) { return erase_hash(bits_.hash(key)); }
    EraseResult erase(std::string_view key) { return erase_hash(bits_.hash(key)); }
    using EraseForms<DeletableFilter, EraseResult>::erase;

    // ---- pre-computed hashes (hash_key() of this filter's hashing; HashForms, key_forms.hpp)
    std::uint64_t hash(std::uint64_t key) const noexcept { return bits_.hash(key); }
    std::uint64_t hash(std::string_view key) const noexcept { return bits_.hash(key); }
    EraseResult erase_hash(std::uint64_t hash);
    std::size_t erase_hashes(std::span<const std::uint64_t> hashes, std::span<EraseResult> results = {});

    /// The blocked filter (the bits); byte-identical to a Filter of the present keys as long
    /// as nothing was erased. Its engine and threads are a Filter's defaults: this filter's calls
    /// take this filter's settings (above).
    const Filter& filter() const noexcept { return bits_; }
    /// The kinds of keys inserted (key_kinds.hpp; as Filter, and the same as filter().key_kinds()).
    KeyKinds key_kinds() const noexcept { return bits_.key_kinds(); }
    /// For keys inserted as hashes (insert_hash records nothing).
    void add_key_kinds(const KeyKinds& kinds) noexcept { bits_.add_key_kinds(kinds); }

    /// Number of regions marked as collided.
    std::uint64_t collided_regions() const noexcept;
    /// The collision bitmap, one bit per region (bit r%64 of word r/64).
    std::span<const std::uint64_t> collisions() const noexcept {
        return {collisions_.as<std::uint64_t>(), collisions_.size() / sizeof(std::uint64_t)};
    }
    /// Sets every bit and every collision bit to zero: the filter equals a new one of the same
    /// params, region bits and hashing (the key kinds stay, as in Filter::clear). A moved-from
    /// filter stays empty.
    void clear() noexcept;

    friend bool operator==(const DeletableFilter& a, const DeletableFilter& b) noexcept;

    // ---- persistence (the blocked layout's file format, kind "deletable") ------------------------
    void save(std::ostream& out) const;
    void save(const std::filesystem::path& path) const;  ///< atomic
    static DeletableFilter load(std::istream& in);
    static DeletableFilter load(const std::filesystem::path& path);

private:
    friend detail::Forms<DeletableFilter>;  // implements the bulk forms (key_forms.hpp)

    Filter bits_;
    unsigned region_bits_;
    AlignedBuffer collisions_;  // the collision bitmap's words; empty only after a move
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<DeletableFilter>;
extern template class HashForms<DeletableFilter>;
extern template class EraseForms<DeletableFilter, EraseResult>;

/// Expected fraction of the n inserted keys that erase() can remove right after the n
/// distinct keys were inserted: Rothenberg et al.'s collision-free-region argument applied to
/// the blocked layout. A key shares its block with L ~ Binomial(n - 1, 1/blocks) others; the
/// region of each of its k bits receives T ~ Binomial(L * t, region_bits / span) of their
/// bits (span: the word for the one-bit-per-word shapes, t = 1; the whole line for line512,
/// t = k) and is collision-free when all T + 1 bits differ, with probability
/// prod_{i=1..T} (1 - i / region_bits); the key is deletable unless all k regions collided.
/// Throws Error on invalid arguments.
double predicted_deletability(const Params& params, unsigned region_bits, std::uint64_t n);

}  // namespace batchbloom
