"""A Bloom semi-join on Spark with batchbloom.

The build side's keys go into one batchbloom filter per partition (mapPartitions); the
partition filters are OR-ed together on the executors (treeReduce), and the result is
broadcast. Each probe partition then drops, in one batched call per chunk of rows, every row
whose key the filter rules out - before any shuffle. The survivors still go through Spark's
own join, which removes the filter's false positives, so the result is exactly the plain join's.

Run it locally (PySpark from pip, Java 17, batchbloom's Python package installed):
    python examples/spark/bloom_semijoin.py
On a cluster, see docs/spark.md: batchbloom must be importable on every executor.
"""
import operator
import sys

import numpy as np

import batchbloom

CHUNK = 65_536  # probe rows per batched contains() call


def _as_keys(values):
    # Spark longs, as a batch the bindings read in place (negative values: two's complement).
    return np.fromiter(values, dtype=np.int64)


def build_filter(build_df, key, *, fpr=0.01, depth=2):
    """One batchbloom.Filter holding every key of build_df[key] (a long column)."""
    n = max(1, build_df.select(key).distinct().count())

    def partition_filter(rows):
        f = batchbloom.Filter(n, fpr)  # every partition sizes for the whole set, so they can be OR-ed
        f.insert(_as_keys(row[0] for row in rows))
        yield f  # shipped to the reducer by pickling (Filter.__getstate__: the file bytes)

    return build_df.select(key).rdd.mapPartitions(partition_filter).treeReduce(operator.or_, depth=depth)


def prefilter(probe_df, key, filter_bytes):
    """The rows of probe_df whose key the broadcast filter may contain (a superset of the matches)."""
    column = probe_df.columns.index(key)

    def keep_candidates(rows):
        f = batchbloom.Filter.from_bytes(filter_bytes.value)
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == CHUNK:
                yield from _survivors(f, batch, column)
                batch = []
        yield from _survivors(f, batch, column)

    return probe_df.rdd.mapPartitions(keep_candidates)


def _survivors(f, batch, column):
    if not batch:
        return []
    hits = f.contains(_as_keys(row[column] for row in batch))
    return [row for row, hit in zip(batch, hits) if hit]


def bloom_semijoin(spark, probe_df, build_df, key, *, fpr=0.01):
    """probe_df LEFT SEMI JOIN build_df ON key, with the probe side pre-filtered by a Bloom filter.

    Returns (result DataFrame, the filter, number of probe rows that survived the filter)."""
    bloom = build_filter(build_df, key, fpr=fpr)
    broadcast = spark.sparkContext.broadcast(bloom.to_bytes())
    candidates = spark.createDataFrame(prefilter(probe_df, key, broadcast), probe_df.schema).cache()
    survivors = candidates.count()
    return candidates.join(build_df.select(key).distinct(), on=key, how="left_semi"), bloom, survivors


def main():
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[4]").appName("bloom-semijoin")
             .config("spark.ui.enabled", "false").getOrCreate())
    build = spark.range(0, 200_000, 7).withColumnRenamed("id", "k")          # 28,572 keys
    probe = spark.range(0, 1_000_000).withColumnRenamed("id", "k").selectExpr("k", "k * 2 AS payload")
    result, bloom, survivors = bloom_semijoin(spark, probe, build, "k")
    plain = probe.join(build, on="k", how="left_semi")
    print(f"filter: {bloom.nbytes} bytes, k={bloom.k}; probe rows after the filter: {survivors} of {probe.count()}")
    print(f"bloom semi-join rows: {result.count()}, plain semi-join rows: {plain.count()}")
    ok = sorted(result.collect()) == sorted(plain.collect())
    spark.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
