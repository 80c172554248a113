#include "format/file_header.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include "batchbloom/error.hpp"

namespace batchbloom::io {

namespace {

// ---- the byte layout (docs/format.md, "The header") -----------------------------------------
// The struct's natural layout is the table of offsets: no padding, every field at its own
// alignment, pinned by the static_assert. Fields are the host's bytes: batchbloom builds on
// little-endian machines only.
struct Layout {
    char magic[8];                                                   // 0
    std::uint16_t version;                                           // 8
    std::uint8_t kind, shape, hash_kind, k, key_kinds, reserved;     // 10 to 15
    std::uint64_t seed, blocks, payload_bytes, payload_hash, extra;  // 16 to 48 (8 each)
    std::uint64_t header_hash;                                       // 56: XXH3-64 of bytes 0..55
};
static_assert(sizeof(Layout) == header_size && offsetof(Layout, version) == 8 && offsetof(Layout, kind) == 10 &&
              offsetof(Layout, reserved) == 15 && offsetof(Layout, seed) == 16 && offsetof(Layout, blocks) == 24 &&
              offsetof(Layout, payload_bytes) == 32 && offsetof(Layout, payload_hash) == 40 &&
              offsetof(Layout, extra) == 48 && offsetof(Layout, header_hash) == 56);
constexpr std::size_t hashed_bytes = offsetof(Layout, header_hash);

// Key kinds: 0 = not recorded (files written before the record existed), else
// 0x80 | 1 (integers) | 2 (byte strings).
std::uint8_t encode_key_kinds(const KeyKinds& k) {
    if (!k.recorded) return 0;
    return static_cast<std::uint8_t>(0x80 | (k.integers ? 1 : 0) | (k.bytes ? 2 : 0));
}

KeyKinds decode_key_kinds(std::uint8_t b) {
    if (b == 0) return KeyKinds::not_recorded();
    if ((b & 0x80) == 0 || (b & 0x7C) != 0)
        throw FormatError("corrupt header: invalid key-kinds byte " + std::to_string(unsigned(b)));
    return {true, (b & 1) != 0, (b & 2) != 0};
}

bool known(FileKind k) {
    return k == FileKind::blocked || k == FileKind::counting || k == FileKind::deletable || k == FileKind::scalable ||
           k == FileKind::classic;
}

[[noreturn]] void reserved_not_zero() { throw FormatError("corrupt header: reserved fields are not zero"); }

// The fields as the header's kind reads them; reserved ones must be zero.
void check_fields(const FileHeader& h) {
    switch (h.kind) {
        case FileKind::blocked:
        case FileKind::counting:
            if (h.extra != 0) reserved_not_zero();
            [[fallthrough]];
        case FileKind::deletable:  // offset 48: bits per region, the loader's to check
        case FileKind::scalable:   // offset 48: stage count, likewise
            h.params().validate();
            validate(h.hashing());
            return;
        case FileKind::classic: {
            if (h.k != 0 || (h.extra >> 32) != 0) reserved_not_zero();
            const ClassicHashing hashing = h.classic_hashing();
            if (hashing.scheme != ClassicScheme::double_hashing && h.hash_kind != 0)
                throw FormatError("corrupt header: hash kind set for a Spark scheme");
            validate(hashing, h.classic_params());
            return;
        }
    }
}

}  // namespace

FileHeader FileHeader::blocked(FileKind kind, const Params& params, const Hashing& hashing, KeyKinds key_kinds) {
    FileHeader h;
    h.kind = kind;
    h.shape = static_cast<std::uint8_t>(params.shape);
    h.hash_kind = static_cast<std::uint8_t>(hashing.kind);
    h.k = static_cast<std::uint8_t>(params.k);
    h.key_kinds = key_kinds;
    h.seed = hashing.seed;
    h.blocks = params.blocks;
    return h;
}

FileHeader FileHeader::classic(const ClassicParams& params, const ClassicHashing& hashing, KeyKinds key_kinds) {
    FileHeader h;
    h.kind = FileKind::classic;
    h.shape = static_cast<std::uint8_t>(hashing.scheme);
    h.hash_kind = hashing.scheme == ClassicScheme::double_hashing ? static_cast<std::uint8_t>(hashing.kind) : 0;
    h.key_kinds = key_kinds;
    h.seed = hashing.seed;
    h.blocks = params.bits;
    h.extra = params.k;
    return h;
}

ClassicHashing FileHeader::classic_hashing() const {
    const auto scheme = static_cast<ClassicScheme>(shape);
    // Spark schemes hash with their own Murmur3; the header leaves the hash kind 0.
    return ClassicHashing{
        scheme, scheme == ClassicScheme::double_hashing ? static_cast<HashKind>(hash_kind) : HashKind::xxh3, seed};
}

HeaderBytes encode(const FileHeader& h) {
    Layout l{};
    std::memcpy(l.magic, magic.data(), magic.size());
    l.version = format_version;
    l.kind = static_cast<std::uint8_t>(h.kind);
    l.shape = h.shape;
    l.hash_kind = h.hash_kind;
    l.k = h.k;
    l.key_kinds = encode_key_kinds(h.key_kinds);
    l.seed = h.seed;
    l.blocks = h.blocks;
    l.payload_bytes = h.payload_bytes;
    l.payload_hash = h.payload_hash;
    l.extra = h.extra;
    l.header_hash = xxh3_64(&l, hashed_bytes, 0);
    HeaderBytes b;
    std::memcpy(b.data(), &l, header_size);
    return b;
}

FileHeader decode(const HeaderBytes& b, std::size_t got) {
    if (got == 0) throw FormatError("empty input: not a batchbloom filter");
    if (std::memcmp(b.data(), magic.data(), std::min(got, magic.size())) != 0)
        throw FormatError("not a batchbloom filter (bad magic)");
    if (got < header_size)
        throw FormatError("truncated header: " + std::to_string(got) + " of " + std::to_string(header_size) + " bytes");
    Layout l;
    std::memcpy(&l, b.data(), header_size);
    if (l.version != format_version)
        throw FormatError("unsupported format version " + std::to_string(l.version) + " (this build reads version " +
                          std::to_string(format_version) + ")");
    if (l.header_hash != xxh3_64(b.data(), hashed_bytes, 0))
        throw FormatError("corrupt header: header checksum mismatch");
    const auto kind = static_cast<FileKind>(l.kind);
    if (!known(kind)) throw FormatError("unsupported filter kind " + std::to_string(l.kind));
    if (l.reserved != 0) reserved_not_zero();
    return FileHeader{.kind = kind,
                      .shape = l.shape,
                      .hash_kind = l.hash_kind,
                      .k = l.k,
                      .key_kinds = decode_key_kinds(l.key_kinds),
                      .seed = l.seed,
                      .blocks = l.blocks,
                      .payload_bytes = l.payload_bytes,
                      .payload_hash = l.payload_hash,
                      .extra = l.extra};
}

FileHeader parse_header(const HeaderBytes& b, std::size_t got, FileKind expected) {
    const FileHeader h = decode(b, got);
    if (h.kind != expected)
        throw FormatError("the file holds a " + std::string(to_string(h.kind)) + " filter, not a " +
                          std::string(to_string(expected)) + " filter");
    try {
        check_fields(h);
    } catch (const FormatError&) {
        throw;
    } catch (const Error& e) {
        throw FormatError(std::string("invalid header: ") + e.what());
    }
    return h;
}

FileHeader read_header(std::istream& in, FileKind expected) {
    HeaderBytes b{};
    const std::size_t got = read_up_to(in, b.data(), b.size());
    return parse_header(b, got, expected);
}

void check_payload_length(const FileHeader& h, std::uint64_t expected, const std::string& what) {
    if (h.payload_bytes != expected)
        throw FormatError("corrupt header: payload length " + std::to_string(h.payload_bytes) + " does not match " + what);
}

std::uint8_t peek_kind(const unsigned char* b, std::size_t got) {
    constexpr std::size_t at = offsetof(Layout, kind);
    if (got <= at || std::memcmp(b, magic.data(), magic.size()) != 0) return 0;
    return b[at];
}

}  // namespace batchbloom::io

namespace batchbloom {

std::string_view to_string(FileKind kind) {
    switch (kind) {
        case FileKind::blocked: return "blocked";
        case FileKind::counting: return "counting";
        case FileKind::deletable: return "deletable";
        case FileKind::scalable: return "scalable";
        case FileKind::classic: return "classic";
    }
    return "unknown";
}

}  // namespace batchbloom
