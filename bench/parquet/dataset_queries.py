"""What `batchbloom parquet add` over a dataset buys DuckDB and Spark: point lookups, IN lists
and a join with a small build side, on the dataset as written and with filters added.

    python bench/parquet/dataset_queries.py --data DIR --cli build/tools/batchbloom [--json F]

DIR is a Parquet dataset with a high-cardinality int64 column `key` (bench/spark/star_join.py
gen writes such datasets: each fact_* directory is 20M rows in 8 files of 1M-row row groups).
It is copied twice under a temporary directory; one copy gets filters on `key` with
`batchbloom parquet add COPY --column key` (timed). Then each query runs on both copies,
median of --reps runs, with keys that are not in the data (so every row group could be
skipped): DuckDB (the row groups its scans read, from its profiler) and Spark in local mode.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

# Keys inside every row group's min/max range (the data's keys are random in [0, 2^62)) that the
# data does not hold (checked: every query must count 0 rows), so only a Bloom filter can skip.
ABSENT = [random.Random(1970).randrange(2**40, 2**61) for _ in range(10)]


def median_time(fn, reps):
    """The median of reps timed calls after an untimed one, whose result is returned."""
    result = fn()
    return statistics.median(timeit.repeat(fn, number=1, repeat=reps)), result


def queries(path):
    scan = f"read_parquet('{path}/*.parquet')"
    keys = ", ".join(map(str, ABSENT))
    return {
        "point lookup": f"SELECT count(*) FROM {scan} WHERE key = {ABSENT[0]}",
        "IN list of 10": f"SELECT count(*) FROM {scan} WHERE key IN ({keys})",
        "join, 10-row build side": f"SELECT count(*) FROM {scan} f JOIN (SELECT unnest([{keys}]) AS key) k USING (key)",
    }


def duckdb_rows(con, sql, profile):
    """(count, row groups read, row groups) of a count query, from DuckDB's JSON profile."""
    con.execute("PRAGMA enable_profiling='json'")
    con.execute(f"PRAGMA profiling_output='{profile}'")
    count = con.execute(sql).fetchall()[0][0]
    con.execute("PRAGMA disable_profiling")
    read = total = 0
    stack = [json.loads(Path(profile).read_text())]
    while stack:  # every operator of the plan; the table scans carry the row-group counts
        node = stack.pop()
        read += int(node.get("row_groups_scanned", 0))
        total += int(node.get("total_row_groups_to_scan", 0))
        stack += node.get("children", []) + node.get("operator", [])
    return count, read, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--cli", required=True, help="the batchbloom program")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", help="append one JSON line per measurement here")
    args = ap.parse_args()
    import duckdb

    def record(r):
        print(json.dumps(r), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")

    with tempfile.TemporaryDirectory() as tmp:
        plain, filtered = Path(tmp) / "plain", Path(tmp) / "filtered"
        shutil.copytree(args.data, plain)
        shutil.copytree(args.data, filtered)
        t = time.perf_counter()
        subprocess.run([args.cli, "parquet", "add", str(filtered), "--column", "key", "--quiet"], check=True,
                       stdout=subprocess.DEVNULL)
        record({"engine": "batchbloom", "query": "parquet add (whole dataset)", "seconds": round(time.perf_counter() - t, 3),
                "bytes": sum(f.stat().st_size for f in filtered.glob("*.parquet"))})

        con = duckdb.connect()
        for label, path in (("as written", plain), ("with filters", filtered)):
            for name, sql in queries(path).items():
                seconds, _ = median_time(lambda: con.execute(sql).fetchall(), args.reps)
                count, scanned, total = duckdb_rows(con, sql, Path(tmp) / "profile.json")
                if count:
                    raise SystemExit(f"{name}: {count} rows hold a key meant to be absent")
                record({"engine": "duckdb " + duckdb.__version__, "query": name, "dataset": label,
                        "seconds": round(seconds, 4), "rows": count, "row_groups_read": scanned, "row_groups": total})

        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.driver.memory", "4g").getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        for label, path in (("as written", plain), ("with filters", filtered)):
            spark.read.parquet(str(path)).createOrReplaceTempView("t")
            keys = ", ".join(map(str, ABSENT))
            sqls = {"point lookup": f"SELECT count(*) FROM t WHERE key = {ABSENT[0]}",
                    "IN list of 10": f"SELECT count(*) FROM t WHERE key IN ({keys})",
                    "join, 10-row build side": "SELECT count(*) FROM t JOIN (SELECT explode(array("
                                               f"{keys})) AS key) k USING (key)"}
            for name, sql in sqls.items():
                seconds, rows = median_time(lambda: spark.sql(sql).collect()[0][0], args.reps)
                if rows:
                    raise SystemExit(f"{name}: {rows} rows hold a key meant to be absent")
                record({"engine": "spark " + spark.version, "query": name, "dataset": label, "seconds": round(seconds, 4),
                        "rows": rows})
        spark.stop()


if __name__ == "__main__":
    main()
