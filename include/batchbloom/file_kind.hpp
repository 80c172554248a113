#pragma once
// Which filter type a saved file holds. Every batchbloom file starts with the same 64-byte
// header (magic "BATCHBLM", format version, filter kind, params, hashing, checksums); the
// kind byte says which class loads it.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace batchbloom {

/// Filter kind in a file header; the numeric values are part of the file format.
enum class FileKind : std::uint8_t {
    blocked = 1,    ///< Filter (filter.hpp)
    /// The blocked kind's earlier name, kept so that code written against it still compiles.
    plain [[deprecated("FileKind::plain is FileKind::blocked")]] = blocked,
    counting = 3,   ///< CountingFilter (counting.hpp)
    deletable = 4,  ///< DeletableFilter (deletable.hpp)
    scalable = 5,   ///< ScalableFilter (scalable.hpp)
    classic = 6,    ///< ClassicFilter (classic.hpp)
};

/// "blocked", "counting", "deletable", "scalable", "classic", or "unknown".
std::string_view to_string(FileKind kind);

/// The kind recorded in a file's header, after checking magic, version and the header
/// checksum; throws FormatError if the file is not a batchbloom filter or names a kind this
/// build does not know, Error if it cannot be opened.
FileKind file_kind(const std::filesystem::path& path);

/// How a filter file is framed, as its first bytes tell it (nothing else is checked): the one
/// sniffer load_any, the CLI and Python go by.
enum class FileForm : std::uint8_t {
    unknown,     ///< none of the forms below
    batchbloom,  ///< batchbloom's header ("BATCHBLM"); file_kind says which type
    zstd,        ///< a zstd frame: a blocked filter saved with Compression::zstd
    spark,       ///< Apache Spark's serialized BloomFilter (ClassicFilter::read_spark)
};

/// The form the first bytes of an input name (pass up to 64; fewer are read as far as they go).
FileForm file_form(std::span<const std::byte> first_bytes) noexcept;
/// The form of the file at `path`; throws Error if it cannot be opened.
FileForm file_form(const std::filesystem::path& path);

}  // namespace batchbloom
