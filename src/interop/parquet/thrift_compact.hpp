#pragma once
// The Thrift compact protocol, limited to what Parquet's footer, page headers and Bloom filter
// header need. The reader is strict: every read is bounds-checked against the input span, lists
// cannot claim more elements than bytes remain, nesting is bounded, and any violation throws
// FormatError, so malformed or hostile files cannot make the parser read out of bounds or
// allocate wildly. The writer produces what the reader (and every Thrift implementation) reads;
// together they re-encode a footer, copying the fields batchbloom does not change as raw bytes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace batchbloom::parquet::thrift {

/// Compact-protocol type codes (the low nibble of a field header).
enum class Type : std::uint8_t {
    stop = 0,
    bool_true = 1,
    bool_false = 2,
    i8 = 3,
    i16 = 4,
    i32 = 5,
    i64 = 6,
    dbl = 7,
    binary = 8,
    list = 9,
    set = 10,
    map = 11,
    structure = 12,
};

struct Field {
    std::int16_t id = 0;
    Type type = Type::stop;
};

struct ListHeader {
    Type element = Type::stop;
    std::size_t size = 0;
};

class CompactReader {
public:
    /// `what` names the structure being read in error messages ("Parquet footer", ...).
    CompactReader(std::span<const std::byte> data, std::string_view what) : data_(data), what_(what) {}

    std::size_t position() const noexcept { return pos_; }

    /// Enter a struct: call next_field until it returns false (the STOP that ends the struct).
    void begin_struct();
    bool next_field(Field& field);

    // Values; each checks that `type` (the field's or list element's type) is the one expected.
    std::int32_t read_i32(Type type);
    std::int64_t read_i64(Type type);
    std::string_view read_binary(Type type);
    ListHeader read_list_header(Type type);
    /// Skips one value of `type`, recursively for containers.
    void skip(Type type);
    /// Skips one value of `type` and returns its encoding, which a CompactWriter can copy
    /// verbatim after a field or list header (a value's bytes never depend on what precedes it).
    std::span<const std::byte> skip_raw(Type type);

    [[noreturn]] void fail(const std::string& why) const;

private:
    std::uint8_t byte();
    std::uint64_t varint(unsigned max_bytes);
    std::int64_t zigzag(unsigned max_bytes);
    void expect(Type actual, Type wanted, Type alternative) const;
    void enter();

    std::span<const std::byte> data_;
    std::string_view what_;
    std::size_t pos_ = 0;
    unsigned depth_ = 0;
    // Field ids are deltas from the previous field of the same struct, one entry per open struct.
    static constexpr unsigned max_depth = 32;
    std::int16_t last_id_[max_depth] = {};
};

class CompactWriter {
public:
    explicit CompactWriter(std::vector<std::byte>& out) : out_(out) {}

    /// Enter a struct; end_struct writes its STOP.
    void begin_struct();
    void end_struct();
    /// A field header; a boolean field's value is its type (bool_true / bool_false).
    void field(std::int16_t id, Type type);

    // Values, after their field or list header.
    void i32(std::int32_t v) { zigzag(v); }
    void i64(std::int64_t v) { zigzag(v); }
    void binary(std::string_view bytes);
    void list_header(Type element, std::size_t size);
    void raw(std::span<const std::byte> bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }

    // Whole fields.
    void i32_field(std::int16_t id, std::int32_t v) { field(id, Type::i32), i32(v); }
    void i64_field(std::int16_t id, std::int64_t v) { field(id, Type::i64), i64(v); }

private:
    void byte(std::uint8_t b) { out_.push_back(std::byte{b}); }
    void varint(std::uint64_t v);
    void zigzag(std::int64_t v);

    std::vector<std::byte>& out_;
    std::vector<std::int16_t> last_id_;  // one entry per open struct
};

}  // namespace batchbloom::parquet::thrift
