#pragma once
// The 64-byte header every batchbloom file starts with (layout in src/format.cpp and
// src/family/family_file.hpp): its constants and little-endian field access, shared by the
// plain, family and classic file code.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>

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

/// Reads up to n bytes; returns how many arrived (fewer only at the end of the stream).
inline std::size_t read_up_to(std::istream& in, void* dst, std::size_t n) {
    in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in.gcount());
}

}  // namespace batchbloom::io
