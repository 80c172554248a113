"""Table and plot of the Bloom-join benchmark: merges the C++ results (join_bench) with
DuckDB's (duckdb_join.py), checks that every plan computed the same answer, and writes a
Markdown table and a PNG plot."""
import argparse
import json
import os
import statistics

PLAN_ORDER = ("hash join", "bloom+hash avx512", "bloom+hash avx2", "bloom+hash scalar", "bloom+hash cuda")


def paired(row):
    """The median of the rounds' ratios, hash join over this plan. Each plan of a join_bench round
    runs beside a hash join of its own (hash_join_ms_runs), so a ratio holds both at one moment of
    a machine whose speed drifts: on a shared VM a hash join's time moved 84-134 ms within one run,
    and a row's ratio of medians 0.87-1.07 between runs where the rounds' ratios moved 0.97-0.99.
    1 for the hash join itself, None for rows not run in those rounds (DuckDB's)."""
    if row.get("plan") == "hash join":
        return 1.0
    h, p = row.get("hash_join_ms_runs"), row.get("total_ms_runs")
    if not h or not p or len(h) != len(p):
        return None
    return statistics.median(a / b for a, b in zip(h, p))


def machine(cpp):
    """The machine the joins ran on (their figures compare only within it): CPU, cores, caches, and
    the best engine among the plans run."""
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass

    def cache_bytes(level):
        base = "/sys/devices/system/cpu/cpu0/cache"
        try:
            for index in sorted(os.listdir(base)):
                with open(f"{base}/{index}/level") as f:
                    if f.read().strip() != str(level):
                        continue
                with open(f"{base}/{index}/size") as f:
                    size = f.read().strip()
                return int(size[:-1]) * {"K": 2**10, "M": 2**20}[size[-1]] if size[-1] in "KM" else int(size)
        except (OSError, ValueError):
            pass
        return 0

    engines = [p.split()[-1] for p in PLAN_ORDER[1:] if any(r["plan"] == p for r in cpp)]
    return {"cpu": cpu, "cores": os.cpu_count(), "l2_bytes": cache_bytes(2), "l3_bytes": cache_bytes(3),
            "best_engine": engines[0] if engines else "none"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cpp_json")
    ap.add_argument("duckdb_json")
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--markdown", required=True)
    ap.add_argument("--plot", required=True)
    ap.add_argument("--machine", help="write the machine's description here (JSON)")
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
            base = group[0]
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
           "end-to-end ms (median) | vs hash join (medians) | vs hash join (rounds) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for join, s, r, base in rows:
        duck_row = r["plan"].startswith("duckdb")
        if r["plan"] == "hash join":
            fp = "—"
        elif duck_row:
            fp = f"{r['survivors'] - r['matched_rows']:,} (DuckDB's filters: {', '.join(r['pushed_filters']) or 'none'})"
        else:
            fp = f"{r['false_positives']:,.0f} ({r['false_positives_predicted']:,.0f})"
        rounds = paired(r)
        out.append(f"| {join} | {s}% | {r['plan']} | {r['build_rows']:,} | {r['probe_rows']:,} | {r['survivors']:,} | "
                   f"{fp} | {r['total_ms']:.1f} | {base['total_ms'] / r['total_ms']:.2f}x | "
                   + (f"{rounds:.2f}x |" if rounds is not None else "— |"))
    out.append("")
    out.append("Joins: " + "; ".join(f"`{k}` = {v}" for k, v in what.items()) + ". DuckDB's 'rows after filter' is "
               "what its probe-side scan emitted (EXPLAIN ANALYZE), after its own pushed-down join filters. "
               "'vs hash join (medians)': the hash join's median over the plan's; '(rounds)': the median of each "
               "round's ratio (a round runs every C++ plan, each beside a hash join of its own, so a ratio holds "
               "both at one moment of a machine whose speed drifts; DuckDB runs in its own process, apart from "
               "those rounds).")
    m = machine(cpp)
    out[1:1] = ["", f"Machine: {m['cpu']}, {m['cores']} cores; L2 {m['l2_bytes'] / 2**20:.1f} MiB per core, "
                    f"L3 {m['l3_bytes'] / 2**20:.1f} MiB; best engine {m['best_engine']}."]
    if args.machine:
        with open(args.machine, "w") as f:
            json.dump(m, f, indent=1)
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
