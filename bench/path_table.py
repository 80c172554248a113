"""Markdown table of `batchbloom bench --json` runs: each size, thread count and batch path's
insert and probe time per key, the paths the automatic choice took, and (with --cold) each
phase's first call. Several JSON files (e.g. one per size) make one table.

    python bench/path_table.py RUN.json [RUN.json ...]
"""
import argparse
import json


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="JSON files written by batchbloom bench --json")
    args = ap.parse_args()
    rows, cold, machine = [], False, None
    for path in args.runs:
        with open(path) as f:
            run = json.load(f)
        machine = machine or run["machine"]
        for r in run["results"]:
            cold = cold or r.get("cold") == "true" or r.get("cold") is True
            rows.append(r)
    rows.sort(key=lambda r: (r["keys"], r["threads"], ["direct", "partitioned", "automatic"].index(r["path"])))
    print(f"Machine: {machine.get('cpu', '?')}, {machine.get('cores', '?')} cores; "
          f"{'cold (a buffer several times the LLC read before every call; median of the calls after the first)' if cold else 'warm (best of the runs)'}")
    print()
    head = "| keys | filter MiB | threads | path | insert ns/key | probe ns/key (50% hit) |"
    rule = "|---:|---:|---:|---|---:|---:|"
    if cold:
        head += " insert, 1st call | probe, 1st call |"
        rule += "---:|---:|"
    print(head)
    print(rule)
    for r in rows:
        path = r["path"]
        if path == "automatic":
            chosen = r.get("chosen", {})
            path = f"automatic ({chosen.get('insert', '?')} / {chosen.get('probe', '?')})"
        line = (f"| {r['keys'] / 1e6:g}M | {r['filter_bytes'] / 2**20:.1f} | {r['threads']} | {path} | "
                f"{fmt(r['insert_ns_per_key'])} | {fmt(r['probe_ns_per_key'])} |")
        if cold:
            line += f" {fmt(r.get('insert_first_ns_per_key'))} | {fmt(r.get('probe_first_ns_per_key'))} |"
        print(line)


if __name__ == "__main__":
    main()
