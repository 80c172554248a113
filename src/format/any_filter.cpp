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
F load_exactly(std::span<const std::byte> bytes) {
    SpanBuf buf(bytes);
    std::istream in(&buf);
    F f = F::load(in);
    io::expect_end(in);
    return f;
}

template Filter load_exactly<Filter>(std::span<const std::byte>);
template CountingFilter load_exactly<CountingFilter>(std::span<const std::byte>);
template DeletableFilter load_exactly<DeletableFilter>(std::span<const std::byte>);
template ScalableFilter load_exactly<ScalableFilter>(std::span<const std::byte>);
template ClassicFilter load_exactly<ClassicFilter>(std::span<const std::byte>);

AnyFilter load_any(const std::filesystem::path& path) {
    io::HeaderBytes h{};
    std::size_t got = 0;
    {
        auto in = io::open_for_load(path);
        got = io::read_up_to(in, h.data(), h.size());
    }
    Form form;
    try {
        form = detect(h, got);
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
    switch (form) {
        case Form::blocked:
        case Form::zstd: return Filter::load(path);
        case Form::counting: return CountingFilter::load(path);
        case Form::deletable: return DeletableFilter::load(path);
        case Form::scalable: return ScalableFilter::load(path);
        case Form::classic:
        case Form::spark: return load_classic_filter_file(path);
    }
    throw Error("internal error: unhandled filter form");
}

AnyFilter load_any(std::span<const std::byte> bytes) {
    io::HeaderBytes h{};
    const std::size_t got = std::min(bytes.size(), h.size());
    if (got != 0) std::memcpy(h.data(), bytes.data(), got);
    const Form form = detect(h, got);
    try {
        switch (form) {
            case Form::blocked:
            case Form::zstd: return load_exactly<Filter>(bytes);
            case Form::counting: return load_exactly<CountingFilter>(bytes);
            case Form::deletable: return load_exactly<DeletableFilter>(bytes);
            case Form::scalable: return load_exactly<ScalableFilter>(bytes);
            case Form::classic: return load_exactly<ClassicFilter>(bytes);
            case Form::spark: return ClassicFilter::from_spark_bytes(bytes);
        }
    } catch (const FormatError& e) {
        throw FormatError(std::string(name_of(form)) + ": " + e.what());
    }
    throw Error("internal error: unhandled filter form");
}

FileKind kind_of(const AnyFilter& filter) noexcept {
    constexpr FileKind kinds[] = {FileKind::blocked, FileKind::counting, FileKind::deletable, FileKind::scalable,
                                  FileKind::classic};
    static_assert(std::variant_size_v<AnyFilter> == std::size(kinds));
    return kinds[filter.index()];
}

}  // namespace batchbloom
