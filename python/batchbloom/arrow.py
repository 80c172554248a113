"""Bloom filters over Arrow data: build one from a column, keep the rows a filter may match.

    >>> import pyarrow as pa, batchbloom.arrow as bba
    >>> dim = pa.table({"id": [3, 5, 7], "name": ["a", "b", "c"]})
    >>> f = bba.build(dim, "id", fpr=0.01)                    # a batchbloom.Filter of the ids
    >>> facts = pa.table({"id": [1, 3, 5, None], "qty": [10, 20, 30, 40]})
    >>> bba.filter(facts, "id", f).column("id").to_pylist()   # nulls never match
    [3, 5]

Data: a pyarrow Table, RecordBatch or RecordBatchReader, a polars DataFrame or LazyFrame
(collected), a pandas DataFrame, a DuckDB relation (read as an Arrow table), or any object with
the Arrow PyCapsule stream protocol (read as a stream). Key columns are handed to the filters as
they are (read in place, no copy: integers of every width, string/binary in their plain, large
and view forms, dictionaries of those; pandas' NumPy, nullable and Arrow-backed columns) and
processed one batch at a time; the row selection is the producer's own (`Table.filter`,
`polars.DataFrame.filter`, a pandas boolean mask), so no Python code runs per row. A null key
(None, NaN or NA in pandas) is never inserted and never matches (the filters' nulls="skip").

Needs pyarrow: pip install 'batchbloom[arrow]'.
"""

from __future__ import annotations

from typing import Any, Literal, Union

from ._extra import require

require("batchbloom.arrow", "arrow", "pyarrow")

import pyarrow as pa  # noqa: E402 - after the check that names the extra
import pyarrow.compute as pc  # noqa: E402

from ._core import Filter, _estimated_filter  # noqa: E402

#: Arrow data: a Table, a RecordBatch, a RecordBatchReader, a polars or pandas DataFrame, or
#: anything with __arrow_c_stream__.
Data = Union[pa.Table, pa.RecordBatch, pa.RecordBatchReader, Any]
#: A column of data, by name or position.
Column = Union[str, int]
#: Any batchbloom filter: insert() and contains() of key batches.
AnyFilter = Any

__all__ = ["build", "filter", "mask", "insertable"]

_VIEWS = {pa.string_view(): pa.string(), pa.binary_view(): pa.binary()}


def _countable(column):
    """The column in a type pyarrow's kernels take (they lack some for views and dictionaries)."""
    t = column.type
    if t in _VIEWS:
        return pc.cast(column, _VIEWS[t])
    if pa.types.is_dictionary(t):
        return pc.cast(column, t.value_type)
    return column


def insertable(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The non-null keys of an Arrow column (Array or ChunkedArray): the column itself when it
    has no nulls. The filters read every key type in place, and their nulls="skip" leaves nulls
    out without this copy."""
    return pc.drop_null(_countable(column)) if column.null_count else column


def mask(column: pa.Array | pa.ChunkedArray, bloom: AnyFilter) -> pa.BooleanArray:
    """A boolean Arrow array: True where the row's key may be in `bloom` (any batchbloom filter),
    False where it certainly is not or is null. One batched probe for the whole column."""
    return pa.array(bloom.contains(column, nulls="skip"), pa.bool_())


def _filter_rows(data, keep):
    """data.filter(keep); pyarrow has no filter kernel for view columns, which go through their
    plain type and back."""
    if not any(f.type in _VIEWS for f in data.schema):
        return data.filter(keep)
    plain = type(data).from_arrays([_countable(c) if c.type in _VIEWS else c for c in data.columns], names=data.schema.names)
    out = plain.filter(keep)
    back = [pc.cast(c, f.type) if f.type in _VIEWS else c for c, f in zip(out.columns, data.schema)]
    return type(data).from_arrays(back, schema=data.schema)


def _polars(data):
    """A polars DataFrame (a LazyFrame collected), or None for other data."""
    if not type(data).__module__.startswith("polars"):
        return None
    return data.collect() if hasattr(data, "collect") else data


def _polars_column(df, column):
    return df.to_series(column) if isinstance(column, int) else df.get_column(column)


def _pandas(data):
    """A pandas DataFrame, or None for other data."""
    t = type(data)
    return data if t.__module__.startswith("pandas") and t.__name__ == "DataFrame" else None


def _pandas_column(df, column):
    """The keys of a pandas column: the Series itself (NumPy, nullable and Arrow-backed columns
    are read in place), or for object and categorical columns (str or bytes values, None or NaN
    where missing) the Arrow array pandas converts them to, where NaN is a null."""
    keys = df.iloc[:, column] if isinstance(column, int) else df[column]
    return pa.array(keys, from_pandas=True) if str(keys.dtype) in ("object", "category") else keys


def _as_stream(data):
    if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        return data
    for name in ("to_arrow_table", "fetch_arrow_table", "arrow"):  # a DuckDB relation
        if type(data).__module__.startswith("duckdb") and hasattr(data, name):
            return getattr(data, name)()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    raise TypeError(
        f"expected a pyarrow Table, RecordBatch or RecordBatchReader (or an Arrow stream), not {type(data).__name__}"
    )


def _exact_distinct(keys) -> int:
    """The exact count of distinct non-null keys of a polars or pandas Series or an Arrow column."""
    if type(keys).__module__.startswith("polars"):
        return int(keys.drop_nulls().n_unique())
    if type(keys).__module__.startswith("pandas"):
        return int(keys.nunique(dropna=True))
    return pc.count_distinct(_countable(keys), mode="only_valid").as_py()


def _filled(into, keys, n, fpr):
    """`into` (by default a Filter sized by n, see build()) with the non-null `keys` inserted."""
    if into is None:
        if n is None:  # sized from a sketch of the keys' hashes, then the keys inserted
            return _estimated_filter(keys, fpr)
        if isinstance(n, str):
            if n != "exact":
                raise ValueError(f"n must be a number of keys, None (estimated) or 'exact', not {n!r}")
            n = _exact_distinct(keys)
        into = Filter(max(int(n), 1), fpr)
    into.insert(keys, nulls="skip")
    return into


def build(
    data: Data,
    column: Column,
    *,
    fpr: float = 0.01,
    n: int | Literal["exact"] | None = None,
    into: AnyFilter = None,
) -> AnyFilter:
    """A filter holding every non-null key of data[column].

    Without `into`, a Filter sized for n distinct keys at false-positive rate fpr. n defaults to
    an estimate of the column's distinct keys that errs high (by 1.2% on average from 2^17 keys
    on, 2.4% below, and never above the column's non-null keys: a HyperLogLog sketch of the
    keys' hashes, filled on the insert's threads before it), so the filter keeps its FPR at or below
    fpr; n="exact" counts them exactly instead (a hash table of every key, which costs far more
    than the insert). A stream is read once and cannot be counted ahead: give n,
    an upper bound, or `into`. With `into` (any batchbloom filter: a ClassicFilter.spark(...) for
    Spark, a ScalableFilter(fpr=...) when n is unknown), the keys are inserted into it and it is
    returned. A stream is read batch by batch."""
    frame = _polars(data)
    if frame is not None:
        return _filled(into, _polars_column(frame, column), n, fpr)
    frame = _pandas(data)
    if frame is not None:
        return _filled(into, _pandas_column(frame, column), n, fpr)
    data = _as_stream(data)
    if not isinstance(data, pa.RecordBatchReader):
        return _filled(into, data.column(column), n, fpr)
    if into is None:
        if n is None or isinstance(n, str):
            raise TypeError(
                "build() of a stream needs n= (an upper bound on its distinct keys) or into= (e.g. "
                "batchbloom.ScalableFilter(fpr=0.01, initial_capacity=...))"
            )
        into = Filter(max(int(n), 1), fpr)
    for batch in data:
        into.insert(batch.column(column), nulls="skip")
    return into


def filter(data: Data, column: Column, bloom: AnyFilter) -> Data:  # noqa: A001 - the verb, as pyarrow's
    """The rows of data whose key in `column` may be in `bloom` (a superset of the rows whose key
    was inserted; null keys are dropped). Returns the same kind of object: a Table, a
    RecordBatch, a RecordBatchReader that filters each batch as it is read, a polars DataFrame
    (a LazyFrame's rows as a LazyFrame), a pandas DataFrame (index kept); a DuckDB relation's
    as a Table, another stream's as a RecordBatchReader."""
    frame = _polars(data)
    if frame is not None:
        import polars as pl

        out = frame.filter(pl.Series(bloom.contains(_polars_column(frame, column), nulls="skip")))
        return out.lazy() if frame is not data else out
    frame = _pandas(data)
    if frame is not None:
        return frame[bloom.contains(_pandas_column(frame, column), nulls="skip")]
    data = _as_stream(data)
    if isinstance(data, pa.RecordBatchReader):
        batches = (_filter_rows(b, mask(b.column(column), bloom)) for b in data)
        return pa.RecordBatchReader.from_batches(data.schema, batches)
    return _filter_rows(data, mask(data.column(column), bloom))
