// Keys of a column: a value the user gives (an integer, a line of text) turned into the hash a
// Parquet reader computes for the column's stored value, or an error that names the value and
// the column's type.
#include <charconv>
#include <limits>
#include <string>

#include "batchbloom/parquet.hpp"
#include "interop/parquet/raw_reads.hpp"

namespace batchbloom::parquet {

namespace {

struct IntRange {
    std::int64_t min;  // the smallest signed value, or 0 for an unsigned column
    std::uint64_t max;
};

// The values an integer column holds, from its physical and converted type.
IntRange int_range(const ColumnChunk& c) {
    const std::string& t = c.converted_type;
    if (c.type == PhysicalType::int32) {
        if (t == "INT_8") return {-128, 127};
        if (t == "INT_16") return {-32768, 32767};
        if (t == "UINT_8") return {0, 255};
        if (t == "UINT_16") return {0, 65535};
        if (t == "UINT_32") return {0, std::numeric_limits<std::uint32_t>::max()};
        return {std::numeric_limits<std::int32_t>::min(), std::uint64_t(std::numeric_limits<std::int32_t>::max())};
    }
    if (t == "UINT_64") return {0, std::numeric_limits<std::uint64_t>::max()};
    return {std::numeric_limits<std::int64_t>::min(), std::uint64_t(std::numeric_limits<std::int64_t>::max())};
}

[[noreturn]] void does_not_fit(const ColumnChunk& c, const std::string& value) {
    throw Error("value " + value + " does not fit column " + quoted(c.path) + " (" + type_name(c) + ")");
}

void require_integers(const ColumnChunk& c, const std::string& value) {
    if (c.type != PhysicalType::int32 && c.type != PhysicalType::int64)
        throw Error("value " + value + " (an integer) cannot be a key of " + type_name(c) + " column " + quoted(c.path));
}

// The stored bits of an in-range value: its two's complement at the column's width.
std::uint64_t hash_bits(const ColumnChunk& c, std::uint64_t bits) {
    if (c.type == PhysicalType::int32) return hash_value(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    return hash_value(static_cast<std::int64_t>(bits));
}

template <class T>
bool parse(std::string_view text, T& v) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

std::string type_name(const ColumnChunk& column) {
    std::string name(to_string(column.type));
    if (!column.converted_type.empty()) name += ", " + column.converted_type;
    return name;
}

std::uint64_t hash_integer_key(const ColumnChunk& column, std::int64_t value) {
    if (value >= 0) return hash_integer_key(column, static_cast<std::uint64_t>(value));
    require_integers(column, std::to_string(value));
    if (value < int_range(column).min) does_not_fit(column, std::to_string(value));
    return hash_bits(column, static_cast<std::uint64_t>(value));
}

std::uint64_t hash_integer_key(const ColumnChunk& column, std::uint64_t value) {
    require_integers(column, std::to_string(value));
    if (value > int_range(column).max) does_not_fit(column, std::to_string(value));
    return hash_bits(column, value);
}

std::uint64_t hash_text_key(const ColumnChunk& column, std::string_view key) {
    const auto invalid = [&]() -> std::uint64_t {
        throw Error("key " + quoted(std::string(key)) + " is not a value of " + type_name(column) + " column " +
                    quoted(column.path));
    };
    switch (column.type) {
        case PhysicalType::int32:
        case PhysicalType::int64: {
            if (std::int64_t v; !key.empty() && key.front() == '-' && parse(key, v)) return hash_integer_key(column, v);
            if (std::uint64_t v; parse(key, v)) return hash_integer_key(column, v);
            // Digits beyond 64 bits are a number, just not one the column holds.
            const auto digits = key.substr(!key.empty() && key.front() == '-' ? 1 : 0);
            if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos)
                does_not_fit(column, std::string(key));
            return invalid();
        }
        case PhysicalType::float32:
            if (float v; parse(key, v)) return hash_value(v);
            return invalid();
        case PhysicalType::float64:
            if (double v; parse(key, v)) return hash_value(v);
            return invalid();
        case PhysicalType::byte_array:
        case PhysicalType::fixed_len_byte_array: return hash_value(key);
        default: break;
    }
    throw Error("column " + quoted(column.path) + " is " + type_name(column) +
                ", for which Parquet defines no Bloom filter hashing");
}

}  // namespace batchbloom::parquet
