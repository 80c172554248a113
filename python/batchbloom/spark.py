"""Bloom filters on Apache Spark DataFrames, vectorized: no Python code runs per row.

    import batchbloom.spark as bbs
    bloom = bbs.build(dim.where("region = 'EU'"), "customer_id", fpr=0.01)   # a batchbloom.Filter
    facts_eu = bbs.filter(facts, "customer_id", bloom)    # rows that may match, before any shuffle
    result = facts_eu.join(dim.where("region = 'EU'"), "customer_id")     # exact, as without it

- build(): where Spark's planner puts the key column at no more than 256 MiB (and half of
  spark.driver.maxResultSize), one job brings the keys to the driver through Arrow and they are
  inserted there in one call: no count job, no Python workers. Otherwise a job counts the keys
  and each partition of the key column goes through `mapInArrow`; every Arrow batch is inserted
  into the partition's filter in one call (read in place, the GIL released). The partition
  filters all have the same parameters and are OR-ed on the executors in a tree
  (`treeAggregate`); only the union reaches the driver. Either way it is bit for bit the filter
  of all the keys.
- build_native(): a filter Spark probes itself, inside the JVM: Spark's own BloomFilter (the
  format its runtime join filter uses), built from the keys as Spark's runtime filter takes
  them (integers as longs, strings and binary as Spark's `xxhash64`), vectorized like build().
  filter(), may_contain() and semi_join() given such a filter probe with Spark's
  `might_contain` expression, so the large side never leaves the JVM.
- filter() with a batchbloom.Filter (build()): the filter is broadcast once; each Arrow batch
  of the probe side is probed in one batched call and the rows are selected by Arrow
  (`RecordBatch.filter`), in `mapInArrow`. Every row crosses into Python and back, which
  costs more than the probe: docs/which-path.md has the figures.
- build_spark(): the same, into Spark's own BloomFilter (format versions 1 and 2): the result's
  `to_spark_bytes()` is what `org.apache.spark.util.sketch.BloomFilter.readFrom` reads, bit for
  bit the filter `DataFrame.stat.bloomFilter(column, n, fpp)` builds.

Key columns: long, int, short, byte, string and binary (Spark's putLong, putString,
putBinary keys). A null key is never inserted and never matches (as in an SQL join).
batchbloom must be importable on every executor (see docs/spark.md), with its [spark] extra
(pip install 'batchbloom[spark]': PySpark, pyarrow and pandas).
"""

from __future__ import annotations

import contextlib
import math
from typing import Any, Union

from ._extra import require

require("batchbloom.spark", "spark", "pyspark", "pyarrow", "pandas")

from pyspark.broadcast import Broadcast  # noqa: E402 - after the check that names the extra
from pyspark.sql import Column, DataFrame  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

from . import arrow as _arrow  # noqa: E402
from ._core import ClassicFilter, ClassicParams, Filter  # noqa: E402

__all__ = ["build", "build_native", "build_spark", "filter", "may_contain", "semi_join"]

_FILTER_SCHEMA = "filter binary"


def _key_count(df, column):
    # Rows with a non-null key: an upper bound on the distinct keys, counted without a shuffle.
    return df.select(column).na.drop().count()


# Keys that Spark's planner estimates at no more than this come to the driver in one Arrow job,
# without the count job and the Python workers that are most of a small build's time. The
# planner's estimate of a filtered scan is the scan's size, an upper bound.
_COLLECT_BYTES = 256 << 20


def _collect_limit(spark) -> int:
    """Bytes of keys (as Spark's planner estimates them) that _filled() brings to the driver: at
    most _COLLECT_BYTES and half of spark.driver.maxResultSize; 0 without a JVM (Spark Connect)."""
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return 0
    result = spark.sparkContext.getConf().get("spark.driver.maxResultSize", "1g")
    most = int(jvm.org.apache.spark.network.util.JavaUtils.byteStringAsBytes(result))
    return _COLLECT_BYTES if most <= 0 else min(_COLLECT_BYTES, most // 2)  # 0: no limit


def _filled(df, column, n, make, depth, in_jvm=None):
    """(make(n) holding the non-null keys of df[column] (a name or a Column), n); n defaults to
    the rows with a non-null key (an upper bound of the distinct keys). Keys within
    _collect_limit() are inserted on the driver after one Arrow job; larger ones after a count
    job, by in_jvm(keys, make(n)) where it gives a filter, else partition by partition
    (_union_of_partitions: batchbloom in every executor's Python)."""
    keys = df.select((F.col(column) if isinstance(column, str) else column).alias("key")).na.drop()
    limit = _collect_limit(df.sparkSession)
    if limit > 0 and _estimated_bytes(keys) <= limit:
        try:
            table = keys.toArrow()
        except Exception:  # noqa: BLE001 - e.g. beyond maxResultSize after all: the way for large key sets
            table = None
        if table is not None:
            col = table.column(0)
            n = max(int(n) if n is not None else len(col), 1)
            f = make(n)
            if len(col):
                f.insert(_arrow.insertable(col))
            return f, n
    if n is None:
        n = keys.count()
    n = max(int(n), 1)
    if in_jvm is not None:
        f = in_jvm(keys, make(n))
        if f is not None:
            return f, n
    return _union_of_partitions(keys, "key", lambda: make(n), depth), n


def _built_in_the_jvm(keys, like):
    """`like` (an empty Spark-scheme ClassicFilter) filled with the long column `key` of keys by
    Spark's own aggregate (DataFrameStatFunctions.bloomFilter, which runs in the executors' JVMs:
    no Python there), read back through BloomFilter.writeTo; None where that cannot give like's
    bits, k, scheme and seed (Spark Connect, another Spark)."""
    jvm = getattr(keys.sparkSession, "_jvm", None)
    if jvm is None or not like.scheme.startswith("spark") or like.seed != 0:
        return None
    # Spark takes k = max(1, round(bits / items * ln 2)) for bloomFilter(col, items, bits): the
    # items that give like's k.
    items = max(1, round(like.bits * math.log(2) / like.k))
    for guess in (items, items - 1, items + 1):
        if guess < 1 or max(1, round(like.bits / guess * math.log(2))) != like.k:
            continue
        try:
            # Spark 4 caps bloomFilter() at its runtime join filter's limits (64 Mbit, 4M items
            # unless set), which a filter of a few million keys passes: raised for this call.
            with _runtime_filter_caps(keys.sparkSession, like.bits, guess):
                built = keys._jdf.stat().bloomFilter("key", guess, like.bits)
            out = jvm.java.io.ByteArrayOutputStream()
            built.writeTo(out)
            f = ClassicFilter.from_spark_bytes(bytes(out.toByteArray()), key_kinds=["integers"])
        except Exception:  # noqa: BLE001 - py4j: a Spark without this path; the Python path instead
            return None
        if (f.bits, f.k, f.scheme, f.seed) == (like.bits, like.k, like.scheme, like.seed):
            return f
    return None


_RUNTIME_FILTER_CAPS = ("spark.sql.optimizer.runtime.bloomFilter.maxNumBits",
                        "spark.sql.optimizer.runtime.bloomFilter.maxNumItems")


@contextlib.contextmanager
def _runtime_filter_caps(spark, bits, items):
    """The session's runtime Bloom filter caps raised to at least bits and items while the block
    runs, then put back as they were (unset where they were unset)."""
    conf = spark.conf
    saved = {key: conf.get(key, None) for key in _RUNTIME_FILTER_CAPS}
    try:
        for key, least in zip(_RUNTIME_FILTER_CAPS, (bits, items)):
            now = conf.get(key)
            if now is None or int(now) < least:
                conf.set(key, str(least))
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                conf.unset(key)
            else:
                conf.set(key, value)


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
    of rows with a non-null key (counted as they reach the driver, or by a Spark job first where
    they are too many to collect; an upper bound, so pass n, e.g. from approx_count_distinct,
    when the keys repeat a lot). column: a name or a Column."""
    sizing = {"bits_per_key": bits_per_key} if bits_per_key is not None else {"fpr": fpr}
    return _filled(df, column, n, lambda n: Filter(n, shape=shape, **sizing), depth)[0]


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
    scheme = "spark_v2" if version == 2 else "spark_v1"
    return _filled(df, column, n, lambda n: ClassicFilter.spark(n, fpp, scheme=scheme, seed=seed), depth)[0]


_INTEGRAL = (T.LongType, T.IntegerType, T.ShortType, T.ByteType)


def _spark_hash(column: Union[str, Column], data_type: Any = None) -> Column:
    """A non-null key as Spark's runtime join filter puts it into its BloomFilter: integers as
    longs, strings and binary as xxhash64 (seed 42). Null keys are the caller's to drop: xxhash64
    of null is the seed, which would match. Without the column's type, a CASE on typeof() that
    Spark folds away when it resolves the column (integers and strings; binary needs the type)."""
    c = F.col(column) if isinstance(column, str) else column
    if isinstance(data_type, _INTEGRAL):
        return c.cast("bigint")
    if isinstance(data_type, (T.StringType, T.BinaryType)):
        return F.xxhash64(c)
    if data_type is not None:
        raise TypeError(f"key column type {data_type.simpleString()}: long, int, short, byte, string or binary")
    return F.when(F.typeof(c).isin("bigint", "int", "smallint", "tinyint"), c.cast("bigint")).otherwise(F.xxhash64(c))


def _column_type(df: DataFrame, column: Union[str, Column]) -> Any:
    return df.select(column).schema.fields[0].dataType


def _spark_scheme(spark) -> str:
    # BloomFilter.readFrom reads version 2 (which fixes version 1's undersizing of large filters,
    # SPARK-47547) from Spark 4.1 on.
    major, minor = (int(x) for x in spark.version.split(".")[:2])
    return "spark_v2" if (major, minor) >= (4, 1) else "spark_v1"


# Spark's own runtime join filter takes this many bits at least (its default numBits).
_RUNTIME_BITS_CONF = "spark.sql.optimizer.runtime.bloomFilter.numBits"


# build_native grows its filter to Spark's runtime filter size, but to no more than this many
# bits per key.
_MAX_GROWN_BITS_PER_KEY = 64


def _runtime_filter_bits(spark) -> int:
    return int(spark.conf.get(_RUNTIME_BITS_CONF, str(8 << 20)))


def build_native(df: DataFrame, column: Union[str, Column], *, fpr: float = 0.01, n: int | None = None,
                 min_bits: int | None = None, depth: int = 2) -> ClassicFilter:
    """A filter of the non-null keys of df[column] that Spark probes inside the JVM: Spark's own
    BloomFilter (format version 2 from Spark 4.1, else 1), holding each key as Spark's runtime
    join filter does (integers as longs, strings and binary as xxhash64). filter(), may_contain()
    and semi_join() probe it with Spark's might_contain expression, with no Python in the probe.
    Save it with save() or to_spark_bytes() and use it in later jobs.

    Sized as BloomFilter.create(n, fpr), then grown to at least min_bits bits with the same
    number of hash functions: the spare bits lower the FPR below fpr and let most absent keys
    stop at the first bit, which the join pays back (each false positive is a row through the
    shuffle; docs/which-path.md). min_bits defaults to the bits of Spark's own runtime join
    filter (spark.sql.optimizer.runtime.bloomFilter.numBits, 8 Mbit unless set) or 64 bits per
    key, whichever is fewer (a few keys need no megabyte filter in every task); 0 sizes for
    fpr alone. n defaults to the rows with a non-null key (an upper bound of the distinct keys;
    pass n from approx_count_distinct when keys repeat a lot)."""
    return _native_filter(df, column, fpr, n, min_bits, depth)[0]


def _native_filter(df, column, fpr, n, min_bits, depth):
    """(build_native's filter, the n it was sized for)."""
    c = F.col(column) if isinstance(column, str) else column
    keys = df.where(c.isNotNull()).select(_spark_hash(c, _column_type(df, column)).alias("key"))
    scheme = _spark_scheme(df.sparkSession)
    floor = _runtime_filter_bits(df.sparkSession) if min_bits is None else int(min_bits)
    if floor < 0:
        raise ValueError(f"min_bits must be at least 0, not {min_bits!r}")

    def make(n):
        f = ClassicFilter.spark(n, fpr, scheme=scheme)
        # Past 64 bits per key the spare bits buy nothing a join would notice (the FPR at the
        # k of 1% is then about 1e-7), and a filter travels in every task that probes it.
        target = floor if min_bits is not None else min(floor, _MAX_GROWN_BITS_PER_KEY * max(n, 1))
        if f.bits >= target:
            return f
        bits = -(-target // 64) * 64  # Spark's BloomFilter holds whole 64-bit words
        return ClassicFilter.from_params(ClassicParams(bits=bits, k=f.k), scheme=scheme)

    return _filled(keys, "key", n, make, depth, in_jvm=_built_in_the_jvm)


def _native_contains(key: Union[str, Column], bloom: Any, data_type: Any = None) -> Column | None:
    """Spark's might_contain(bloom, key) as a Column, probed inside the JVM; None where that is
    not possible: bloom is not a Spark-format filter of keys as build_native() inserts them
    (a filter recording string keys was built with Spark's putString, which might_contain cannot
    probe), or the session has no JVM (Spark Connect) or no such expression (before Spark 4.0)."""
    from pyspark.sql import SparkSession

    if isinstance(bloom, Broadcast):
        bloom = bloom.value
    if not isinstance(bloom, ClassicFilter) or not bloom.scheme.startswith("spark"):
        return None
    if bloom.key_kinds != frozenset({"integers"}):
        return None
    spark = SparkSession.active()
    jvm = getattr(spark, "_jvm", None)
    if jvm is None:
        return None
    try:
        expressions = jvm.org.apache.spark.sql.catalyst.expressions
        classic = jvm.org.apache.spark.sql.classic
        # The filter reaches might_contain as a scalar subquery, as Spark's own runtime filter
        # does, not as a literal: a literal is written out in hex wherever the plan is (explain(),
        # the UI, each adaptive re-plan), a cost that grows with the filter. The subquery reads a
        # local relation (the JVM's createDataFrame of a java.util.List), which runs no Spark
        # job, where PySpark's createDataFrame makes an RDD that costs one or two per query.
        row = spark.sparkContext._gateway.new_array(jvm.java.lang.Object, 1)
        row[0] = bytearray(bloom.to_spark_bytes())
        rows = jvm.java.util.ArrayList()
        rows.add(jvm.org.apache.spark.sql.RowFactory.create(row))
        schema = jvm.org.apache.spark.sql.types.StructType.fromDDL(_FILTER_SCHEMA)
        data = DataFrame(spark._jsparkSession.createDataFrame(rows, schema), spark).scalar()
        probe = expressions.BloomFilterMightContain(classic.ExpressionUtils.expression(data._jc),
                                                    classic.ExpressionUtils.expression(_spark_hash(key, data_type)._jc))
        origin = jvm.org.apache.spark.sql.catalyst.trees.CurrentOrigin.get()
        contains = Column(jvm.org.apache.spark.sql.Column(classic.ExpressionColumnNode.apply(probe, origin)))
    except Exception:  # py4j: a Spark without these classes
        return None
    # The form of Spark's own runtime filter: a CASE WHEN around the hash instead measured 25%
    # slower on string keys. False for a null key.
    c = F.col(key) if isinstance(key, str) else key
    return c.isNotNull() & contains


def filter(df: DataFrame, column: str, bloom: Any) -> DataFrame:  # noqa: A001 - the verb, as DataFrame's
    """The rows of df whose key in `column` (a name) may be in `bloom`: every row whose key was
    inserted, about the filter's FPR of the others, no null keys. `bloom` is any batchbloom
    filter, or a Broadcast of one (made once and reused across queries). A filter from
    build_native() is probed inside the JVM (`df.where(might_contain(...))`); any other goes
    through Python in mapInArrow (a build_native() filter of text keys cannot: ValueError where
    the session lacks might_contain). Lazy, like any DataFrame transformation; the schema is df's."""
    if column not in df.columns:
        raise ValueError(f"no column {column!r} in {df.columns}")
    data_type = _column_type(df, column)
    native = _native_contains(column, bloom, data_type)
    if native is not None:
        return df.where(native)
    _check_python_probe(bloom, isinstance(data_type, (T.StringType, T.BinaryType)))
    index = df.columns.index(column)
    bc = _broadcast(bloom, df.sparkSession)

    def keep_candidates(batches):
        f = bc.value  # unpickled once per Python worker, then cached by PySpark
        for batch in batches:
            kept = batch.filter(_arrow.mask(batch.column(index), f))
            if kept.num_rows:
                yield kept

    return df.mapInArrow(keep_candidates, df.schema)


def _check_python_probe(bloom, text_keys: bool) -> None:
    """Text keys probed in Python against a Spark-format filter of integers would never match:
    build_native() puts text keys in as Spark's xxhash64, which only might_contain computes."""
    f = bloom.value if isinstance(bloom, Broadcast) else bloom
    if text_keys and isinstance(f, ClassicFilter) and f.scheme.startswith("spark") and f.key_kinds == {"integers"}:
        raise ValueError("this Spark-format filter holds integer keys (build_native() puts string and binary keys in "
                         "as Spark's xxhash64, which only Spark's might_contain can probe: Spark 4.0+ in classic mode, "
                         "not Spark Connect); text keys probed against it in Python would never match")


def _broadcast(bloom, spark):
    return bloom if isinstance(bloom, Broadcast) else spark.sparkContext.broadcast(bloom)


def may_contain(column: Union[str, Column], bloom: Any) -> Column:
    """A boolean Column, True where the row's key may be in `bloom` (False for a null key), for
    `df.where(may_contain("k", bloom))` or a select. A filter from build_native() is probed
    inside the JVM (Spark's might_contain), for long,
    int, short, byte and string keys. Any other filter goes through a scalar Arrow UDF: only the
    key column goes to Python and a boolean comes back, one batched probe per Arrow batch (needs
    PySpark 4.1 or later, pyspark.sql.functions.arrow_udf)."""
    native = _native_contains(column, bloom)
    if native is not None:
        return native
    try:
        from pyspark.sql.functions import arrow_udf
    except ImportError as e:
        raise ImportError("may_contain() needs PySpark 4.1 or later (arrow_udf); use filter() instead") from e
    from pyspark.sql import SparkSession

    bc = _broadcast(bloom, SparkSession.active())

    def probe(keys):
        import pyarrow as pa

        kind = keys.type.value_type if pa.types.is_dictionary(keys.type) else keys.type
        _check_python_probe(bc.value, pa.types.is_string(kind) or pa.types.is_large_string(kind) or
                            pa.types.is_binary(kind) or pa.types.is_large_binary(kind))
        return _arrow.mask(keys, bc.value)

    return arrow_udf(probe, "boolean")(column)


def semi_join(
    probe: DataFrame, build_side: DataFrame, column: str, *, fpr: float = 0.01, n: int | None = None
) -> DataFrame:
    """probe LEFT SEMI JOIN build_side ON column, with the probe side pre-filtered by a Bloom
    filter of build_side's keys (build_native(), probed inside the JVM where the session allows,
    else build() and Python). The same rows as the plain semi join. Where Spark would broadcast
    the build side itself (its estimated size within spark.sql.autoBroadcastJoinThreshold),
    Spark's plain plan is returned. Integer keys that fit that threshold (n, or the rows with a
    key, counted first) get a broadcast semi join of the keys: no filter pays there. Text keys
    that fit it are filtered and then probe a broadcast of the keys (no shuffle; faster than
    either alone, docs/which-path.md). Otherwise the filtered semi join."""
    keys = build_side.select(column)
    plain = probe.join(keys, on=column, how="left_semi")
    limit = _broadcast_limit(probe.sparkSession)
    if limit >= 0 and _estimated_bytes(keys) <= limit:
        return plain
    integral = isinstance(_column_type(build_side, column), _INTEGRAL)
    if integral:
        if n is None:
            n = _key_count(build_side, column)
        if limit >= 0 and n * 8 <= limit:
            return probe.join(F.broadcast(keys), on=column, how="left_semi")
    bloom, n = _native_filter(build_side, column, fpr, n, None, 2)
    native = _native_contains(column, bloom, _column_type(probe, column))
    if native is not None:
        kept = probe.where(native)
    else:  # no might_contain: Python probes integer keys as longs, text keys need a filter of their own
        kept = filter(probe, column, bloom if integral else build(build_side, column, fpr=fpr, n=n))
    # Text keys that fit the threshold: the filter drops most rows before they are hashed, and the
    # rest probe a broadcast of the keys, with no shuffle (integer keys broadcast without a filter).
    if not integral and limit >= 0 and n * _TEXT_KEY_BYTES <= limit:
        return kept.join(F.broadcast(keys), on=column, how="left_semi")
    return kept.join(keys, on=column, how="left_semi")


# Bytes a string or binary key takes in a broadcast hash relation, assumed when deciding
# whether the keys fit the broadcast threshold (Spark's own estimate for a string is 20).
_TEXT_KEY_BYTES = 32


def _broadcast_limit(spark) -> int:
    """spark.sql.autoBroadcastJoinThreshold in bytes; -1 (broadcast joins off) without a JVM."""
    jvm = getattr(spark, "_jvm", None)
    return int(jvm.org.apache.spark.sql.internal.SQLConf.get().autoBroadcastJoinThreshold()) if jvm else -1


def _estimated_bytes(df: DataFrame) -> int:
    """The size Spark's planner estimates for df (what it compares with the broadcast threshold)."""
    return int(str(df._jdf.queryExecution().optimizedPlan().stats().sizeInBytes()))


