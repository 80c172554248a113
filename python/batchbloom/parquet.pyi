"""Split-block Bloom filters of Parquet files (batchbloom parquet)."""

from collections.abc import Iterable
import os
from typing import Any


def add(input: str | os.PathLike[str], output: str | os.PathLike[str], columns: list[str], *, fpr: float = 0.01, ndv: int | None = None, replace: bool = False, threads: int = 0) -> list[dict[str, Any]]:
    """
    Writes a copy of the Parquet file `input` to `output` (it may be `input`) with a split-block
    Bloom filter in every row group for each of `columns` (dotted paths), sized for the chunk's
    distinct count (or ndv) at fpr; replace: rebuild filters the file already has. Returns one
    dict per filter written: row_group, column, values, distinct, distinct_exact, bytes,
    predicted_fpr, replaced. As `batchbloom parquet add IN --column C --fpr P --ndv N --replace
    --out OUT`.
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
    number of such keys instead. Keys are values of the column's physical type: ints for
    INT32/INT64, floats for FLOAT/DOUBLE, str (UTF-8) or bytes for byte arrays. As
    `batchbloom parquet FILE --column C --query KEYS [--count] [--row-group I]`.
    """
