#include "format/family_file.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <string>

// The streaming XXH3 state, compiled into this translation unit only (as in hash.cpp).
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/header_bytes.hpp"

namespace batchbloom {

namespace {

using namespace io;  // the header layout shared by every file kind

bool known(FileKind k) {
    return k == FileKind::plain || k == FileKind::counting || k == FileKind::deletable || k == FileKind::scalable ||
           k == FileKind::classic;
}

// Magic, version and header checksum: what every kind shares.
Header read_checked_header(std::istream& in) {
    Header h{};
    check_header(h, read_up_to(in, h.data(), header_size));
    return h;
}

}  // namespace

std::string_view to_string(FileKind kind) {
    switch (kind) {
        case FileKind::plain: return "plain";
        case FileKind::counting: return "counting";
        case FileKind::deletable: return "deletable";
        case FileKind::scalable: return "scalable";
        case FileKind::classic: return "classic";
    }
    return "unknown";
}

FileKind file_kind(const std::filesystem::path& path) {
    auto in = detail::open_for_load(path);
    try {
        const Header h = read_checked_header(in);
        const auto kind = static_cast<FileKind>(get<std::uint8_t>(h, 10));
        if (!known(kind)) throw FormatError("unsupported filter kind " + std::to_string(unsigned(kind)));
        return kind;
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

namespace detail {

void write_family(std::ostream& out, const FamilyHeader& fh, std::span<const std::span<const std::byte>> payload) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    std::uint64_t bytes = 0;
    for (const auto piece : payload) {
        XXH3_64bits_update(&state, piece.data(), piece.size());
        bytes += piece.size();
    }
    if (bytes != fh.payload_bytes) throw Error("internal error: payload size does not match the header");
    Header h{};
    std::memcpy(h.data(), magic.data(), magic.size());
    put<std::uint16_t>(h, 8, format_version);
    put<std::uint8_t>(h, 10, static_cast<std::uint8_t>(fh.kind));
    put<std::uint8_t>(h, 11, static_cast<std::uint8_t>(fh.params.shape));
    put<std::uint8_t>(h, 12, static_cast<std::uint8_t>(fh.hashing.kind));
    put<std::uint8_t>(h, 13, static_cast<std::uint8_t>(fh.params.k));
    put<std::uint8_t>(h, key_kinds_offset, encode_key_kinds(fh.key_kinds));
    put<std::uint64_t>(h, 16, fh.hashing.seed);
    put<std::uint64_t>(h, 24, fh.params.blocks);
    put<std::uint64_t>(h, 32, fh.payload_bytes);
    put<std::uint64_t>(h, 40, XXH3_64bits_digest(&state));
    put<std::uint64_t>(h, 48, fh.extra);
    put<std::uint64_t>(h, 56, xxh3_64(h.data(), 56, 0));
    out.write(reinterpret_cast<const char*>(h.data()), header_size);
    for (const auto piece : payload)
        out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(piece.size()));
    if (!out) throw Error("cannot write the filter: the output stream failed");
}

FamilyHeader read_family_header(std::istream& in, FileKind expected) {
    const Header h = read_checked_header(in);
    const auto kind = static_cast<FileKind>(get<std::uint8_t>(h, 10));
    if (kind != expected) {
        if (known(kind))
            throw FormatError("the file holds a " + std::string(to_string(kind)) + " filter, not a " +
                              std::string(to_string(expected)) + " filter");
        throw FormatError("unsupported filter kind " + std::to_string(unsigned(kind)));
    }
    if (get<std::uint8_t>(h, 15) != 0) throw FormatError("corrupt header: reserved fields are not zero");
    FamilyHeader fh;
    fh.kind = kind;
    fh.key_kinds = decode_key_kinds(get<std::uint8_t>(h, key_kinds_offset));
    fh.params = Params{static_cast<Shape>(get<std::uint8_t>(h, 11)), get<std::uint64_t>(h, 24), get<std::uint8_t>(h, 13)};
    fh.hashing = Hashing{static_cast<HashKind>(get<std::uint8_t>(h, 12)), get<std::uint64_t>(h, 16)};
    try {
        fh.params.validate();
        validate(fh.hashing);
    } catch (const Error& e) {
        throw FormatError(std::string("invalid header: ") + e.what());
    }
    fh.payload_bytes = get<std::uint64_t>(h, 32);
    fh.payload_hash = get<std::uint64_t>(h, 40);
    fh.extra = get<std::uint64_t>(h, 48);
    return fh;
}

std::vector<std::byte> read_family_payload(std::istream& in, const FamilyHeader& h) {
    std::vector<std::byte> buf;
    while (buf.size() < h.payload_bytes) {
        const std::size_t have = buf.size();
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(h.payload_bytes, std::max<std::size_t>(have * 2, std::size_t(1) << 20)));
        buf.resize(want);
        if (const std::size_t got = read_up_to(in, buf.data() + have, want - have); got != want - have)
            throw FormatError("truncated payload: " + std::to_string(have + got) + " of " +
                              std::to_string(h.payload_bytes) + " bytes");
    }
    if (xxh3_64(buf.data(), buf.size(), 0) != h.payload_hash)
        throw FormatError("corrupt payload: payload checksum mismatch");
    return buf;
}

void expect_end(std::istream& in) {
    if (in.peek() != std::char_traits<char>::eof()) throw FormatError("trailing data after the payload");
}

std::ifstream open_for_load(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("cannot load '" + path.string() + "': it is a directory, not a filter file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path.string() + "': " + std::strerror(errno));
    return in;
}

}  // namespace detail
}  // namespace batchbloom
