// libFuzzer target for the zstd-framed files: Filter::load on a compressed filter, i.e. the
// decompressing reader (src/format/zstd_stream.cpp) and the bounds it sets from the inner
// header before it lets a frame expand.
//
// An input that starts with zstd's frame magic is loaded as it is, and again with the frame's
// content checksum recomputed over what the frame decodes to (so mutated frames get past the
// checksum to the inner header and payload checks). Any other input is taken as the content
// of a frame: it is compressed (as save does) and loaded, and again with its batchbloom
// checksums recomputed first (fuzz::resealed).
//
// Checked on every frame:
//   * load returns a filter or throws batchbloom::Error; a seekable and an unseekable stream
//     over the same bytes agree on accepting it and on the filter (an unseekable stream may
//     lose the bytes after the frame, so the bytes consumed are compared only when seekable);
//   * an accepted frame is consumed exactly (zstd's own frame size) from a seekable stream;
//   * load_any accepts the frame exactly when load accepts all of it, as the same Filter;
//   * an accepted filter, saved uncompressed, is byte for byte what the frame decodes to; saved
//     compressed it loads back equal; it answers probes and finds keys inserted into it.
#include <string>

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_d_forceIgnoreChecksum, to reseal mutated frames
#include <zstd.h>
#include <zstd_errors.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "format/zstd_stream.hpp"
#include "fuzz_common.hpp"

namespace fuzz {

using batchbloom::Compression;
using batchbloom::SaveOptions;

void write_seeds(const std::filesystem::path& dir) {
    struct Seed {
        Shape shape;
        std::uint64_t blocks;
        unsigned k;
        unsigned keys;
        int level;
    };
    // Sparse filters (small k, few keys) are the ones worth compressing; a few negative
    // (fast) and high levels give frames with other block types.
    const Seed seeds[] = {
        {Shape::word512, 1, 1, 0, 1},   {Shape::word512, 8, 2, 10, 3},  {Shape::split256, 4, 8, 20, -5},
        {Shape::line512, 16, 1, 5, 19}, {Shape::word512, 2, 8, 40, 3},
    };
    int n = 0;
    for (const Seed& s : seeds) {
        Filter f(Params::make(s.shape, s.blocks, s.k), {HashKind::xxh3, std::uint64_t(n)});
        for (unsigned i = 0; i < s.keys; ++i) f.insert(std::uint64_t{i} * 0x9E3779B97F4A7C15ULL);
        std::ostringstream out(std::ios::binary);
        f.save(out, SaveOptions{Compression::zstd, s.level});
        write_seed(dir, "zstd-" + std::to_string(n) + ".bbf.zst", out.str());
        // The uncompressed file too: inputs without the frame magic are framed by fuzz_one.
        write_seed(dir, "content-" + std::to_string(n++) + ".bbf", saved(f));
    }
}

namespace {

constexpr std::size_t max_content = std::size_t(4) << 20;  // beyond this, no resealing

/// What one zstd frame at the start of `frame` decodes to, ignoring its content checksum;
/// nothing if it is not a complete, valid frame or decodes to more than max_content.
std::optional<std::string> decode_ignoring_checksum(std::string_view frame) {
    struct Free {
        void operator()(ZSTD_DCtx* c) const noexcept { ZSTD_freeDCtx(c); }
    };
    std::unique_ptr<ZSTD_DCtx, Free> dctx(ZSTD_createDCtx());
    if (ZSTD_isError(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_forceIgnoreChecksum, ZSTD_d_ignoreChecksum)) ||
        ZSTD_isError(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, 23)))
        fail("cannot set up a zstd decoder");
    std::string out;
    std::size_t produced = 0;
    ZSTD_inBuffer src{frame.data(), frame.size(), 0};
    for (;;) {
        if (produced == out.size()) {
            if (produced > max_content) return std::nullopt;
            out.resize(std::max<std::size_t>(2 * produced, 1 << 16));
        }
        ZSTD_outBuffer dst{out.data(), out.size(), produced};
        const std::size_t rc = ZSTD_decompressStream(dctx.get(), &dst, &src);
        if (ZSTD_isError(rc)) return std::nullopt;
        produced = dst.pos;
        if (rc == 0) break;
        if (src.pos == src.size && produced < out.size()) return std::nullopt;  // the frame is cut short
    }
    if (produced > max_content) return std::nullopt;
    out.resize(produced);
    return out;
}

/// The frame with its content checksum recomputed, or nothing if it has none, does not
/// decode, or already carries the right one.
std::optional<std::string> resealed_frame(std::string_view input) {
    const std::size_t frame_size = ZSTD_findFrameCompressedSize(input.data(), input.size());
    if (ZSTD_isError(frame_size) || frame_size < 4) return std::nullopt;
    ZSTD_frameHeader fh;
    if (ZSTD_getFrameHeader(&fh, input.data(), input.size()) != 0 || !fh.checksumFlag) return std::nullopt;
    const auto content = decode_ignoring_checksum(input.substr(0, frame_size));
    if (!content) return std::nullopt;
    const auto sum = static_cast<std::uint32_t>(XXH64(content->data(), content->size(), 0));
    std::string s(input);
    std::memcpy(s.data() + frame_size - 4, &sum, 4);  // little-endian, as the format says
    if (s == input) return std::nullopt;
    return s;
}

void check_frame(std::string_view frame) {
    const auto a = load_both_ways<Filter>(
        frame, "Filter::load", [](std::istream& in) { return Filter::load(in); }, false);
    check_load_any(load_any_of(frame), a.filter, frame, a.consumed);
    if (!a.filter) return;
    const Filter& f = *a.filter;
    if (a.consumed != ZSTD_findFrameCompressedSize(frame.data(), frame.size()))
        fail("load consumed other bytes than the zstd frame");
    const auto content = decode_ignoring_checksum(frame.substr(0, a.consumed));
    if (!content || saved(f) != *content) fail("a loaded filter re-saves to other bytes than its frame held");
    std::ostringstream out(std::ios::binary);
    f.save(out, SaveOptions{Compression::zstd, 1});
    std::istringstream in(std::move(out).str(), std::ios::binary);
    if (!succeeds("Filter::load", [&] {
            if (!(Filter::load(in) == f)) fail("a filter saved compressed loads back different");
        }))
        fail("a filter saved compressed does not load");
    check_probes_and_inserts(f);
}

}  // namespace

void fuzz_one(std::string_view input) {
    if (batchbloom::io::is_zstd(input)) {
        check_frame(input);
        if (const auto sealed = resealed_frame(input)) check_frame(*sealed);
        return;
    }
    check_frame(batchbloom::io::zstd_compress(input, 1));
    if (const auto sealed = resealed(input)) check_frame(batchbloom::io::zstd_compress(*sealed, 1));
}

}  // namespace fuzz
