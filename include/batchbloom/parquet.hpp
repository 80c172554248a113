#pragma once
// Parquet split-block Bloom filters (SBBF), byte-exact with the Parquet format's BloomFilter.md:
// 256-bit blocks of eight little-endian 32-bit words, the eight Parquet salts, the block picked
// by ((hash >> 32) * blocks) >> 32, and the hash XXH64 (seed 0) of the value's PLAIN encoding.
// That block scheme is batchbloom's Shape::split256 with k = 8, so every engine (scalar, AVX2,
// AVX-512, CUDA) builds and probes these filters; only the key hashing is Parquet's own.
//
//   physical type          bytes hashed
//   INT32 / INT64          4 / 8 little-endian bytes (an INT32 is never widened to 8 bytes)
//   FLOAT / DOUBLE         the 4 / 8 little-endian bytes of the IEEE value
//   BYTE_ARRAY, FIXED_LEN  the value's bytes, without a length prefix
//
// Reading: parquet::Reader parses a file's footer (the Thrift compact FileMetaData) and returns
// the Bloom filter of any column chunk that has one. Writing: SplitBlockFilter::serialize()
// gives the BloomFilterHeader and bitset exactly as they are stored in a Parquet file, and
// add_filters() writes a copy of a file with a filter per row group built from the row group's
// own values (it reads the column's pages itself: see add_filters for what it decodes).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"
#include "filter.hpp"
#include "key_forms.hpp"

namespace batchbloom::parquet {

/// Parquet physical types (the numeric values are Parquet's `Type` enum).
enum class PhysicalType : std::int32_t {
    boolean = 0,
    int32 = 1,
    int64 = 2,
    int96 = 3,
    float32 = 4,  ///< FLOAT
    float64 = 5,  ///< DOUBLE
    byte_array = 6,
    fixed_len_byte_array = 7,
};

/// "INT32", "BYTE_ARRAY", ... as Parquet spells them.
std::string_view to_string(PhysicalType type);

/// Compression codecs (the numeric values are Parquet's `CompressionCodec` enum).
enum class Codec : std::int32_t {
    uncompressed = 0,
    snappy = 1,
    gzip = 2,
    lzo = 3,
    brotli = 4,
    lz4 = 5,  ///< the deprecated Hadoop-framed LZ4
    zstd = 6,
    lz4_raw = 7,
};

/// "SNAPPY", "ZSTD", ... as Parquet spells them.
std::string_view to_string(Codec codec);

/// Bitset bounds every Parquet writer applies (Arrow, parquet-java, DuckDB): 32 B to 128 MiB.
inline constexpr std::uint32_t min_bitset_bytes = 32;
inline constexpr std::uint32_t max_bitset_bytes = std::uint32_t(128) << 20;
inline constexpr std::uint32_t block_bytes = 32;

/// XXH64 with seed 0 of the PLAIN encoding of a value: the hash every Parquet reader and
/// writer uses for its Bloom filters.
std::uint64_t hash_value(std::int32_t value) noexcept;
std::uint64_t hash_value(std::int64_t value) noexcept;
std::uint64_t hash_value(float value) noexcept;
std::uint64_t hash_value(double value) noexcept;
std::uint64_t hash_value(std::string_view bytes) noexcept;

/// Bitset size a Parquet writer (Arrow's and parquet-java's OptimalNumOfBytes) picks for `ndv`
/// distinct values at false-positive probability `fpp`: -8 ndv / ln(1 - fpp^(1/8)) bits, rounded
/// up to a power of two and clamped to [min_bitset_bytes, max_bitset_bytes]. Throws Error for
/// fpp outside (0, 1).
std::uint32_t optimal_bytes(std::uint64_t ndv, double fpp);

/// A Parquet split-block Bloom filter. Results never depend on the engine or thread count.
class SplitBlockFilter : public HashForms<SplitBlockFilter> {
public:
    /// An empty filter of `bytes` bytes: a multiple of 32 in [32, 128 MiB] (writers use powers
    /// of two; readers accept any whole number of blocks). Throws Error otherwise.
    explicit SplitBlockFilter(std::uint32_t bytes, Backend backend = Backend::automatic);

    /// An empty filter sized as a Parquet writer sizes it (optimal_bytes).
    static SplitBlockFilter for_ndv(std::uint64_t ndv, double fpp);

    /// A filter holding a copy of a raw bitset (its little-endian words, as stored after the
    /// header). Throws FormatError if the size is not a whole number of blocks in range.
    static SplitBlockFilter from_bitset(std::span<const std::byte> bitset);

    /// Reads a BloomFilterHeader (Thrift compact) and the bitset after it from `data`, which may
    /// extend past the filter; `consumed`, if given, receives the header + bitset size. Throws
    /// FormatError on a malformed or truncated header, or an algorithm, hash or compression
    /// other than BLOCK / XXHASH / UNCOMPRESSED.
    static SplitBlockFilter deserialize(std::span<const std::byte> data, std::size_t* consumed = nullptr);

    /// The BloomFilterHeader followed by the bitset: the bytes a writer stores at the column
    /// chunk's bloom_filter_offset (bloom_filter_length is their size).
    std::vector<std::byte> serialize() const;

    /// The filter at a smaller size: each halving ORs block pairs (2i, 2i + 1). For power-of-two
    /// sizes this is exactly the filter built at `bytes` from the same values, since the block
    /// of a hash is the top bits of its upper half. Throws Error unless both sizes are powers
    /// of two and `bytes` is in [32, bytes()].
    SplitBlockFilter fold(std::uint32_t bytes) const;

    /// The raw bitset (little-endian 32-bit words, blocks in order).
    std::span<const std::byte> bitset() const noexcept { return filter_.bytes(); }
    std::uint32_t bytes() const noexcept { return static_cast<std::uint32_t>(filter_.params().bytes()); }

    /// Engine and threads for the bulk calls (see BulkSettings, bulk_settings.hpp).
    void set_backend(Backend b) { filter_.set_backend(b); }
    void set_threads(unsigned threads) noexcept { filter_.set_threads(threads); }

    // ---- values of a column's physical type (hashed with hash_value) --------------------
    void insert(std::span<const std::int32_t> values);
    void insert(std::span<const std::int64_t> values);
    void insert(std::span<const float> values);
    void insert(std::span<const double> values);
    void insert(std::span<const std::string_view> values);
    /// out[i] = 1 if values[i] may be in the column chunk, else 0; out.size() == values.size().
    void contains(std::span<const std::int32_t> values, std::span<std::uint8_t> out) const;
    void contains(std::span<const std::int64_t> values, std::span<std::uint8_t> out) const;
    void contains(std::span<const float> values, std::span<std::uint8_t> out) const;
    void contains(std::span<const double> values, std::span<std::uint8_t> out) const;
    void contains(std::span<const std::string_view> values, std::span<std::uint8_t> out) const;
    template <class T>
    bool contains(const T& value) const {
        return contains_hash(hash_value(value));
    }

    // Pre-computed hashes (hash_value): HashForms, key_forms.hpp.

    /// Fraction of bits set.
    double fill_ratio() const noexcept { return filter_.fill_ratio(); }

    /// The probability that a value the filter does not hold passes it, read off the filter's
    /// own bits: the mean over blocks of the product of the eight words' fill. Exact for a
    /// uniformly random hash; needs no count of the values inserted.
    double predicted_fpr() const noexcept;

    /// The underlying split256, k = 8 Filter, e.g. for a DeviceFilter (cuda.hpp) that takes
    /// hash_value() hashes (Input::hashes); from_bitset(filter.bytes()) brings bits back. Its own
    /// key hashing (Filter::insert(key)) is not Parquet's: feed it hashes only.
    const Filter& filter() const noexcept { return filter_; }

    friend bool operator==(const SplitBlockFilter& a, const SplitBlockFilter& b) noexcept {
        return a.filter_ == b.filter_;
    }

private:
    // A split-block filter takes values or their hashes, never keys: only the hash forms
    // exist, and they are its Filter's.
    friend detail::Forms<SplitBlockFilter>;  // implements the hash forms (key_forms.hpp)

    template <class T>
    void insert_values(std::span<const T> values);
    template <class T>
    void contains_values(std::span<const T> values, std::span<std::uint8_t> out) const;

    Filter filter_;  // split256, k = 8: the SBBF block scheme; keys arrive as hash_value()s
};

// ---- reading a Parquet file's metadata ---------------------------------------------------

struct ColumnChunk {
    std::string path;  ///< path_in_schema joined with '.'
    PhysicalType type = PhysicalType::int64;
    bool in_schema = false;  ///< the schema has a leaf at `path`; the next three come from it
    std::int32_t type_length = 0;           ///< bytes per value of a FIXED_LEN_BYTE_ARRAY column
    /// The schema's ConvertedType as Parquet spells it ("UINT_32", "UTF8", "DATE", ...), empty
    /// when the leaf has none. UINT_8 ... UINT_64 mark an INT32 / INT64 column as unsigned.
    std::string converted_type;
    std::int32_t max_definition_level = 0;  ///< from the schema: optional and repeated ancestors
    std::int32_t max_repetition_level = 0;  ///< from the schema: repeated ancestors
    Codec codec = Codec::uncompressed;
    std::int64_t num_values = 0;  ///< values including nulls (definition levels)
    std::int64_t data_page_offset = 0;
    std::optional<std::int64_t> dictionary_page_offset;
    std::int64_t total_compressed_size = 0;  ///< the chunk's pages, headers included
    std::optional<std::int64_t> bloom_filter_offset;  ///< absolute file offset of the header
    std::optional<std::int32_t> bloom_filter_length;  ///< header + bitset, when the writer recorded it
    /// Distinct non-null values, when known: the writer's Statistics.distinct_count, or the
    /// count add_filters() measured and recorded (key_value_metadata distinct_values_key).
    std::optional<std::int64_t> distinct_values;
    bool external = false;   ///< data lives in another file (ColumnChunk.file_path is set)
    bool encrypted = false;  ///< the chunk's pages are encrypted (ColumnChunk.crypto_metadata)
};

/// The ColumnMetaData.key_value_metadata key under which add_filters() records the distinct
/// count it sized a filter for.
inline constexpr std::string_view distinct_values_key = "batchbloom.distinct_values";

struct RowGroup {
    std::int64_t num_rows = 0;
    std::vector<ColumnChunk> columns;
};

struct FileMetadata {
    std::int64_t num_rows = 0;
    std::vector<RowGroup> row_groups;
    /// The file's columns (dotted paths), even when it has no row groups: the schema's leaves,
    /// in schema order; in a file with row groups, the columns of the first one (a well-formed
    /// file has a chunk per leaf in every row group, and a hostile schema of millions of leaves
    /// then costs no memory).
    std::vector<std::string> columns;
    /// The footer is plaintext but the file is encrypted (FileMetaData.encryption_algorithm):
    /// the footer is signed, so it cannot be rewritten.
    bool encrypted = false;
};

/// The most row groups, column chunks (over all row groups) and, in a file of no row groups,
/// schema leaves, counted together, a footer may describe. They are all the parsed metadata keeps per element of the footer's
/// lists (about 200 bytes each, plus the column's path), so parsing a footer takes at most a few hundred
/// MiB whatever its lists declare; a footer over the limit is a FormatError ("... over the
/// limit of 1048576"), raised when the list that crosses it is read, before anything is
/// allocated for it. Writers come nowhere near it: a footer needs about 100 MB to describe a
/// million column chunks.
inline constexpr std::size_t max_footer_entries = std::size_t(1) << 20;

/// The deepest schema a footer may have (groups within groups, the root included); deeper is
/// a FormatError. Schema elements cost no memory however many a footer declares: the schema is
/// walked with only the current path held (and, without row groups, the leaves' paths).
inline constexpr std::size_t max_schema_depth = 1000;

/// Parses a serialized FileMetaData (the footer between the data and the trailing length and
/// "PAR1"). Reads only what it needs and skips every other field; throws FormatError on
/// malformed, truncated or absurdly nested input or beyond the limits above, and never reads
/// outside `footer`. Memory beyond `footer` itself: the row groups, column chunks and leaves it
/// returns, sized by the lists' declared lengths only once those are known to fit both the
/// remaining bytes (every element takes at least one) and max_footer_entries.
FileMetadata parse_file_metadata(std::span<const std::byte> footer);

/// A Parquet file opened for its metadata and Bloom filters; reads only the footer and, on
/// request, one filter at a time (never the column data).
class Reader {
public:
    /// Reads and validates the magic bytes and footer. Throws Error if the file cannot be read,
    /// FormatError if it is not a (plaintext-footer) Parquet file.
    explicit Reader(const std::filesystem::path& path);

    const FileMetadata& metadata() const noexcept { return metadata_; }

    /// The column chunk of `column` (dotted path) in `row_group`; throws Error naming the
    /// available columns if there is no such column, or if the row group is out of range.
    const ColumnChunk& column_chunk(std::size_t row_group, std::string_view column) const;

    /// The chunk's Bloom filter, or nullopt if the writer wrote none. Throws FormatError if the
    /// filter is malformed or lies outside the file.
    std::optional<SplitBlockFilter> bloom_filter(std::size_t row_group, std::string_view column) const;

private:
    std::filesystem::path path_;
    std::uint64_t file_size_ = 0;
    FileMetadata metadata_;
};

// ---- keys of a column -----------------------------------------------------------------------

/// A column's type as messages name it: the physical type, then the converted type if any
/// ("INT32", "INT32, UINT_32", "BYTE_ARRAY, UTF8").
std::string type_name(const ColumnChunk& column);

/// hash_value of an integer key of an INT32 or INT64 column, within the column's range: the
/// physical type's, narrowed by an INT_8 / INT_16 converted type, or [0, 2^bits) for UINT_8 ...
/// UINT_64, whose values above the signed range are stored (and hashed) as their two's-
/// complement bits. Throws Error naming the value, the column and its type (type_name) when the
/// value does not fit or the column holds no integers.
std::uint64_t hash_integer_key(const ColumnChunk& column, std::int64_t value);
std::uint64_t hash_integer_key(const ColumnChunk& column, std::uint64_t value);

/// hash_value of a key written as text, read as a value of the column: a decimal integer for
/// INT32 / INT64 (hash_integer_key), a decimal number for FLOAT / DOUBLE, the text's bytes for
/// BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY. Throws Error naming the key, the column and its type when
/// the text is no such value, and for BOOLEAN / INT96 columns (Parquet defines no hashing).
std::uint64_t hash_text_key(const ColumnChunk& column, std::string_view key);

// ---- adding filters to a file -------------------------------------------------------------

struct AddOptions {
    std::vector<std::string> columns;  ///< dotted paths of the columns to give filters
    /// Target false-positive probability of each filter, for its row group's distinct count.
    double fpp = 0.01;
    /// Size every filter for this many distinct values instead of its row group's own count.
    std::optional<std::uint64_t> ndv;
    /// Rebuild the filters the file already has for these columns (otherwise they are kept and
    /// only the chunks without one get a filter).
    bool replace = false;
    /// Threads decoding column chunks (0: every core). The file written does not depend on it.
    unsigned threads = 0;

    /// Throws Error unless the options can be carried out on some file: at least one column,
    /// none named twice, fpp in (0, 1), ndv (if set) at least 1, threads in [0, max_threads].
    /// add_filters and add_filters_to_dataset call it first, before they read any file.
    void validate() const;
};

/// One filter add_filters() wrote.
struct AddedFilter {
    std::size_t row_group = 0;
    std::string column;
    std::int64_t values = 0;    ///< non-null values in the row group's column chunk
    std::int64_t distinct = 0;  ///< distinct ones among them (what the filter holds)
    /// distinct was counted exactly; past 2^24 distinct values in one chunk it is estimated
    /// from the fill of a filter sized for every value (memory stays bounded).
    bool distinct_exact = true;
    std::uint32_t bytes = 0;    ///< bitset size
    double predicted_fpr = 0;   ///< SplitBlockFilter::predicted_fpr of the filter written
    bool replaced = false;      ///< the chunk had a filter before
};

/// Writes a copy of the Parquet file `in` to `out` in which every column chunk of the named
/// columns has a split-block Bloom filter built from that chunk's own values and sized for its
/// distinct count (or options.ndv) at options.fpp. Everything before the footer is copied byte
/// for byte (so every page and page index stays where it was); the filters follow it, and the
/// footer is re-encoded with each chunk's bloom_filter_offset and bloom_filter_length and the
/// distinct count (key_value_metadata distinct_values_key), every other field as it was.
/// Chunks that have a filter already keep it unless options.replace. `out` is written under a
/// temporary name and renamed into place; it may be `in`, which is then locked (FileLock) from
/// before it is read until it is replaced, so that writers adding filters to one file (in any
/// process: C++, the command-line program, Python) take turns and none loses another's filters.
/// In place with nothing to add, the file is left untouched. Returns the filters written.
///
/// The values are read from the chunk's pages: data pages v1 and v2; PLAIN, dictionary
/// (PLAIN_DICTIONARY / RLE_DICTIONARY), DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
/// DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT encodings; RLE / bit-packed levels; uncompressed,
/// SNAPPY, GZIP, BROTLI, LZ4 (Hadoop-framed or raw), LZ4_RAW and ZSTD pages. Columns of
/// physical type INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
///
/// Throws Error naming the column for a column not in the file's schema (even when it has no
/// row groups), a BOOLEAN or INT96 column, an encrypted file or column, data in another file,
/// an LZO page or an unknown encoding; FormatError for a malformed file. On any error `out` is
/// left as it was.
std::vector<AddedFilter> add_filters(const std::filesystem::path& in, const std::filesystem::path& out,
                                     const AddOptions& options);

// ---- adding filters to a dataset ----------------------------------------------------------

/// What add_filters_to_dataset() did with one file, or an entry of a dataset that could not
/// be listed.
struct DatasetFile {
    enum class Outcome : std::uint8_t {
        added,    ///< rewritten in place with the filters in `filters`
        skipped,  ///< every named column already had a filter in every row group (not replace)
        failed,   ///< left as it was; `error` says why
    };
    std::filesystem::path path;
    /// The path under the directory given that holds it ("year=2024/part-0.parquet": hive
    /// writers name every partition's files alike), or `path` for a file named directly.
    std::string name;
    Outcome outcome = Outcome::failed;
    std::vector<AddedFilter> filters;
    std::string error;
};

/// The Parquet files of a dataset, and the entries that could not be read.
struct DatasetListing {
    /// Each path that is a file, and under each directory (recursively, hive partition
    /// directories `key=value/` included) every file named `*.parquet` or `*.parq`, skipping
    /// names starting with `_` or `.` (`_SUCCESS`, `_common_metadata`, checksum and temporary
    /// files) as Spark and Arrow do. Sorted within each path given; path and name set.
    std::vector<DatasetFile> files;
    /// Entries that are neither listed nor skipped: a subdirectory that cannot be read, an entry
    /// whose type cannot be known (a symbolic link loop), a Parquet-named symbolic link to
    /// nothing. Outcome failed, `error` says why. Symbolic links to directories are not followed.
    std::vector<DatasetFile> unreadable;
};

/// Lists a dataset (DatasetListing). Throws Error for a path given that does not exist, before
/// anything is listed.
DatasetListing dataset_files(std::span<const std::filesystem::path> paths);

/// Called after each file, from the thread that did it but never by two threads at once:
/// the file's result, the files done so far and the total.
using DatasetProgress = std::function<void(const DatasetFile& file, std::size_t done, std::size_t total)>;

/// add_filters(file, file, options) for every file, each rewritten in place atomically (a
/// temporary, then rename: a reader sees the old file or the new one, an interruption leaves
/// the old one) under add_filters' lock. Chunks that have their filter keep it (unless
/// options.replace) and files that have every one are skipped, so running it again after an
/// interruption, or with a column more, does only the work left. Files are done in parallel:
/// options.threads threads in all (0: every core), shared between files and the chunks of each.
/// A file that fails (not Parquet, a column missing, ...) is reported and the others go on.
/// Returns `files` with each outcome set, in the order given.
std::vector<DatasetFile> add_filters_to_dataset(std::vector<DatasetFile> files, const AddOptions& options,
                                                const DatasetProgress& progress = {});

}  // namespace batchbloom::parquet

// The hash forms (key_forms.hpp) are instantiated in the library.
extern template class batchbloom::HashForms<batchbloom::parquet::SplitBlockFilter>;
