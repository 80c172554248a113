#include "format/file_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

// The streaming XXH3 state, compiled into this translation unit only (as in hash.cpp).
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace batchbloom {

namespace io {

namespace {

[[noreturn]] void truncated_payload(std::uint64_t got, std::uint64_t want) {
    throw FormatError("truncated payload: " + std::to_string(got) + " of " + std::to_string(want) + " bytes");
}

std::uint64_t digest(std::span<const std::span<const std::byte>> pieces) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    for (const auto piece : pieces) XXH3_64bits_update(&state, piece.data(), piece.size());
    return XXH3_64bits_digest(&state);
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

PayloadReader::PayloadReader(std::istream& in, const FileHeader& h)
    : in_(in), size_(h.payload_bytes), hash_(h.payload_hash) {
    if (const std::int64_t left = remaining(in); left >= 0) {
        if (std::uint64_t(left) < size_) truncated_payload(std::uint64_t(left), size_);
        return;
    }
    buffered_ = true;
    while (buffer_.size() < size_) {
        const std::size_t have = buffer_.size();
        const auto want = static_cast<std::size_t>(
            std::min<std::uint64_t>(size_, std::max<std::size_t>(have * 2, std::size_t(1) << 20)));
        buffer_.resize(want);
        if (const std::size_t got = read_up_to(in, buffer_.data() + have, want - have); got != want - have)
            truncated_payload(have + got, size_);
    }
}

void PayloadReader::read(std::span<std::byte> dst) {
    if (dst.size() > size_ - done_) throw Error("internal error: a loader read past the payload");
    if (buffered_) {
        std::memcpy(dst.data(), buffer_.data() + done_, dst.size());
    } else if (const std::size_t got = read_up_to(in_, dst.data(), dst.size()); got != dst.size()) {
        truncated_payload(done_ + got, size_);  // the stream shrank after it was measured
    }
    pieces_.push_back(dst);
    done_ += dst.size();
}

std::vector<std::byte> PayloadReader::read_rest() {
    if (buffered_ && done_ == 0) {
        std::vector<std::byte> all = std::move(buffer_);  // keeps its memory, which pieces_ points into
        pieces_.push_back(all);
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
