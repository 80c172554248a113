"""DuckDB's own join against the same join pre-filtered by a batchbloom filter through a
vectorized SQL function (batchbloom.duckdb.register: an Arrow UDF over a saved filter).

    python bench/join/duckdb_udf.py OUT/sf1 [--reps 5] [--threads 2] [--json F]

On the rows gen_data.py wrote (see duckdb_join.py), for each join and selectivity:
  plain     SELECT count(*), sum(b.payload), sum(p.payload) FROM probe p JOIN build b ON p.key = b.key
  udf       the same with WHERE bloom_may_contain(p.key): a batchbloom Filter of the build keys
            (1% FPR), saved and loaded, asked once per DuckDB vector of probe keys
  udf_scan  SELECT count(*) FROM probe WHERE bloom_may_contain(key): the function alone
Times are medians of --reps runs after one warm-up; the filter's build (from the build table's
keys as Arrow) and save/load are timed apart. Every answer is checked against the plain join's.
"""
import json
import os
import statistics
import sys
import tempfile
import time

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from duckdb_join import QUERY, SELECTIVITIES, argument_parser, connect, load_build  # noqa: E402

import batchbloom  # noqa: E402
import batchbloom.arrow as bba  # noqa: E402
import batchbloom.duckdb as bbd  # noqa: E402


def fetch(con, sql):
    return con.execute(sql).fetchall()  # to the end: the connection is free for the next statement


def timed(con, sql, reps):
    fetch(con, sql)  # warm-up
    times, answer = [], None
    for _ in range(reps):
        t = time.perf_counter()
        answer = fetch(con, sql)
        times.append(1000 * (time.perf_counter() - t))
    return statistics.median(times), times, answer


def main():
    args = argument_parser(__doc__).parse_args()
    con = connect(args.data, args.threads)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for join, probe, key_type in (("int", "probe_int", "BIGINT"), ("str", "probe_str", "VARCHAR")):
            for s in SELECTIVITIES:
                load_build(con, args.data, join, s)
                t = time.perf_counter()
                rel = con.sql("SELECT key FROM build")  # DuckDB 2: to_arrow_table(); 1.x: fetch_arrow_table()
                keys = rel.to_arrow_table() if hasattr(rel, "to_arrow_table") else rel.fetch_arrow_table()
                f = bba.build(keys, "key", fpr=0.01)
                build_ms = 1000 * (time.perf_counter() - t)
                path = os.path.join(tmp, f"{join}_{s}.bbf")
                t = time.perf_counter()
                f.save(path)
                loaded = batchbloom.Filter.load(path)
                save_load_ms = 1000 * (time.perf_counter() - t)
                bbd.register(con, loaded, key_type=key_type)
                plain = QUERY.format(probe=probe, build="build")
                queries = {"plain": plain, "udf": plain + " WHERE bloom_may_contain(p.key)",
                           "udf_scan": f"SELECT count(*) FROM {probe} WHERE bloom_may_contain(key)"}
                answers = {}
                for name, sql in queries.items():
                    ms, runs, answer = timed(con, sql, args.reps)
                    answers[name] = answer
                    r = {"join": join, "selectivity": s, "plan": name, "total_ms": ms, "total_ms_runs": runs,
                         "answer": [list(row) for row in answer], "duckdb": duckdb.__version__}
                    if name != "plain":
                        r.update(filter_build_ms=build_ms, filter_save_load_ms=save_load_ms, filter_bytes=f.nbytes,
                                 build_keys=keys.num_rows)
                    results.append(r)
                    print(f"{join:4s} {s:3d}% {name:9s} {ms:9.2f} ms  answer {answer}", flush=True)
                if answers["udf"] != answers["plain"]:
                    raise SystemExit(f"{join} {s}%: the pre-filtered join gave {answers['udf']}, the plain {answers['plain']}")
                con.remove_function("bloom_may_contain")
    con.close()
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
