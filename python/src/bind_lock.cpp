// batchbloom.FileLock: the lock the command-line program takes for a read-modify-write of a
// saved file (batchbloom/file_lock.hpp), so that Python writers and CLI writers of one file
// take turns. batchbloom.lock() and batchbloom.update() (batchbloom/_update.py) build on it.
#include <batchbloom/file_lock.hpp>

#include <nanobind/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <utility>

#include "bind_common.hpp"

namespace batchbloom::python {

namespace {

struct PyFileLock {
    std::filesystem::path path;
    std::optional<FileLock> lock;  // empty: not acquired, or released

    void acquire() {
        if (lock) throw Error("the lock on '" + path.string() + "' is already held by this object");
        FileLock taken = file_op([&] {
            nb::gil_scoped_release release;  // waiting for another writer must not stop other threads
            return FileLock::acquire(path);
        });
        lock.emplace(std::move(taken));
    }
    void release() { lock.reset(); }
};

}  // namespace

void bind_lock(nb::module_& m) {
    nb::class_<PyFileLock>(m, "FileLock",
                           "An exclusive lock on a saved filter's file, the one `batchbloom insert`, `erase`,\n"
                           "`union`/`intersect`/`fold` onto an input and `parquet add` in place take: writers\n"
                           "that each hold it while they load, change and save the file take turns, so none\n"
                           "loses another's keys. Use it as a context manager (`with batchbloom.lock(path):`),\n"
                           "or through batchbloom.update(path). Advisory (flock): it orders the writers that\n"
                           "take it, on one machine (not over NFS); readers need none, as every save replaces\n"
                           "the file atomically. A path that names no regular file yet gives no lock\n"
                           "(`held` is False): there is nothing to order until the first save creates it.")
        .def(
            "__init__", [](PyFileLock* self, const std::filesystem::path& path) { new (self) PyFileLock{path, {}}; },
            nb::arg("path"), "A lock on `path`, not yet taken: `with` (or acquire()) takes it.")
        .def("acquire", &PyFileLock::acquire,
             "Blocks until the file is locked (the GIL is released while waiting). Error if the file\n"
             "system refuses locks.")
        .def("release", &PyFileLock::release, "Releases the lock (nothing if it is not held).")
        .def_prop_ro(
            "held", [](const PyFileLock& self) { return self.lock && self.lock->held(); },
            "Whether a lock on the file is held (False for a path that named no regular file).")
        .def_prop_ro(
            "path", [](const PyFileLock& self) { return self.path; }, "The path the lock is for.")
        .def(
            "__enter__",
            [](PyFileLock& self) -> PyFileLock& {
                self.acquire();
                return self;
            },
            nb::rv_policy::reference)
        .def(
            "__exit__", [](PyFileLock& self, nb::handle, nb::handle, nb::handle) { self.release(); }, nb::arg("exc_type").none(),
            nb::arg("exc").none(), nb::arg("traceback").none(),
            nb::sig("def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, "
                    "traceback: types.TracebackType | None) -> None"));
}

}  // namespace batchbloom::python
