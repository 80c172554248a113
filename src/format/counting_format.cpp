// The counting filter's file (CountingFilter): the common header (format/file_header.hpp; bytes
// in docs/format.md), kind "counting", then the four counter planes of every block as stored in
// memory.
#include <istream>
#include <ostream>
#include <string>

#include "batchbloom/atomic_file.hpp"
#include "batchbloom/counting.hpp"
#include "filters/storage.hpp"
#include "format/file_io.hpp"

namespace batchbloom {

void CountingFilter::save(std::ostream& out) const {
    if (is_empty()) detail::throw_moved_from("save");
    const std::span<const std::byte> pieces[] = {bytes()};
    io::write_filter(out, io::FileHeader::counting(params_, hashing_, key_kinds_), pieces);
}

void CountingFilter::save(const std::filesystem::path& path) const {
    if (is_empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [&](std::ostream& out) { save(out); });
}

CountingFilter CountingFilter::load(std::istream& stream) {
    return io::load_stream<CountingFilter>(stream, [](std::istream& in) {
        const auto h = io::read_header(in, FileKind::counting);
        const Params p = h.params();
        io::check_payload_length(h, 4 * p.bytes(), "4 x " + std::to_string(p.bytes()) + " bytes of counter planes");
        io::PayloadReader payload(in, h);
        CountingFilter f(p, h.hashing());
        f.key_kinds_ = h.key_kinds;
        payload.read(f.planes_.bytes());
        payload.finish();
        return f;
    });
}

CountingFilter CountingFilter::load(const std::filesystem::path& path) {
    return io::load_file<CountingFilter>(path, [](std::istream& in) { return load(in); });
}

}  // namespace batchbloom
