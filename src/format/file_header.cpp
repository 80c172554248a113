#include "format/file_header.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

#include "batchbloom/error.hpp"
#include "format/zstd_stream.hpp"

namespace batchbloom::io {

namespace {

// ---- the byte layout (docs/format.md, "The header") -----------------------------------------
// The struct's natural layout is the table of offsets: no padding, every field at its own
// alignment, pinned by the static_assert. Fields are the host's bytes: batchbloom builds on
// little-endian machines only.
struct Layout {
    char magic[8];                                                        // 0
    std::uint16_t version;                                                // 8
    std::uint8_t kind, shape, hash_kind, k, key_kinds, reserved;          // 10 to 15
    std::uint64_t seed, blocks, payload_bytes, payload_hash, kind_field;  // 16 to 48 (8 each)
    std::uint64_t header_hash;                                            // 56: XXH3-64 of bytes 0..55
};
static_assert(sizeof(Layout) == header_size && offsetof(Layout, version) == 8 && offsetof(Layout, kind) == 10 &&
              offsetof(Layout, reserved) == 15 && offsetof(Layout, seed) == 16 && offsetof(Layout, blocks) == 24 &&
              offsetof(Layout, payload_bytes) == 32 && offsetof(Layout, payload_hash) == 40 &&
              offsetof(Layout, kind_field) == 48 && offsetof(Layout, header_hash) == 56);
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

// The fields Layout and FileHeader hold alike, byte for byte.
template <class To, class From>
void copy_same_named(To& to, const From& from) {
    to.shape = from.shape;
    to.hash_kind = from.hash_kind;
    to.k = from.k;
    to.seed = from.seed;
    to.blocks = from.blocks;
    to.payload_bytes = from.payload_bytes;
    to.payload_hash = from.payload_hash;
}

bool known(FileKind k) {
    return k == FileKind::blocked || k == FileKind::counting || k == FileKind::deletable || k == FileKind::scalable ||
           k == FileKind::classic;
}

[[noreturn]] void reserved_not_zero() { throw FormatError("corrupt header: reserved fields are not zero"); }

// ScalableFilter's payload params, laid out like Layout (docs/format.md, "Payloads", the scalable row).
static_assert(sizeof(ScalableMeta) == scalable_meta_size && offsetof(ScalableMeta, initial_fpr) == 8 &&
              offsetof(ScalableMeta, growth) == 16 && offsetof(ScalableMeta, tightening) == 24 &&
              offsetof(ScalableMeta, stage_count) == 32 && offsetof(ScalableMeta, stage_hashing) == 40);

}  // namespace

void FileHeader::check_fields() const {
    switch (kind) {
        case FileKind::blocked:
        case FileKind::counting:
            if (kind_field_ != 0) reserved_not_zero();
            [[fallthrough]];
        case FileKind::deletable:  // bits per region: the loader's to check against the params
        case FileKind::scalable:   // stage count: the loader's to check against the payload
            params().validate();
            validate(hashing());
            return;
        case FileKind::classic: {
            if (k != 0 || (kind_field_ >> 32) != 0) reserved_not_zero();
            const ClassicHashing h = classic_hashing();
            if (h.scheme != ClassicScheme::double_hashing && hash_kind != 0)
                throw FormatError("corrupt header: hash kind set for a Spark scheme");
            validate(h, classic_params());
            return;
        }
    }
}

FileHeader FileHeader::blocked(const Params& params, const Hashing& hashing, KeyKinds key_kinds) {
    return on_blocked_layout(FileKind::blocked, params, hashing, key_kinds);
}

FileHeader FileHeader::counting(const Params& params, const Hashing& hashing, KeyKinds key_kinds) {
    return on_blocked_layout(FileKind::counting, params, hashing, key_kinds);
}

FileHeader FileHeader::on_blocked_layout(FileKind kind, const Params& params, const Hashing& hashing, KeyKinds key_kinds) {
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
    h.kind_field_ = params.k;
    return h;
}

FileHeader FileHeader::deletable(const Params& params, const Hashing& hashing, KeyKinds key_kinds,
                                 std::uint64_t region_bits) {
    FileHeader h = on_blocked_layout(FileKind::deletable, params, hashing, key_kinds);
    h.kind_field_ = region_bits;
    return h;
}

FileHeader FileHeader::scalable(const Params& stage0, const Hashing& hashing, KeyKinds key_kinds,
                                std::uint64_t stage_count) {
    FileHeader h = on_blocked_layout(FileKind::scalable, stage0, hashing, key_kinds);
    h.kind_field_ = stage_count;
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
    copy_same_named(l, h);
    l.key_kinds = encode_key_kinds(h.key_kinds);
    l.kind_field = h.kind_field_;
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
    FileHeader h;
    h.kind = kind;
    copy_same_named(h, l);
    h.key_kinds = decode_key_kinds(l.key_kinds);
    h.kind_field_ = l.kind_field;
    return h;
}

FileHeader parse_header(const HeaderBytes& b, std::size_t got, FileKind expected) {
    const FileHeader h = decode(b, got);
    if (h.kind != expected)
        throw FormatError("the file holds a " + std::string(to_string(h.kind)) + " filter, not a " +
                          std::string(to_string(expected)) + " filter");
    try {
        h.check_fields();
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

Sniffed sniff(std::span<const unsigned char> b) noexcept {
    const std::string_view prefix(reinterpret_cast<const char*>(b.data()), std::min(b.size(), header_size));
    if (is_zstd(prefix)) return {FileForm::zstd};
    // Spark's BloomFilter starts with its version, a big-endian int32 1 or 2 (never the start of
    // a batchbloom header or a zstd frame).
    if (b.size() >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && (b[3] == 1 || b[3] == 2)) return {FileForm::spark};
    const std::size_t n = std::min(prefix.size(), magic.size());
    if (n == 0 || prefix.substr(0, n) != std::string_view(magic.data(), n)) return {FileForm::unknown};
    constexpr std::size_t at = offsetof(Layout, kind);
    return {FileForm::batchbloom, prefix.size() > at ? b[at] : std::uint8_t(0)};
}

std::array<std::byte, scalable_meta_size> encode(const ScalableMeta& m) {
    std::array<std::byte, scalable_meta_size> b;
    std::memcpy(b.data(), &m, b.size());
    return b;
}

ScalableMeta decode_scalable_meta(std::span<const std::byte> b) {
    ScalableMeta m;
    std::memcpy(&m, b.data(), sizeof m);
    return m;
}

bool reseal(std::span<std::byte> file) {
    if (file.size() < header_size) return false;
    const HeaderBytes before = [&] {
        HeaderBytes b;
        std::memcpy(b.data(), file.data(), header_size);
        return b;
    }();
    Layout l;
    std::memcpy(&l, file.data(), header_size);
    if (l.payload_bytes <= file.size() - header_size) {
        l.payload_hash = xxh3_64(file.data() + header_size, static_cast<std::size_t>(l.payload_bytes), 0);
        std::memcpy(file.data(), &l, header_size);
    }
    seal_header(file);
    return std::memcmp(file.data(), before.data(), header_size) != 0;
}

void seal_header(std::span<std::byte> header) {
    const std::uint64_t sum = xxh3_64(header.data(), hashed_bytes, 0);
    std::memcpy(header.data() + offsetof(Layout, header_hash), &sum, sizeof sum);
}

}  // namespace batchbloom::io

namespace batchbloom {

FileForm file_form(std::span<const std::byte> first_bytes) noexcept {
    return io::sniff({reinterpret_cast<const unsigned char*>(first_bytes.data()), first_bytes.size()}).form;
}

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
