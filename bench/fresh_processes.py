"""Runs `batchbloom bench --paths direct,partitioned,auto` in several fresh processes and says, for
each size and thread count, how the default path did against the best path of the same process.

    python3 bench/fresh_processes.py --runs 10 [--json OUT.json] -- \\
        build/tools/batchbloom bench --sizes 1M,10M --backend auto --threads 1,2 \\
        --paths direct,partitioned,auto --repeat 3 --cold --blocked-only

A figure of one process is only comparable with the other paths of that process (a shared VM
drifts between processes), so each process's default is divided by that process's best path,
and the table gives the median and the worst of those ratios over the processes. 'first call'
is the default's first call (cold runs time it apart) over the direct path's first call in the
same process, and the margin the direct path's first call plus 10% + 2 ms allows. 'The same
path asked for' is the control: the explicit row of the path the default took, against the same
best, so a miss that it shares is the machine's noise between calls, not the default's choice.

With `--threads 1,2`, a second table gives the default's speedup of two threads over one in each
process (the two rows of one process), its median and lowest over the processes, and the slowest
process's two-thread time over the median one. Without --paths, only that table.
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(cmd):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.json"
        subprocess.run(cmd + ["--json", str(out)], check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def by_call(run):
    """{(keys, threads): {path: row}}, the automatic row under 'auto'."""
    calls = {}
    for r in run["results"]:
        path = "auto" if r["path"] == "automatic" else r["path"]
        calls.setdefault((r["keys"], r["threads"]), {})[path] = r
    return calls


def summarize(runs):
    rows = []
    calls = [by_call(r) for r in runs]
    for key in sorted(calls[0]):
        for op in ("insert", "probe"):
            ratios, firsts, within, chose, twins, twins_within = [], [], 0, set(), [], 0
            for c in calls:
                paths = c[key]
                if not {"direct", "partitioned", "auto"} <= paths.keys():
                    continue
                best = min(paths["direct"][f"{op}_ns_per_key"], paths["partitioned"][f"{op}_ns_per_key"])
                ratio = paths["auto"][f"{op}_ns_per_key"] / best
                ratios.append(ratio)
                within += ratio <= 1.05
                chosen = paths["auto"].get("chosen", {}).get(op, "?")
                chose.add(chosen)
                if chosen in paths:  # the same path asked for explicitly: how far noise alone goes
                    twin = paths[chosen][f"{op}_ns_per_key"] / best
                    twins.append(twin)
                    twins_within += twin <= 1.05
                first = f"{op}_first_ns_per_key"
                if paths["auto"].get(first) is not None and paths["direct"].get(first):
                    n = key[0] if op == "insert" else paths["auto"]["queries"]
                    direct_ms = paths["direct"][first] * n / 1e6
                    auto_ms = paths["auto"][first] * n / 1e6
                    firsts.append((auto_ms / direct_ms, auto_ms <= 1.10 * direct_ms + 2.0))
            if not ratios:
                continue
            rows.append({
                "keys": key[0], "threads": key[1], "op": op, "processes": len(ratios),
                "chose": sorted(chose),
                "default_over_best_median": statistics.median(ratios), "default_over_best_worst": max(ratios),
                "within_5pct": within,
                "same_path_over_best_median": statistics.median(twins) if twins else None,
                "same_path_within_5pct": twins_within,
                "first_over_direct_first_median": statistics.median(f for f, _ in firsts) if firsts else None,
                "first_within_margin": sum(ok for _, ok in firsts) if firsts else None,
            })
    return rows


def speedups(runs):
    """Per (keys, op): the default's one-thread time over its two-thread time, process by process."""
    rows = []
    calls = [by_call(r) for r in runs]
    for keys in sorted({k for k, _ in calls[0]}):
        for op in ("insert", "probe"):
            ratios, two = [], []
            for c in calls:
                one, both = c.get((keys, 1), {}).get("auto"), c.get((keys, 2), {}).get("auto")
                if one is None or both is None:
                    continue
                ratios.append(one[f"{op}_ns_per_key"] / both[f"{op}_ns_per_key"])
                two.append(both[f"{op}_ns_per_key"])
            if ratios:
                rows.append({"keys": keys, "op": op, "processes": len(ratios),
                             "speedup_median": statistics.median(ratios), "speedup_lowest": min(ratios),
                             "two_threads_slowest_over_median": max(two) / statistics.median(two)})
    return rows


def print_speedups(rows):
    print("| keys | call | processes | two threads over one, median | lowest | slowest two-thread process / median |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['keys'] / 1e6:g}M | {r['op']} | {r['processes']} | {r['speedup_median']:.2f} | "
              f"{r['speedup_lowest']:.2f} | {r['two_threads_slowest_over_median']:.2f} |")


def print_table(rows):
    print("| keys | threads | call | processes | default chose | default / best path, median | worst | "
          "within 5% | the same path asked for, within 5% | first call / direct's first, median | first call within 10% + 2 ms |")
    print("|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        first = "-" if r["first_over_direct_first_median"] is None else f"{r['first_over_direct_first_median']:.2f}"
        margin = "-" if r["first_within_margin"] is None else f"{r['first_within_margin']} of {r['processes']}"
        print(f"| {r['keys'] / 1e6:g}M | {r['threads']} | {r['op']} | {r['processes']} | {', '.join(r['chose'])} | "
              f"{r['default_over_best_median']:.3f} | {r['default_over_best_worst']:.3f} | "
              f"{r['within_5pct']} of {r['processes']} | {r['same_path_within_5pct']} of {r['processes']} | "
              f"{first} | {margin} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="fresh processes (default 10)")
    ap.add_argument("--json", type=Path, help="also write every process's results and the summary here")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- then the batchbloom bench command")
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd or "--json" in cmd:
        ap.error("give a `batchbloom bench ... [--paths direct,partitioned,auto]` command after --, without --json")
    runs = []
    for i in range(args.runs):
        runs.append(run_once(cmd))
        print(f"# process {i + 1} of {args.runs} done", file=sys.stderr)
    rows, faster = summarize(runs), speedups(runs)
    m = runs[0]["machine"]
    print(f"# {m['cpu']}, {m['cores']} cores, L2 {m['l2_bytes'] >> 10} KiB, L3 {m['l3_bytes'] >> 20} MiB; "
          f"{args.runs} fresh processes of: {' '.join(cmd)}")
    if rows:
        print_table(rows)
    if faster:
        print()
        print_speedups(faster)
    if args.json:
        args.json.write_text(json.dumps({"command": cmd, "runs": runs, "summary": rows, "speedups": faster},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
