#pragma once
// Reading keys for `build` and `query`.
//
// Text input: one key per line. A line that is, in full, a decimal integer in [-2^63, 2^64)
// is an integer key (negative values taken as their two's-complement uint64); every other line
// is a byte-string key. One trailing '\r' is stripped from each line; the newline that ends the
// input does not start another key, but empty lines before it are empty-string keys.
//
// Binary input (--u64): raw little-endian uint64 values; a size that is not a multiple of 8 is
// an error.
//
// Keys are read in batches so that large inputs stream through a bounded amount of memory.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <batchbloom/hash.hpp>
#include <batchbloom/key_kinds.hpp>

namespace batchbloom::cli {

enum class KeyFormat { text, u64 };

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

/// Appends the hash of every key of `batch` under `hashing` to `out` (integer lines are hashed
/// as integers, other lines as byte strings); returns the kinds of the batch's keys, for the
/// filter's record (add_key_kinds).
KeyKinds append_hashes(const KeyBatch& batch, const Hashing& hashing, std::vector<std::uint64_t>& out);

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
};

}  // namespace batchbloom::cli
