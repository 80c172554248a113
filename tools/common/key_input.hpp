#pragma once
// Reading keys for the commands that take key files.
//
// Text input: one key per line. One trailing '\r' is stripped from each line; the newline that
// ends the input does not start another key, but empty lines before it are empty-string keys.
// Whether a line is an integer or a byte-string key is the KeyType's choice (split_keys): a
// "decimal line" is one that is, in full, a decimal integer in [-2^63, 2^64) (negative values
// taken as their two's-complement uint64).
//
// Binary input (--u64): raw little-endian uint64 values, always integer keys; a size that is
// not a multiple of 8 is an error.
//
// Keys are read in batches so that large inputs stream through a bounded amount of memory.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/hash.hpp>

namespace batchbloom::cli {

enum class KeyFormat { text, u64 };

/// Keys per batch of the commands that stream a key input: large enough for the library's bulk
/// calls to pay, small enough for a batch of text keys to stay in the caches.
inline constexpr std::size_t key_batch_size = std::size_t(1) << 16;

/// The integer a text line denotes, or nullopt if the line is a byte-string key.
std::optional<std::uint64_t> parse_integer_key(std::string_view line);

/// One batch of keys. In text mode `lines` holds the keys as they appeared (valid until the
/// next call to KeyReader::next); in u64 mode `values` holds them.
struct KeyBatch {
    KeyFormat format = KeyFormat::text;
    std::vector<std::string_view> lines;
    std::vector<std::uint64_t> values;

    std::size_t size() const { return format == KeyFormat::text ? lines.size() : values.size(); }
    bool empty() const { return size() == 0; }
};

/// How text lines become keys.
enum class KeyType {
    integer,   ///< every line is a decimal integer (any other line is an error)
    string,    ///< every line is a byte string
    per_line,  ///< a decimal line is an integer, any other line a byte string
    both,      ///< per_line, and a decimal line is a byte string too (for filters that hold both kinds)
};

/// "int", "string", "auto" (per_line) or "both".
std::string_view to_string(KeyType type);

/// The keys of a batch by kind: integer j is key int_at[j] of the batch, string j is key
/// str_at[j]. Under KeyType::both a decimal line is in both lists.
struct TypedKeys {
    std::vector<std::uint64_t> ints;
    std::vector<std::size_t> int_at;
    std::vector<std::string_view> strings;
    std::vector<std::size_t> str_at;
    std::size_t size = 0;      ///< keys in the batch
    std::size_t decimal = 0;   ///< text lines that were read as integers
    std::uint64_t first_line = 0;  ///< the line (or value) number of the batch's first key, from 1
    std::string source;            ///< the input's name in messages (KeyReader::name)
};

class KeyReader;

/// Replaces `out` with the keys of `batch` (the batch `reader` returned last) typed by `type`.
/// Throws std::runtime_error naming the line for a line that is not an integer under
/// KeyType::integer.
void split_keys(const KeyBatch& batch, KeyType type, const KeyReader& reader, TypedKeys& out);

/// Calls on_run(span of integers) and on_run(span of strings) over runs of consecutive keys of
/// one kind, in batch order (for operations whose result depends on the order).
template <class OnRun>
void for_each_run(const TypedKeys& keys, OnRun&& on_run) {
    std::size_t i = 0, s = 0;
    while (i < keys.ints.size() || s < keys.strings.size()) {
        if (s == keys.strings.size() || (i < keys.ints.size() && keys.int_at[i] <= keys.str_at[s])) {
            const std::size_t begin = i;
            while (i < keys.ints.size() && (s == keys.strings.size() || keys.int_at[i] <= keys.str_at[s])) ++i;
            on_run(std::span<const std::uint64_t>(keys.ints).subspan(begin, i - begin));
        } else {
            const std::size_t begin = s;
            while (s < keys.strings.size() && (i == keys.ints.size() || keys.str_at[s] < keys.int_at[i])) ++s;
            on_run(std::span<const std::string_view>(keys.strings).subspan(begin, s - begin));
        }
    }
}

/// Appends the key as the user wrote it (text mode) or its decimal value (u64 mode), then '\n'.
void append_key_line(const KeyBatch& batch, std::size_t i, std::string& out);

class KeyReader {
public:
    /// `source` is a path, or "-" for stdin. Throws Error if the file cannot be opened, or, for
    /// a regular file in u64 mode, if its size is not a multiple of 8.
    KeyReader(std::string_view source, KeyFormat format);
    ~KeyReader();
    KeyReader(const KeyReader&) = delete;
    KeyReader& operator=(const KeyReader&) = delete;

    /// Replaces `batch` with up to `max_keys` (>= 1) further keys; returns false (and an empty
    /// batch) at the end of the input. Throws Error on a read error or a trailing partial value.
    bool next(KeyBatch& batch, std::size_t max_keys);

    /// Total number of keys returned so far.
    std::uint64_t keys_read() const { return keys_read_; }
    /// Bytes read from the input so far, and its size when known (a regular file).
    std::uint64_t bytes_read() const { return bytes_read_; }
    std::optional<std::uint64_t> total_bytes() const { return total_bytes_; }
    /// "stdin" or the path in quotes, for messages.
    const std::string& name() const { return name_; }

private:
    bool fill();  // reads more bytes into buf_; false at end of input
    bool next_text(KeyBatch& batch, std::size_t max_keys);
    bool next_u64(KeyBatch& batch, std::size_t max_keys);

    std::FILE* file_ = nullptr;
    bool owns_file_ = false;
    bool eof_ = false;
    KeyFormat format_;
    std::string name_;
    std::string buf_;      // bytes read but not yet consumed start at pos_
    std::size_t pos_ = 0;
    std::uint64_t bytes_read_ = 0;
    std::uint64_t keys_read_ = 0;
    std::optional<std::uint64_t> total_bytes_;
};

}  // namespace batchbloom::cli
