#pragma once
// The 64-byte header every batchbloom file starts with (layout: docs/format.md): its constants
// and little-endian field access, shared by the plain, family and classic file code.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <string>

#include "batchbloom/error.hpp"
#include "batchbloom/hash.hpp"
#include "batchbloom/key_kinds.hpp"

namespace batchbloom::io {

inline constexpr std::array<char, 8> magic{'B', 'A', 'T', 'C', 'H', 'B', 'L', 'M'};
inline constexpr std::uint16_t format_version = 1;
inline constexpr std::size_t header_size = 64;
using Header = std::array<unsigned char, header_size>;

// Fields are stored as the host's bytes: batchbloom builds on little-endian machines only.
template <class T>
void put(Header& h, std::size_t off, T v) {
    std::memcpy(h.data() + off, &v, sizeof v);
}

template <class T>
T get(const Header& h, std::size_t off) {
    T v;
    std::memcpy(&v, h.data() + off, sizeof v);
    return v;
}

/// Byte 14 of every kind's header: 0 = key kinds not recorded (files written before the
/// record existed), else 0x80 | 1 (integers) | 2 (byte strings).
inline constexpr std::size_t key_kinds_offset = 14;

inline std::uint8_t encode_key_kinds(const KeyKinds& k) {
    if (!k.recorded) return 0;
    return static_cast<std::uint8_t>(0x80 | (k.integers ? 1 : 0) | (k.bytes ? 2 : 0));
}

inline KeyKinds decode_key_kinds(std::uint8_t b) {
    if (b == 0) return KeyKinds::not_recorded();
    if ((b & 0x80) == 0 || (b & 0x7C) != 0)
        throw FormatError("corrupt header: invalid key-kinds byte " + std::to_string(unsigned(b)));
    return {true, (b & 1) != 0, (b & 2) != 0};
}

/// Apache Spark's serialized BloomFilter starts with its version, a big-endian int32 1 or 2;
/// `b` holds at least 4 bytes. (Never the start of a batchbloom header or a zstd frame.)
inline bool is_spark_version(const unsigned char* b) {
    return b[0] == 0 && b[1] == 0 && b[2] == 0 && (b[3] == 1 || b[3] == 2);
}

/// Reads up to n bytes; returns how many arrived (fewer only at the end of the stream).
inline std::size_t read_up_to(std::istream& in, void* dst, std::size_t n) {
    in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in.gcount());
}

/// What every kind's header must pass, given the `got` bytes read into h: not empty, the magic,
/// complete, this format version, the header checksum. Throws FormatError naming the first
/// failure; the kind and its fields are the caller's to check.
inline void check_header(const Header& h, std::size_t got) {
    if (got == 0) throw FormatError("empty input: not a batchbloom filter");
    if (std::memcmp(h.data(), magic.data(), std::min(got, magic.size())) != 0)
        throw FormatError("not a batchbloom filter (bad magic)");
    if (got < header_size)
        throw FormatError("truncated header: " + std::to_string(got) + " of " + std::to_string(header_size) +
                          " bytes");
    if (const auto v = get<std::uint16_t>(h, 8); v != format_version)
        throw FormatError("unsupported format version " + std::to_string(v) + " (this build reads version " +
                          std::to_string(format_version) + ")");
    if (get<std::uint64_t>(h, 56) != xxh3_64(h.data(), 56, 0))
        throw FormatError("corrupt header: header checksum mismatch");
}

}  // namespace batchbloom::io
