"""Bloom filters over Arrow data: build one from a column, keep the rows a filter may match.

    >>> import pyarrow as pa, batchbloom.arrow as bba
    >>> dim = pa.table({"id": [3, 5, 7], "name": ["a", "b", "c"]})
    >>> f = bba.build(dim, "id", fpr=0.01)                    # a batchbloom.Filter of the ids
    >>> facts = pa.table({"id": [1, 3, 5, None], "qty": [10, 20, 30, 40]})
    >>> bba.filter(facts, "id", f).column("id").to_pylist()   # nulls never match
    [3, 5]

Data: a pyarrow Table, RecordBatch or RecordBatchReader (or any object with the Arrow
PyCapsule stream protocol, read as a stream). Batches are handed to the filters as they are
(read in place, no copy) and processed one at a time; the row selection is Arrow's own
(`Table.filter` / `RecordBatch.filter` with a boolean mask), so no Python code runs per row.

Key columns: int64/uint64/int32/uint32 and string/binary/large_string/large_binary are read in
place; smaller integers are widened to int64 (the same keys, as Spark's putLong widens them),
string_view/binary_view cast to string/binary, and dictionary columns probed through their
dictionary. A null key is never inserted and never matches.
"""

from __future__ import annotations

from typing import Any, Union

import pyarrow as pa
import pyarrow.compute as pc

from ._core import Filter

#: Arrow data: a Table, a RecordBatch, a RecordBatchReader, or anything with __arrow_c_stream__.
Data = Union[pa.Table, pa.RecordBatch, pa.RecordBatchReader, Any]
#: A column of data, by name or position.
Column = Union[str, int]
#: Any batchbloom filter: insert() and contains() of key batches.
AnyFilter = Any

__all__ = ["build", "filter", "mask", "insertable"]

_WIDENED = {pa.int8(), pa.int16(), pa.uint8(), pa.uint16()}


def _key_array(column):
    """The column as a type the filters read in place (the same keys), nulls kept."""
    t = column.type
    if t in _WIDENED:
        return pc.cast(column, pa.int64())
    if pa.types.is_string_view(t):
        return pc.cast(column, pa.string())
    if pa.types.is_binary_view(t):
        return pc.cast(column, pa.binary())
    if pa.types.is_dictionary(t):
        return pc.cast(column, t.value_type)
    return column


def insertable(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The non-null keys of an Arrow column (Array or ChunkedArray), in a type the filters read
    in place: the column itself when it has no nulls and a key type already."""
    keys = _key_array(column)
    return pc.drop_null(keys) if keys.null_count else keys


def _null_key(t):
    if pa.types.is_integer(t):
        return pa.scalar(0, t)
    return pa.scalar(b"" if pa.types.is_binary(t) or pa.types.is_large_binary(t) else "", t)


def mask(column: pa.Array | pa.ChunkedArray, bloom: AnyFilter) -> pa.BooleanArray:
    """A boolean Arrow array: True where the row's key may be in `bloom` (any batchbloom filter),
    False where it certainly is not or is null. One batched probe for the whole column."""
    if pa.types.is_dictionary(column.type):
        # Probe each distinct value once, then look the answers up by index.
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        parts = [pc.take(mask(c.dictionary, bloom), c.indices) for c in chunks]
        hits = pa.concat_arrays(parts) if parts else pa.array([], pa.bool_())
        return pc.fill_null(hits, False)
    keys = _key_array(column)
    if keys.null_count == 0:
        return pa.array(bloom.contains(keys), pa.bool_())
    hits = pa.array(bloom.contains(pc.fill_null(keys, _null_key(keys.type))), pa.bool_())
    valid = pc.is_valid(keys)
    if isinstance(valid, pa.ChunkedArray):
        valid = valid.combine_chunks()
    return pc.and_(hits, valid)


def _as_stream(data):
    if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        return data
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    raise TypeError(
        f"expected a pyarrow Table, RecordBatch or RecordBatchReader (or an Arrow stream), not {type(data).__name__}"
    )


def build(
    data: Data, column: Column, *, fpr: float = 0.01, n: int | None = None, into: AnyFilter = None
) -> AnyFilter:
    """A filter holding every non-null key of data[column].

    Without `into`, a Filter sized for n distinct keys at false-positive rate fpr; n defaults to
    the column's exact distinct count for a Table or RecordBatch (a stream cannot be counted
    ahead: give n, an upper bound, or `into`). With `into` (any batchbloom filter: a
    ClassicFilter.spark(...) for Spark, a ScalableFilter(fpr=...) when n is unknown), the keys
    are inserted into it and it is returned. A stream is read batch by batch."""
    data = _as_stream(data)
    if into is None:
        if n is None:
            if isinstance(data, pa.RecordBatchReader):
                raise TypeError(
                    "build() of a stream needs n= (an upper bound on its distinct keys) or into= (e.g. "
                    "batchbloom.ScalableFilter(fpr=0.01, initial_capacity=...))"
                )
            n = pc.count_distinct(_key_array(data.column(column)), mode="only_valid").as_py()
        into = Filter(max(int(n), 1), fpr)
    if isinstance(data, pa.RecordBatchReader):
        for batch in data:
            into.insert(insertable(batch.column(column)))
    else:
        into.insert(insertable(data.column(column)))
    return into


def filter(data: Data, column: Column, bloom: AnyFilter) -> Data:  # noqa: A001 - the verb, as pyarrow's
    """The rows of data whose key in `column` may be in `bloom` (a superset of the rows whose key
    was inserted; null keys are dropped). Returns the same kind of object: a Table, a
    RecordBatch, or a RecordBatchReader that filters each batch as it is read."""
    data = _as_stream(data)
    if isinstance(data, pa.RecordBatchReader):
        batches = (b.filter(mask(b.column(column), bloom)) for b in data)
        return pa.RecordBatchReader.from_batches(data.schema, batches)
    return data.filter(mask(data.column(column), bloom))
