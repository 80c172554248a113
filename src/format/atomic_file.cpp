#include "batchbloom/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <random>
#include <streambuf>
#include <string>
#include <utility>

#include "batchbloom/error.hpp"

namespace batchbloom {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& user_path, const std::string& what, int err) {
    throw Error("cannot write '" + user_path.string() + "': " + what + (what.empty() ? "" : ": ") + std::strerror(err));
}

/// An output stream buffer over a file descriptor that remembers the first write error
/// (errno), so the caller can name it: std::ofstream reports only that something failed.
class FdBuf : public std::streambuf {
public:
    explicit FdBuf(int fd) : fd_(fd) { setp(buf_.data(), buf_.data() + buf_.size()); }
    int error() const noexcept { return err_; }

protected:
    int_type overflow(int_type c) override {
        if (!drain()) return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
        if (n < std::streamsize(buf_.size())) return std::streambuf::xsputn(s, n);
        return drain() && write_all(s, std::size_t(n)) ? n : 0;  // large pieces bypass the buffer
    }

private:
    bool drain() {
        const bool ok = write_all(pbase(), std::size_t(pptr() - pbase()));
        setp(buf_.data(), buf_.data() + buf_.size());
        return ok;
    }
    bool write_all(const char* p, std::size_t n) {
        while (n > 0 && err_ == 0) {
            const ssize_t w = ::write(fd_, p, n);
            if (w < 0) {
                if (errno != EINTR) err_ = errno;
                continue;
            }
            p += w;
            n -= std::size_t(w);
        }
        return err_ == 0;
    }

    int fd_;
    int err_ = 0;
    std::array<char, std::size_t(1) << 16> buf_{};
};

/// Runs write() into fd; throws Error naming the user's path and the first system error.
void write_to(int fd, const fs::path& user_path, const std::function<void(std::ostream&)>& write) {
    FdBuf buf(fd);
    std::ostream out(&buf);
    try {
        write(out);
        out.flush();
    } catch (const Error&) {
        if (buf.error() != 0) fail(user_path, "", buf.error());  // the system's reason, not "the stream failed"
        throw;
    }
    if (buf.error() != 0) fail(user_path, "", buf.error());
    if (!out) throw Error("cannot write '" + user_path.string() + "': the output stream failed");
}

enum class Action { replace, in_place };

struct Target {
    Action action = Action::replace;
    fs::path path;           // the file that is replaced (a link's final target)
    bool exists = false;     // a regular file is there now
    struct stat st {};       // its status, when it exists
};

/// What `path` names, with symbolic links followed.
Target resolve(const fs::path& path) {
    Target t;
    if (::stat(path.c_str(), &t.st) == 0) {
        if (S_ISCHR(t.st.st_mode) || S_ISFIFO(t.st.st_mode)) return {Action::in_place, path, true, t.st};
        if (S_ISDIR(t.st.st_mode)) throw Error("cannot write '" + path.string() + "': it is a directory");
        if (!S_ISREG(t.st.st_mode))
            throw Error("cannot write '" + path.string() + "': it is a " +
                        (S_ISBLK(t.st.st_mode) ? "block device" : "socket") + ", not a regular file; refusing to replace it");
        t.exists = true;
        struct stat lst {};
        if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
            // realpath also resolves /proc's links to open files, which readlink cannot.
            char* real = ::realpath(path.c_str(), nullptr);
            if (real == nullptr) fail(path, "cannot resolve the symbolic link", errno);
            t.path = real;
            std::free(real);
        } else {
            t.path = path;
        }
        return t;
    }
    if (errno != ENOENT) fail(path, "", errno);
    // Nothing there, or a dangling link: follow the links to the name to create.
    fs::path p = path;
    for (int hops = 0;; ++hops) {
        struct stat lst {};
        if (::lstat(p.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) break;
        if (hops == 40) fail(path, "", ELOOP);
        std::array<char, PATH_MAX> buf{};
        const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
        if (n < 0) fail(path, "cannot read the symbolic link", errno);
        const fs::path link(std::string(buf.data(), std::size_t(n)));
        p = link.is_absolute() ? link : p.parent_path() / link;
    }
    t.path = p;
    return t;
}

std::string random_suffix() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static constexpr char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string s(12, '0');
    for (auto& c : s) c = digits[rng() % 36];
    return s;
}

/// A new file beside `target`, under a name nobody could have predicted (O_EXCL: never an
/// existing file or a link planted there). Returns its descriptor and sets `tmp`.
int create_temporary(const Target& t, const fs::path& user_path, fs::path& tmp) {
    const fs::path dir = t.path.has_parent_path() ? t.path.parent_path() : fs::path(".");
    for (int attempt = 0;; ++attempt) {
        std::string name = ".";  // (appended piecewise: GCC 12 warns falsely on a chain of + here)
        name += t.path.filename().string();
        name += ".tmp-";
        name += random_suffix();
        tmp = dir / name;
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0) return fd;
        if (errno != EEXIST || attempt == 100)
            fail(user_path, "cannot create a temporary file in '" + dir.string() + "'", errno);
    }
}

void replace(const Target& t, const fs::path& user_path, const std::function<void(std::ostream&)>& write) {
    fs::path tmp;
    int fd = create_temporary(t, user_path, tmp);
    try {
        if (t.exists) {
            ::fchmod(fd, t.st.st_mode & 07777);            // keep the old file's permissions
            (void)!::fchown(fd, t.st.st_uid, t.st.st_gid);  // and owner, where allowed (root)
        }
        write_to(fd, user_path, write);
        // Durable before it becomes visible: sync the data, rename, then sync the directory.
        if (::fsync(fd) != 0) fail(user_path, "", errno);
        const int rc = ::close(std::exchange(fd, -1));
        if (rc != 0) fail(user_path, "", errno);
    } catch (...) {
        if (fd >= 0) ::close(fd);
        ::unlink(tmp.c_str());
        throw;
    }
    if (::rename(tmp.c_str(), t.path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        throw Error("cannot replace '" + user_path.string() + "': " + std::strerror(err));
    }
    const fs::path dir = t.path.has_parent_path() ? t.path.parent_path() : fs::path(".");
    if (const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
        ::fsync(dfd);  // a directory that cannot be synced only loses durability of the rename
        ::close(dfd);
    }
}

void write_in_place(const fs::path& path, const std::function<void(std::ostream&)>& write) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) fail(path, "", errno);
    try {
        write_to(fd, path, write);
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0) fail(path, "", errno);
}

}  // namespace

void write_file(const fs::path& path, const std::function<void(std::ostream&)>& write) {
    if (path.empty()) throw Error("cannot write a file: the path is empty");
    const Target t = resolve(path);
    if (t.action == Action::in_place)
        write_in_place(path, write);
    else
        replace(t, path, write);
}

}  // namespace batchbloom
