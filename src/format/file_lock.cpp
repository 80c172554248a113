#include "batchbloom/file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "batchbloom/error.hpp"

namespace batchbloom {

namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

FileLock::~FileLock() {
    if (fd_ >= 0) ::close(fd_);
}

FileLock::FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

FileLock FileLock::acquire(const std::filesystem::path& path) {
    const std::string p = path.string();
    for (;;) {
        // O_NONBLOCK: a FIFO put at the path meanwhile must not hang the open.
        const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) return {};
        FileLock lock(fd);
        struct stat held {};
        if (::fstat(fd, &held) != 0 || !S_ISREG(held.st_mode)) return {};
        while (::flock(fd, LOCK_EX) != 0)
            if (errno != EINTR)
                throw Error("cannot lock '" + p + "' for the update: " + std::strerror(errno) +
                            " (write the result to another file to leave this one as it is)");
        struct stat named {};
        if (::stat(p.c_str(), &named) == 0 && same_file(held, named)) return lock;
        // Replaced while we waited (or removed): lock what the path names now.
    }
}

FileLock lock_if_rewritten(const std::filesystem::path& out, std::initializer_list<std::filesystem::path> inputs) {
    if (out == "-") return {};
    struct stat target {};
    if (::stat(out.c_str(), &target) != 0 || !S_ISREG(target.st_mode)) return {};
    // An input that names the output's path (as written, or once links are resolved) is the
    // output, whatever the file there now: comparing two stats alone lost updates, as another
    // writer's rename landing between them made the one name look like two files and the
    // command ran unlocked (16 writers, Python and CLI, into one file: 2 of 64 rounds lost).
    std::error_code ec;
    const std::filesystem::path resolved = std::filesystem::weakly_canonical(out, ec);
    for (const std::filesystem::path& in : inputs) {
        if (in == out) return FileLock::acquire(out);
        std::error_code ec_in;
        if (!ec && std::filesystem::weakly_canonical(in, ec_in) == resolved && !ec_in) return FileLock::acquire(out);
        struct stat st {};
        if (::stat(in.c_str(), &st) == 0 && same_file(st, target)) return FileLock::acquire(out);
    }
    return {};
}

}  // namespace batchbloom
