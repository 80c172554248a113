#pragma once
// The blocked Bloom filter: 64-byte-aligned storage of `params.blocks` blocks, bulk and
// single-key insert and probe, and a checksummed file format.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "aligned_buffer.hpp"
#include "backend.hpp"
#include "batch_tuning.hpp"
#include "bulk_settings.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "key_forms.hpp"
#include "key_kinds.hpp"
#include "params.hpp"

namespace batchbloom {

/// Compression of a saved filter. A filter at its optimal k has about half its bits set and
/// does not compress; a sparser filter (fewer hash functions, more bits) compresses to fewer
/// bits than the optimal filter for the same FPR (Mitzenmacher 2002), which pays when filters
/// are sent over a network. Loading detects the compression by itself.
enum class Compression : std::uint8_t { none, zstd };

struct SaveOptions {
    Compression compression = Compression::none;
    int zstd_level = 3;  ///< 1..22 (higher: smaller and slower), or negative for zstd's fast levels
};

/// What a load may allocate. A file's header says how much memory its filter needs; a load
/// checks that against max_bytes before it allocates anything and throws FormatError ("more
/// than the load limit") above it. This is what bounds a small input that asks for much: a
/// zstd file of a few kilobytes can expand to a filter of gigabytes, and a pipe cannot say how
/// much it holds. Default (nullopt): the machine's physical memory. A load holds one copy of
/// the filter (its own storage), plus buffers of a few MiB (from a stream that cannot tell its
/// size, such as a pipe or a zstd frame's content: its first eighth, docs/format.md).
struct LoadOptions {
    std::optional<std::uint64_t> max_bytes;  ///< bytes of filter memory a load may allocate
};

/// After a move. A filter that was moved from (by construction or assignment) is empty: it has
/// no storage, params().blocks is 0 (shape, k and hashing stay) and key_kinds() is none. Every
/// member may still be called. It contains no key: probes answer 0 (contains_bitmap all zero
/// bits), counts are 0, fill_ratio(), current_fpr() and estimated_cardinality() are 0, bytes()
/// is empty, clear() does nothing, a copy is another empty filter, and == holds only with an
/// empty filter of the same shape, k and hashing. What needs storage (insert, the set algebra,
/// fold, save) throws Error. Assigning a filter to it makes it whole again. Self-assignment,
/// by copy or move, leaves a filter as it was. Every filter type follows this rule.
///
/// Mapped filters. Filter::map() opens a saved filter read-only over a memory mapping of the
/// file: nothing is copied, probes read the file's pages in place (from the page cache, shared
/// with every other process mapping or reading the file), and the mapping lives as long as the
/// filter. A mapped filter is read-only: what writes its bits (insert, insert_hash(es),
/// clear, |=, &=, add_key_kinds, mutable_bytes, a ConcurrentFilter insert) throws Error
/// ("mapped read-only; load() for a writable copy"). Everything else works as on a loaded
/// filter: probes on every engine and path, estimates, ==, save (a normal file), fold and |, &
/// (new filters). A copy is an owning, writable filter; a move moves the mapping; assigning a
/// filter to a mapped one (or destroying it, or moving from it) unmaps it.
///
/// The file under a mapping. A file replaced by rename (as save() replaces files) leaves the
/// mapping on the old file, whole and unchanged, until the filter goes. A file truncated or
/// rewritten in place by another process is not protected: probes then read the new bytes.
/// Reading a page past the new end of a truncated file raises SIGBUS (a kernel rule for every
/// file mapping); on Linux the library catches that for its own mappings (a handler installed
/// by the first map(), which passes every other SIGBUS to the handler before it): the lost
/// pages read as zeros and the probe that read them throws FormatError, as does every probe
/// after it. Only probes check: save, ==, fold, |, & and the estimates of such a filter see
/// the zeros. A program that installs its own SIGBUS handler after map() takes this over. map()
/// checks the size against the header when it opens the file, so a file already truncated is
/// a FormatError; replace mapped files by rename, never in place.
class Filter : public KeyForms<Filter>, public HashForms<Filter>, public BulkSettings, public BatchTuning {
public:
    /// An empty filter (all bits zero). Throws Error on invalid params or hashing, or if the
    /// storage cannot be allocated.
    explicit Filter(const Params& params, const Hashing& hashing = {}, Backend backend = Backend::automatic);

    Filter(const Filter& other);
    Filter& operator=(const Filter& other);
    Filter(Filter&&) noexcept;
    Filter& operator=(Filter&&) noexcept;
    /// Its storage is kept for the next filter (or copy) of the same size, so that a program
    /// building a filter per query does not fault fresh pages in each time; the process keeps
    /// at most 64 MiB so, which the library's pool frees after a second without calls. The
    /// classic filter's destructor does the same.
    ~Filter();

    const Params& params() const noexcept { return params_; }
    const Hashing& hashing() const noexcept { return hashing_; }

    // Batch tuning (the path setting, scratch memory): BatchTuning, batch_tuning.hpp.
    /// The path (direct or partitioned) a bulk call of `keys` keys takes (insert, or any
    /// probe): batch_path() if set, else the one BATCHBLOOM_BATCH_PATH names, else the rule of
    /// BatchPath::automatic for this machine, filter, engine and thread count.
    BatchPath batch_path_for(std::size_t keys, bool insert) const;

    // ---- keys: integers and byte strings (insert, contains, count: KeyForms, key_forms.hpp)
    /// Bit i of the packed bitmap (word i/64, bit i%64) = may-contain of keys[i]; bits past
    /// keys.size() in the last word are zero. bitmap.size() must be >= ceil(n/64).
    void contains_bitmap(std::span<const std::uint64_t> keys, std::span<std::uint64_t> bitmap) const;
    void contains_bitmap(std::span<const std::uint32_t> keys, std::span<std::uint64_t> bitmap) const;
    void contains_bitmap(std::span<const std::string_view> keys, std::span<std::uint64_t> bitmap) const;
    void contains_bitmap(std::span<const std::string> keys, std::span<std::uint64_t> bitmap) const;

    // ---- pre-computed hashes (hash_key() of this filter's hashing; HashForms, key_forms.hpp)
    std::uint64_t hash(std::uint64_t key) const noexcept { return hash_key(hashing_, key); }
    std::uint64_t hash(std::string_view key) const noexcept { return hash_key(hashing_, key); }

    // ---- key kinds (key_kinds.hpp) -------------------------------------------------------
    /// The kinds of keys inserted so far: recorded by the key inserts, saved in the file,
    /// merged by the set algebra; not part of ==.
    KeyKinds key_kinds() const noexcept { return key_kinds_; }
    /// Adds kinds to the record, for keys inserted as pre-computed hashes (insert_hash and
    /// insert_hashes record nothing); adding not_recorded() makes the record unknown.
    void add_key_kinds(const KeyKinds& kinds);

    // ---- state and estimates -----------------------------------------------------------
    /// Sets every bit to zero (the key kinds stay: clearing does not tell what goes in next).
    void clear();
    /// Fraction of bits set.
    double fill_ratio() const noexcept;
    /// FPR of a random absent key against the bits as they are now (exact for the
    /// one-bit-per-word shapes, independent-bits approximation within a word otherwise).
    double current_fpr() const noexcept;
    /// Number of distinct keys inserted, estimated from the fill (Swamidass & Baldi).
    double estimated_cardinality() const;

    /// The raw little-endian blocks.
    std::span<const std::byte> bytes() const noexcept { return {storage_.data(), params_.bytes()}; }
    /// The blocks for writing; throws Error if the filter is mapped (read-only).
    std::span<std::byte> mutable_bytes();
    /// Whether the filter is a read-only mapping of a file (map()); see "Mapped filters".
    bool mapped() const noexcept { return storage_.mapped(); }

    /// Same params, hashing and bits (the backend is not part of a filter's value).
    friend bool operator==(const Filter& a, const Filter& b) noexcept;

    // ---- set algebra (filters of the same shape, block count, k and hashing) -----------
    /// Union: afterwards this filter answers "may contain" for every key of either filter;
    /// bit-identical to one filter built from both key sets. Throws Error if incompatible.
    Filter& operator|=(const Filter& other);
    /// Intersection (bitwise AND). No false negatives for keys inserted into both, but it
    /// over-approximates the intersection: bits set by different keys of the two sets survive,
    /// so its FPR is higher than that of a filter built from the intersection of the sets.
    Filter& operator&=(const Filter& other);
    friend Filter operator|(Filter a, const Filter& b) { return a |= b; }
    friend Filter operator&(Filter a, const Filter& b) { return a &= b; }
    /// Half the blocks: block i of the result is the OR of blocks 2i and 2i + 1. Because the
    /// block index is ((hash >> 32) * blocks) >> 32, that is exactly the filter the same keys
    /// would build at half the size. Requires an even block count (throws Error otherwise).
    Filter fold() const;
    /// Whether set algebra between the two filters is defined.
    bool compatible(const Filter& other) const noexcept;

    // ---- persistence -------------------------------------------------------------------
    /// Writes header (magic, version, params, hashing, payload length, checksums) + blocks;
    /// with Compression::zstd, one zstd frame holding exactly those bytes.
    void save(std::ostream& out, const SaveOptions& options = {}) const;
    /// Writes to `path` atomically: a temporary file in the same directory, then rename.
    void save(const std::filesystem::path& path, const SaveOptions& options = {}) const;
    /// Reads and validates a filter, compressed or not; throws FormatError naming the problem.
    static Filter load(std::istream& in, const LoadOptions& options = {});
    /// Like load(istream), and additionally rejects files with bytes after the payload.
    static Filter load(const std::filesystem::path& path, const LoadOptions& options = {});
    /// Opens a filter saved uncompressed at `path` read-only over a memory mapping, in O(1)
    /// apart from the verification (see "Mapped filters"): the header gets load()'s checks
    /// and the file's size must be exactly header + payload. With verify (the default) the
    /// payload checksum is checked too, which reads the whole file once; verify = false skips
    /// it, for trusted files only: a corrupt payload then gives wrong answers, not an error.
    /// Throws FormatError naming the problem (a compressed file: load() reads those; a file
    /// of another filter kind; truncated; trailing bytes; checksum) or Error if the file
    /// cannot be opened or mapped.
    static Filter map(const std::filesystem::path& path, bool verify = true);

private:
    friend detail::Forms<Filter>;  // implements the bulk forms and contains_bitmap (key_forms.hpp)
    /// A filter over storage already holding params.bytes() bytes of blocks (map()).
    Filter(const Params& params, const Hashing& hashing, const KeyKinds& kinds, AlignedBuffer storage);
    /// Throws Error unless the bits may be written: not moved from (see "After a move"), not
    /// mapped (see "Mapped filters").
    void require_writable(const char* operation) const;
    /// Throws FormatError if the mapped file lost pages under a probe (see "Mapped filters").
    void check_mapping() const;
    /// The moved-from state (see "After a move").
    void become_empty() noexcept;
    bool is_empty() const noexcept { return storage_.empty(); }

    Params params_;
    Hashing hashing_;
    KeyKinds key_kinds_ = KeyKinds::none();
    AlignedBuffer storage_;  // params_.bytes() bytes (read-only if mapped), empty only after a move
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<Filter>;
extern template class HashForms<Filter>;

/// Jaccard similarity |A ∩ B| / |A ∪ B| of the key sets behind two compatible filters,
/// estimated from the fills of A, B and A | B (inclusion–exclusion over the Swamidass–Baldi
/// cardinality estimates); in [0, 1]. Two empty filters give 1.0: two empty sets are the same
/// set (the usual convention, J(∅, ∅) = 1), and a filter and an empty one give ~0. Throws Error
/// if the filters are incompatible.
double estimated_jaccard(const Filter& a, const Filter& b);

}  // namespace batchbloom
