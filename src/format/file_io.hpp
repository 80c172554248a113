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
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "batchbloom/error.hpp"
#include "format/file_header.hpp"

namespace batchbloom::io {

/// Writes the header — its payload length and checksum computed here from the pieces — and
/// then the payload pieces in order.
void write_filter(std::ostream& out, FileHeader h, std::span<const std::span<const std::byte>> payload);

/// Reads the payload a parsed header promises, piece by piece, into the loader's own storage.
/// A stream that says how many bytes it holds (a file, a string) must hold the whole payload
/// ("truncated payload") before the loader allocates anything; one that cannot say (a pipe) is
/// first read into memory that grows only as data arrives, so a header claiming more than the
/// stream holds ends as "truncated" rather than as a huge allocation.
class PayloadReader {
public:
    PayloadReader(std::istream& in, const FileHeader& h);

    /// The next dst.size() bytes of the payload.
    void read(std::span<std::byte> dst);
    /// The rest of the payload, in a buffer of its own (for loaders that parse it before they
    /// know what to allocate).
    std::vector<std::byte> read_rest();
    /// After the whole payload was read: throws FormatError unless its checksum matches. The
    /// storage the pieces were read into must still be alive.
    void finish() const;

private:
    std::istream& in_;
    std::uint64_t size_;
    std::uint64_t hash_;
    std::uint64_t done_ = 0;
    bool buffered_ = false;
    std::vector<std::byte> buffer_;  // an unseekable stream's payload
    std::vector<std::span<const std::byte>> pieces_;
};

/// Bytes left in a seekable stream (a file, a string), or -1 if it cannot tell (a pipe).
std::int64_t remaining(std::istream& in);

/// Throws FormatError unless the stream is at its end: the one check that nothing follows a
/// filter (or its zstd frame), for every loader that must read exactly one.
void expect_end(std::istream& in);

/// Opens a file for reading; throws Error naming the path if it cannot.
std::ifstream open_for_load(const std::filesystem::path& path);

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
