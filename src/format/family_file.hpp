#pragma once
// The file format shared by the filter family (counting, deletable, scalable). Same 64-byte
// header as a plain filter file (docs/format.md), with the kind byte at offset 10 saying which
// class the payload belongs to, and offset 48 — reserved (zero) in plain files — carrying one
// kind-specific value:
//
//   offset size field
//        0    8 magic "BATCHBLM"
//        8    2 format version (1)
//       10    1 filter kind (FileKind)
//       11    1 block shape     12  1 hash kind     13  1 k
//       14    1 key kinds (0: not recorded; else 0x80 | 1 integers | 2 byte strings)
//       15    1 reserved, zero
//       16    8 hash seed
//       24    8 blocks
//       32    8 payload length in bytes
//       40    8 XXH3-64 of the payload
//       48    8 kind-specific (deletable: bits per region; scalable: stages; counting: zero)
//       56    8 XXH3-64 of bytes 0..55
//       64      payload
//
// Readers validate every header field, and the payload length against what the params
// imply, before they allocate; payloads are read into memory that grows only as data arrives.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <istream>
#include <ostream>
#include <span>
#include <vector>

#include "batchbloom/error.hpp"
#include "batchbloom/file_kind.hpp"
#include "batchbloom/hash.hpp"
#include "batchbloom/key_kinds.hpp"
#include "batchbloom/params.hpp"

namespace batchbloom::detail {

struct FamilyHeader {
    FileKind kind = FileKind::plain;
    Params params;
    Hashing hashing;
    std::uint64_t payload_bytes = 0;
    std::uint64_t payload_hash = 0;  ///< set by the reader; the writer computes it
    std::uint64_t extra = 0;         ///< the kind-specific field at offset 48
    KeyKinds key_kinds = KeyKinds::not_recorded();  ///< offset 14
};

/// Writes the header (with the payload checksum) and then the payload pieces in order.
void write_family(std::ostream& out, const FamilyHeader& h, std::span<const std::span<const std::byte>> payload);

/// Reads a header and checks magic, version, checksum, kind == expected, reserved fields,
/// params and hashing. The payload length is the caller's to check (it depends on the kind).
FamilyHeader read_family_header(std::istream& in, FileKind expected);

/// Reads exactly h.payload_bytes bytes (growing the buffer only as data arrives) and checks
/// them against h.payload_hash.
std::vector<std::byte> read_family_payload(std::istream& in, const FamilyHeader& h);

/// Throws FormatError unless the stream is at its end.
void expect_end(std::istream& in);

/// Opens a file for reading; throws Error naming the path if it cannot.
std::ifstream open_for_load(const std::filesystem::path& path);

/// Opens `path`, calls load(stream), rejects trailing bytes, and prefixes FormatErrors with
/// the path.
template <class T, class Load>
T load_family_file(const std::filesystem::path& path, Load&& load) {
    auto in = open_for_load(path);
    try {
        T value = load(in);
        expect_end(in);
        return value;
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

}  // namespace batchbloom::detail
