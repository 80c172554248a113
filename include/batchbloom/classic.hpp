#pragma once
// The classic Bloom filter (Bloom 1970): k bit positions anywhere in an array of m bits.
// It needs fewer bits per key than a blocked filter for the same FPR, but costs up to k cache
// misses per key instead of one; batchbloom keeps it as the accuracy yardstick and for
// interchange with Apache Spark.
//
// The k positions come from two hashes by double hashing (Kirsch & Mitzenmacher 2006). A
// ClassicScheme fixes the hash function and the position rule:
//
//   double_hashing  batchbloom's own: the 64-bit hash h of `Hashing`, step s = rotl(h, 32);
//                   position i = high 64 bits of (h + i*s) * m  (i = 0..k-1; any m)
//   spark_v1        org.apache.spark.util.sketch.BloomFilterImpl (Spark 2.0 to 4.0, format
//                   version 1): hi = Murmur3_x86_32(key, seed 0), lo = Murmur3_x86_32(key, hi);
//                   c = hi + i*lo in 32-bit arithmetic (i = 1..k), ~c if negative, position c % m
//   spark_v2        BloomFilterImplV2 (the default since Spark 4.1, format version 2): the same
//                   hashes with the filter's seed; c = hi * (2^31 - 1) + i*lo in 64-bit
//                   arithmetic (i = 1..k), ~c if negative, position c % m
//
// Spark hashes integers with Murmur3_x86_32.hashLong and byte strings with its hashUnsafeBytes
// (which mixes the last len % 4 bytes one signed byte at a time, unlike the reference Murmur3).
// Bits are stored as 64-bit words, bit p in word p / 64 at bit p % 64, as Spark's BitArray does.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "aligned_buffer.hpp"
#include "backend.hpp"
#include "bulk_settings.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "key_forms.hpp"
#include "key_kinds.hpp"

namespace batchbloom {

/// How keys become bit positions; the numeric values are part of the file format.
enum class ClassicScheme : std::uint8_t {
    double_hashing = 1,
    spark_v1 = 2,
    spark_v2 = 3,
};

/// "double_hashing" / "spark_v1" / "spark_v2"; parse_classic_scheme throws Error otherwise.
std::string_view to_string(ClassicScheme scheme);
ClassicScheme parse_classic_scheme(std::string_view name);

struct ClassicParams {
    std::uint64_t bits = 0;  ///< m, the number of bits (Spark schemes: a multiple of 64)
    unsigned k = 0;          ///< positions per key

    static constexpr std::uint64_t max_bits = std::uint64_t(1) << 37;  ///< Spark's limit: 2^31 - 1 words
    static constexpr unsigned max_k = 1024;

    /// Fewest bits whose classic FPR (1 - e^{-kn/m})^k for n keys is <= fpr, with the k that
    /// minimises it. Throws Error for n == 0 or fpr outside (0, 1).
    static ClassicParams for_fpr(std::uint64_t n, double fpr);
    /// ceil(n * bits_per_key) bits, k = round(bits_per_key * ln 2) (at least 1).
    static ClassicParams for_bits_per_key(std::uint64_t n, double bits_per_key);
    /// What Spark's BloomFilter.create(n, fpp) chooses: floor(-n ln p / ln^2 2) bits rounded
    /// up to whole words, k = max(1, round(bits / n * ln 2)) from the unrounded bits.
    static ClassicParams spark(std::uint64_t n, double fpp);

    std::uint64_t words() const { return (bits + 63) / 64; }
    std::uint64_t bytes() const { return words() * 8; }

    /// Throws Error naming the first invalid field (bits 0 or > max_bits, k 0 or > max_k).
    void validate() const;
    friend bool operator==(const ClassicParams&, const ClassicParams&) = default;
};

/// Hash and position rule of a classic filter.
struct ClassicHashing {
    ClassicScheme scheme = ClassicScheme::double_hashing;
    HashKind kind = HashKind::xxh3;  ///< double_hashing only; ignored by the Spark schemes
    /// double_hashing: the Hashing seed. spark_v2: Spark's 32-bit int seed as its unsigned bit
    /// pattern (0 .. 2^32 - 1). spark_v1: must be 0.
    std::uint64_t seed = 0;
    friend bool operator==(const ClassicHashing&, const ClassicHashing&) = default;
};

/// Throws Error if the scheme or kind is unknown, the seed does not fit, or a Spark scheme
/// is combined with a bit count that is not a multiple of 64.
void validate(const ClassicHashing& h, const ClassicParams& p);

/// Engines (set_backend, BulkSettings): only the scalar engine has classic kernels (a pipeline
/// that prefetches the k words of keys a few places ahead), so every engine runs those (the
/// fallback rule of docs/architecture.md).
class ClassicFilter : public KeyForms<ClassicFilter>, public HashForms<ClassicFilter>, public BulkSettings {
public:
    /// An empty filter. Throws Error on invalid parameters or hashing.
    explicit ClassicFilter(const ClassicParams& params, const ClassicHashing& hashing = {},
                           Backend backend = Backend::automatic);

    ClassicFilter(const ClassicFilter& other);
    ClassicFilter& operator=(const ClassicFilter& other);
    /// A moved-from classic filter is empty, as a moved-from Filter is (filter.hpp, "After a
    /// move"): no words, params().bits 0; probes answer 0, fill_ratio() and predicted_fpr()
    /// are 0; insert, the set algebra, save and the Spark form throw Error.
    ClassicFilter(ClassicFilter&& other) noexcept;
    ClassicFilter& operator=(ClassicFilter&& other) noexcept;
    ~ClassicFilter();

    /// An empty filter exactly as Spark's BloomFilter.create(n, fpp) (version 2 unless
    /// `scheme` is spark_v1) would make it, so Spark can merge it with its own filters.
    static ClassicFilter spark(std::uint64_t n, double fpp, ClassicScheme scheme = ClassicScheme::spark_v2,
                               std::int32_t seed = 0);

    const ClassicParams& params() const noexcept { return params_; }
    const ClassicHashing& hashing() const noexcept { return hashing_; }

    // ---- keys (insert, contains, count: KeyForms, key_forms.hpp) -------------------------
    // Integer keys are Spark's putLong / mightContainLong of the same 64-bit value (a 32-bit
    // key is its value); byte-string keys are its putBinary, or putString of the UTF-8 bytes.

    // ---- pre-computed hashes (HashForms, key_forms.hpp) ---------------------------------
    /// A key's 64 hash bits under this filter's scheme, which its k positions come from: the
    /// scheme's hash_key() for double_hashing; for the Spark schemes, Spark's two Murmur3
    /// hashes (the first in the high, the second in the low 32 bits). Hashes of one filter
    /// fit every filter with the same hashing.
    std::uint64_t hash(std::uint64_t key) const noexcept;
    std::uint64_t hash(std::string_view key) const noexcept;

    /// The kinds of keys inserted (key_kinds.hpp; as Filter). The batchbloom file keeps them;
    /// Spark's form has no place for them, so a filter read from it has them not_recorded().
    KeyKinds key_kinds() const noexcept { return key_kinds_; }
    void add_key_kinds(const KeyKinds& kinds) noexcept { key_kinds_ = key_kinds_ | kinds; }

    void clear() noexcept;
    /// Fraction of the m bits that are set.
    double fill_ratio() const noexcept;
    /// (1 - e^{-kn/m})^k.
    double predicted_fpr(std::uint64_t n) const { return params_.bits == 0 ? 0.0 : classic_fpr_of(params_, n); }
    static double classic_fpr_of(const ClassicParams& p, std::uint64_t n);

    /// The words, little-endian in memory; bits at positions >= m are always zero.
    std::span<const std::uint64_t> words() const noexcept {
        return {words_.as<std::uint64_t>(), words_.size() / sizeof(std::uint64_t)};
    }
    /// Writable words (e.g. to fill a filter received from elsewhere); keep bits >= m zero.
    std::span<std::uint64_t> mutable_words() noexcept {
        return {words_.as<std::uint64_t>(), words_.size() / sizeof(std::uint64_t)};
    }

    /// Same params, hashing and bits.
    friend bool operator==(const ClassicFilter& a, const ClassicFilter& b) noexcept;
    bool compatible(const ClassicFilter& other) const noexcept;
    /// Union / intersection of compatible filters (as Spark's mergeInPlace / intersectInPlace).
    ClassicFilter& operator|=(const ClassicFilter& other);
    ClassicFilter& operator&=(const ClassicFilter& other);
    friend ClassicFilter operator|(ClassicFilter a, const ClassicFilter& b) { return a |= b; }
    friend ClassicFilter operator&(ClassicFilter a, const ClassicFilter& b) { return a &= b; }

    // ---- batchbloom file format (FileKind::classic; checksummed, see src/format/classic_format.cpp)
    void save(std::ostream& out) const;
    void save(const std::filesystem::path& path) const;  ///< atomic (temporary file + rename)
    static ClassicFilter load(std::istream& in);
    static ClassicFilter load(const std::filesystem::path& path);  ///< also rejects trailing bytes

    // ---- Spark's serialized form (BloomFilter.writeTo / readFrom): big-endian int32 version
    // (1 or 2), int32 k, [version 2: int32 seed], int32 word count, the words as int64.
    /// Throws Error unless the scheme is spark_v1 or spark_v2.
    void write_spark(std::ostream& out) const;
    std::vector<std::byte> to_spark_bytes() const;
    /// Reads one serialized Spark filter; throws FormatError on a bad version, k, seed or word
    /// count, or a truncated input.
    static ClassicFilter read_spark(std::istream& in);
    /// The whole buffer must be one filter (trailing bytes are an error). Spark's form does not
    /// say what kinds of keys went in; a caller that knows (e.g. a filter Spark built from a
    /// long column) passes them, else they are not_recorded().
    static ClassicFilter from_spark_bytes(std::span<const std::byte> bytes,
                                          const KeyKinds& kinds = KeyKinds::not_recorded());

private:
    friend detail::Forms<ClassicFilter>;  // implements the bulk forms (key_forms.hpp)

    ClassicParams params_;
    ClassicHashing hashing_;
    KeyKinds key_kinds_ = KeyKinds::none();
    AlignedBuffer words_;  // params_.bytes() bytes, empty only after a move
};

// The bulk key and hash forms (key_forms.hpp) are instantiated in the library.
extern template class KeyForms<ClassicFilter>;
extern template class HashForms<ClassicFilter>;

/// Whether a file starts like a classic-filter file: the batchbloom header with FileKind::classic,
/// or a Spark serialized filter (version 1 or 2). Reads at most 64 bytes; false if unreadable.
bool is_classic_filter_file(const std::filesystem::path& path);
/// Loads a classic filter from either form, picked by the first bytes. Throws FormatError.
ClassicFilter load_classic_filter_file(const std::filesystem::path& path);

}  // namespace batchbloom
