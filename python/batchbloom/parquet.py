"""Split-block Bloom filters of Parquet files: what `batchbloom parquet` does, from Python.

    >>> import batchbloom.parquet as bbp
    >>> bbp.add("orders.parquet", "orders.bloom.parquet", ["customer"], fpr=0.01)  # doctest: +SKIP
    >>> bbp.probe("orders.bloom.parquet", "customer", [42, 7])                      # doctest: +SKIP
    {0: array([ True, False]), 1: array([False, False])}

add() writes a copy of a file with a filter per row group for the named columns (every page
copied byte for byte), or gives a whole dataset (directories, hive partitions, several files)
its filters in place, as `batchbloom parquet add` does; filters a file has are kept, and an
in-place add holds the file's lock. inspect() lists a file's column chunks and their filters;
probe() asks each row group's filter which keys it may hold. DuckDB, Spark, PyArrow and every reader that
honours Parquet Bloom filters skip the row groups whose filter rules a key out.
"""

from ._core.parquet import add, inspect, probe

__all__ = ["add", "inspect", "probe"]
