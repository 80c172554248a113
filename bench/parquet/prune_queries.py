"""What batchbloom.parquet.prune buys the readers that ignore Parquet Bloom filters (PyArrow's and
polars' dataset scans): point lookups, IN lists of 10 and a 10-row semi join on a hive dataset
with a high-cardinality int64 column (`key`) and text column (`uuid`), keys present and absent,
each reader's own filtered scan of the whole dataset against prune() then the same scan.

    python bench/parquet/prune_queries.py --data DIR [--rows 4000000] [--row-group 500000]
                                          [--reps 5] [--json F]

DIR is created when missing: --rows rows in 4 hive partitions, row groups of --row-group rows,
then `batchbloom.parquet.add` gives both columns filters in place. Times are medians of --reps
after one untimed run, prune() included in the pruned figure; each query's rows are checked
equal both ways.
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import batchbloom.parquet as bbp


def make(root, rows, row_group):
    rng = np.random.default_rng(7)
    keys = rng.integers(0, 2**62, rows, dtype=np.int64)
    raw = rng.integers(0, 256, (rows, 16), dtype=np.uint8)
    hexes = [bytes(r).hex() for r in raw]
    uuids = [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" for h in hexes]
    table = pa.table({"key": keys, "uuid": uuids, "part": np.arange(rows) % 4})
    pq.write_to_dataset(table, str(root), partition_cols=["part"], row_group_size=row_group,
                        min_rows_per_group=row_group, max_rows_per_group=row_group)
    t0 = time.perf_counter()
    bbp.add(str(root), str(root), ["key", "uuid"])
    return time.perf_counter() - t0


def median_seconds(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--rows", type=int, default=4_000_000)
    ap.add_argument("--row-group", type=int, default=500_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    root = Path(a.data)
    if not root.exists():
        print(f"writing {a.rows} rows to {root}, filters added in {make(root, a.rows, a.row_group):.2f} s")
    full = ds.dataset(str(root), format="parquet", partitioning="hive")
    groups = sum(f.num_row_groups for f in full.get_fragments())
    size = sum(p.stat().st_size for p in root.rglob("*.parquet"))
    print(f"{root}: {groups} row groups, {size / 2**20:.0f} MiB")
    sample = full.head(40_000, columns=["key", "uuid"])
    present = {"key": sample["key"].to_pylist()[::4000], "uuid": sample["uuid"].to_pylist()[::4000]}
    # Absent keys inside every row group's min/max range, so that only a Bloom filter can skip:
    # drawn like the data's from another seed (checked absent below).
    rng = np.random.default_rng(1970)
    hexes = [bytes(r).hex() for r in rng.integers(0, 256, (10, 16), dtype=np.uint8)]
    absent = {"key": [int(k) for k in rng.integers(2**40, 2**61, 10, dtype=np.int64)],
              "uuid": [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" for h in hexes]}
    for column, keys in absent.items():
        if full.count_rows(filter=ds.field(column).isin(keys)):
            raise SystemExit(f"an 'absent' {column} is in the data")

    def pyarrow_scan(d, column, keys):
        return d.to_table(filter=ds.field(column).isin(keys)).num_rows

    def polars_in(d, column, keys):
        return pl.scan_pyarrow_dataset(d).filter(pl.col(column).is_in(keys)).collect().height

    def polars_semi(d, column, keys):
        build = pl.LazyFrame({column: keys})
        return pl.scan_pyarrow_dataset(d).join(build, on=column, how="semi").collect().height

    queries = [("pyarrow", "point lookup", pyarrow_scan, 1), ("pyarrow", "IN list of 10", pyarrow_scan, 10),
               ("polars", "IN list of 10", polars_in, 10), ("polars", "semi join, 10-row build side", polars_semi, 10)]
    out = []
    print(f"{'reader':8} {'query':30} {'column':6} {'keys':8} {'whole s':>8} {'pruned s':>9} {'groups':>7} {'speedup':>8}")
    for column in ("key", "uuid"):
        for reader, query, fn, n in queries:
            for which, keys in (("absent", absent[column][:n]), ("present", present[column][:n])):
                whole = median_seconds(lambda: fn(full, column, keys), a.reps)
                kept = sum(f.num_row_groups for f in bbp.prune(full, column, keys).get_fragments())
                pruned = median_seconds(lambda: fn(bbp.prune(full, column, keys), column, keys), a.reps)
                if fn(full, column, keys) != fn(bbp.prune(full, column, keys), column, keys):
                    raise SystemExit(f"{reader} {query} {column} {which}: pruning changed the rows")
                print(f"{reader:8} {query:30} {column:6} {which:8} {whole:8.3f} {pruned:9.3f} {kept:>3}/{groups:<3} "
                      f"{whole / pruned:7.1f}x")
                out.append({"reader": reader, "query": query, "column": column, "keys": which, "whole_s": whole,
                            "pruned_s": pruned, "row_groups_kept": kept, "row_groups": groups, "rows": a.rows,
                            "mib": size / 2**20})
    if a.json:
        with open(a.json, "w") as f:
            for row in out:
                f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
