#include "interop/parquet/thrift_compact.hpp"

#include <limits>

#include "batchbloom/error.hpp"

namespace batchbloom::parquet::thrift {

namespace {

bool is_value_type(std::uint8_t t) { return t >= 1 && t <= 12; }

}  // namespace

void CompactReader::fail(const std::string& why) const {
    throw FormatError(std::string(what_) + ": " + why + " (at byte " + std::to_string(pos_) + ")");
}

std::uint8_t CompactReader::byte() {
    if (pos_ >= data_.size()) fail("truncated");
    return static_cast<std::uint8_t>(data_[pos_++]);
}

std::uint64_t CompactReader::varint(unsigned max_bytes) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; ++i) {
        const std::uint8_t b = byte();
        v |= std::uint64_t(b & 0x7F) << (7 * i);
        if ((b & 0x80) == 0) return v;
    }
    fail("varint longer than " + std::to_string(max_bytes) + " bytes");
}

std::int64_t CompactReader::zigzag(unsigned max_bytes) {
    const std::uint64_t v = varint(max_bytes);
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

void CompactReader::expect(Type actual, Type wanted, Type alternative) const {
    if (actual != wanted && actual != alternative)
        fail("unexpected Thrift type " + std::to_string(static_cast<unsigned>(actual)) + " (expected " +
             std::to_string(static_cast<unsigned>(wanted)) + ")");
}

void CompactReader::enter() {
    if (depth_ + 1 >= max_depth) fail("nested deeper than " + std::to_string(max_depth) + " levels");
    ++depth_;
    last_id_[depth_] = 0;
}

void CompactReader::begin_struct() { enter(); }

bool CompactReader::next_field(Field& field) {
    const std::uint8_t b = byte();
    if (b == 0) {
        if (depth_ == 0) fail("STOP outside a struct");
        --depth_;
        return false;
    }
    const std::uint8_t type = b & 0x0F;
    if (!is_value_type(type)) fail("invalid field type " + std::to_string(type));
    const unsigned delta = b >> 4;
    std::int64_t id;
    if (delta != 0) {
        id = std::int64_t(last_id_[depth_]) + delta;
    } else {
        id = zigzag(3);
    }
    if (id < std::numeric_limits<std::int16_t>::min() || id > std::numeric_limits<std::int16_t>::max())
        fail("field id out of range");
    last_id_[depth_] = static_cast<std::int16_t>(id);
    field = {static_cast<std::int16_t>(id), static_cast<Type>(type)};
    return true;
}

std::int32_t CompactReader::read_i32(Type type) {
    expect(type, Type::i32, Type::i32);
    const std::int64_t v = zigzag(5);
    if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
        fail("i32 out of range");
    return static_cast<std::int32_t>(v);
}

std::int64_t CompactReader::read_i64(Type type) {
    expect(type, Type::i64, Type::i64);
    return zigzag(10);
}

std::string_view CompactReader::read_binary(Type type) {
    expect(type, Type::binary, Type::binary);
    const std::uint64_t n = varint(5);
    if (n > data_.size() - pos_) fail("string of " + std::to_string(n) + " bytes runs past the end");
    const auto* p = reinterpret_cast<const char*>(data_.data() + pos_);
    pos_ += static_cast<std::size_t>(n);
    return {p, static_cast<std::size_t>(n)};
}

ListHeader CompactReader::read_list_header(Type type) {
    expect(type, Type::list, Type::set);
    const std::uint8_t b = byte();
    std::uint8_t element = b & 0x0F;
    if (!is_value_type(element)) fail("invalid list element type " + std::to_string(element));
    if (element == static_cast<std::uint8_t>(Type::bool_false)) element = static_cast<std::uint8_t>(Type::bool_true);
    std::uint64_t n = b >> 4;
    if (n == 15) n = varint(5);
    // Every element takes at least one byte, so a larger count is a lie that would only make
    // callers reserve memory for nothing.
    if (n > data_.size() - pos_) fail("list of " + std::to_string(n) + " elements runs past the end");
    return {static_cast<Type>(element), static_cast<std::size_t>(n)};
}

void CompactReader::skip(Type type) {
    switch (type) {
        case Type::bool_true:
        case Type::bool_false:
            return;  // a field's boolean lives in its header; a list element's is read below
        case Type::i8: byte(); return;
        case Type::i16: zigzag(3); return;
        case Type::i32: read_i32(type); return;
        case Type::i64: zigzag(10); return;
        case Type::dbl:
            if (data_.size() - pos_ < 8) fail("truncated double");
            pos_ += 8;
            return;
        case Type::binary: read_binary(type); return;
        case Type::list:
        case Type::set: {
            const ListHeader h = read_list_header(type);
            enter();
            for (std::size_t i = 0; i < h.size; ++i) {
                if (h.element == Type::bool_true) byte();
                else skip(h.element);
            }
            --depth_;
            return;
        }
        case Type::map: {
            const std::uint64_t n = varint(5);
            if (n == 0) return;
            const std::uint8_t kv = byte();
            const auto key = static_cast<std::uint8_t>(kv >> 4), value = static_cast<std::uint8_t>(kv & 0x0F);
            if (!is_value_type(key) || !is_value_type(value)) fail("invalid map element type");
            if (n > (data_.size() - pos_) / 2) fail("map of " + std::to_string(n) + " entries runs past the end");
            enter();
            for (std::uint64_t i = 0; i < n; ++i) {
                for (const std::uint8_t t : {key, value}) {
                    if (t <= static_cast<std::uint8_t>(Type::bool_false)) byte();
                    else skip(static_cast<Type>(t));
                }
            }
            --depth_;
            return;
        }
        case Type::structure: {
            begin_struct();
            Field f;
            while (next_field(f)) skip(f.type);
            return;
        }
        case Type::stop: break;
    }
    fail("cannot skip Thrift type " + std::to_string(static_cast<unsigned>(type)));
}

std::span<const std::byte> CompactReader::skip_raw(Type type) {
    const std::size_t start = pos_;
    skip(type);
    return data_.subspan(start, pos_ - start);
}

void CompactWriter::varint(std::uint64_t v) {
    while (v >= 0x80) {
        byte(static_cast<std::uint8_t>(v | 0x80));
        v >>= 7;
    }
    byte(static_cast<std::uint8_t>(v));
}

void CompactWriter::zigzag(std::int64_t v) {
    varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63));
}

void CompactWriter::begin_struct() { last_id_.push_back(0); }

void CompactWriter::end_struct() {
    byte(0);
    last_id_.pop_back();
}

void CompactWriter::field(std::int16_t id, Type type) {
    std::int16_t& last = last_id_.back();
    const auto t = static_cast<std::uint8_t>(type);
    // Short form: the id as a delta of 1..15 from the previous field; otherwise the id itself.
    if (id > last && id - last <= 15) {
        byte(static_cast<std::uint8_t>((id - last) << 4 | t));
    } else {
        byte(t);
        zigzag(id);
    }
    last = id;
}

void CompactWriter::binary(std::string_view bytes) {
    varint(bytes.size());
    const auto* p = reinterpret_cast<const std::byte*>(bytes.data());
    out_.insert(out_.end(), p, p + bytes.size());
}

void CompactWriter::list_header(Type element, std::size_t size) {
    const auto t = static_cast<std::uint8_t>(element);
    if (size < 15) {
        byte(static_cast<std::uint8_t>(size << 4 | t));
    } else {
        byte(static_cast<std::uint8_t>(0xF0 | t));
        varint(size);
    }
}

}  // namespace batchbloom::parquet::thrift
