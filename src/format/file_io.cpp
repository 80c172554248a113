#include "format/file_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <unistd.h>

// The streaming XXH3 state, compiled into this translation unit only (as in hash.cpp).
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace batchbloom {

namespace io {

namespace {

[[noreturn]] void truncated_payload(std::uint64_t got, std::uint64_t want) {
    throw FormatError("truncated payload: " + std::to_string(got) + " of " + std::to_string(want) + " bytes");
}

}  // namespace

struct PayloadDigest::State {
    XXH3_state_t xxh;
};

PayloadDigest::PayloadDigest() : state_(std::make_unique<State>()) { XXH3_64bits_reset(&state_->xxh); }
PayloadDigest::~PayloadDigest() = default;
void PayloadDigest::update(std::span<const std::byte> piece) {
    XXH3_64bits_update(&state_->xxh, piece.data(), piece.size());
}
std::uint64_t PayloadDigest::value() const { return XXH3_64bits_digest(&state_->xxh); }

namespace {

std::uint64_t digest(std::span<const std::span<const std::byte>> pieces) {
    PayloadDigest d;
    for (const auto piece : pieces) d.update(piece);
    return d.value();
}

}  // namespace

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

void write_filter(std::ostream& out, FileHeader h, std::span<const std::span<const std::byte>> payload) {
    h.payload_bytes = 0;
    for (const auto piece : payload) h.payload_bytes += piece.size();
    h.payload_hash = digest(payload);
    const HeaderBytes b = encode(h);
    out.write(reinterpret_cast<const char*>(b.data()), header_size);
    for (const auto piece : payload)
        out.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(piece.size()));
    if (!out) throw Error("cannot write the filter: the output stream failed");
}

namespace {

std::uint64_t physical_memory() noexcept {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
    return std::uint64_t(pages) * std::uint64_t(page);
}

thread_local std::uint64_t current_limit = 0;  // 0: no load in progress set one

}  // namespace

std::uint64_t load_limit() noexcept {
    static const std::uint64_t machine = physical_memory();
    return current_limit != 0 ? current_limit : machine;
}

void check_load_limit(std::uint64_t bytes) {
    if (const std::uint64_t limit = load_limit(); bytes > limit)
        throw FormatError("the filter needs " + std::to_string(bytes) +
                          " bytes of memory, more than the load limit of " + std::to_string(limit) +
                          " bytes (max_bytes)");
}

LoadLimit::LoadLimit(const LoadOptions& options) noexcept : previous_(current_limit) {
    // max_bytes 0 would refuse every filter; a limit of 1 byte does the same and keeps 0 free
    // to mean "not set".
    if (options.max_bytes) current_limit = std::max<std::uint64_t>(*options.max_bytes, 1);
}

LoadLimit::~LoadLimit() { current_limit = previous_; }

namespace {

/// Reads into `buffer` (already holding some bytes) until it holds `want`, growing it only as
/// data arrives; false if the stream ends first (buffer then holds what arrived).
bool read_growing(std::istream& in, std::vector<std::byte>& buffer, std::uint64_t want) {
    while (buffer.size() < want) {
        const std::size_t have = buffer.size();
        const auto next =
            static_cast<std::size_t>(std::min<std::uint64_t>(want, std::max<std::size_t>(have * 2, std::size_t(1) << 20)));
        buffer.resize(next);
        if (const std::size_t got = read_up_to(in, buffer.data() + have, next - have); got != next - have) {
            buffer.resize(have + got);
            return false;
        }
    }
    return true;
}

}  // namespace

PayloadReader::PayloadReader(std::istream& in, const FileHeader& h)
    : in_(in), size_(h.payload_bytes), hash_(h.payload_hash) {
    if (const std::int64_t left = remaining(in); left >= 0) {
        if (std::uint64_t(left) < size_) truncated_payload(std::uint64_t(left), size_);
        check_load_limit(size_);
        return;
    }
    // A stream that cannot say what it holds must first deliver an eighth of the payload (at
    // least 1 MiB, at most an eighth of the limit): a header that claims more than the stream
    // holds costs at most eight times what arrived, and a real payload is read into the
    // loader's storage with at most an eighth of it buffered beside it.
    const std::uint64_t first =
        std::min(size_, std::max<std::uint64_t>(std::min(size_, load_limit()) / 8, std::uint64_t(1) << 20));
    if (!read_growing(in, buffer_, first)) truncated_payload(buffer_.size(), size_);
    check_load_limit(size_);
}

void PayloadReader::read(std::span<std::byte> dst) {
    if (dst.size() > size_ - done_) throw Error("internal error: a loader read past the payload");
    std::size_t from_buffer = 0;
    if (done_ < buffer_.size()) {
        from_buffer = std::min<std::size_t>(dst.size(), buffer_.size() - std::size_t(done_));
        std::memcpy(dst.data(), buffer_.data() + done_, from_buffer);
        if (done_ + from_buffer == buffer_.size()) std::vector<std::byte>().swap(buffer_);  // all handed out
    }
    const std::size_t rest = dst.size() - from_buffer;
    if (rest != 0) {
        if (const std::size_t got = read_up_to(in_, dst.data() + from_buffer, rest); got != rest)
            truncated_payload(done_ + from_buffer + got, size_);  // an unsized stream ended, or a sized one shrank
    }
    pieces_.push_back(dst);
    done_ += dst.size();
}

std::vector<std::byte> PayloadReader::read_rest() {
    if (done_ == 0 && !buffer_.empty()) {
        // The loader parses it all first: the buffered start grows to the whole payload.
        std::vector<std::byte> all = std::move(buffer_);
        if (!read_growing(in_, all, size_)) truncated_payload(all.size(), size_);
        pieces_.push_back(all);  // the vector keeps its memory when it is returned
        done_ = size_;
        return all;
    }
    std::vector<std::byte> rest(static_cast<std::size_t>(size_ - done_));
    read(rest);
    return rest;
}

void PayloadReader::finish() const {
    if (done_ != size_) throw Error("internal error: a loader left part of the payload unread");
    if (digest(pieces_) != hash_) throw FormatError("corrupt payload: payload checksum mismatch");
}

PrefixedBuf::PrefixedBuf(std::span<const unsigned char> prefix, std::streambuf& source)
    : PullBuf([this](char* dst, std::size_t n) { return take(dst, n); }, std::size_t(1) << 16),
      prefix_(prefix.begin(), prefix.end()),
      source_(source) {}

std::size_t PrefixedBuf::take(char* dst, std::size_t n) {
    if (given_ < prefix_.size()) {
        const std::size_t k = std::min(n, prefix_.size() - given_);
        std::memcpy(dst, prefix_.data() + given_, k);
        given_ += k;
        return k;
    }
    return static_cast<std::size_t>(source_.sgetn(dst, static_cast<std::streamsize>(n)));
}

void expect_end(std::istream& in) {
    if (in.peek() == std::char_traits<char>::eof()) return;
    const std::int64_t left = remaining(in);
    throw FormatError(left > 0 ? "trailing data: " + std::to_string(left) + " bytes after the filter"
                               : std::string("trailing data after the filter"));
}

std::ifstream open_for_load(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw Error("cannot load '" + path.string() + "': it is a directory, not a filter file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot open '" + path.string() + "': " + std::strerror(errno));
    return in;
}

}  // namespace io

FileKind file_kind(const std::filesystem::path& path) {
    auto in = io::open_for_load(path);
    try {
        io::HeaderBytes b{};
        return io::decode(b, io::read_up_to(in, b.data(), b.size())).kind;
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

FileForm file_form(const std::filesystem::path& path) {
    auto in = io::open_for_load(path);
    io::HeaderBytes b{};
    return io::sniff({b.data(), io::read_up_to(in, b.data(), b.size())}).form;
}

}  // namespace batchbloom
