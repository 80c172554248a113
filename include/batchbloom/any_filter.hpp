#pragma once
// Loading a saved filter whose type is not known in advance: a tool that is handed "a filter
// file" (the CLI's query and info, Python's load_any) gets the filter as its own type.
//
//     batchbloom::AnyFilter f = batchbloom::load_any("users.bbf");
//     std::visit([&](const auto& filter) { hits = filter.count(keys); }, f);
#include <cstddef>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <span>
#include <streambuf>
#include <variant>
#include <vector>

#include "classic.hpp"
#include "counting.hpp"
#include "deletable.hpp"
#include "file_kind.hpp"
#include "filter.hpp"
#include "scalable.hpp"

namespace batchbloom {

/// A filter of any type that has a file format.
using AnyFilter = std::variant<Filter, CountingFilter, DeletableFilter, ScalableFilter, ClassicFilter>;

/// The filter a file holds, as its own type: a batchbloom file of any kind (a zstd-compressed
/// blocked filter too) or Apache Spark's serialized BloomFilter (a ClassicFilter). The first
/// bytes say which: a batchbloom header's kind byte (once its magic, version and checksum
/// passed), zstd's frame magic, or Spark's big-endian version word (1 or 2). That type's own
/// loader then checks the rest, as its load(path) does: trailing bytes are an error. The file
/// is opened once and read once, so a pipe, a FIFO, /dev/stdin or a shell's <(...) loads like
/// a file. `options` bound what the load may allocate (LoadOptions, filter.hpp). Where `form`
/// is not null it receives the input's form (a ClassicFilter came from Spark's form or from
/// batchbloom's own file). Throws FormatError naming the path and the problem, Error if the
/// file cannot be opened.
AnyFilter load_any(const std::filesystem::path& path, const LoadOptions& options = {}, FileForm* form = nullptr);
/// The same for a saved file's bytes (the whole span must be one filter); FormatErrors name the
/// kind the bytes were read as.
AnyFilter load_any(std::span<const std::byte> bytes, const LoadOptions& options = {});

/// A filter of type F (one of AnyFilter's types) read from a saved file's bytes by F::load; the
/// whole span must be that one filter, so anything after it (after a zstd frame too) is a
/// FormatError, by the same check load(path) and load_any make. Front ends that hold bytes
/// (Python's from_bytes) load through it, so none accepts what another refuses.
template <class F>
F load_exactly(std::span<const std::byte> bytes, const LoadOptions& options = {});
/// The same for a stream read to its end (Python's load of a file object): F::load, then
/// nothing may follow; `options` bound what it may allocate.
template <class F>
F load_exactly(std::istream& in, const LoadOptions& options = {});
/// F::load(path) (which rejects trailing bytes too) under `options`.
template <class F>
F load_exactly(const std::filesystem::path& path, const LoadOptions& options = {});

/// An input stream buffer over `read(dst, n)`, which puts up to n bytes at dst and returns how
/// many (0 only at the end): how a loader reads a source that is no std::istream (a zstd
/// frame's content, a Python file object) through load_exactly(istream) or a class's
/// load(istream). A read larger than `block` bytes goes straight into the reader's memory (a
/// filter's storage), so a payload is not copied twice. Exceptions from `read` propagate from
/// an istream with exceptions(badbit) set; otherwise the istream turns them into a failed read.
class PullBuf : public std::streambuf {
public:
    using Read = std::function<std::size_t(char* dst, std::size_t n)>;
    PullBuf(Read read, std::size_t block);

protected:
    int_type underflow() override;
    std::streamsize xsgetn(char* s, std::streamsize n) override;

private:
    Read read_;
    std::vector<char> block_;
};

/// The kind of a loaded filter (FileKind::classic for Spark's form as well).
FileKind kind_of(const AnyFilter& filter) noexcept;

}  // namespace batchbloom
