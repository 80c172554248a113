"""Split-block Bloom filters of Parquet files: what `batchbloom parquet` does, from Python.

    >>> import batchbloom.parquet as bbp
    >>> bbp.add("orders.parquet", "orders.bloom.parquet", ["customer"], fpr=0.01)  # doctest: +SKIP
    >>> bbp.probe("orders.bloom.parquet", "customer", [42, 7])                      # doctest: +SKIP
    {0: array([ True, False]), 1: array([False, False])}

add() writes a copy of a file with a filter per row group for the named columns (every page
copied byte for byte), or gives a whole dataset (directories, hive partitions, several files)
its filters in place, as `batchbloom parquet add` does; filters a file has are kept, and an
in-place add holds the file's lock. inspect() lists a file's column chunks and their filters;
probe() asks each row group's filter which keys it may hold. DuckDB, Spark and every reader that
honours Parquet Bloom filters skip the row groups whose filter rules a key out; prune() does that
skipping for readers that do not (PyArrow's and polars' scans): it gives them a dataset of only
the row groups whose filter may hold a key.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Union

from ._core.parquet import add, inspect, probe

__all__ = ["add", "inspect", "probe", "prune"]


def prune(dataset: Union[str, os.PathLike[str], Iterable[Union[str, os.PathLike[str]]], Any], column: str,
          keys: Iterable[Union[int, float, str, bytes]], *, partitioning: Any = "hive") -> Any:
    """A pyarrow.dataset.Dataset of only the row groups of `dataset` whose Bloom filter on `column`
    may hold one of `keys` (a row group without a filter is kept: it may hold any key). PyArrow's
    and polars' scans read every row group whatever its filters say; scanning the pruned dataset
    (dataset.to_table(filter=...), polars.scan_pyarrow_dataset, duckdb.arrow) reads only these.
    The rows are not filtered: the reader's own filter on the key still runs, on fewer groups.

    dataset: a pyarrow.dataset.Dataset of Parquet files on the local file system, or paths (files
    or directories, read with `partitioning`, hive by default). keys: values of the column's type,
    as probe() takes them. Needs pyarrow (pip install 'batchbloom[arrow]')."""
    from ._extra import require

    require("batchbloom.parquet.prune", "arrow", "pyarrow")
    import pyarrow.dataset as ds
    import pyarrow.fs as pafs

    if isinstance(column, (bytes, bytearray)) or not isinstance(column, str):
        raise TypeError(f"column must be a str, not {type(column).__name__}")
    if not isinstance(dataset, ds.Dataset):
        paths = [os.fspath(dataset)] if isinstance(dataset, (str, os.PathLike)) else [os.fspath(p) for p in dataset]
        for path in paths:
            if not os.path.exists(path):
                raise FileNotFoundError(f"{path}: no such file or directory")
        dataset = ds.dataset(paths if len(paths) != 1 else paths[0], format="parquet", partitioning=partitioning)
    if not isinstance(dataset, ds.FileSystemDataset) or not isinstance(dataset.format, ds.ParquetFileFormat):
        raise ValueError("prune needs a dataset of Parquet files")
    if not isinstance(dataset.filesystem, pafs.LocalFileSystem):
        raise ValueError(f"prune reads the files' filters from the local file system, not {dataset.filesystem.type_name}")
    keys = list(keys)
    kept = []
    for fragment in dataset.get_fragments():
        may_hold = probe(fragment.path, column, keys, count=True)
        groups = [g for g, hits in sorted(may_hold.items()) if hits > 0]
        if groups:
            kept.append(fragment.subset(row_group_ids=groups))
    return ds.FileSystemDataset(kept, dataset.schema, dataset.format, dataset.filesystem)
