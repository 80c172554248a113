#pragma once
// The layouts a batch of keys is read in place from, one alternative of KeySpan each, plus the
// validity bitmap of a chunk whose nulls are skipped. Every layout has size(), operator[] and
// slice(begin, n); for_each_span (keys.hpp) hands them to the filters as uint64, uint32 or
// string_view spans, converting those the filters do not take in small staged chunks.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace batchbloom::python {

/// Byte strings as Arrow stores them: string i is data[offsets[i], offsets[i + 1]).
template <class Offset>
struct PackedStrings {
    const Offset* offsets;
    const unsigned char* data;
    std::size_t n;
    std::size_t size() const { return n; }
    std::string_view operator[](std::size_t i) const {
        return {reinterpret_cast<const char*>(data) + offsets[i], std::size_t(offsets[i + 1] - offsets[i])};
    }
    PackedStrings slice(std::size_t b, std::size_t k) const { return {offsets + b, data, k}; }
};

/// Integers stored in the byte order opposite to this machine's, possibly unaligned.
template <class T>
struct Swapped {
    const unsigned char* data;
    std::size_t n;
    std::size_t size() const { return n; }
    T operator[](std::size_t i) const {
        std::make_unsigned_t<T> v;
        std::memcpy(&v, data + i * sizeof(T), sizeof(T));
        if constexpr (sizeof(T) == 8)
            v = __builtin_bswap64(v);
        else
            v = __builtin_bswap32(v);
        return static_cast<T>(v);
    }
    Swapped slice(std::size_t b, std::size_t k) const { return {data + b * sizeof(T), k}; }
};

/// Integers of 1, 2, 4 or 8 bytes in this machine's order, as 64-bit keys: signed values
/// sign-extended (int8 -1 is the key -1 of int64), unsigned ones zero-extended. Arrow's narrow
/// integer columns and dictionary indices.
struct IntColumn {
    const unsigned char* data;
    std::size_t n;
    unsigned width;
    bool is_signed;
    std::size_t size() const { return n; }
    std::uint64_t operator[](std::size_t i) const {
        const unsigned char* p = data + i * width;
        switch (width) {
            case 1: return is_signed ? widen(static_cast<std::int8_t>(*p)) : *p;
            case 2: return load<std::int16_t, std::uint16_t>(p);
            case 4: return load<std::int32_t, std::uint32_t>(p);
            default: return load<std::int64_t, std::uint64_t>(p);
        }
    }
    IntColumn slice(std::size_t b, std::size_t k) const { return {data + b * width, k, width, is_signed}; }

private:
    static std::uint64_t widen(std::int64_t v) { return static_cast<std::uint64_t>(v); }
    template <class S, class U>
    std::uint64_t load(const unsigned char* p) const {
        U u;
        std::memcpy(&u, p, sizeof u);
        return is_signed ? widen(static_cast<S>(u)) : u;
    }
};

/// Arrow's string_view / binary_view layout: 16-byte views, the string inline when it has up
/// to 12 bytes, else in one of the data buffers.
struct StringViews {
    const unsigned char* views;
    const unsigned char* const* buffers;
    std::size_t n;
    std::size_t size() const { return n; }
    std::string_view operator[](std::size_t i) const {
        const unsigned char* v = views + 16 * i;
        std::int32_t length;
        std::memcpy(&length, v, 4);
        if (length <= 12) return {reinterpret_cast<const char*>(v + 4), std::size_t(length)};
        std::int32_t buffer, offset;
        std::memcpy(&buffer, v + 8, 4);
        std::memcpy(&offset, v + 12, 4);
        return {reinterpret_cast<const char*>(buffers[buffer]) + offset, std::size_t(length)};
    }
    StringViews slice(std::size_t b, std::size_t k) const { return {views + 16 * b, buffers, k}; }
};

/// A dictionary-encoded column: key i is values[indices[i]] (indices checked on import).
template <class T>
struct Dictionary {
    IntColumn indices;
    const T* values;
    std::size_t size() const { return indices.size(); }
    T operator[](std::size_t i) const { return values[indices[i]]; }
    Dictionary slice(std::size_t b, std::size_t k) const { return {indices.slice(b, k), values}; }
};

using KeySpan = std::variant<std::span<const std::uint64_t>, std::span<const std::uint32_t>,
                             std::span<const std::int32_t>, std::span<const std::string_view>,
                             PackedStrings<std::int32_t>, PackedStrings<std::int64_t>, Swapped<std::uint64_t>,
                             Swapped<std::uint32_t>, Swapped<std::int32_t>, IntColumn, StringViews,
                             Dictionary<std::uint64_t>, Dictionary<std::string_view>>;

/// Keys b .. b + n of any layout.
template <class T>
std::span<const T> slice(std::span<const T> s, std::size_t b, std::size_t n) {
    return s.subspan(b, n);
}
template <class K>
K slice(const K& k, std::size_t b, std::size_t n) {
    return k.slice(b, n);
}

/// One chunk of a batch. `valid`, when set, is an Arrow validity bitmap (bit `valid_offset + i`
/// for key i): its nulls are skipped, never inserted and never matched.
struct KeyChunk {
    KeySpan keys;
    const unsigned char* valid = nullptr;
    std::size_t valid_offset = 0;
};

}  // namespace batchbloom::python
