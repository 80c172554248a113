// write_file, behind every save(path): what it does with each kind of path (regular file,
// symbolic link, dangling link, FIFO, character device, directory, unwritable directory, full
// device), that a failure names the user's path and leaves the old file and no temporary, and
// that a save removes the temporaries killed writers left, and only those.
#include <batchbloom/atomic_file.hpp>
#include <batchbloom/error.hpp>
#include <batchbloom/filter.hpp>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support.hpp"

namespace {

namespace fs = std::filesystem;
using batchbloom::Error;
using batchbloom::Filter;
using batchbloom::Params;
using batchbloom::write_file;
using batchbloom::testing::file_contents;
using batchbloom::testing::message_of;
using batchbloom::testing::TempDir;

void put(const fs::path& p, const std::string& bytes) {
    write_file(p, [&](std::ostream& o) { o << bytes; });
}

void put_plain(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
}

bool is_link(const fs::path& p) { return fs::is_symlink(fs::symlink_status(p)); }

TEST(WriteFile, CreatesAndReplacesRegularFilesLeavingNoTemporaries) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    put(p, "first");
    EXPECT_EQ(file_contents(p), "first");
    put(p, std::string(300000, 'x'));  // larger than the stream buffer
    EXPECT_EQ(file_contents(p), std::string(300000, 'x'));
    put(p, "");
    EXPECT_EQ(file_contents(p), "");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
}

TEST(WriteFile, KeepsTheReplacedFilesPermissions) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    put_plain(p, "old");
    fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    put(p, "new");
    EXPECT_EQ(file_contents(p), "new");
    EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(WriteFile, FollowsASymlinkAndReplacesItsTarget) {
    TempDir dir;
    fs::create_directory(dir.path() / "real");
    put_plain(dir.path() / "real" / "t.bin", "old");
    fs::create_symlink("real/t.bin", dir.path() / "hop");    // relative, into another directory
    fs::create_symlink(dir.path() / "hop", dir.path() / "l.bin");  // absolute, to another link
    put(dir.path() / "l.bin", "new");
    EXPECT_TRUE(is_link(dir.path() / "l.bin"));
    EXPECT_TRUE(is_link(dir.path() / "hop"));
    EXPECT_EQ(file_contents(dir.path() / "real" / "t.bin"), "new");
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"hop", "l.bin", "real"}));
    EXPECT_EQ(TempDir::entries_of(dir.path() / "real"), std::vector<std::string>{"t.bin"});
}

TEST(WriteFile, AFileWithOtherHardLinksIsRefusedAndKeptWhole) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin", other = dir.path() / "other.bin";
    put(p, "old");
    fs::create_hard_link(p, other);
    const std::string msg = message_of<Error>([&] { put(p, "new"); });
    EXPECT_NE(msg.find("hard links"), std::string::npos) << msg;
    EXPECT_NE(msg.find(p.string()), std::string::npos) << msg;
    EXPECT_EQ(file_contents(p), "old");
    EXPECT_TRUE(fs::equivalent(p, other));  // still one file under two names
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
    fs::remove(other);
    put(p, "new");  // one name again: saved as usual
    EXPECT_EQ(file_contents(p), "new");
}

TEST(WriteFile, ADanglingSymlinkCreatesItsTarget) {
    TempDir dir;
    fs::create_symlink("target.bin", dir.path() / "l.bin");
    put(dir.path() / "l.bin", "new");
    EXPECT_TRUE(is_link(dir.path() / "l.bin"));
    EXPECT_EQ(file_contents(dir.path() / "target.bin"), "new");
}

TEST(WriteFile, ASymlinkLoopIsAnError) {
    TempDir dir;
    fs::create_symlink("b", dir.path() / "a");
    fs::create_symlink("a", dir.path() / "b");
    const std::string msg = message_of<Error>([&] { put(dir.path() / "a", "x"); });
    EXPECT_NE(msg.find((dir.path() / "a").string()), std::string::npos) << msg;
    EXPECT_TRUE(is_link(dir.path() / "a"));
    EXPECT_TRUE(is_link(dir.path() / "b"));
}

TEST(WriteFile, AFifoIsWrittenInPlaceAndStaysAFifo) {
    TempDir dir;
    const fs::path p = dir.path() / "fifo";
    ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
    std::string got;
    std::thread reader([&] { got = file_contents(p); });
    put(p, "through the pipe");
    reader.join();
    EXPECT_EQ(got, "through the pipe");
    EXPECT_TRUE(fs::is_fifo(fs::symlink_status(p)));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"fifo"});
}

TEST(WriteFile, ACharacterDeviceIsWrittenInPlaceAndStaysADevice) {
    TempDir dir;
    fs::path p = "/dev/null";
    if (::geteuid() == 0) {  // a node of our own, as the library must not replace it
        p = dir.path() / "null";
        ASSERT_EQ(::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    }
    put(p, "discarded");
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(p)));
    fs::create_symlink(p, dir.path() / "l");  // a link to a device: the device is written, the link stays
    put(dir.path() / "l", "discarded");
    EXPECT_TRUE(is_link(dir.path() / "l"));
    EXPECT_TRUE(fs::is_character_file(fs::symlink_status(p)));
}

TEST(WriteFile, AFullDeviceIsAClearError) {
    const std::string msg = message_of<Error>([] { put("/dev/full", "x"); });
    EXPECT_NE(msg.find("'/dev/full'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("No space left"), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

TEST(WriteFile, ADirectoryIsRefused) {
    TempDir dir;
    fs::create_directory(dir.path() / "sub");
    const std::string msg = message_of<Error>([&] { put(dir.path() / "sub", "x"); });
    EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_empty(dir.path() / "sub"));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"sub"});
}

TEST(WriteFile, AFailingWriterLeavesTheOldFileAndNoTemporary) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    put_plain(p, "old");
    EXPECT_THROW(write_file(p,
                            [](std::ostream& o) {
                                o << std::string(100000, 'y');
                                throw Error("writer gave up");
                            }),
                 Error);
    EXPECT_EQ(file_contents(p), "old");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
}

TEST(WriteFile, MissingDirectoryNamesThePath) {
    TempDir dir;
    const fs::path p = dir.path() / "nope" / "f.bin";
    const std::string msg = message_of<Error>([&] { put(p, "x"); });
    EXPECT_NE(msg.find("'" + p.string() + "'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(".tmp-"), std::string::npos) << "names the temporary file: " << msg;
}

// An unwritable directory: run as an unprivileged user in a child when we are root (root
// writes anywhere), else with the directory's write permission removed.
TEST(WriteFile, AnUnwritableDirectoryIsAClearErrorAndTheOldFileStays) {
    TempDir dir;
    const fs::path sub = dir.path() / "ro";
    fs::create_directory(sub);
    const fs::path p = sub / "f.bin";
    put_plain(p, "old");
    fs::permissions(sub, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(dir.path(), fs::perms::others_exec, fs::perm_options::add);
    auto attempt = [&] { return message_of<Error>([&] { Filter(Params::make(batchbloom::Shape::word512, 2, 4)).save(p); }); };
    if (::geteuid() == 0) {
        const pid_t child = ::fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
            const std::string msg = attempt();
            const bool ok = msg.find("'" + p.string() + "'") != std::string::npos &&
                            msg.find("Permission denied") != std::string::npos;
            ::_exit(ok ? 0 : 1);
        }
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        ASSERT_TRUE(WIFEXITED(status));
        if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "cannot drop root privileges here";
        EXPECT_EQ(WEXITSTATUS(status), 0) << "the error did not name the path and the reason";
    } else {
        const std::string msg = attempt();
        EXPECT_NE(msg.find("'" + p.string() + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("Permission denied"), std::string::npos) << msg;
    }
    fs::permissions(sub, fs::perms::owner_write, fs::perm_options::add);
    EXPECT_EQ(file_contents(p), "old");
    EXPECT_EQ(TempDir::entries_of(sub), std::vector<std::string>{"f.bin"});
}

// A save in a child process, stopped inside write_file: it has written `content` to its
// temporary file (created and locked) and waits until `finish` is called; it then exits 0 if
// its save succeeded.
class ChildSave {
public:
    ChildSave(const fs::path& p, const std::string& content) {
        int ready[2], go[2];
        if (::pipe(ready) != 0 || ::pipe(go) != 0) throw std::runtime_error("pipe failed");
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::close(ready[0]);
            ::close(go[1]);
            try {
                write_file(p, [&](std::ostream& o) {
                    o << content << std::flush;
                    char c = 1;
                    if (::write(ready[1], &c, 1) != 1 || ::read(go[0], &c, 1) != 1) ::_exit(3);
                });
            } catch (...) {
                ::_exit(1);
            }
            ::_exit(0);
        }
        ::close(ready[1]);
        ::close(go[0]);
        go_ = go[1];
        char c = 0;
        const bool started = ::read(ready[0], &c, 1) == 1;
        ::close(ready[0]);
        if (!started) throw std::runtime_error("the child's save did not start");
    }
    ~ChildSave() {
        if (go_ >= 0) ::close(go_);
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    /// Lets the save go on; its exit status.
    int finish() {
        const char c = 1;
        if (::write(go_, &c, 1) != 1) return -1;
        return wait();
    }
    /// SIGKILLs it mid-save.
    void kill() {
        ::kill(pid_, SIGKILL);
        (void)wait();
    }

private:
    int wait() {
        int status = 0;
        if (::waitpid(std::exchange(pid_, -1), &status, 0) < 0) return -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    pid_t pid_ = -1;
    int go_ = -1;
};

std::vector<std::string> temporaries_of(const TempDir& dir, const std::string& target) {
    std::vector<std::string> r;
    for (const auto& e : dir.entries())
        if (e.starts_with("." + target + ".tmp-")) r.push_back(e);
    return r;
}

TEST(WriteFile, ASaveRemovesTheTemporaryAKilledWriterLeft) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    put_plain(p, "old");
    {
        ChildSave child(p, std::string(100000, 'x'));
        ASSERT_EQ(temporaries_of(dir, "f.bin").size(), 1u);
        child.kill();
    }
    EXPECT_EQ(file_contents(p), "old");
    ASSERT_EQ(temporaries_of(dir, "f.bin").size(), 1u) << "the killed writer's temporary is the test's subject";
    put(p, "new");
    EXPECT_EQ(file_contents(p), "new");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
}

TEST(WriteFile, ASaveKeepsTheTemporaryOfAWriterStillAlive) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    put_plain(p, "old");
    ChildSave child(p, "the child's");
    const auto theirs = temporaries_of(dir, "f.bin");
    ASSERT_EQ(theirs.size(), 1u);
    put(p, "ours");  // the child's temporary is locked: not abandoned
    EXPECT_EQ(temporaries_of(dir, "f.bin"), theirs);
    EXPECT_EQ(file_contents(p), "ours");
    EXPECT_EQ(child.finish(), 0) << "the child's save failed: its temporary was removed under it";
    EXPECT_EQ(file_contents(p), "the child's");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
}

TEST(WriteFile, ASaveKeepsTheTemporaryOfAnotherThreadsSave) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    std::mutex m;
    std::condition_variable cv;
    bool writing = false, go_on = false;
    std::thread other([&] {
        write_file(p, [&](std::ostream& o) {
            o << "the thread's" << std::flush;
            std::unique_lock lock(m);
            writing = true;
            cv.notify_all();
            cv.wait(lock, [&] { return go_on; });
        });
    });
    {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return writing; });
    }
    const auto theirs = temporaries_of(dir, "f.bin");
    EXPECT_EQ(theirs.size(), 1u);
    put(p, "ours");
    EXPECT_EQ(temporaries_of(dir, "f.bin"), theirs);
    {
        const std::lock_guard lock(m);
        go_on = true;
        cv.notify_all();
    }
    other.join();  // write_file would have thrown, ending the test, had its temporary gone
    EXPECT_EQ(file_contents(p), "the thread's");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"f.bin"});
}

// Only regular files of exactly the temporary naming (".NAME.tmp-" and 12 of [0-9a-z]) for the
// file being saved, which nobody holds locked, are removed: never a link (nor what it points
// to), a directory, a FIFO, another file's temporary, a near miss of the name, or a held file.
TEST(WriteFile, ASaveRemovesOnlyUnheldFilesOfItsOwnTemporaryNaming) {
    TempDir dir;
    const fs::path p = dir.path() / "f.bin";
    const std::vector<std::string> kept = {
        ".f.bin.tmp-0123456789AZ",    // not the alphabet
        ".f.bin.tmp-0123456789a",     // too short
        ".f.bin.tmp-0123456789abc",   // too long
        ".g.bin.tmp-0123456789az",    // another file's
        "f.bin.tmp-0123456789az",     // no leading dot
        ".f.bin.tmp-link00000000",    // a symbolic link
        ".f.bin.tmp-dir000000000",    // a directory
        ".f.bin.tmp-fifo00000000",    // a FIFO
        ".f.bin.tmp-held00000000",    // held by a live writer
        "victim.txt",
    };
    for (const auto& name : kept) put_plain(dir.path() / name, "keep");
    fs::remove(dir.path() / ".f.bin.tmp-link00000000");
    fs::create_symlink("victim.txt", dir.path() / ".f.bin.tmp-link00000000");
    fs::remove(dir.path() / ".f.bin.tmp-dir000000000");
    fs::create_directory(dir.path() / ".f.bin.tmp-dir000000000");
    fs::remove(dir.path() / ".f.bin.tmp-fifo00000000");
    ASSERT_EQ(::mkfifo((dir.path() / ".f.bin.tmp-fifo00000000").c_str(), 0600), 0);
    // Another open file description, as another process's would be: flock excludes it too.
    const int held = ::open((dir.path() / ".f.bin.tmp-held00000000").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(held, 0);
    ASSERT_EQ(::flock(held, LOCK_EX), 0);
    put_plain(dir.path() / ".f.bin.tmp-0123456789az", "abandoned");
    put_plain(dir.path() / ".f.bin.tmp-zyxwvutsrq98", "abandoned");

    put(p, "new");
    ::close(held);
    std::vector<std::string> expected = kept;
    expected.push_back("f.bin");
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(dir.entries(), expected);
    EXPECT_EQ(file_contents(dir.path() / "victim.txt"), "keep");
    EXPECT_EQ(file_contents(p), "new");
}

}  // namespace
