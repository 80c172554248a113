#pragma once
// Reading a Parquet file's raw bytes: its magic bytes and footer, and byte ranges at an offset.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace batchbloom::parquet {

inline constexpr std::size_t magic_bytes = 4;
inline constexpr std::size_t tail_bytes = 8;  // footer length (4, little-endian) + "PAR1"

/// 'text' in single quotes, for messages.
std::string quoted(const std::string& text);

/// Throws Error "cannot <what> '<path>': <strerror(errno)>".
[[noreturn]] void io_error(const std::filesystem::path& path, const std::string& what);

/// Exactly n bytes at offset; throws Error if they cannot be read.
std::vector<std::byte> read_at(std::ifstream& in, const std::filesystem::path& path, std::uint64_t offset,
                               std::size_t n);

struct RawFooter {
    std::uint64_t file_size = 0;
    std::uint64_t offset = 0;        ///< where the serialized FileMetaData starts
    std::vector<std::byte> bytes;    ///< the serialized FileMetaData
};

/// Checks the magic bytes and reads the footer. Throws Error if the file cannot be read,
/// FormatError if it is not a Parquet file with a plaintext footer.
RawFooter read_raw_footer(std::ifstream& in, const std::filesystem::path& path);

}  // namespace batchbloom::parquet
