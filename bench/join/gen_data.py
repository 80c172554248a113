"""TPC-H data for the Bloom-join benchmark, from DuckDB's own TPC-H generator (dbgen).

Run with a Python that has duckdb and the matching duckdb-extension-tpch wheel (run.sh makes
such a virtual environment). Writes, under OUT/sf<SF>/:

  probe_orderkey.u64, probe_quantity.u64      lineitem: l_orderkey, l_quantity (probe side)
  build_<S>_orderkey.u64, build_<S>_custkey.u64  orders with o_orderdate < the S% quantile
  sprobe_name.txt, sprobe_availqty.u64        partsupp rows with their part's p_name
  sbuild_<S>_name.txt, sbuild_<S>_size.u64    part with p_retailprice < the S% quantile
  manifest.json                               row counts and the predicates used

.u64 files are raw little-endian uint64 columns; .txt files hold one key per line.
"""
import argparse
import importlib.resources
import json
import os
import time

import duckdb
import numpy as np

SELECTIVITIES = (1, 10, 50)


def load_tpch(con):
    # The wheel ships the extension binary; LOAD it by path (INSTALL would need the network).
    import duckdb_extension_tpch

    root = importlib.resources.files(duckdb_extension_tpch) / "extensions" / f"v{duckdb.__version__}"
    con.execute(f"LOAD '{root / 'tpch.duckdb_extension'}'")


def write_u64(path, values):
    np.asarray(values, dtype="<u8").tofile(path)


def write_lines(path, strings):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for s in strings:
            assert "\n" not in s
            f.write(s + "\n")


def write_column(out, stem, values):
    """`values` as OUT/<stem>.txt (strings, one per line) or OUT/<stem>.u64 (numbers, as integers)."""
    if values.dtype.kind in "OSU":
        write_lines(f"{out}/{stem}.txt", values)
    else:
        write_u64(f"{out}/{stem}.u64", values.astype(np.int64))


def write_builds(con, out, prefix, table, columns, by, literal, probe_rows):
    """For each selectivity S, the `columns` of the `table` rows whose `by` lies below its S%
    quantile, as OUT/<prefix>_<S>_<column without its table prefix>; returns their manifest."""
    total = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    entries = {}
    for s in SELECTIVITIES:
        cutoff = con.execute(f"SELECT quantile_disc({by}, {s / 100}) FROM {table}").fetchone()[0]
        b = con.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE {by} < ?", [cutoff]).fetchnumpy()
        for c in columns:
            write_column(out, f"{prefix}_{s}_{c.split('_', 1)[1]}", b[c])
        rows = len(b[columns[0]])
        entries[str(s)] = {"predicate": f"{by} < {literal.format(cutoff)}", "build_rows": rows,
                           "build_fraction": rows / total, "probe_rows": probe_rows}
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = os.path.join(args.out, f"sf{args.sf:g}")
    os.makedirs(out, exist_ok=True)

    # An on-disk database, so that large scale factors spill instead of filling the memory.
    db = os.path.join(out, "tpch.duckdb")
    for stale in (db, db + ".wal"):
        if os.path.exists(stale):
            os.remove(stale)
    con = duckdb.connect(db)
    con.execute("SET memory_limit = '8GB'")
    load_tpch(con)
    t = time.time()
    con.execute(f"CALL dbgen(sf={args.sf})")
    manifest = {"sf": args.sf, "generator": f"duckdb {duckdb.__version__} tpch extension dbgen",
                "dbgen_seconds": round(time.time() - t, 1)}

    probe = con.execute("SELECT l_orderkey, l_quantity FROM lineitem").fetchnumpy()
    write_column(out, "probe_orderkey", probe["l_orderkey"])
    write_column(out, "probe_quantity", probe["l_quantity"])
    manifest["int"] = write_builds(con, out, "build", "orders", ["o_orderkey", "o_custkey"], "o_orderdate",
                                   "DATE '{}'", len(probe["l_orderkey"]))

    sprobe = con.execute("SELECT p_name, ps_availqty FROM partsupp JOIN part ON ps_partkey = p_partkey "
                         "ORDER BY ps_partkey, ps_suppkey").fetchnumpy()
    write_column(out, "sprobe_name", sprobe["p_name"])
    write_column(out, "sprobe_availqty", sprobe["ps_availqty"])
    manifest["str"] = write_builds(con, out, "sbuild", "part", ["p_name", "p_size"], "p_retailprice", "{}",
                                   len(sprobe["p_name"]))
    con.close()
    os.remove(db)
    with open(f"{out}/manifest.json", "w") as f:
        json.dump(manifest, f, indent=1)
    print(json.dumps(manifest, indent=1))


if __name__ == "__main__":
    main()
