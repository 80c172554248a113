#pragma once
// The 64-byte header every batchbloom file starts with, as one codec: FileHeader names its
// fields, encode/decode are the only code that knows their byte offsets (the table is in
// file_header.cpp and docs/format.md), and parse_header is the one parse path every loader
// uses — it checks the header in the order docs/format.md gives and then checks the fields the
// way the header's kind reads them. What depends on a kind's payload (the payload length, the
// meaning of the kind's field at offset 48) is that kind's loader's to check. sniff is the one
// look at an input's first bytes that tells a batchbloom file from a zstd frame or a Spark filter.
#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <span>
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
/// Offset 48 is the kind's own field; it is set by the kind's constructor below and read through
/// the kind's accessor (classic_params, region_bits, stage_count), never as a raw word.
class FileHeader {
public:
    FileKind kind = FileKind::blocked;
    std::uint8_t shape = 0;      ///< Shape; classic: ClassicScheme
    std::uint8_t hash_kind = 0;  ///< HashKind; classic: 0 unless double_hashing
    std::uint8_t k = 0;          ///< classic: reserved, 0 (its k is in the kind's field)
    KeyKinds key_kinds = KeyKinds::not_recorded();
    std::uint64_t seed = 0;
    std::uint64_t blocks = 0;  ///< classic: bits m
    std::uint64_t payload_bytes = 0;
    std::uint64_t payload_hash = 0;  ///< XXH3-64 of the payload

    /// Filter's header (its kind field is reserved, 0).
    static FileHeader blocked(const Params& params, const Hashing& hashing, KeyKinds key_kinds);
    /// CountingFilter's (its kind field is reserved, 0).
    static FileHeader counting(const Params& params, const Hashing& hashing, KeyKinds key_kinds);
    /// DeletableFilter's: the kind field is the bits per region.
    static FileHeader deletable(const Params& params, const Hashing& hashing, KeyKinds key_kinds,
                                std::uint64_t region_bits);
    /// ScalableFilter's: the params and hashing are stage 0's, the kind field the stage count.
    static FileHeader scalable(const Params& stage0, const Hashing& hashing, KeyKinds key_kinds, std::uint64_t stage_count);
    /// ClassicFilter's: the kind field's low 32 bits are k, its high 32 reserved.
    static FileHeader classic(const ClassicParams& params, const ClassicHashing& hashing, KeyKinds key_kinds);

    Params params() const { return Params{static_cast<Shape>(shape), blocks, k}; }
    Hashing hashing() const { return Hashing{static_cast<HashKind>(hash_kind), seed}; }
    ClassicParams classic_params() const { return ClassicParams{blocks, static_cast<std::uint32_t>(kind_field_)}; }
    ClassicHashing classic_hashing() const;
    /// Deletable: the bits per region as recorded (the loader checks them against the params).
    std::uint64_t region_bits() const noexcept { return kind_field_; }
    /// Scalable: the stage count as recorded (the loader checks it against the payload).
    std::uint64_t stage_count() const noexcept { return kind_field_; }

    /// Throws unless the fields are valid as the header's kind reads them (reserved ones zero);
    /// what depends on the payload is the kind's loader's to check.
    void check_fields() const;

private:
    /// The fields every kind on the blocked layout sets alike.
    static FileHeader on_blocked_layout(FileKind kind, const Params& params, const Hashing& hashing, KeyKinds key_kinds);
    friend HeaderBytes encode(const FileHeader& h);
    friend FileHeader decode(const HeaderBytes& b, std::size_t got);
    std::uint64_t kind_field_ = 0;  // offset 48
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

/// What an input's first bytes say it is (up to a header's 64; fewer where the input is shorter),
/// without any other check: the one sniffer every reader of "any filter" asks. `kind` is the
/// header's kind byte where the form is batchbloom and the bytes reach it, else 0.
struct Sniffed {
    FileForm form = FileForm::unknown;
    std::uint8_t kind = 0;
};
Sniffed sniff(std::span<const unsigned char> first_bytes) noexcept;

/// ScalableFilter's 48 bytes of params at the start of its payload (docs/format.md, "Payloads",
/// the scalable row), before the per-stage key counts and blocks.
struct ScalableMeta {
    std::uint64_t initial_capacity = 0;
    double initial_fpr = 0, growth = 0, tightening = 0;
    std::uint64_t stage_count = 0;    ///< must match the header's
    std::uint64_t stage_hashing = 0;  ///< 1: remixed by ScalableFilter::stage_hash; 0: files from before
};
inline constexpr std::size_t scalable_meta_size = 48;
std::array<std::byte, scalable_meta_size> encode(const ScalableMeta& m);
/// `b` holds at least scalable_meta_size bytes; the fields are not checked here.
ScalableMeta decode_scalable_meta(std::span<const std::byte> b);

/// Recomputes, in place, both checksums of a file's header from the bytes as they stand: the
/// payload's over the length the header records (when the file holds that much) and the header's
/// own. For tests and fuzzers that edit fields and want a loader to reach the checks behind the
/// checksums. False if nothing changed: the file is shorter than a header, or was sealed already.
bool reseal(std::span<std::byte> file);
/// Recomputes only the header's own checksum, in place (`header` holds at least its 64 bytes).
void seal_header(std::span<std::byte> header);

/// Reads up to n bytes; returns how many arrived (fewer only at the end of the stream).
inline std::size_t read_up_to(std::istream& in, void* dst, std::size_t n) {
    in.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
    return static_cast<std::size_t>(in.gcount());
}

}  // namespace batchbloom::io
