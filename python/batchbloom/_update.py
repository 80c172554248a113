"""batchbloom.lock() and batchbloom.update(): read-modify-write of a saved filter under the lock
the command-line program takes, so that several processes (Python or `batchbloom insert`)
updating one file take turns instead of losing each other's keys."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ._core import FileLock, load_any


def lock(path: str | os.PathLike[str]) -> FileLock:
    """The exclusive lock on the filter saved at `path`, for a `with` block that loads, changes
    and saves it: writers that hold it take turns (the CLI's insert, erase, union/intersect/fold
    and parquet add onto an input take the same lock). Save to the same path before the block
    ends; readers need no lock."""
    return FileLock(path)


@contextlib.contextmanager
def update(path: str | os.PathLike[str]) -> Iterator[object]:
    """Loads the filter saved at `path` (any kind, as load_any), yields it, and saves it back to
    `path` when the block ends without an exception, all under batchbloom.lock(path): updates
    from several processes, Python or CLI, lose nothing. An exception in the block leaves the
    file as it was."""
    with FileLock(path):
        f = load_any(path)
        yield f
        f.save(path)
