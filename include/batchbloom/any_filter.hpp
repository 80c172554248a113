#pragma once
// Loading a saved filter whose type is not known in advance: a tool that is handed "a filter
// file" (the CLI's query and info, Python's load_any) gets the filter as its own type.
//
//     batchbloom::AnyFilter f = batchbloom::load_any("users.bbf");
//     std::visit([&](const auto& filter) { hits = filter.count(keys); }, f);
#include <cstddef>
#include <filesystem>
#include <span>
#include <variant>

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
/// loader then checks the rest, as its load(path) does: trailing bytes are an error. Throws
/// FormatError naming the path and the problem, Error if the file cannot be opened.
AnyFilter load_any(const std::filesystem::path& path);
/// The same for a saved file's bytes (the whole span must be one filter); FormatErrors name the
/// kind the bytes were read as.
AnyFilter load_any(std::span<const std::byte> bytes);

/// A filter of type F (one of AnyFilter's types) read from a saved file's bytes by F::load; the
/// whole span must be that one filter, so anything after it (after a zstd frame too) is a
/// FormatError, by the same check load(path) and load_any make. Front ends that hold bytes
/// (Python's from_bytes) load through it, so none accepts what another refuses.
template <class F>
F load_exactly(std::span<const std::byte> bytes);

/// The kind of a loaded filter (FileKind::classic for Spark's form as well).
FileKind kind_of(const AnyFilter& filter) noexcept;

}  // namespace batchbloom
