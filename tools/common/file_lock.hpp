#pragma once
// The lock that makes a command's read-modify-write of a saved file (insert, erase, union/
// intersect/fold and parquet add onto one of their inputs) whole: two such commands on one file
// take turns instead of both reading the old file and the second rename dropping the first's
// keys.
//
// The lock is flock(LOCK_EX) on the file itself, not on a separate lock file: nothing is left
// beside the user's files, no directory needs a name reserved, and a read-only descriptor (what
// reading the filter needs anyway) can hold it. The price is that the file it locks is replaced
// (batchbloom::write_file renames a new file over it), so a waiter can wake holding a lock on a
// file that no longer has the name: acquiring therefore checks, once it holds the lock, that the
// path still names the locked file, and otherwise locks the file that replaced it. A writer
// keeps its lock until its rename is done, so the next one always reads the complete result.
//
// Advisory: it orders the commands that take it (and any program that flocks the file the same
// way), not other writers. Readers need none: every save replaces the file atomically. flock
// locks are local to a machine unless the file system shares them: over NFS, Linux turns them
// into byte-range locks, which the same process drops as soon as it closes any descriptor of the
// file (reading the filter does), so on NFS the lock does not order updates.
#include <initializer_list>
#include <string_view>

namespace batchbloom::cli {

/// An exclusive lock on a file, held until destruction (or a move away), or no lock at all.
class FileLock {
public:
    FileLock() = default;
    ~FileLock();
    FileLock(FileLock&& other) noexcept;
    FileLock& operator=(FileLock&& other) noexcept;
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    /// Blocks until `path`'s file is locked (see above). No lock when `path` names no regular
    /// file or cannot be opened: the read that follows reports why. Throws std::runtime_error
    /// naming the path if the file system refuses locks.
    static FileLock acquire(std::string_view path);

    bool held() const noexcept { return fd_ >= 0; }

private:
    explicit FileLock(int fd) noexcept : fd_(fd) {}
    int fd_ = -1;
};

/// The lock for a command that reads `inputs` and writes `out`: held on `out` when it is one of
/// the inputs (the same file, however named: through a link, a second name), none otherwise (a
/// new file, another file, stdout). Take it before reading the inputs, keep it until the output
/// is written.
FileLock lock_if_rewritten(std::string_view out, std::initializer_list<std::string_view> inputs);

}  // namespace batchbloom::cli
