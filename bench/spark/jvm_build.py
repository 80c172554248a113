"""build_native on a cluster whose executors' Python has no batchbloom: large key sets are filled
by Spark's own aggregate in the executors' JVMs, and the filter, filter() and semi_join() work.
Beside it, the build time of the partition path (batchbloom in every executor's Python, Arrow
batches through mapInArrow), which is what build_native ran for large key sets before.

    python bench/spark/jvm_build.py [--keys 2M,40M] [--reps 3] [--json F]

Runs Spark's `local-cluster[2,1,MEM]` master: two executor processes, one core each, separate
JVMs with their own Python workers. The first session's executors run a Python without
batchbloom (--bare-python, default /usr/bin/python3; checked before anything is built), the
second's run this interpreter, which has it. Key columns are spark.range's longs (distinct).
Checked for every size: the JVM-built filter equals, bit for bit, the filter the driver builds
from the same keys with batchbloom (ClassicFilter.spark sized the same), filter() keeps every
build key of a probe side and semi_join() gives Spark's own left-semi count. Times are medians of
--reps runs of build_native alone (the first run of each session is a warm-up and not counted).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np


def parse_count(text):
    scale = {"k": 10**3, "M": 10**6, "G": 10**9}.get(text[-1], 1)
    return int(float(text[:-1] if scale != 1 else text) * scale)


def session(python, memory_mb):
    from pyspark.sql import SparkSession

    # PySpark takes the executors' Python from the environment when the context starts (the
    # spark.pyspark.python setting is read at JVM launch, once per process).
    os.environ["PYSPARK_PYTHON"] = python
    return (SparkSession.builder.master(f"local-cluster[2,1,{memory_mb}]")
            .appName("batchbloom-jvm-build")
            .config("spark.pyspark.python", python)
            .config("spark.pyspark.driver.python", sys.executable)
            .config("spark.executor.memory", f"{memory_mb}m")
            .config("spark.driver.memory", "6g")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.ui.enabled", "false")
            .getOrCreate())


def executors_import_batchbloom(spark):
    """Whether a Python worker on the executors can import batchbloom."""

    def probe(_):
        try:
            import batchbloom  # noqa: F401
        except ImportError:
            return [False]
        return [True]

    return all(spark.sparkContext.parallelize(range(4), 4).mapPartitions(probe).collect())


def timed_builds(build, reps, bbs):
    times, f = [], None
    for rep in range(reps + 1):
        t = time.perf_counter()
        f = bbs.build_native(build, "key", fpr=0.01)
        if rep:
            times.append(time.perf_counter() - t)
    return f, times


def same_as_the_drivers(f, n):
    """Whether f is, bit for bit, the filter the driver builds from keys 0..n-1 at f's bits and k."""
    import batchbloom

    driver = batchbloom.ClassicFilter.from_params(batchbloom.ClassicParams(bits=f.bits, k=f.k), scheme=f.scheme)
    for begin in range(0, n, 1 << 24):
        driver.insert(np.arange(begin, min(n, begin + (1 << 24)), dtype=np.int64))
    return driver.to_spark_bytes() == f.to_spark_bytes()


def check(spark, bbs, f, n):
    """filter() keeps every probe row that matches and semi_join() counts as Spark's own does."""
    from pyspark.sql import functions as F

    # A probe side of 4M rows: every 8th build key, the rest absent.
    probe = spark.range(0, 4_000_000).select(
        F.when(F.col("id") % 4 == 0, F.col("id") * 2 % n).otherwise(F.col("id") + n).alias("key"))
    build = spark.range(n).withColumnRenamed("id", "key")
    expected = probe.join(build, "key", "left_semi").count()
    kept = bbs.filter(probe, "key", f)
    assert kept.join(build, "key", "left_semi").count() == expected, "filter() dropped a matching row"
    assert bbs.semi_join(probe, build, "key").count() == expected, "semi_join() differs from Spark's"
    return expected, kept.count()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keys", default="2M,40M")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--bare-python", default="/usr/bin/python3")
    ap.add_argument("--executor-mb", type=int, default=3072)
    ap.add_argument("--json", help="append one JSON line per size and path here")
    args = ap.parse_args()
    sizes = [parse_count(s) for s in args.keys.split(",")]
    if subprocess.run([args.bare_python, "-c", "import batchbloom"], capture_output=True).returncode == 0:
        sys.exit(f"{args.bare_python} imports batchbloom: give --bare-python a Python without it")

    import batchbloom.spark as bbs

    rows = []
    # JVM path: executors without batchbloom; every build goes past the collect limit.
    bbs._COLLECT_BYTES = 0
    spark = session(args.bare_python, args.executor_mb)
    assert not executors_import_batchbloom(spark), "the executors' Python imports batchbloom"
    for n in sizes:
        build = spark.range(n).withColumnRenamed("id", "key")
        f, times = timed_builds(build, args.reps, bbs)
        assert same_as_the_drivers(f, n), "the JVM's filter differs from the driver's"
        expected, kept = check(spark, bbs, f, n)
        rows.append({"path": "jvm (no batchbloom on executors)", "keys": n, "seconds": times,
                     "median_s": statistics.median(times), "bits": f.bits, "k": f.k,
                     "probe_matches": expected, "probe_kept": kept})
        print(f"jvm        {n:>11,} keys  build_native {statistics.median(times):7.2f} s (runs {times}); "
              f"bits {f.bits:,} k {f.k}; filter() kept {kept:,} of 4,000,000 probe rows, {expected:,} match",
              flush=True)
    spark.stop()

    # Partition path: batchbloom in the executors' Python, the JVM route turned off.
    spark = session(sys.executable, args.executor_mb)
    assert executors_import_batchbloom(spark), "the executors' Python lacks batchbloom"
    jvm_route = bbs._built_in_the_jvm
    bbs._built_in_the_jvm = lambda keys, like: None
    try:
        for n in sizes:
            build = spark.range(n).withColumnRenamed("id", "key")
            f, times = timed_builds(build, args.reps, bbs)
            assert same_as_the_drivers(f, n), "the partitions' filter differs from the driver's"
            rows.append({"path": "partitions (batchbloom on executors)", "keys": n, "seconds": times,
                         "median_s": statistics.median(times), "bits": f.bits, "k": f.k})
            print(f"partitions {n:>11,} keys  build_native {statistics.median(times):7.2f} s (runs {times})",
                  flush=True)
    finally:
        bbs._built_in_the_jvm = jvm_route
    spark.stop()
    if args.json:
        with open(args.json, "a") as out:
            for r in rows:
                out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
