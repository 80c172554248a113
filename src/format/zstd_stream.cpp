#include "format/zstd_stream.hpp"

#include <zstd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <ostream>
#include <streambuf>
#include <vector>

#include "batchbloom/error.hpp"

namespace batchbloom::io {

namespace {

constexpr std::array<unsigned char, 4> zstd_magic{0x28, 0xB5, 0x2F, 0xFD};
constexpr int max_window_log = 23;  // 8 MiB: what levels up to 19 use on large inputs

struct DctxFree {
    void operator()(ZSTD_DCtx* c) const noexcept { ZSTD_freeDCtx(c); }
};
struct CctxFree {
    void operator()(ZSTD_CCtx* c) const noexcept { ZSTD_freeCCtx(c); }
};

void check(std::size_t rc, const char* what) {
    if (ZSTD_isError(rc)) throw Error(std::string(what) + ": " + ZSTD_getErrorName(rc));
}

}  // namespace

bool is_zstd(std::string_view prefix) noexcept {
    return prefix.size() >= zstd_magic.size() && std::memcmp(prefix.data(), zstd_magic.data(), zstd_magic.size()) == 0;
}

namespace {

/// A compression context for one frame of `size` bytes at `level`.
std::unique_ptr<ZSTD_CCtx, CctxFree> compressor(int level, std::uint64_t size) {
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel() || level == 0)
        throw Error("zstd level " + std::to_string(level) + " is out of range (" + std::to_string(ZSTD_minCLevel()) +
                    ".." + std::to_string(ZSTD_maxCLevel()) + ", not 0)");
    std::unique_ptr<ZSTD_CCtx, CctxFree> cctx(ZSTD_createCCtx());
    if (!cctx) throw std::bad_alloc();
    check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level), "zstd");
    check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1), "zstd");
    // Levels 20-22 ("ultra") use windows of 32-128 MiB on large inputs, more than the loader
    // accepts; cap theirs (costs a little ratio). Levels up to 19 stay within 8 MiB.
    if (level >= 20)
        check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_windowLog, max_window_log), "zstd");
    // The content size in the frame header lets other zstd tools size their output too.
    check(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), size), "zstd");
    return cctx;
}

/// Compresses what is written to it onto another stream, a block at a time: the bytes pass
/// through one input and one output buffer of zstd's recommended sizes, never all at once.
class CompressingBuf : public std::streambuf {
public:
    CompressingBuf(ZSTD_CCtx* cctx, std::ostream& out)
        : cctx_(cctx), out_(out), in_(ZSTD_CStreamInSize()), dst_(ZSTD_CStreamOutSize()) {
        setp(in_.data(), in_.data() + in_.size());
    }
    /// Compresses what is buffered and ends the frame.
    void finish() {
        compress(pbase(), std::size_t(pptr() - pbase()), ZSTD_e_end);
        setp(in_.data(), in_.data() + in_.size());
    }

protected:
    int_type overflow(int_type c) override {
        drain();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (n < std::streamsize(in_.size())) return std::streambuf::xsputn(s, n);
        drain();  // large pieces go to zstd straight from the caller's memory
        compress(s, std::size_t(n), ZSTD_e_continue);
        return n;
    }

private:
    void drain() {
        compress(pbase(), std::size_t(pptr() - pbase()), ZSTD_e_continue);
        setp(in_.data(), in_.data() + in_.size());
    }
    void compress(const char* data, std::size_t n, ZSTD_EndDirective mode) {
        ZSTD_inBuffer src{data, n, 0};
        for (;;) {
            ZSTD_outBuffer dst{dst_.data(), dst_.size(), 0};
            const std::size_t left = ZSTD_compressStream2(cctx_, &dst, &src, mode);
            check(left, "zstd compression failed");
            out_.write(dst_.data(), static_cast<std::streamsize>(dst.pos));
            if (!out_) throw Error("cannot write the filter: the output stream failed");
            if (mode == ZSTD_e_end ? left == 0 : src.pos == src.size) return;
        }
    }

    ZSTD_CCtx* cctx_;
    std::ostream& out_;
    std::vector<char> in_;
    std::vector<char> dst_;
};

}  // namespace

std::string zstd_compress(std::string_view data, int level) {
    const auto cctx = compressor(level, data.size());
    std::string out(ZSTD_compressBound(data.size()), '\0');
    const std::size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), data.data(), data.size());
    check(n, "zstd compression failed");
    out.resize(n);
    return out;
}

void zstd_compress(std::ostream& out, int level, std::uint64_t size, const std::function<void(std::ostream&)>& write) {
    const auto cctx = compressor(level, size);
    CompressingBuf buf(cctx.get(), out);
    std::ostream plain(&buf);
    plain.exceptions(std::ios::badbit);  // the buffer's own errors (zstd's, out's) reach the caller as they are
    write(plain);
    buf.finish();
}

ZstdSource::ZstdSource(std::istream& in, std::string_view already_read)
    : PullBuf([this](char* dst, std::size_t n) { return decompress(dst, n); }, ZSTD_DStreamOutSize()),
      in_(in),
      input_(std::max(ZSTD_DStreamInSize(), already_read.size())) {
    std::unique_ptr<ZSTD_DCtx, DctxFree> dctx(ZSTD_createDCtx());
    if (!dctx) throw std::bad_alloc();
    // The decoder allocates the window a frame header asks for before any content is checked,
    // so a 30-byte frame could cost gigabytes; our frames never ask for more (zstd_compress).
    check(ZSTD_DCtx_setParameter(dctx.get(), ZSTD_d_windowLogMax, max_window_log), "zstd");
    std::memcpy(input_.data(), already_read.data(), already_read.size());
    src_size_ = already_read.size();
    dctx_ = dctx.release();
}

ZstdSource::~ZstdSource() { ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_)); }

std::size_t ZstdSource::decompress(char* dst, std::size_t n) {
    ZSTD_outBuffer out{dst, n, 0};
    while (out.pos == 0 && frame_left_ != 0 && n != 0) {
        if (src_pos_ == src_size_ && !output_was_full_) {
            in_.read(input_.data(), static_cast<std::streamsize>(std::min(input_.size(), frame_left_)));
            const auto got = static_cast<std::size_t>(in_.gcount());
            if (got == 0) throw FormatError("truncated compressed filter: the zstd frame ends early");
            src_pos_ = 0, src_size_ = got;
        }
        ZSTD_inBuffer src{input_.data(), src_size_, src_pos_};
        frame_left_ = ZSTD_decompressStream(static_cast<ZSTD_DCtx*>(dctx_), &out, &src);
        if (ZSTD_isError(frame_left_))
            throw FormatError(std::string("corrupt compressed filter: ") + ZSTD_getErrorName(frame_left_));
        src_pos_ = src.pos;
        output_was_full_ = out.pos == out.size;
    }
    if (frame_left_ == 0 && src_pos_ != src_size_)
        throw Error("internal error: the zstd decoder left input unread after the frame");
    return out.pos;
}

}  // namespace batchbloom::io
