"""A semi join in PyArrow, Polars and DuckDB, alone and behind a batchbloom pre-filter.

    python bench/python/semi_join.py --data out/spark [--json F] [--reps 3]

The data of bench/spark/star_join.py (`gen`): for each build size B and match fraction M, the
20M-row fact table fact_<B>_<M> (key, amount) and the B dimension keys with attr < B. The query
is `SELECT count(*), sum(amount) FROM fact LEFT SEMI JOIN keys USING (key)`, on tables already in
memory (reading Parquet is not timed), every engine and batchbloom on every core (their defaults). Each
engine runs it alone, and after batchbloom drops the fact rows whose key is not in a filter of
the keys (filter build included):

- pyarrow: `Table.join(keys, "key", join_type="left semi")` (Acero); batchbloom.arrow.filter first.
- polars: `DataFrame.join(keys, on="key", how="semi")`; batchbloom.arrow.filter of the polars
  DataFrame first.
- duckdb: the SQL semi join over the Arrow tables; and with `bloom_may_contain(key)` (the
  batchbloom.duckdb function) in its WHERE clause.

The filter is built with `n=` the number of keys, and for pyarrow and polars also as
docs/guide.md writes it, `bba.build(keys, "key", fpr=0.01)` without `n=` (sized from a
HyperLogLog sketch of the keys). Medians of --reps rounds, each running an engine's variants in
its own shuffled order; every variant's answer is checked against the engine's own.
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


def timed_rounds(fns, reps, rng):
    """{name: (median seconds, answer, seconds of each round)} of reps rounds, each running fns in
    its own order."""
    times = {name: [] for name in fns}
    answers = {}
    for _ in range(reps):
        for name in rng.permutation(list(fns)):
            t = time.perf_counter()
            got = fns[name]()
            times[name].append(time.perf_counter() - t)
            if answers.setdefault(name, got) != got:
                raise SystemExit(f"{name}: answers differ between runs: {got} vs {answers[name]}")
    return {name: (statistics.median(times[name]), answers[name], times[name]) for name in fns}


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
    rng = np.random.default_rng(46)
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

        def polars_answer(r):
            return (r.height, int(r["amount"].sum()))

        def arrow_plain():
            return answer_of(fact.join(keys, "key", join_type="left semi"))

        def arrow_bloom():
            return answer_of(bba.filter(fact, "key", bloom()).join(keys, "key", join_type="left semi"))

        def arrow_as_written():
            f = bba.build(keys, "key", fpr=args.fpr)
            return answer_of(bba.filter(fact, "key", f).join(keys, "key", join_type="left semi"))

        def polars_plain():
            return polars_answer(pfact.join(pkeys, on="key", how="semi"))

        def polars_bloom():
            f = bba.build(pkeys, "key", fpr=args.fpr, n=pkeys.height)
            return polars_answer(bba.filter(pfact, "key", f).join(pkeys, on="key", how="semi"))

        def polars_as_written():
            f = bba.build(pkeys, "key", fpr=args.fpr)
            return polars_answer(bba.filter(pfact, "key", f).join(pkeys, on="key", how="semi"))

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

        variants = {"pyarrow": {"plain": arrow_plain, "n": arrow_bloom, "as_written": arrow_as_written},
                    "polars": {"plain": polars_plain, "n": polars_bloom, "as_written": polars_as_written},
                    "duckdb": {"plain": duckdb_plain, "n": duckdb_bloom}}
        for engine, fns in variants.items():
            got = timed_rounds(fns, args.reps, rng)
            expected = got["plain"][1]
            for name, (_, answer, _) in got.items():
                if answer != expected:
                    raise SystemExit(f"{engine} {build} {match} {name}: {answer} with the filter, {expected} without")
            r = {"engine": engine, "build_keys": build, "match": match, "fact_rows": fact.num_rows,
                 "plain_s": round(got["plain"][0], 4), "batchbloom_s": round(got["n"][0], 4)}
            if "as_written" in got:
                r["batchbloom_as_written_s"] = round(got["as_written"][0], 4)
                # The two builds' difference is a few ms in a query whose median moves by a tenth
                # between rounds on a shared VM: their ratio within each round, where both ran
                # within a second of each other, tells it where the medians cannot.
                r["as_written_over_n"] = round(statistics.median(
                    a / b for a, b in zip(got["as_written"][2], got["n"][2])), 4)
            print(json.dumps(r), flush=True)
            out.append(r)
    if args.json:
        with open(args.json, "a") as f:
            for r in out:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
