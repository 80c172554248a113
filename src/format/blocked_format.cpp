// The blocked filter's file (Filter): the common header (format/file_header.hpp; bytes in
// docs/format.md) and the blocks as stored in memory, or that file inside one zstd frame.
#include <cstring>
#include <istream>
#include <ostream>
#include <string>

#include "batchbloom/atomic_file.hpp"
#include "batchbloom/file_kind.hpp"
#include "batchbloom/filter.hpp"
#include "filters/storage.hpp"
#include "format/file_io.hpp"
#include "format/zstd_stream.hpp"

namespace batchbloom {

using namespace io;

FileHeader io::parse_blocked_header(const HeaderBytes& b, std::size_t got) {
    const FileHeader h = parse_header(b, got, FileKind::blocked);
    const Params p = h.params();
    check_payload_length(h, p.bytes(),
                         std::to_string(p.blocks) + " blocks of " + std::to_string(p.block_bytes()) + " bytes");
    return h;
}

namespace {

// Leaves the stream just past the filter (or its zstd frame); the caller decides whether
// anything may follow.
Filter load_blocked(std::istream& in) {
    // The first bytes tell a zstd frame (Filter::save with Compression::zstd) from an uncompressed one.
    HeaderBytes b{};
    std::size_t got = read_up_to(in, b.data(), 4);
    if (sniff({b.data(), got}).form == FileForm::zstd) {
        io::ZstdSource source(in, std::string_view(reinterpret_cast<const char*>(b.data()), got));
        std::istream content(&source);
        content.exceptions(std::ios::badbit);  // the frame's errors reach the caller as they are
        Filter f = load_blocked(content);
        expect_end(content);
        return f;
    }
    if (got == 4) got += read_up_to(in, b.data() + 4, header_size - 4);
    const FileHeader h = parse_blocked_header(b, got);
    PayloadReader payload(in, h);
    Filter f(h.params(), h.hashing());
    f.add_key_kinds(h.key_kinds);
    payload.read(f.mutable_bytes());
    payload.finish();
    return f;
}

}  // namespace

void Filter::save(std::ostream& out, const SaveOptions& options) const {
    if (is_empty()) detail::throw_moved_from("save");
    if (options.compression == Compression::zstd) {
        io::zstd_compress(out, options.zstd_level, header_size + bytes().size(),
                          [&](std::ostream& plain) { save(plain); });
        return;
    }
    const std::span<const std::byte> payload[] = {bytes()};
    io::write_filter(out, io::FileHeader::blocked(params_, hashing_, key_kinds_), payload);
}

void Filter::save(const std::filesystem::path& path, const SaveOptions& options) const {
    if (is_empty()) detail::throw_moved_from("save");  // before the path is touched
    write_file(path, [&](std::ostream& out) { save(out, options); });
}

Filter Filter::load(std::istream& in, const LoadOptions& options) {
    const io::LoadLimit limit(options);
    return io::load_stream<Filter>(in, load_blocked);
}

Filter Filter::load(const std::filesystem::path& path, const LoadOptions& options) {
    const io::LoadLimit limit(options);
    return io::load_file<Filter>(path, load_blocked);
}

}  // namespace batchbloom
