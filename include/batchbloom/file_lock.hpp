#pragma once
// The lock that makes a read-modify-write of a saved file whole: two writers that each load a
// filter, change it and save it back take turns instead of both reading the old file and the
// second rename dropping the first's keys. The command-line program takes it for every command
// that rewrites one of its inputs (insert, erase, union/intersect/fold, parquet add), the
// Python package's batchbloom.lock() and batchbloom.update() take the same lock, and so can any
// C++ program: all of them order their updates of one file among each other.
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
#include <filesystem>
#include <initializer_list>

namespace batchbloom {

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
    /// file or cannot be opened: the read that follows reports why (a writer that creates a new
    /// file has nothing to order). Throws Error naming the path if the file system refuses locks.
    static FileLock acquire(const std::filesystem::path& path);

    bool held() const noexcept { return fd_ >= 0; }

private:
    explicit FileLock(int fd) noexcept : fd_(fd) {}
    int fd_ = -1;
};

/// The lock for a command that reads `inputs` and writes `out`: held on `out` when it is one of
/// the inputs (the same file, however named: through a link, a second name), none otherwise (a
/// new file, another file, stdout). Take it before reading the inputs, keep it until the output
/// is written.
FileLock lock_if_rewritten(const std::filesystem::path& out, std::initializer_list<std::filesystem::path> inputs);

}  // namespace batchbloom
