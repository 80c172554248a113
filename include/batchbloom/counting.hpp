#pragma once
// Counting Bloom filter (Fan et al. 2000, "Summary Cache"): a 4-bit counter for every bit of a
// blocked filter, so keys can be erased.
//
// Layout. Keys map to blocks and bit patterns exactly as in Filter (layout.hpp, hash_key of
// the same Hashing): counter c of block b belongs to bit c of the Filter's block b. The four
// bits of the counters are stored bit-sliced: a counter block is four "planes", each shaped
// like a Filter block, plane j holding bit j of every counter (256 bytes per word512/line512 block,
// 128 per split256 block). "Counter > 0" is then the OR of the planes, so a counting filter
// converts to the blocked Filter of the same keys byte for byte (to_filter), and insert, erase
// and probe are a handful of whole-block bitwise operations on the key's pattern mask, which
// is why they vectorize (a nibble-per-counter layout needs per-counter shifts instead).
//
// Semantics.
//  - insert adds 1 to each counter of the key's pattern. Counters saturate at 15 and stay
//    there: a saturated counter is never decremented, because after an overflow it no longer
//    knows how many keys it counts.
//  - erase of a key whose counters are all > 0 subtracts 1 from each of them except the
//    saturated ones; a key with any counter at 0 was certainly never inserted (or already
//    erased) and is refused: nothing changes.
//  - No false negatives for keys still present, provided only inserted keys are erased
//    (each key as often as it was inserted): every counter is at least the number of present
//    keys that use it — a decrement only undoes an increment of the same key, and a counter
//    that once saturated stays at 15 forever. The price of saturation: a key whose counters
//    saturated can never make them drop, so after its erase it (and keys sharing those
//    counters) may keep testing positive — false positives, never false negatives.
//  - Erasing a key that was never inserted but tests positive (a false positive) cannot be
//    detected: it decrements counters that belong to other keys and can make a present key
//    test negative. Erase only keys you inserted.
//
// Bulk operations run on one thread; keys of one call are processed in order, so a batch
// gives the same result as the same calls one key at a time. Every engine's kernels are
// bit-identical to the scalar reference (which engine runs for which backend: docs/architecture.md).
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
#include "key_kinds.hpp"
#include "params.hpp"

namespace batchbloom {

/// Engines and threads (BulkSettings): an engine without counting kernels runs its fallback's
/// (avx512 and cuda: the AVX2 kernels where the CPU has AVX2; docs/architecture.md). Probes
/// split the batch over the threads; inserts and erases give each thread a range of blocks,
/// whose keys it applies in the batch's order, so saturation and refused erases come out as on
/// one thread.
class CountingFilter : public KeyForms<CountingFilter>,
                       public HashForms<CountingFilter>,
                       public EraseForms<CountingFilter, std::uint8_t>,
                       public BulkSettings {
public:
    static constexpr unsigned counter_bits = 4;
    static constexpr unsigned max_count = 15;

    /// All counters zero. `params` are the blocked filter's (the counters take 4x its bytes).
    /// Throws Error on invalid params or hashing, or if the backend is not available here.
    explicit CountingFilter(const Params& params, const Hashing& hashing = {}, Backend backend = Backend::automatic);

    CountingFilter(const CountingFilter& other);
    CountingFilter& operator=(const CountingFilter& other);
    /// A moved-from counting filter is empty, as a moved-from Filter is (filter.hpp, "After a
    /// move"): no counters, params().blocks 0; probes answer 0, erase refuses every key,
    /// saturated_counters() is 0; insert, to_filter, counter and save throw Error.
    CountingFilter(CountingFilter&& other) noexcept;
    CountingFilter& operator=(CountingFilter&& other) noexcept;
    ~CountingFilter() = default;

    const Params& params() const noexcept { return params_; }
    const Hashing& hashing() const noexcept { return hashing_; }
    // ---- keys (insert, contains, count: KeyForms; bulk erase: EraseForms, key_forms.hpp) --
    /// True if the key was erased, false if refused (some counter was 0). The bulk forms
    /// (EraseForms) give each key 1 (erased) or 0 (refused).
    bool erase(std::uint64_t key) { return erase_hash(hash(key)); }
    bool erase(std::string_view key) { return erase_hash(hash(key)); }
    using EraseForms<CountingFilter, std::uint8_t>::erase;

    // ---- pre-computed hashes (hash_key() of this filter's hashing; HashForms, key_forms.hpp)
    std::uint64_t hash(std::uint64_t key) const noexcept { return hash_key(hashing_, key); }
    std::uint64_t hash(std::string_view key) const noexcept { return hash_key(hashing_, key); }
    bool erase_hash(std::uint64_t hash) { return erase_hashes({&hash, 1}) == 1; }
    std::size_t erase_hashes(std::span<const std::uint64_t> hashes, std::span<std::uint8_t> erased = {});

    // ---- key kinds (key_kinds.hpp; as Filter) --------------------------------------------
    KeyKinds key_kinds() const noexcept { return key_kinds_; }
    /// For keys inserted as hashes (insert_hash[es] records nothing). Erasing changes nothing.
    void add_key_kinds(const KeyKinds& kinds) noexcept { key_kinds_ = key_kinds_ | kinds; }

    // ---- state ------------------------------------------------------------------------
    /// Counter of bit `bit` (as numbered in the Filter's block: word * word bits + bit in word)
    /// of block `block`; throws Error if out of range.
    unsigned counter(std::uint64_t block, unsigned bit) const;
    /// Number of counters stuck at 15.
    std::uint64_t saturated_counters() const noexcept;
    /// The blocked filter of the bits whose counter is > 0: byte-identical to a Filter with the
    /// same params and hashing into which the present keys were inserted (barring saturation).
    Filter to_filter() const;
    void clear() noexcept;

    /// The planes, block after block (4 x params().bytes()).
    std::span<const std::byte> bytes() const noexcept { return {planes_.data(), 4 * params_.bytes()}; }
    friend bool operator==(const CountingFilter& a, const CountingFilter& b) noexcept;

    // ---- persistence (the blocked layout's file format, kind "counting") -------------------------
    void save(std::ostream& out) const;
    /// Atomic: a temporary file beside `path`, then rename.
    void save(const std::filesystem::path& path) const;
    /// Validates the header and checksums; throws FormatError naming the problem (also for a
    /// file that holds another kind of filter).
    static CountingFilter load(std::istream& in);
    static CountingFilter load(const std::filesystem::path& path);

private:
    friend detail::Forms<CountingFilter>;  // implements the bulk forms (key_forms.hpp)
    void become_empty() noexcept;
    bool is_empty() const noexcept { return planes_.empty(); }

    Params params_;
    Hashing hashing_;
    KeyKinds key_kinds_ = KeyKinds::none();
    AlignedBuffer planes_;  // 4 x params_.bytes(); empty only after a move
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<CountingFilter>;
extern template class HashForms<CountingFilter>;
extern template class EraseForms<CountingFilter, std::uint8_t>;

}  // namespace batchbloom
