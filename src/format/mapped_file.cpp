// Filter::map: a saved blocked filter opened read-only over a memory mapping (filter.hpp,
// "Mapped filters"). The file is checked as load() checks it — the header by the same code,
// the size exactly header + payload — before anything is mapped, so a probe never reads past
// the end of the file as it was at open; only the payload checksum is optional.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "batchbloom/filter.hpp"
#include "format/file_header.hpp"
#include "format/zstd_stream.hpp"

namespace batchbloom {

namespace {

// Closes the descriptor when map() returns or throws (the mapping does not need it).
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) noexcept : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const noexcept { return fd_; }

private:
    int fd_;
};

// Reads up to n bytes from the start of the file; fewer only at its end.
std::size_t read_prefix(int fd, void* dst, std::size_t n, const std::string& name) {
    std::size_t got = 0;
    while (got < n) {
        const ssize_t r = ::pread(fd, static_cast<char*>(dst) + got, n - got, static_cast<off_t>(got));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) throw Error("cannot read '" + name + "': " + std::strerror(errno));
        if (r == 0) break;
        got += static_cast<std::size_t>(r);
    }
    return got;
}

}  // namespace

Filter Filter::map(const std::filesystem::path& path, bool verify) {
    const std::string name = path.string();
    const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error("cannot open '" + name + "': " + std::strerror(errno));
    struct stat st{};
    if (::fstat(fd.get(), &st) != 0) throw Error("cannot stat '" + name + "': " + std::strerror(errno));
    // Only a regular file has a size to check against the header (and stays put under a mapping).
    if (!S_ISREG(st.st_mode)) throw Error("cannot map '" + name + "': not a regular file");

    io::HeaderBytes h{};
    const std::size_t got = read_prefix(fd.get(), h.data(), h.size(), name);
    try {
        if (io::sniff({h.data(), got}).form == FileForm::zstd)
            throw FormatError("the file is compressed (zstd) and cannot be mapped; Filter::load() reads it");
        const io::FileHeader p = io::parse_blocked_header(h, got);
        const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
        const std::uint64_t payload_bytes = file_bytes - io::header_size;  // got == header_size <= file size
        if (payload_bytes < p.payload_bytes)
            throw FormatError("truncated payload: " + std::to_string(payload_bytes) + " of " +
                              std::to_string(p.payload_bytes) + " bytes");
        if (payload_bytes > p.payload_bytes)
            throw FormatError("trailing data: " + std::to_string(payload_bytes - p.payload_bytes) +
                              " bytes after the payload");
        AlignedBuffer storage;
        try {
            storage = AlignedBuffer::map_readonly(fd.get(), io::header_size, static_cast<std::size_t>(p.payload_bytes));
        } catch (const std::system_error& e) {
            throw Error("cannot map '" + name + "': " + e.code().message());
        }
        if (verify && xxh3_64(storage.data(), storage.size(), 0) != p.payload_hash)
            throw FormatError("corrupt payload: payload checksum mismatch");
        return Filter(p.params(), p.hashing(), p.key_kinds, std::move(storage));
    } catch (const FormatError& e) {
        throw FormatError("'" + name + "': " + e.what());
    }
}

}  // namespace batchbloom
