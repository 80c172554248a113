#include "batchbloom/atomic_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <set>
#include <streambuf>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
        if (t.st.st_nlink > 1)
            throw Error("cannot replace '" + path.string() + "': the file has " + std::to_string(t.st.st_nlink) +
                        " names (hard links), and a save writes a new file and renames it over this name only, "
                        "which would leave the other names with the old contents; save to a new name, or remove "
                        "the other links first");
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

// Temporary files are named ".NAME.tmp-" and 12 characters of [0-9a-z]. While its writer lives,
// a temporary is held under flock(LOCK_EX) from the moment it is created until it is renamed or
// removed; a temporary nobody holds was left by a writer that died (SIGKILL, a crash, power
// loss), and the next save of the same file removes it. Locks, not process ids in the name:
// a pid says nothing about a writer in another pid namespace or on another machine sharing
// the directory, and pids are reused; the kernel drops a dead process's locks itself.
constexpr std::size_t suffix_length = 12;

std::string temporary_prefix(const fs::path& target) {
    std::string prefix = ".";  // (appended piecewise: GCC 12 warns falsely on a chain of + here)
    prefix += target.filename().string();
    prefix += ".tmp-";
    return prefix;
}

bool is_temporary_of(std::string_view name, std::string_view prefix) {
    if (name.size() != prefix.size() + suffix_length || !name.starts_with(prefix)) return false;
    return std::all_of(name.begin() + std::ptrdiff_t(prefix.size()), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); });
}

std::string random_suffix() {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    static constexpr char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    std::string s(suffix_length, '0');
    for (auto& c : s) c = digits[rng() % 36];
    return s;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// The names of this process's temporaries still being written. On NFS, Linux emulates flock
// with byte-range locks, which never exclude their own process, so a save on one thread could
// otherwise take another thread's live temporary for a dead writer's.
struct LiveTemporaries {
    std::mutex mutex;
    std::set<std::string, std::less<>> names;
};
LiveTemporaries& live_temporaries() {
    static auto* live = new LiveTemporaries;  // never destroyed: saves may run during static destruction
    return *live;
}

/// A temporary file of this process: registered as live from before it exists until this
/// object is destroyed, and locked while its descriptor is open.
class Temporary {
public:
    Temporary(fs::path path, std::string name) : path_(std::move(path)), name_(std::move(name)) {
        auto& live = live_temporaries();
        const std::lock_guard lock(live.mutex);
        live.names.insert(name_);
    }
    ~Temporary() {
        if (fd_ >= 0) ::close(fd_);  // after the rename: the file is never visible unlocked under its name
        auto& live = live_temporaries();
        const std::lock_guard lock(live.mutex);
        live.names.erase(name_);
    }
    Temporary(const Temporary&) = delete;
    Temporary& operator=(const Temporary&) = delete;

    const fs::path& path() const { return path_; }
    int fd() const { return fd_; }
    void set_fd(int fd) { fd_ = fd; }

private:
    fs::path path_;
    std::string name_;
    int fd_ = -1;
};

/// Removes `path` if it is a regular file that no live writer holds. The lock is taken before
/// the name is checked again and kept until the file is unlinked, so a writer that created the
/// file but had not locked it yet finds it gone once it holds the lock (create_temporary).
void remove_if_abandoned(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return;  // a link, unreadable, or gone: not ours to judge
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && S_ISREG(held.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        ::lstat(path.c_str(), &named) == 0 && same_file(held, named))
        ::unlink(path.c_str());
    ::close(fd);
}

/// Removes the temporaries of `target` that writers which died left behind (best effort: a
/// directory that cannot be listed, or a file that cannot be locked, is left alone).
void remove_abandoned_temporaries(const fs::path& dir, const fs::path& target) {
    const std::string prefix = temporary_prefix(target);
    std::vector<std::string> found;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (is_temporary_of(name, prefix)) found.push_back(std::move(name));
    }
    if (found.empty()) return;
    auto& live = live_temporaries();
    const std::lock_guard lock(live.mutex);  // held throughout: no save of ours registers a name meanwhile
    for (const auto& name : found)
        if (!live.names.contains(name)) remove_if_abandoned(dir / name);
}

/// Locks a new temporary's descriptor and tells whether the file is still there under its
/// name: a save that removed abandoned temporaries may have taken it for one between open and
/// flock. A file system without locks lets nobody lock, and so nobody remove it.
bool lock_new_temporary(int fd, const fs::path& path) {
    while (::flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) return true;
    struct stat held {}, named {};
    return ::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 && same_file(held, named);
}

/// A new file beside `target`, under a name nobody could have predicted (O_EXCL: never an
/// existing file or a link planted there), locked as a live writer's (see temporary_prefix).
std::unique_ptr<Temporary> create_temporary(const Target& t, const fs::path& user_path) {
    const fs::path dir = t.path.has_parent_path() ? t.path.parent_path() : fs::path(".");
    remove_abandoned_temporaries(dir, t.path);
    for (int attempt = 0;; ++attempt) {
        std::string name = temporary_prefix(t.path) + random_suffix();
        auto tmp = std::make_unique<Temporary>(dir / name, std::move(name));
        const int fd = ::open(tmp->path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd < 0) {
            if (errno != EEXIST || attempt == 100)
                fail(user_path, "cannot create a temporary file in '" + dir.string() + "'", errno);
            continue;
        }
        tmp->set_fd(fd);
        if (lock_new_temporary(fd, tmp->path())) return tmp;
    }
}

void replace(const Target& t, const fs::path& user_path, const std::function<void(std::ostream&)>& write) {
    const auto tmp = create_temporary(t, user_path);
    try {
        if (t.exists) {
            ::fchmod(tmp->fd(), t.st.st_mode & 07777);            // keep the old file's permissions
            (void)!::fchown(tmp->fd(), t.st.st_uid, t.st.st_gid);  // and owner, where allowed (root)
        }
        write_to(tmp->fd(), user_path, write);
        // Durable before it becomes visible: sync the data, rename, then sync the directory.
        // The descriptor stays open, and the file locked, until the rename is done; close has
        // nothing left to report once fsync succeeded.
        if (::fsync(tmp->fd()) != 0) fail(user_path, "", errno);
    } catch (...) {
        ::unlink(tmp->path().c_str());
        throw;
    }
    if (::rename(tmp->path().c_str(), t.path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp->path().c_str());
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
