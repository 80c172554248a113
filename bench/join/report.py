"""Table and plot of the Bloom-join benchmark: merges the C++ results (join_bench) with
DuckDB's (duckdb_join.py), checks that every plan computed the same answer, and writes a
Markdown table and a PNG plot."""
import argparse
import json

PLAN_ORDER = ("hash join", "bloom+hash avx512", "bloom+hash avx2", "bloom+hash scalar", "bloom+hash cuda")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cpp_json")
    ap.add_argument("duckdb_json")
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--plot", required=True)
    args = ap.parse_args()
    cpp = json.load(open(args.cpp_json))
    duck = json.load(open(args.duckdb_json))
    manifest = json.load(open(args.manifest))

    rows = []
    for join in ("int", "str"):
        for s in (1, 10, 50):
            group = [r for r in cpp if r["join"] == join and r["selectivity"] == s]
            group.sort(key=lambda r: PLAN_ORDER.index(r["plan"]) if r["plan"] in PLAN_ORDER else 99)
            d = next(r for r in duck if r["join"] == join and r["selectivity"] == s)
            answer = group[0]["result"]
            for r in group + [d]:
                if r["result"] != answer:
                    raise SystemExit(f"{join} {s}%: {r['plan']} answered {r['result']}, hash join {answer}")
            base = group[0]["total_ms"]
            for r in group:
                rows.append((join, s, r, base))
            d = dict(d, build_rows=group[0]["build_rows"], probe_rows=group[0]["probe_rows"],
                     matched_rows=group[0]["matched_rows"], survivors=d["probe_scan_rows_out"])
            rows.append((join, s, d, base))

    what = {"int": "lineitem ⋈ orders on l_orderkey = o_orderkey",
            "str": "partsupp (with its part's p_name) ⋈ part on p_name"}
    out = [f"TPC-H SF {manifest['sf']:g} ({manifest['generator']}). Build side predicates: "
           + "; ".join(f"{s}%: `{manifest['int'][str(s)]['predicate']}` / `{manifest['str'][str(s)]['predicate']}`"
                       for s in (1, 10, 50)) + ".", "",
           "| join | build sel. | plan | build rows | probe rows in | rows after filter | false positives (predicted) | "
           "end-to-end ms (median) | vs hash join |",
           "|---|---|---|---|---|---|---|---|---|"]
    for join, s, r, base in rows:
        duck_row = r["plan"].startswith("duckdb")
        if r["plan"] == "hash join":
            fp = "—"
        elif duck_row:
            fp = f"{r['survivors'] - r['matched_rows']:,} (DuckDB's filters: {', '.join(r['pushed_filters']) or 'none'})"
        else:
            fp = f"{r['false_positives']:,.0f} ({r['false_positives_predicted']:,.0f})"
        out.append(f"| {join} | {s}% | {r['plan']} | {r['build_rows']:,} | {r['probe_rows']:,} | {r['survivors']:,} | "
                   f"{fp} | {r['total_ms']:.1f} | {base / r['total_ms']:.2f}x |")
    out.append("")
    out.append("Joins: " + "; ".join(f"`{k}` = {v}" for k, v in what.items()) + ". DuckDB's 'rows after filter' is "
               "what its probe-side scan emitted (EXPLAIN ANALYZE), after its own pushed-down join filters.")
    with open(args.markdown, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, join in zip(axes, ("int", "str")):
        plans = []
        for _, _, r, _ in rows:
            if r["plan"] not in plans:
                plans.append(r["plan"])
        width = 0.8 / len(plans)
        for i, plan in enumerate(plans):
            xs, ys = [], []
            for k, s in enumerate((1, 10, 50)):
                hit = [r for j, sel, r, _ in rows if j == join and sel == s and r["plan"] == plan]
                if hit:
                    xs.append(k + (i - (len(plans) - 1) / 2) * width)
                    ys.append(hit[0]["total_ms"])
            ax.bar(xs, ys, width, label=plan)
        ax.set_xticks(range(3), ["1%", "10%", "50%"])
        ax.set_xlabel("build side kept by the predicate")
        ax.set_ylabel("end-to-end join time, ms (median)")
        ax.set_title(what[join], fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Bloom join vs hash join vs DuckDB, TPC-H SF {manifest['sf']:g}")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)


if __name__ == "__main__":
    main()
