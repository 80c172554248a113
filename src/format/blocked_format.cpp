// The saved-filter format (version 1), little-endian:
//
//   offset size field
//        0    8 magic "BATCHBLM"
//        8    2 format version (1)
//       10    1 filter kind (1 = blocked Bloom filter)
//       11    1 block shape (Shape)
//       12    1 hash kind (HashKind)
//       13    1 k
//       14    1 key kinds (0: not recorded; else 0x80 | 1 integers | 2 byte strings)
//       15    1 reserved, zero
//       16    8 hash seed
//       24    8 blocks
//       32    8 payload length in bytes (= blocks * block bytes)
//       40    8 XXH3-64 of the payload
//       48    8 reserved, zero
//       56    8 XXH3-64 of bytes 0..55
//       64      payload: the blocks as stored in memory
//
// Loading checks every field before it allocates, so a corrupt or hostile header can
// neither crash the loader nor make it allocate more than the input really holds.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "batchbloom/file_kind.hpp"
#include "batchbloom/atomic_file.hpp"
#include "batchbloom/filter.hpp"
#include "filters/storage.hpp"
#include "format/family_file.hpp"
#include "format/header_bytes.hpp"
#include "format/zstd_stream.hpp"

namespace batchbloom {

namespace {

using namespace io;  // the header layout shared by every file kind
constexpr auto kind_blocked_bloom = static_cast<std::uint8_t>(FileKind::plain);

// The header of a plain filter file, with every field checked (FamilyHeader: family_file.hpp).
detail::FamilyHeader parse_header(const Header& h, std::size_t got) {
    check_header(h, got);
    if (const auto kind = get<std::uint8_t>(h, 10); kind != kind_blocked_bloom) {
        const auto name = to_string(static_cast<FileKind>(kind));  // the other kinds' files (file_kind.hpp)
        if (name != "unknown")
            throw FormatError("the file holds a " + std::string(name) + " filter, not a plain filter");
        throw FormatError("unsupported filter kind " + std::to_string(kind));
    }
    if (get<std::uint8_t>(h, 15) != 0 || get<std::uint64_t>(h, 48) != 0)
        throw FormatError("corrupt header: reserved fields are not zero");

    detail::FamilyHeader p{};
    p.kind = FileKind::plain;
    p.key_kinds = decode_key_kinds(get<std::uint8_t>(h, key_kinds_offset));
    p.params = Params{static_cast<Shape>(get<std::uint8_t>(h, 11)), get<std::uint64_t>(h, 24),
                      get<std::uint8_t>(h, 13)};
    p.hashing = Hashing{static_cast<HashKind>(get<std::uint8_t>(h, 12)), get<std::uint64_t>(h, 16)};
    try {
        p.params.validate();
        validate(p.hashing);
    } catch (const Error& e) {
        throw FormatError(std::string("invalid header: ") + e.what());
    }
    p.payload_bytes = get<std::uint64_t>(h, 32);
    p.payload_hash = get<std::uint64_t>(h, 40);
    if (p.payload_bytes != p.params.bytes())
        throw FormatError("corrupt header: payload length " + std::to_string(p.payload_bytes) + " does not match " +
                          std::to_string(p.params.blocks) + " blocks of " +
                          std::to_string(p.params.block_bytes()) + " bytes");
    return p;
}


[[noreturn]] void truncated_payload(std::uint64_t got, std::uint64_t want) {
    throw FormatError("truncated payload: " + std::to_string(got) + " of " + std::to_string(want) + " bytes");
}

// Bytes left in a seekable stream, or -1 if it cannot tell.
std::int64_t remaining(std::istream& in) {
    const auto here = in.tellg();
    if (here < 0) return -1;
    in.seekg(0, std::ios::end);
    const auto end = in.tellg();
    in.seekg(here);
    if (end < 0 || !in) {
        in.clear();
        return -1;
    }
    return static_cast<std::int64_t>(end - here);
}

}  // namespace

void Filter::save(std::ostream& out, const SaveOptions& options) const {
    if (is_empty()) detail::throw_moved_from("save");
    if (options.compression == Compression::zstd) {
        std::ostringstream plain;
        save(plain);
        const std::string z = io::zstd_compress(plain.view(), options.zstd_level);
        out.write(z.data(), static_cast<std::streamsize>(z.size()));
        if (!out) throw Error("cannot write the filter: the output stream failed");
        return;
    }
    const std::span<const std::byte> payload[] = {bytes()};
    detail::FamilyHeader h{FileKind::plain, params_, hashing_, params_.bytes()};
    h.key_kinds = key_kinds_;
    detail::write_family(out, h, payload);
}

void Filter::save(const std::filesystem::path& path, const SaveOptions& options) const {
    if (is_empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [&](std::ostream& out) { save(out, options); });
}

namespace {

// Seekable stream: its size was checked against the header, so the storage is allocated once
// and read into directly.
Filter read_known_size(std::istream& in, const detail::FamilyHeader& p) {
    Filter f(p.params, p.hashing);
    f.add_key_kinds(p.key_kinds);
    auto dst = f.mutable_bytes();
    if (const std::size_t got = read_up_to(in, dst.data(), dst.size()); got != dst.size())
        truncated_payload(got, dst.size());
    return f;
}

// Unseekable stream: nothing says how much data really follows, so the payload is read into a
// buffer that grows only as data arrives (and is checked there); a header claiming more than the
// stream holds ends as "truncated" instead of a huge allocation. Costs one copy.
Filter read_unknown_size(std::istream& in, const detail::FamilyHeader& p) {
    const std::vector<std::byte> buf = detail::read_family_payload(in, p);
    Filter f(p.params, p.hashing);
    f.add_key_kinds(p.key_kinds);
    std::memcpy(f.mutable_bytes().data(), buf.data(), buf.size());
    return f;
}

Filter load_impl(std::istream& in, bool exact) {
    // The first bytes tell a zstd frame (Filter::save with Compression::zstd) from a plain file.
    Header h{};
    std::size_t got = read_up_to(in, h.data(), 4);
    if (io::is_zstd(std::string_view(reinterpret_cast<const char*>(h.data()), got))) {
        std::string file = io::zstd_decompress(
            in, std::string_view(reinterpret_cast<const char*>(h.data()), got), header_size,
            [](std::string_view header) {
                Header inner{};
                std::memcpy(inner.data(), header.data(), header_size);
                return header_size + parse_header(inner, header_size).payload_bytes;
            },
            exact);
        std::istringstream content(std::move(file));
        return load_impl(content, true);
    }
    if (got == 4) got += read_up_to(in, h.data() + 4, header_size - 4);
    const detail::FamilyHeader p = parse_header(h, got);
    const std::int64_t left = remaining(in);
    if (left >= 0 && std::uint64_t(left) < p.payload_bytes) truncated_payload(std::uint64_t(left), p.payload_bytes);
    if (exact && left >= 0 && std::uint64_t(left) > p.payload_bytes)
        throw FormatError("trailing data: " + std::to_string(std::uint64_t(left) - p.payload_bytes) +
                          " bytes after the payload");
    // (read_unknown_size checks the payload as it reads it)
    Filter f = left >= 0 ? read_known_size(in, p) : read_unknown_size(in, p);
    if (left >= 0 && xxh3_64(f.bytes().data(), f.bytes().size(), 0) != p.payload_hash)
        throw FormatError("corrupt payload: payload checksum mismatch");
    if (exact && in.peek() != std::char_traits<char>::eof())
        throw FormatError("trailing data after the payload");
    return f;
}

}  // namespace

Filter Filter::load(std::istream& in) {
    try {
        return load_impl(in, false);
    } catch (const std::ios_base::failure& e) {  // a caller's stream with exceptions enabled
        throw FormatError(std::string("cannot read the filter: ") + e.what());
    }
}

Filter Filter::load(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("cannot load '" + path.string() + "': it is a directory, not a filter file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path.string() + "': " + std::strerror(errno));
    try {
        return load_impl(in, true);
    } catch (const std::ios_base::failure& e) {
        throw FormatError("'" + path.string() + "': cannot read: " + e.what());
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

}  // namespace batchbloom
