"""Blocked Bloom filters built and probed in batches.

    >>> import numpy as np, batchbloom
    >>> f = batchbloom.Filter(n=1_000_000, fpr=0.01)
    >>> f.insert(np.arange(1_000_000, dtype=np.uint64))
    >>> bool(f.contains(np.array([5, 2_000_000], dtype=np.uint64))[0])
    True

Keys: NumPy uint64/int64/uint32/int32 arrays (read in place; an integer key is its value, a
negative one its 64-bit two's complement, so int64 -1 and uint64 2**64-1 are one key), Arrow
data from pyarrow, polars, DuckDB or pandas (integers of every width, string/binary in their
plain, large and view forms, dictionaries; read in place; nulls raise ValueError, or with
nulls="skip" are left out and never match), and iterables of ints, bytes or str (str keys are
their UTF-8 bytes; a None among them is a null, as in Arrow data).

Filter types: Filter (blocked), CountingFilter (erase by counters), DeletableFilter (erase by
collision bits), ScalableFilter (grows; fpr= holds for the whole), ClassicFilter (classic
layout; Apache Spark's BloomFilter with scheme='spark_v1'/'spark_v2'), JoinFilter (a hash
join's pre-filter; JoinFilter.plan decides, as a JoinPlan, whether it pays). Modules (import them explicitly): batchbloom.arrow (pyarrow, polars, DuckDB
tables), batchbloom.parquet (Bloom filters of Parquet files), batchbloom.spark (PySpark),
batchbloom.duckdb (DuckDB SQL functions).

Several processes updating one saved file: `with batchbloom.update(path) as f: f.insert(...)`
loads, changes and saves it under the lock the command-line program takes (batchbloom.lock()).
"""

from ._core import (
    ClassicFilter,
    ClassicParams,
    ConcurrentFilter,
    CountingFilter,
    DeletableFilter,
    Error,
    FileLock,
    Filter,
    FormatError,
    JoinFilter,
    JoinPlan,
    Params,
    ScalableFilter,
    __version__,
    available_backends,
    estimated_jaccard,
    load_any,
    measured_join_costs,
    reload_environment,
    resolve_backend,
)
from ._signatures import install as _install_signatures
from ._update import lock, update

# inspect.signature() and help() show the bindings' real parameters (see _signatures.py).
_install_signatures()

__all__ = [
    "ClassicFilter",
    "ClassicParams",
    "ConcurrentFilter",
    "CountingFilter",
    "DeletableFilter",
    "Error",
    "FileLock",
    "Filter",
    "FormatError",
    "JoinFilter",
    "JoinPlan",
    "Params",
    "ScalableFilter",
    "__version__",
    "available_backends",
    "estimated_jaccard",
    "load_any",
    "lock",
    "measured_join_costs",
    "reload_environment",
    "resolve_backend",
    "update",
]
