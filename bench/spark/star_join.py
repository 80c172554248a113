"""A Bloom-filtered star join on Spark in local mode: the plain join, the old RDD pre-filter,
batchbloom.spark, and Spark SQL's own runtime Bloom filter, timed with Spark's own metrics.

    python bench/spark/star_join.py gen --out out/spark                # Parquet data, ~1 GB
    python bench/spark/star_join.py run --data out/spark --build 200000 --match 0.01 [--json F]
    python bench/spark/star_join.py report F                            # Markdown table

Data (numpy, fixed seed): a dimension table dim(key, attr, label) of 4M rows with distinct
random 62-bit keys and attr a permutation of 0..4M-1, so `attr < B` selects exactly B keys;
for each (B, match) a fact table fact_<B>_<match>(key, amount) of 20M rows in 8 files, where a
fraction `match` of the rows has a key among the B selected ones and the rest a key of the
other dim rows (every fact key is in dim: a star join). The query:

    SELECT count(*), sum(f.amount)
    FROM fact f LEFT SEMI JOIN (SELECT key FROM dim WHERE attr < B) d ON f.key = d.key

with the key a long (`--key int`) or its decimal text on both sides (`--key string`), and d the
dimension scanned and filtered, or (`--build-side table`) the B selected rows as a table of their
own, which Spark's planner can size and, at 200k rows, broadcasts under its defaults.

Variants run in rounds: one untimed round (the JVM compiles each plan's generated code over its
first runs), then --reps timed rounds, each in its own shuffled order, so that no variant gains
from running after the others while the JVM keeps warming up. Each run is timed wall clock end
to end (filter build included), its jobs' stages summed from Spark's status REST API (shuffle
write and read bytes):
- `plain`: a shuffle join (runtime Bloom filter and broadcast joins off);
- `spark`: Spark's own plan under its defaults (runtime filter, broadcast threshold, AQE);
- `broadcast`: the semi join with the build side broadcast (a hint);
- `runtime`: Spark's runtime Bloom filter, broadcast joins off and its size thresholds opened so
  that it applies (it only acts on shuffle joins);
- `native`: batchbloom.spark.build_native over d's keys, then batchbloom.spark.filter, probed
  inside the JVM by Spark's might_contain, before the shuffle join;
- `reuse`: the native filter built once and saved (before the timed runs), then loaded and
  probed by each query, as later queries and jobs use a filter built once;
- `semi_join`: batchbloom.spark.semi_join under Spark's defaults (it returns Spark's own plan
  where the build side would be broadcast);
- `module` / `udf`: a batchbloom.Filter probed in Python (mapInArrow / an Arrow UDF);
- `rdd`: the pre-filter of the former Spark example, row by row in rdd.mapPartitions.
"""
import argparse
import json
import operator
import os
import random
import sys
import tempfile
import time
import urllib.request

import numpy as np

DIM_ROWS = 4_000_000
FACT_ROWS = 20_000_000
FACT_FILES = 8
BUILDS = (200_000, 2_000_000)
MATCHES = (0.01, 0.10)


def fact_name(build, match):
    return f"fact_{build}_{int(round(match * 100))}pct"


def gen(args):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(20261125)
    keys = np.unique(rng.integers(0, 2**62, size=int(DIM_ROWS * 1.001), dtype=np.int64))[:DIM_ROWS]
    keys = rng.permutation(keys)
    attr = rng.permutation(DIM_ROWS).astype(np.int64)
    label = rng.integers(0, 1000, size=DIM_ROWS, dtype=np.int64)
    os.makedirs(os.path.join(args.out, "dim"), exist_ok=True)
    pq.write_table(pa.table({"key": keys, "attr": attr, "label": label}), os.path.join(args.out, "dim", "part-0.parquet"),
                   row_group_size=1 << 20)
    for build in BUILDS:
        chosen, rest = keys[attr < build], keys[attr >= build]
        for match in MATCHES:
            hit = rng.random(FACT_ROWS) < match
            fact_keys = np.where(hit, chosen[rng.integers(0, chosen.size, FACT_ROWS)],
                                 rest[rng.integers(0, rest.size, FACT_ROWS)])
            amount = rng.integers(1, 100, size=FACT_ROWS, dtype=np.int64)
            d = os.path.join(args.out, fact_name(build, match))
            os.makedirs(d, exist_ok=True)
            for i, part in enumerate(np.array_split(np.arange(FACT_ROWS), FACT_FILES)):
                pq.write_table(pa.table({"key": fact_keys[part], "amount": amount[part]}),
                               os.path.join(d, f"part-{i}.parquet"), row_group_size=1 << 20)
            print(f"{d}: {FACT_ROWS} rows, {int(hit.sum())} matching", flush=True)


# ---- the baseline: the pre-filter of the Spark example batchbloom.spark replaced. Python
# iterates the rows of rdd.mapPartitions, one contains() call per 65,536 rows.

RDD_CHUNK = 65_536


def rdd_prefilter(spark, fact, dim_keys, fpr=0.01):
    import batchbloom

    n = max(1, dim_keys.distinct().count())

    def partition_filter(rows):
        f = batchbloom.Filter(n, fpr)
        f.insert(np.fromiter((row[0] for row in rows), dtype=np.int64))
        yield f

    bloom = dim_keys.rdd.mapPartitions(partition_filter).treeReduce(operator.or_, depth=2)
    shared = spark.sparkContext.broadcast(bloom.to_bytes())
    column = fact.columns.index("key")

    def survivors(f, batch):
        if not batch:
            return []
        hits = f.contains(np.fromiter((row[column] for row in batch), dtype=np.int64))
        return [row for row, hit in zip(batch, hits) if hit]

    def keep_candidates(rows):
        f = batchbloom.Filter.from_bytes(shared.value)
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == RDD_CHUNK:
                yield from survivors(f, batch)
                batch = []
        yield from survivors(f, batch)

    return spark.createDataFrame(fact.rdd.mapPartitions(keep_candidates), fact.schema), bloom.nbytes


RUNTIME_CONF = {
    "spark.sql.optimizer.runtime.bloomFilter.enabled": "true",
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.optimizer.runtime.bloomFilter.applicationSideScanSizeThreshold": "1MB",
    "spark.sql.optimizer.runtime.bloomFilter.creationSideThreshold": "1GB",
}


# Variants run under Spark's own defaults (runtime filter, broadcast threshold, AQE): Spark's own
# plan, and batchbloom.spark.semi_join, which must never be slower than it.
DEFAULT_PLAN = ("spark", "semi_join", "broadcast")


def stage_metrics(spark, group):
    """Shuffle write/read and input bytes summed over the stages of the jobs of `group`."""
    sc = spark.sparkContext
    tracker = sc.statusTracker()
    stages = set()
    for job in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(job)
        if info is not None:
            stages.update(info.stageIds)
    base = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages"
    totals = {"shuffle_write_bytes": 0, "shuffle_read_bytes": 0, "stages": 0}
    for sid in sorted(stages):
        try:
            with urllib.request.urlopen(f"{base}/{sid}") as r:
                attempts = json.load(r)
        except urllib.error.HTTPError:  # a stage that never ran (skipped) is not in the store
            continue
        for a in attempts:
            if a.get("status") == "SKIPPED":
                continue
            totals["shuffle_write_bytes"] += a.get("shuffleWriteBytes", 0)
            totals["shuffle_read_bytes"] += a.get("shuffleReadBytes", 0)
            totals["stages"] += 1
    return totals


def run(args):
    from pyspark.sql import SparkSession, functions as F

    import batchbloom.spark as bbs
    from batchbloom import ClassicFilter, Filter

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master(f"local[{args.cores}]").appName("batchbloom-star-join")
             .config("spark.driver.memory", args.memory).config("spark.ui.showConsoleProgress", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    defaults = {k: spark.conf.get(k) for k in list(RUNTIME_CONF) + ["spark.sql.adaptive.enabled"]}
    dim = spark.read.parquet(os.path.join(args.data, "dim"))
    fact = spark.read.parquet(os.path.join(args.data, fact_name(args.build, args.match)))
    if args.build_side == "table":  # the B selected rows as a table of their own, which Spark can size
        small = os.path.join(tempfile.mkdtemp(), "dim_selected")
        dim.where(F.col("attr") < args.build).write.parquet(small)
        dim = spark.read.parquet(small)
    d = dim.where(F.col("attr") < args.build)

    if args.key == "string":  # the same keys as text, on both sides
        dim = dim.withColumn("key", F.col("key").cast("string"))
        fact = fact.withColumn("key", F.col("key").cast("string"))
        d = dim.where(F.col("attr") < args.build)
    keys = d.select("key")

    def answer(joined):
        return tuple(joined.agg(F.count(F.lit(1)), F.sum("amount")).collect()[0])

    def semi(probe):
        return probe.join(keys, "key", "left_semi")

    def plain():
        return answer(semi(fact)), {}

    def broadcast():
        return answer(fact.join(F.broadcast(keys), "key", "left_semi")), {}

    def rdd():
        candidates, nbytes = rdd_prefilter(spark, fact, keys)
        return answer(semi(candidates)), {"filter_bytes": nbytes}

    def module():
        bloom = bbs.build(d, "key", fpr=0.01)
        return answer(semi(bbs.filter(fact, "key", bloom))), {"filter_bytes": bloom.nbytes}

    def udf():
        bloom = bbs.build(d, "key", fpr=0.01)
        return answer(semi(fact.where(bbs.may_contain("key", bloom)))), {"filter_bytes": bloom.nbytes}

    def native():
        bloom = bbs.build_native(d, "key", fpr=0.01)
        return answer(semi(bbs.filter(fact, "key", bloom))), {"filter_bytes": bloom.nbytes}

    saved = os.path.join(tempfile.mkdtemp(), "keys.bbf")

    def reuse():
        bloom = ClassicFilter.load(saved)  # built once and saved, before the timed runs
        return answer(semi(bbs.filter(fact, "key", bloom))), {"filter_bytes": bloom.nbytes}

    def semi_join():
        return answer(bbs.semi_join(fact, d, "key", fpr=0.01)), {}

    def runtime():
        plan = semi(fact)._jdf.queryExecution().optimizedPlan().toString()
        return answer(semi(fact)), {"runtime_filter_in_plan": "might_contain" in plan}

    def spark_plan():
        return answer(semi(fact)), {}

    variants = {"plain": plain, "spark": spark_plan, "broadcast": broadcast, "rdd": rdd, "module": module, "udf": udf,
                "native": native, "reuse": reuse,
                "semi_join": semi_join, "runtime": runtime}
    results = []
    spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false")
    t = time.perf_counter()
    expected = plain()[0]  # warm-up (JIT, Parquet footers), and the answer
    print(f"warm-up plain: {time.perf_counter() - t:.1f} s, answer {expected}", flush=True)
    # The first Python job of a session starts the Python workers (and imports pyarrow and
    # batchbloom in them), and the first Arrow collect loads Spark's Arrow writer: one-time
    # costs, measured here and kept out of the variants.
    t = time.perf_counter()
    bbs.filter(spark.range(0, 1000, numPartitions=args.cores), "id", Filter(1000, 0.01)).count()
    print(f"warm-up Python workers: {time.perf_counter() - t:.1f} s", flush=True)
    t = time.perf_counter()
    bbs.build(spark.range(0, 1000, numPartitions=args.cores), "id")
    print(f"warm-up Arrow collect: {time.perf_counter() - t:.1f} s", flush=True)
    if "reuse" in args.variants.split(","):
        bbs.build_native(d, "key", fpr=0.01).save(saved)
    names = args.variants.split(",")
    order = random.Random(args.build + int(args.match * 100)).sample
    for rep in range(-1, args.reps):
        # Round -1 is untimed (the plain join's ran above): the JVM compiles each plan's generated
        # code (xxhash64, might_contain) over its first runs, which would otherwise favour
        # whichever variant runs later; each timed round runs the variants in a shuffled order.
        for name in (names if rep < 0 else order(names, len(names))):
            if rep < 0 and name == "plain":
                continue
            for k, v in defaults.items():
                spark.conf.set(k, v)
            if name == "runtime":
                for k, v in RUNTIME_CONF.items():
                    spark.conf.set(k, v)
            elif name not in DEFAULT_PLAN:  # a shuffle join, as the plain join
                spark.conf.set("spark.sql.optimizer.runtime.bloomFilter.enabled", "false")
                spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
            group = f"{name}-{rep}"
            spark.sparkContext.setJobGroup(group, group)
            t = time.perf_counter()
            got, extra = variants[name]()
            wall = time.perf_counter() - t
            metrics = stage_metrics(spark, group)
            r = {"variant": name, "rep": rep, "key": args.key, "build_keys": args.build, "match": args.match,
                 "build_side": args.build_side,
                 "fact_rows": FACT_ROWS,
                 "wall_s": round(wall, 2), "answer_ok": got == expected, **metrics, **extra}
            print(json.dumps(r), flush=True)
            if got != expected:
                raise SystemExit(f"{name}: answer {got} != the plain join's {expected}")
            if rep >= 0:
                results.append(r)
    spark.stop()
    if args.json:
        with open(args.json, "a") as f:
            for r in results:
                f.write(json.dumps(r) + "\n")


def report(args):
    runs = [json.loads(line) for line in open(args.results) if line.strip()]
    side = lambda r: r.get("build_side", "scan")  # noqa: E731
    cases = sorted({(side(r), r.get("key", "int"), r["build_keys"], r["match"]) for r in runs})
    print("| build side | key | build keys | probe rows matching | variant | wall s (each run) | shuffle write MB | filter bytes |")
    print("|---|---|---:|---:|---|---:|---:|---:|")
    for build_side, key, build, match in cases:
        for name in ("plain", "spark", "broadcast", "runtime", "native", "reuse", "semi_join", "rdd", "module", "udf"):
            rs = [r for r in runs if (side(r), r.get("key", "int"), r["build_keys"], r["match"], r["variant"]) ==
                  (build_side, key, build, match, name)]
            if not rs:
                continue
            wall = " / ".join(f"{r['wall_s']:.1f}" for r in rs)
            mb = max(r["shuffle_write_bytes"] for r in rs) / 1e6
            fb = f"{rs[0]['filter_bytes']:,}" if "filter_bytes" in rs[0] else ""
            print(f"| {build_side} | {key} | {build:,} | {match:.0%} | {name} | {wall} | {mb:.1f} | {fb} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--data", required=True)
    r.add_argument("--build", type=int, choices=BUILDS, required=True)
    r.add_argument("--match", type=float, choices=MATCHES, required=True)
    r.add_argument("--key", choices=("int", "string"), default="int", help="join on the key as a long or as text")
    r.add_argument("--build-side", choices=("scan", "table"), default="scan",
                   help="scan: the dimension scanned and filtered (attr < B), which Spark's planner sizes as the "
                        "whole dimension; table: the B selected rows written as a table of their own first, small "
                        "enough at 200k for Spark to broadcast under its defaults")
    r.add_argument("--variants", default="plain,spark,broadcast,runtime,native,semi_join,udf,module")
    r.add_argument("--reps", type=int, default=1)
    r.add_argument("--cores", type=int, default=2)
    r.add_argument("--memory", default="6g")
    r.add_argument("--json", help="append one JSON line per run here")
    p = sub.add_parser("report")
    p.add_argument("results", help="the --json file of run")
    args = ap.parse_args()
    {"gen": gen, "run": run, "report": report}[args.cmd](args)


if __name__ == "__main__":
    main()
