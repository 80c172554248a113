#pragma once
// Writing a batchbloom file and the one open/verify path every loader goes through: a header
// (file_header.hpp), then a payload read by PayloadReader, which checks that all of it is
// there before anything is allocated for it and checks its checksum; load_stream and load_file
// wrap a kind's loader with the same error handling for streams and paths.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ios>
#include <istream>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "batchbloom/any_filter.hpp"
#include "batchbloom/error.hpp"
#include "batchbloom/filter.hpp"
#include "format/file_header.hpp"

namespace batchbloom::io {

/// The payload checksum (XXH3-64) over pieces fed in order, for writers that produce the
/// payload a chunk at a time.
class PayloadDigest {
public:
    PayloadDigest();
    ~PayloadDigest();
    PayloadDigest(const PayloadDigest&) = delete;
    PayloadDigest& operator=(const PayloadDigest&) = delete;
    void update(std::span<const std::byte> piece);
    std::uint64_t value() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Writes the header — its payload length and checksum computed here from the pieces — and
/// then the payload pieces in order.
void write_filter(std::ostream& out, FileHeader h, std::span<const std::span<const std::byte>> payload);

/// The most a load on this thread may allocate for one filter: LoadOptions::max_bytes of the
/// load in progress (LoadLimit), else the default, the machine's physical memory.
std::uint64_t load_limit() noexcept;

/// Throws FormatError if a filter that needs `bytes` of memory exceeds load_limit(); loaders
/// call it before they allocate what a header asks for.
void check_load_limit(std::uint64_t bytes);

/// Sets load_limit() for the loads this thread runs while it lives. A thread-local setting
/// rather than a parameter: the entry points that take LoadOptions (load_any, Filter::load)
/// reach each kind's loader through that kind's public load(istream), which has none.
class LoadLimit {
public:
    explicit LoadLimit(const LoadOptions& options) noexcept;
    LoadLimit(const LoadLimit&) = delete;
    LoadLimit& operator=(const LoadLimit&) = delete;
    ~LoadLimit();

private:
    std::uint64_t previous_;
};

/// Reads the payload a parsed header promises, piece by piece, into the loader's own storage,
/// so a load holds one copy of the filter whatever the source. A stream that says how many
/// bytes it holds (a file, a string) must hold the whole payload ("truncated payload") before
/// the loader allocates anything. One that cannot say (a pipe, a zstd frame's content, a
/// Python file object) must first deliver an eighth of it (at least 1 MiB), held in a buffer
/// that grows only as data arrives, so a header claiming more than the stream holds ends as
/// "truncated" rather than as a huge allocation; the rest is read straight into the loader's
/// storage. Either way the payload's size is checked against load_limit() before the loader
/// may allocate.
class PayloadReader {
public:
    PayloadReader(std::istream& in, const FileHeader& h);

    /// The next dst.size() bytes of the payload.
    void read(std::span<std::byte> dst);
    /// The rest of the payload, in a buffer of its own (for loaders that parse it before they
    /// know what to allocate); from an unsized stream, in memory that grows as data arrives.
    std::vector<std::byte> read_rest();
    /// After the whole payload was read: throws FormatError unless its checksum matches. The
    /// storage the pieces were read into must still be alive.
    void finish() const;

private:
    std::istream& in_;
    std::uint64_t size_;
    std::uint64_t hash_;
    std::uint64_t done_ = 0;
    std::vector<std::byte> buffer_;  // an unsized stream's first bytes, until handed out
    std::vector<std::span<const std::byte>> pieces_;
};

/// Bytes left in a seekable stream (a file, a string), or -1 if it cannot tell (a pipe).
std::int64_t remaining(std::istream& in);

/// Throws FormatError unless the stream is at its end: the one check that nothing follows a
/// filter (or its zstd frame), for every loader that must read exactly one.
void expect_end(std::istream& in);

/// Opens a file for reading; throws Error naming the path if it cannot.
std::ifstream open_for_load(const std::filesystem::path& path);

/// A stream buffer that hands out `prefix` (bytes already taken from `source` to tell what the
/// input is) and then the rest of `source`: how one read of an unseekable input (a pipe, a
/// FIFO) both tells the kind and loads.
class PrefixedBuf : public PullBuf {
public:
    PrefixedBuf(std::span<const unsigned char> prefix, std::streambuf& source);

private:
    std::size_t take(char* dst, std::size_t n);

    std::vector<char> prefix_;
    std::size_t given_ = 0;
    std::streambuf& source_;
};

/// Runs a kind's loader on a caller's stream; a stream with exceptions enabled that fails
/// reports FormatError like any other unreadable input.
template <class T, class Load>
T load_stream(std::istream& in, Load&& load) {
    try {
        return load(in);
    } catch (const std::ios_base::failure& e) {
        throw FormatError(std::string("cannot read the filter: ") + e.what());
    }
}

/// Opens `path`, runs a kind's loader on it, rejects trailing bytes, and prefixes
/// FormatErrors with the path.
template <class T, class Load>
T load_file(const std::filesystem::path& path, Load&& load) {
    auto in = open_for_load(path);
    try {
        T value = load(in);
        expect_end(in);
        return value;
    } catch (const FormatError& e) {
        throw FormatError("'" + path.string() + "': " + e.what());
    }
}

}  // namespace batchbloom::io
