"""Split-block Bloom filters of Parquet files (batchbloom parquet)."""

from collections.abc import Callable, Iterable, Sequence
import os
from typing import Any


def add(input: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], output: str | os.PathLike[str] | None, columns: list[str], *, fpr: float = 0.01, ndv: int | None = None, replace: bool = False, threads: int = 0, progress: bool | Callable[[int, int, str], object] | None = None) -> list[dict[str, Any]]:
    """
    Gives every row group a split-block Bloom filter for each of `columns` (dotted paths),
    sized for the chunk's distinct count (or ndv) at fpr. Chunks that have a filter keep it;
    replace=True rebuilds them. As `batchbloom parquet add`.

    One file, output a path: writes a copy of `input` to `output` (it may be `input`) and
    returns one dict per filter written: row_group, column, values, distinct, distinct_exact,
    bytes, predicted_fpr, replaced. (`parquet add IN --column C --out OUT`.)

    A dataset, output=None (or output=input for a directory): `input` is a file, a directory or
    a list of them; every *.parquet / *.parq file under the directories (hive partitions
    included; names starting with '_' or '.' skipped) is rewritten in place, atomically each,
    several at a time (threads in all); files that have every filter are skipped, so a second
    run does what the first left. Returns one dict per file: path, name (its path under the
    directory given), outcome ('added', 'skipped' or 'failed'), filters (as above) and error
    (why it failed, else None). A file that fails, or an entry that cannot be read (a symbolic
    link loop, a directory), is reported there and the rest are done: check the outcomes.
    progress: True for a progress line on sys.stderr, or a callable(done, total, name) called
    after each file. (`parquet add DIR|FILE... --column C`.)

    Every add that rewrites a file in place holds the file's lock (batchbloom.lock) meanwhile,
    as the command-line program does, so concurrent adds to one file take turns.
    """

def inspect(path: str | os.PathLike[str], *, row_group: int | None = None) -> list[dict[str, Any]]:
    """
    One dict per column chunk (of every row group, or of row_group): row_group, column, type,
    rows, distinct (None when unknown), filter_bytes and fpr (None without a filter). As
    `batchbloom parquet FILE [--row-group I]`.
    """

def probe(path: str | os.PathLike[str], column: str, keys: Iterable[int | float | str | bytes], *, row_group: int | None = None, count: bool = False) -> dict[int, Any]:
    """
    For each row group (or row_group), a NumPy bool array: True where the key may be in the
    group's column chunk (a group without a filter may hold every key); with count=True, the
    number of such keys instead. Keys are values of the column's type: ints for INT32/INT64
    (unsigned ones up to 2**32 - 1 / 2**64 - 1 for UINT_32 / UINT_64), floats for FLOAT/DOUBLE,
    str (UTF-8) or bytes for byte arrays; batchbloom.Error names a key that is none of them. As
    `batchbloom parquet FILE --column C --query KEYS [--count] [--row-group I]`.
    """
