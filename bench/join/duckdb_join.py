"""DuckDB as the yardstick of the Bloom-join benchmark: the same joins on the same rows.

Loads the columns gen_data.py wrote (OUT/sf<SF>/) into DuckDB tables and times
  SELECT count(*), sum(b.payload), sum(p.payload) FROM probe p JOIN build b ON p.key = b.key
for each join and selectivity (median of --reps runs, --threads threads). It also records
whether DuckDB pushed a filter from the join's build side into the probe-side scan (its
"dynamic filters": EXPLAIN ANALYZE shows them on the TABLE_SCAN), and which kind.
"""
import argparse
import json
import re
import statistics
import time

import duckdb
import numpy as np
import pyarrow as pa

SELECTIVITIES = (1, 10, 50)


def u64(path):
    return np.fromfile(path, dtype="<u8").astype(np.int64)


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def load(con, name, keys, payload):
    con.register("staged", pa.table({"key": keys, "payload": payload}))
    con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM staged")
    con.unregister("staged")


QUERY = "SELECT count(*), sum(b.payload), sum(p.payload) FROM {probe} p JOIN {build} b ON p.key = b.key"


def argument_parser(doc):
    """The command line of the DuckDB scripts (this one and duckdb_udf.py)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("data", help="directory written by gen_data.py (OUT/sf<SF>)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", help="write the results here")
    return ap


def connect(d, threads):
    """A DuckDB connection on `threads` threads holding the probe sides of data directory d:
    probe_int (lineitem's order keys) and probe_str (partsupp's part names)."""
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}").fetchall()
    load(con, "probe_int", u64(f"{d}/probe_orderkey.u64"), u64(f"{d}/probe_quantity.u64"))
    load(con, "probe_str", pa.array(lines(f"{d}/sprobe_name.txt")), u64(f"{d}/sprobe_availqty.u64"))
    return con


def load_build(con, d, join, s):
    """The table `build`: the build side of the join ("int" or "str") at selectivity s%."""
    if join == "int":
        load(con, "build", u64(f"{d}/build_{s}_orderkey.u64"), u64(f"{d}/build_{s}_custkey.u64"))
    else:
        load(con, "build", pa.array(lines(f"{d}/sbuild_{s}_name.txt")), u64(f"{d}/sbuild_{s}_size.u64"))


def pushed_filters(con, query):
    """EXPLAIN ANALYZE of the query; the filters DuckDB pushed into the probe-side scan (min/max
    ranges, and IN BF(...) = Bloom filter, IN PRF(...) = its perfect-hash filter for dense
    integer keys); and the rows that scan emitted."""
    plan = "\n".join(row[1] for row in con.execute("EXPLAIN ANALYZE " + query).fetchall())
    kinds = sorted(set(re.findall(r"IN (\w+)\(", plan)))
    if re.search(r"key >= ", plan):
        kinds.insert(0, "min/max")
    # The probe scan's box shares its lines with the build scan's box to its right: read only
    # the probe box's columns.
    lines = plan.split("\n")
    first = next(i for i, line in enumerate(lines) if "main.probe_" in line)
    col = lines[first].index("│ Table: memory.main.probe_")
    for line in lines[first:]:
        box = line[col:]
        box = box[: box.find("│", 1) + 1] if "│" in box[1:] else box
        m = re.search(r"([\d,]+) rows", box)
        if m:
            return plan, kinds, int(m.group(1).replace(",", ""))
    raise RuntimeError("no row count for the probe-side scan in EXPLAIN ANALYZE:\n" + plan)


def main():
    ap = argument_parser(__doc__)
    ap.add_argument("--plans", help="write the EXPLAIN ANALYZE plans here")
    args = ap.parse_args()
    con = connect(args.data, args.threads)
    results, plans = [], []
    for join, probe in (("int", "probe_int"), ("str", "probe_str")):
        for s in SELECTIVITIES:
            load_build(con, args.data, join, s)
            q = QUERY.format(probe=probe, build="build")
            times, answer = [], None
            for _ in range(args.reps):
                t = time.perf_counter()
                answer = con.execute(q).fetchone()
                times.append(1000 * (time.perf_counter() - t))
            plan, filters, scan_rows = pushed_filters(con, q)
            plans.append(f"== {join} {s}%\n{plan}")
            r = {"join": join, "selectivity": s, "plan": f"duckdb {duckdb.__version__}",
                 "total_ms": statistics.median(times), "total_ms_runs": times,
                 "result": {"count": answer[0], "sum_build": int(answer[1] or 0), "sum_probe": int(answer[2] or 0)},
                 "pushed_filters": filters, "probe_scan_rows_out": scan_rows}
            print(f"{join:4s} {s:3d}% duckdb {duckdb.__version__}  total {r['total_ms']:8.2f} ms  "
                  f"answer {answer}  pushed filters: {', '.join(filters) or 'none'}, probe scan emits {scan_rows} rows",
                  flush=True)
            results.append(r)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    if args.plans:
        with open(args.plans, "w") as f:
            f.write("\n\n".join(plans))


if __name__ == "__main__":
    main()
