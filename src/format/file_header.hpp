#pragma once
// The 64-byte header every batchbloom file starts with, as one codec: FileHeader names its
// fields, encode/decode are the only code that knows their byte offsets (the table is in
// file_header.cpp and docs/format.md), and parse_header is the one parse path every loader
// uses — it checks the header in the order docs/format.md gives and then checks the fields the
// way the header's kind reads them. What depends on a kind's payload (the payload length, the
// kind-specific field at offset 48) is that kind's loader's to check.
#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

#include "batchbloom/classic.hpp"
#include "batchbloom/file_kind.hpp"
#include "batchbloom/hash.hpp"
#include "batchbloom/key_kinds.hpp"
#include "batchbloom/params.hpp"

namespace batchbloom::io {

inline constexpr std::array<char, 8> magic{'B', 'A', 'T', 'C', 'H', 'B', 'L', 'M'};
inline constexpr std::uint16_t format_version = 1;
inline constexpr std::size_t header_size = 64;
using HeaderBytes = std::array<unsigned char, header_size>;

/// The header's fields (magic, version and the header checksum are the codec's own). The kinds on
/// the blocked layout read them as Params/Hashing, the classic kind as ClassicParams/ClassicHashing.
struct FileHeader {
    FileKind kind = FileKind::blocked;
    std::uint8_t shape = 0;      ///< Shape; classic: ClassicScheme
    std::uint8_t hash_kind = 0;  ///< HashKind; classic: 0 unless double_hashing
    std::uint8_t k = 0;          ///< classic: reserved, 0 (its k is in `extra`)
    KeyKinds key_kinds = KeyKinds::not_recorded();
    std::uint64_t seed = 0;
    std::uint64_t blocks = 0;  ///< classic: bits m
    std::uint64_t payload_bytes = 0;
    std::uint64_t payload_hash = 0;  ///< XXH3-64 of the payload
    std::uint64_t extra = 0;         ///< kind-specific (docs/format.md); classic: k in the low 32 bits

    /// The header of a kind on the blocked layout (blocked, counting, deletable, scalable) for these params and hashing.
    static FileHeader blocked(FileKind kind, const Params& params, const Hashing& hashing, KeyKinds key_kinds);
    /// The classic kind's header.
    static FileHeader classic(const ClassicParams& params, const ClassicHashing& hashing, KeyKinds key_kinds);

    Params params() const { return Params{static_cast<Shape>(shape), blocks, k}; }
    Hashing hashing() const { return Hashing{static_cast<HashKind>(hash_kind), seed}; }
    ClassicParams classic_params() const { return ClassicParams{blocks, static_cast<std::uint32_t>(extra)}; }
    ClassicHashing classic_hashing() const;
};

/// The header's bytes, with magic, version and header checksum.
HeaderBytes encode(const FileHeader& h);

/// Reads `got` bytes of a header (fewer than 64 when the input ended) and checks, in this
/// order: not empty, the magic, complete, the version, the header checksum, a known kind, the
/// reserved byte, the key-kinds byte. Throws FormatError naming the first failure.
FileHeader decode(const HeaderBytes& b, std::size_t got);

/// decode, then: the kind is `expected` ("the file holds a counting filter, not a blocked
/// filter"), and the fields are valid as that kind reads them ("invalid header: ...").
FileHeader parse_header(const HeaderBytes& b, std::size_t got, FileKind expected);

/// parse_header for a blocked filter's file (Filter::load and Filter::map), the payload length
/// against the params included.
FileHeader parse_blocked_header(const HeaderBytes& b, std::size_t got);

/// Reads the header from `in` and parses it.
FileHeader read_header(std::istream& in, FileKind expected);

/// Throws FormatError unless the header's payload length is `expected`; `what` says what the
/// parameters imply ("37 blocks of 64 bytes").
void check_payload_length(const FileHeader& h, std::uint64_t expected, const std::string& what);

/// The kind byte of what looks like a batchbloom header (the magic and the kind byte within
/// the `got` bytes), without any other check; 0 (no kind) if it does not look like one.
std::uint8_t peek_kind(const unsigned char* b, std::size_t got);

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

}  // namespace batchbloom::io
