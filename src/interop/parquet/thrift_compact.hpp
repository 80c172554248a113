#pragma once
// A strict reader of the Thrift compact protocol, limited to what Parquet's footer and Bloom
// filter header need. Every read is bounds-checked against the input span, lists cannot claim
// more elements than bytes remain, nesting is bounded, and any violation throws FormatError,
// so malformed or hostile files cannot make the parser read out of bounds or allocate wildly.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

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

}  // namespace batchbloom::parquet::thrift
