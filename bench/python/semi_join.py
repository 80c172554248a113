"""A semi join in PyArrow, Polars and DuckDB, alone and behind a batchbloom pre-filter.

    python bench/python/semi_join.py --data out/spark [--json F] [--reps 3]

The data of bench/spark/star_join.py (`gen`): for each build size B and match fraction M, the
20M-row fact table fact_<B>_<M> (key, amount) and the B dimension keys with attr < B. The query
is `SELECT count(*), sum(amount) FROM fact LEFT SEMI JOIN keys USING (key)`, on tables already in
memory (reading Parquet is not timed), every engine and batchbloom on every core (their defaults). Each
engine runs it alone, and after batchbloom drops the fact rows whose key is not in a filter of
the keys (filter build included):

- pyarrow: `Table.join(keys, "key", join_type="left semi")` (Acero); batchbloom.arrow.filter first.
- polars: `DataFrame.join(keys, on="key", how="semi")`; the fact rows kept by a NumPy mask of
  `Filter.contains` over the key column first.
- duckdb: the SQL semi join over the Arrow tables; and with `bloom_may_contain(key)` (the
  batchbloom.duckdb function) in its WHERE clause.

Medians of --reps runs; every variant's answer is checked against the engine's own.
"""
import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import batchbloom
import batchbloom.arrow as bba

CASES = ((200_000, 0.01), (200_000, 0.10), (2_000_000, 0.01), (2_000_000, 0.10))


def fact_dir(data, build, match):
    return Path(data) / f"fact_{build}_{int(round(match * 100))}pct"


def timed(fn, reps):
    times, answer = [], None
    for _ in range(reps):
        t = time.perf_counter()
        got = fn()
        times.append(time.perf_counter() - t)
        if answer is not None and got != answer:
            raise SystemExit(f"answers differ between runs: {got} vs {answer}")
        answer = got
    return statistics.median(times), answer


def answer_of(table):
    return (table.num_rows, int(pa.compute.sum(table.column("amount")).as_py() or 0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="the --out of bench/spark/star_join.py gen")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--fpr", type=float, default=0.01)
    ap.add_argument("--json", help="append one JSON line per measurement here")
    args = ap.parse_args()
    import duckdb
    import polars as pl
    import batchbloom.duckdb as bbd

    dim = pq.read_table(Path(args.data) / "dim", columns=["key", "attr"])
    out = []
    for build, match in CASES:
        fact = pq.read_table(fact_dir(args.data, build, match), columns=["key", "amount"]).combine_chunks()
        keys = dim.filter(pa.compute.less(dim.column("attr"), build)).select(["key"]).combine_chunks()
        pfact, pkeys = pl.from_arrow(fact), pl.from_arrow(keys)
        con = duckdb.connect()
        con.register("fact", fact)
        con.register("keys", keys)
        query = "SELECT count(*), sum(amount) FROM fact WHERE key IN (SELECT key FROM keys)"

        def bloom():
            return bba.build(keys, "key", fpr=args.fpr, n=keys.num_rows)

        def arrow_plain():
            return answer_of(fact.join(keys, "key", join_type="left semi"))

        def arrow_bloom():
            return answer_of(bba.filter(fact, "key", bloom()).join(keys, "key", join_type="left semi"))

        def polars_plain():
            r = pfact.join(pkeys, on="key", how="semi")
            return (r.height, int(r["amount"].sum()))

        def polars_bloom():
            f = bloom()
            kept = pfact.filter(pl.Series(f.contains(pfact["key"].to_numpy())))
            r = kept.join(pkeys, on="key", how="semi")
            return (r.height, int(r["amount"].sum()))

        def duckdb_plain():
            return tuple(con.execute(query).fetchall()[0])

        def duckdb_bloom():
            try:
                con.remove_function("bloom_may_contain")
            except Exception:  # the first run: none registered yet
                pass
            bbd.register(con, bloom(), name="bloom_may_contain")
            return tuple(con.execute("SELECT count(*), sum(amount) FROM fact WHERE bloom_may_contain(key) "
                                     "AND key IN (SELECT key FROM keys)").fetchall()[0])

        variants = {"pyarrow": (arrow_plain, arrow_bloom), "polars": (polars_plain, polars_bloom),
                    "duckdb": (duckdb_plain, duckdb_bloom)}
        for engine, (plain, filtered) in variants.items():
            base, expected = timed(plain, args.reps)
            with_filter, got = timed(filtered, args.reps)
            if got != expected:
                raise SystemExit(f"{engine} {build} {match}: {got} with the filter, {expected} without")
            r = {"engine": engine, "build_keys": build, "match": match, "fact_rows": fact.num_rows,
                 "plain_s": round(base, 4), "batchbloom_s": round(with_filter, 4)}
            print(json.dumps(r), flush=True)
            out.append(r)
    if args.json:
        with open(args.json, "a") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
