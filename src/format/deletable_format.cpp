// The deletable filter's file (DeletableFilter): the common header (format/file_header.hpp;
// bytes in docs/format.md), kind "deletable", whose kind field is the bits per region; then the
// filter's blocks and the collision bitmap (one bit per region, ceil(regions / 64)
// little-endian words).
#include <bit>
#include <istream>
#include <ostream>
#include <string>

#include "batchbloom/atomic_file.hpp"
#include "batchbloom/deletable.hpp"
#include "filters/storage.hpp"
#include "format/file_io.hpp"

namespace batchbloom {

void DeletableFilter::save(std::ostream& out) const {
    if (params().blocks == 0) detail::throw_moved_from("save");
    const std::span<const std::byte> pieces[] = {bits_.bytes(), collisions_.bytes()};
    io::write_filter(out, io::FileHeader::deletable(params(), hashing(), key_kinds(), region_bits_), pieces);
}

void DeletableFilter::save(const std::filesystem::path& path) const {
    if (params().blocks == 0) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [&](std::ostream& out) { save(out); });
}

DeletableFilter DeletableFilter::load(std::istream& stream) {
    return io::load_stream<DeletableFilter>(stream, [](std::istream& in) {
        const auto h = io::read_header(in, FileKind::deletable);
        const Params p = h.params();
        const std::uint64_t region_bits = h.region_bits();
        if (region_bits == 0 || region_bits > p.block_bytes() * 8 || !std::has_single_bit(region_bits))
            throw FormatError("corrupt header: " + std::to_string(region_bits) + " bits per region");
        const std::uint64_t bitmap_words = (p.bits() / region_bits + 63) / 64;
        const std::uint64_t expected = p.bytes() + 8 * bitmap_words;
        io::check_payload_length(h, expected, std::to_string(expected) + " bytes of blocks and collision bitmap");
        io::PayloadReader payload(in, h);
        DeletableFilter f(p, static_cast<unsigned>(region_bits), h.hashing());
        f.add_key_kinds(h.key_kinds);
        payload.read(f.bits_.mutable_bytes());
        payload.read(f.collisions_.bytes());
        payload.finish();
        if (f.regions() % 64 != 0 && (f.collisions().back() >> (f.regions() % 64)) != 0)
            throw FormatError("corrupt payload: collision bits set past the last region");
        return f;
    });
}

DeletableFilter DeletableFilter::load(const std::filesystem::path& path) {
    return io::load_file<DeletableFilter>(path, [](std::istream& in) { return load(in); });
}

}  // namespace batchbloom
