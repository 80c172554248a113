"""Bloom filters on Apache Spark DataFrames, vectorized: no Python code runs per row.

    import batchbloom.spark as bbs
    bloom = bbs.build(dim.where("region = 'EU'"), "customer_id", fpr=0.01)   # a batchbloom.Filter
    facts_eu = bbs.filter(facts, "customer_id", bloom)    # rows that may match, before any shuffle
    result = facts_eu.join(dim.where("region = 'EU'"), "customer_id")     # exact, as without it

- build(): each partition of the key column goes through `mapInArrow`; every Arrow batch is
  inserted into the partition's filter in one call (read in place, the GIL released). The
  partition filters all have the same parameters and are OR-ed on the executors in a tree
  (`treeAggregate`); only the union reaches the driver. It is bit for bit the filter of all
  the keys.
- filter(): the filter is broadcast once; each Arrow batch of the probe side is probed in one
  batched call and the rows are selected by Arrow (`RecordBatch.filter`), in `mapInArrow`.
- build_spark(): the same, into Spark's own BloomFilter (format versions 1 and 2): the result's
  `to_spark_bytes()` is what `org.apache.spark.util.sketch.BloomFilter.readFrom` reads, bit for
  bit the filter `DataFrame.stat.bloomFilter(column, n, fpp)` builds.

Key columns: long, int, short, byte, string and binary (Spark's putLong, putString,
putBinary keys). A null key is never inserted and never matches (as in an SQL join).
batchbloom must be importable on every executor (see docs/spark.md).
"""

from __future__ import annotations

from typing import Any, Union

from pyspark.broadcast import Broadcast
from pyspark.sql import Column, DataFrame

from . import arrow as _arrow
from ._core import ClassicFilter, Filter

__all__ = ["build", "build_spark", "filter", "may_contain", "semi_join"]

_FILTER_SCHEMA = "filter binary"


def _key_count(df, column):
    # Rows with a non-null key: an upper bound on the distinct keys, counted without a shuffle.
    return df.select(column).na.drop().count()


def _union_of_partitions(df, column, make, depth):
    """make() on the driver and in every non-empty partition; each partition inserts its keys,
    and the partition filters are OR-ed in a tree of the given depth."""
    empty = make()
    cls = type(empty)

    def partition_filter(batches):
        import pyarrow as pa

        f = None
        for batch in batches:
            keys = _arrow.insertable(batch.column(0))
            if len(keys):
                if f is None:
                    f = make()
                f.insert(keys)
        if f is not None:  # an empty partition sends nothing
            yield pa.RecordBatch.from_arrays([pa.array([f.to_bytes()], pa.binary())], ["filter"])

    def merge(a, b):
        if a is None:
            return b
        if b is not None:
            a |= b
        return a

    filters = df.select(column).mapInArrow(partition_filter, _FILTER_SCHEMA).rdd.map(lambda row: cls.from_bytes(row[0]))
    union = filters.treeAggregate(None, merge, merge, depth=depth)
    return empty if union is None else union


def build(
    df: DataFrame,
    column: Union[str, Column],
    *,
    fpr: float = 0.01,
    n: int | None = None,
    bits_per_key: float | None = None,
    shape: str = "word512",
    depth: int = 2,
) -> Filter:
    """A batchbloom.Filter of the non-null keys of df[column].

    Sized for n distinct keys at fpr (or bits_per_key bits per key); n defaults to the number
    of rows with a non-null key (counted by a Spark job first; an upper bound, so pass n, e.g.
    from approx_count_distinct, when the keys repeat a lot). column: a name or a Column."""
    if n is None:
        n = _key_count(df, column)
    n = max(int(n), 1)
    sizing = {"bits_per_key": bits_per_key} if bits_per_key is not None else {"fpr": fpr}
    return _union_of_partitions(df, column, lambda: Filter(n, shape=shape, **sizing), depth)


def build_spark(
    df: DataFrame,
    column: Union[str, Column],
    *,
    fpp: float = 0.03,
    n: int | None = None,
    version: int = 2,
    seed: int = 0,
    depth: int = 2,
) -> ClassicFilter:
    """Spark's own BloomFilter of the non-null keys of df[column], as a batchbloom.ClassicFilter:
    sized as BloomFilter.create(n, fpp) (Spark's defaults: fpp 0.03, version 2, seed 0), so it
    equals what `df.stat.bloomFilter(column, n, fpp)` builds, and Spark's BloomFilter.readFrom
    reads its to_spark_bytes(). n defaults to the rows with a non-null key."""
    if version not in (1, 2):
        raise ValueError(f"Spark BloomFilter versions are 1 and 2, not {version!r}")
    if n is None:
        n = _key_count(df, column)
    n = max(int(n), 1)
    scheme = "spark_v2" if version == 2 else "spark_v1"
    return _union_of_partitions(df, column, lambda: ClassicFilter.spark(n, fpp, scheme=scheme, seed=seed), depth)


def filter(df: DataFrame, column: str, bloom: Any) -> DataFrame:  # noqa: A001 - the verb, as DataFrame's
    """The rows of df whose key in `column` (a name) may be in `bloom`: every row whose key was
    inserted, about the filter's FPR of the others, no null keys. `bloom` is any batchbloom
    filter, or a Broadcast of one (made once and reused across queries). Lazy, like any
    DataFrame transformation; the schema is df's."""
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in {df.columns}")
    index = df.columns.index(column)
    bc = _broadcast(bloom, df.sparkSession)

    def keep_candidates(batches):
        f = bc.value  # unpickled once per Python worker, then cached by PySpark
        for batch in batches:
            kept = batch.filter(_arrow.mask(batch.column(index), f))
            if kept.num_rows:
                yield kept

    return df.mapInArrow(keep_candidates, df.schema)


def _broadcast(bloom, spark):
    return bloom if isinstance(bloom, Broadcast) else spark.sparkContext.broadcast(bloom)


def may_contain(column: Union[str, Column], bloom: Any) -> Column:
    """A boolean Column, True where the row's key may be in `bloom` (False for a null key), for
    `df.where(may_contain("k", bloom))` or a select. A scalar Arrow UDF: only the key column
    goes to Python and a boolean comes back, one batched probe per Arrow batch (filter() sends
    whole rows). Needs PySpark 4.1 or later (pyspark.sql.functions.arrow_udf)."""
    try:
        from pyspark.sql.functions import arrow_udf
    except ImportError as e:
        raise ImportError("may_contain() needs PySpark 4.1 or later (arrow_udf); use filter() instead") from e
    from pyspark.sql import SparkSession

    bc = _broadcast(bloom, SparkSession.active())

    def probe(keys):
        return _arrow.mask(keys, bc.value)

    return arrow_udf(probe, "boolean")(column)


def semi_join(
    probe: DataFrame, build_side: DataFrame, column: str, *, fpr: float = 0.01, n: int | None = None
) -> DataFrame:
    """probe LEFT SEMI JOIN build_side ON column, with the probe side pre-filtered by a Bloom
    filter of build_side's keys. The same rows as the plain semi join."""
    bloom = build(build_side, column, fpr=fpr, n=n)
    return filter(probe, column, bloom).join(build_side.select(column), on=column, how="left_semi")
