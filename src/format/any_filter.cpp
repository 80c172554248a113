// load_any: the first bytes of a file tell its form; that type's loader reads it.
#include "batchbloom/any_filter.hpp"

#include <algorithm>
#include <cstring>
#include <istream>
#include <iterator>
#include <streambuf>
#include <string>
#include <string_view>
#include <variant>

#include "format/file_io.hpp"

namespace batchbloom {

namespace {

enum class Form { blocked, zstd, counting, deletable, scalable, classic, spark };

/// What the first `got` bytes (up to a header's 64) say the input is; throws FormatError if
/// they are no filter's. An input too short to hold a header goes to the blocked filter's
/// loader, which says how it is cut.
Form detect(const io::HeaderBytes& h, std::size_t got) {
    switch (io::sniff({h.data(), got}).form) {
        case FileForm::zstd: return Form::zstd;
        case FileForm::spark: return Form::spark;
        case FileForm::batchbloom: break;
        case FileForm::unknown:
            throw FormatError(
                "not a filter of any kind: neither a batchbloom file (bad magic), a zstd-compressed one, "
                "nor Apache Spark's serialized BloomFilter");
    }
    if (got < io::header_size) return Form::blocked;
    switch (io::decode(h, got).kind) {
        case FileKind::blocked: return Form::blocked;
        case FileKind::counting: return Form::counting;
        case FileKind::deletable: return Form::deletable;
        case FileKind::scalable: return Form::scalable;
        case FileKind::classic: return Form::classic;
    }
    throw Error("internal error: unhandled filter kind");
}

std::string_view name_of(Form form) {
    switch (form) {
        case Form::blocked: return "blocked filter";
        case Form::zstd: return "zstd-compressed filter";
        case Form::counting: return "counting filter";
        case Form::deletable: return "deletable filter";
        case Form::scalable: return "scalable filter";
        case Form::classic: return "classic filter";
        case Form::spark: return "Spark BloomFilter";
    }
    return "filter";
}

/// Reads a caller's bytes in place; seekable, so loaders size their reads from it.
class SpanBuf : public std::streambuf {
public:
    explicit SpanBuf(std::span<const std::byte> bytes) {
        // The get area is only read from; streambuf's interface wants char*.
        char* p = const_cast<char*>(reinterpret_cast<const char*>(bytes.data()));
        setg(p, p, p + bytes.size());
    }

protected:
    pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override {
        if (!(which & std::ios_base::in)) return pos_type(off_type(-1));
        const off_type end = egptr() - eback();
        const off_type base = dir == std::ios_base::beg ? 0 : dir == std::ios_base::cur ? gptr() - eback() : end;
        if (off < -base || off > end - base) return pos_type(off_type(-1));
        setg(eback(), eback() + base + off, egptr());
        return pos_type(base + off);
    }
    pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
        return seekoff(off_type(pos), std::ios_base::beg, which);
    }
};

}  // namespace

template <class F>
F load_exactly(std::istream& in, const LoadOptions& options) {
    const io::LoadLimit limit(options);
    F f = F::load(in);
    io::expect_end(in);
    return f;
}

template <class F>
F load_exactly(std::span<const std::byte> bytes, const LoadOptions& options) {
    SpanBuf buf(bytes);
    std::istream in(&buf);
    return load_exactly<F>(in, options);
}

template <class F>
F load_exactly(const std::filesystem::path& path, const LoadOptions& options) {
    const io::LoadLimit limit(options);
    return F::load(path);
}

#define BATCHBLOOM_LOAD_EXACTLY(F)                                              \
    template F load_exactly<F>(std::span<const std::byte>, const LoadOptions&); \
    template F load_exactly<F>(std::istream&, const LoadOptions&);              \
    template F load_exactly<F>(const std::filesystem::path&, const LoadOptions&);
BATCHBLOOM_LOAD_EXACTLY(Filter)
BATCHBLOOM_LOAD_EXACTLY(CountingFilter)
BATCHBLOOM_LOAD_EXACTLY(DeletableFilter)
BATCHBLOOM_LOAD_EXACTLY(ScalableFilter)
BATCHBLOOM_LOAD_EXACTLY(ClassicFilter)
#undef BATCHBLOOM_LOAD_EXACTLY

namespace {

/// The loader of `form` on `in`; the whole stream must be that one filter.
AnyFilter load_form(Form form, std::istream& in) {
    const auto exactly = [&](auto loaded) -> AnyFilter {
        io::expect_end(in);
        return loaded;
    };
    switch (form) {
        case Form::blocked:
        case Form::zstd: return exactly(Filter::load(in));
        case Form::counting: return exactly(CountingFilter::load(in));
        case Form::deletable: return exactly(DeletableFilter::load(in));
        case Form::scalable: return exactly(ScalableFilter::load(in));
        case Form::classic: return exactly(ClassicFilter::load(in));
        case Form::spark: return exactly(ClassicFilter::read_spark(in));
    }
    throw Error("internal error: unhandled filter form");
}

}  // namespace

AnyFilter load_any(const std::filesystem::path& path, const LoadOptions& options, FileForm* form_out) {
    const io::LoadLimit limit(options);
    auto file = io::open_for_load(path);
    try {
        // One open and one pass: the first bytes tell the kind, and its loader goes on from
        // them, so a pipe, a FIFO or /dev/stdin loads like a file. A seekable file is read
        // again from its start instead, so that its loader can size its reads from it.
        io::HeaderBytes h{};
        const std::size_t got = io::read_up_to(file, h.data(), h.size());
        const Form form = detect(h, got);
        if (form_out != nullptr) *form_out = io::sniff({h.data(), got}).form;
        file.clear();  // a file shorter than a header ended the read above
        if (io::remaining(file) >= 0) {
            file.seekg(0);
            return io::load_stream<AnyFilter>(file, [&](std::istream& in) { return load_form(form, in); });
        }
        io::PrefixedBuf replay({h.data(), got}, *file.rdbuf());
        std::istream in(&replay);
        return io::load_stream<AnyFilter>(in, [&](std::istream& s) { return load_form(form, s); });
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

AnyFilter load_any(std::span<const std::byte> bytes, const LoadOptions& options) {
    const io::LoadLimit limit(options);
    io::HeaderBytes h{};
    const std::size_t got = std::min(bytes.size(), h.size());
    if (got != 0) std::memcpy(h.data(), bytes.data(), got);
    const Form form = detect(h, got);
    try {
        SpanBuf buf(bytes);
        std::istream in(&buf);
        return load_form(form, in);
    } catch (const FormatError& e) {
        throw FormatError(std::string(name_of(form)) + ": " + e.what());
    }
}

PullBuf::PullBuf(Read read, std::size_t block) : read_(std::move(read)), block_(block) {}

PullBuf::int_type PullBuf::underflow() {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    const std::size_t got = read_(block_.data(), block_.size());
    if (got == 0) return traits_type::eof();
    setg(block_.data(), block_.data(), block_.data() + got);
    return traits_type::to_int_type(*gptr());
}

std::streamsize PullBuf::xsgetn(char* s, std::streamsize n) {
    std::streamsize done = std::min<std::streamsize>(n, egptr() - gptr());
    if (done > 0) {
        std::memcpy(s, gptr(), std::size_t(done));
        setg(eback(), gptr() + done, egptr());
    }
    while (done < n) {
        const std::size_t got = read_(s + done, std::size_t(n - done));
        if (got == 0) break;
        done += std::streamsize(got);
    }
    return done;
}

FileKind kind_of(const AnyFilter& filter) noexcept {
    constexpr FileKind kinds[] = {FileKind::blocked, FileKind::counting, FileKind::deletable, FileKind::scalable,
                                  FileKind::classic};
    static_assert(std::variant_size_v<AnyFilter> == std::size(kinds));
    return kinds[filter.index()];
}

}  // namespace batchbloom
