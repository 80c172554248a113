"""`batchbloom parquet add` against rewriting the file with PyArrow's Bloom filter option, and
what the filters do for a DuckDB point lookup of values the file does not hold.

    python bench/parquet/bench_add.py generate DIR [--rows N] [--groups G]   # CPU-heavy, not timed
    python bench/parquet/bench_add.py measure DIR --cli build/tools/batchbloom [--lookups K]

generate writes DIR/plain.parquet with PyArrow's defaults (SNAPPY, dictionary pages falling
back to PLAIN, no Bloom filters): N rows (default 12M) in G row groups (default 8) of
  id   INT64       distinct even numbers spread over [0, 8N), so that every row group's min/max
                   covers the whole range and only a Bloom filter can rule a row group out;
  name BYTE_ARRAY  "user-" + id as 12 digits;
  n    INT64       the row number (no filter; the data a lookup returns).

measure times, --repeat times each (wall clock, sorted):
  * add:      batchbloom parquet add plain.parquet --column id --column name --fpr 0.01, on one
              thread and on every core (--threads 1, 0);
  * cp:       copying the file (most of what add writes is a copy), and copying it then
              fsyncing the copy (`sync FILE`), as add does before renaming its output into place;
  * pyarrow:  pq.read_table + pq.write_table with the same row groups and codec and
              bloom_filter_options for both columns (ndv = rows per row group, fpp 0.01),
              the only way PyArrow offers to give an existing file filters;
and then K DuckDB point lookups `SELECT * WHERE id = v` for absent (odd) values and K for
present ones, on the file before and after `add`: row groups DuckDB read (its profiler's
row_groups_scanned) and the median wall time per lookup (timed without the profiler).
Prints one JSON object.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

FPP = 0.01


def ids_for(rows):
    # (i * 2654435761 mod 4N) * 2: the multiplier is prime to 4N, so the ids are distinct, and
    # consecutive rows jump across the whole range.
    i = np.arange(rows, dtype=np.int64)
    return pa.array((i * 2654435761 % (4 * rows)) * 2)


def generate(args):
    os.makedirs(args.dir, exist_ok=True)
    ids = ids_for(args.rows)
    names = pc.binary_join_element_wise("user-", pc.utf8_lpad(pc.cast(ids, pa.string()), 12, "0"), "")
    table = pa.table({"id": ids, "name": names, "n": pa.array(range(args.rows), pa.int64())})
    path = os.path.join(args.dir, "plain.parquet")
    pq.write_table(table, path, row_group_size=args.rows // args.groups)
    md = pq.ParquetFile(path).metadata
    print(json.dumps({"file": path, "bytes": os.path.getsize(path), "rows": md.num_rows,
                      "row_groups": md.num_row_groups}))


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def lookups(path, values, tmp):
    """(row groups read per lookup, median seconds per lookup, rows found per lookup)."""
    con = duckdb.connect()
    con.execute(f"SELECT count(*) FROM '{path}'").fetchall()  # footer cached like any later query
    prof = os.path.join(tmp, "profile.json")
    read = []
    found = []
    for v in values:
        con.execute("PRAGMA enable_profiling='json'")
        con.execute(f"PRAGMA profiling_output='{prof}'")
        found.append(len(con.execute(f"SELECT * FROM '{path}' WHERE id = ?", [v]).fetchall()))
        con.execute("PRAGMA disable_profiling")
        read.append(row_groups_scanned(json.load(open(prof))))
    times = [timed(lambda: con.execute(f"SELECT * FROM '{path}' WHERE id = ?", [v]).fetchall()) for v in values]
    return read, statistics.median(times), found


def row_groups_scanned(node):
    if "row_groups_scanned" in node:
        return int(node["row_groups_scanned"])
    for child in node.get("children", []) + node.get("operator", []):
        n = row_groups_scanned(child)
        if n is not None:
            return n
    return None


def measure(args):
    src = os.path.join(args.dir, "plain.parquet")
    md = pq.ParquetFile(src).metadata
    group_rows = md.row_group(0).num_rows
    out = os.path.join(args.dir, "added.parquet")
    rewritten = os.path.join(args.dir, "pyarrow_bloom.parquet")
    report = {"rows": md.num_rows, "row_groups": md.num_row_groups, "input_bytes": os.path.getsize(src),
              "pyarrow": pa.__version__, "duckdb": duckdb.__version__}

    cmd = [args.cli, "parquet", "add", src, "--column", "id", "--column", "name", "--fpr", str(FPP), "--out", out]
    add_out = []
    for threads in (1, 0):
        report[f"add_seconds_threads{threads}"] = sorted(
            timed(lambda: add_out.append(subprocess.run(cmd + ["--threads", str(threads)], check=True,
                                                        capture_output=True, text=True)))
            for _ in range(args.repeat))
    report["add_command"] = " ".join(cmd) + " [--threads 1]"
    report["add_output_bytes"] = os.path.getsize(out)
    report["add_filters"] = add_out[0].stdout.splitlines()[1:3]
    # What copying the bytes alone costs (the copy is most of what add writes).
    report["cp_seconds"] = sorted(timed(lambda: subprocess.run(["cp", src, rewritten], check=True))
                                  for _ in range(args.repeat))
    report["cp_fsync_seconds"] = sorted(
        timed(lambda: [subprocess.run(c, check=True) for c in (["cp", src, rewritten], ["sync", rewritten])])
        for _ in range(args.repeat))

    def rewrite():
        t = pq.read_table(src)
        pq.write_table(t, rewritten, row_group_size=group_rows, compression="snappy",
                       bloom_filter_options={c: {"ndv": group_rows, "fpp": FPP} for c in ("id", "name")})
    report["pyarrow_rewrite_seconds"] = sorted(timed(rewrite) for _ in range(args.repeat))
    report["pyarrow_output_bytes"] = os.path.getsize(rewritten)

    rnd = random.Random(7)
    ids = pq.read_table(src, columns=["id"])["id"]
    present = [ids[rnd.randrange(len(ids))].as_py() for _ in range(args.lookups)]
    absent = [v + 1 for v in present]  # odd: never in the data, inside every row group's range
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in [("before", src), ("after", out)]:
            for kind, values in [("absent", absent), ("present", present)]:
                read, median, found = lookups(path, values, tmp)
                report[f"{name}_{kind}"] = {"row_groups_read_mean": statistics.mean(read), "row_groups_read_max": max(read),
                                           "median_ms": round(1e3 * median, 3), "rows_found": sum(found)}
    os.remove(rewritten)
    print(json.dumps(report, indent=1))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    g = sub.add_parser("generate")
    g.add_argument("dir")
    g.add_argument("--rows", type=int, default=12_000_000)
    g.add_argument("--groups", type=int, default=8)
    m = sub.add_parser("measure")
    m.add_argument("dir")
    m.add_argument("--cli", required=True)
    m.add_argument("--lookups", type=int, default=50)
    m.add_argument("--repeat", type=int, default=3, help="runs of add, cp and the PyArrow rewrite (all times listed)")
    args = p.parse_args()
    generate(args) if args.what == "generate" else measure(args)


if __name__ == "__main__":
    sys.exit(main())
