#pragma once
// The one way batchbloom writes a file: every save(path) of the library, the Python package's
// save() and the command-line program's outputs go through write_file.
#include <filesystem>
#include <functional>
#include <iosfwd>

namespace batchbloom {

/// Calls write(stream) and puts what it wrote at `path`, according to what `path` names:
///  - a regular file, or nothing: the bytes go to a new temporary file in the same directory
///    (created with O_EXCL under a random name, never at a predictable one), which is
///    fsynced and renamed over `path`, and the directory is fsynced: readers, and a crash or
///    a kill at any moment, see the old file or the complete new one. A replaced file keeps
///    its permission bits; a new one gets 0666 less the umask. A file with more than one name
///    (hard links) is refused: the rename would give this name the new file and leave the
///    others on the old one, splitting what the user sees as one file into two. The temporary file is named
///    ".NAME.tmp-" and 12 characters of [0-9a-z], and its writer holds an advisory lock
///    (flock) on it until the rename; temporaries of that naming which nobody holds were left
///    by writers that died (a SIGKILL mid-save), and each save removes those of its own NAME
///    before it writes. On a file system whose locks are not shared between the machines that
///    write to it (NFS mounted with nolock), a save could remove another machine's live
///    temporary: that machine's save then fails with an error, and no file is torn.
///  - a symbolic link (or a chain of them): followed; its final target is replaced as above
///    (a dangling link's target is created) and the link stays a link.
///  - a character device or a FIFO (/dev/null, /dev/stdout on a terminal or a pipe): written
///    in place, not atomically (there is nothing to rename over); it is never replaced.
///  - a directory, a block device or a socket: refused.
/// Throws Error naming `path` (never the temporary file) and the system's reason; the
/// temporary file is removed and the old file is left as it was. An exception thrown by
/// `write` propagates the same way.
void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);

}  // namespace batchbloom
