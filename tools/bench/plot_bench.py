#!/usr/bin/env python3
"""Draw the results of `batchbloom bench`: throughput against filter size, one colour per engine.

usage: plot_bench.py RESULTS.json OUT.png

RESULTS.json is what `batchbloom bench --json FILE` writes; `batchbloom bench --plot OUT.png`
runs this script itself (a copy is built into the program). Solid lines are the probe rate at
50% hits, dashed lines the insert rate; the dotted horizontal line is the machine's random
64-byte line read rate (prefetched, one thread), the limit of an out-of-cache probe, and the
dotted black curve the same rate over a buffer the size of each filter (the limit of a probe
in the caller's order at that size); grey vertical lines mark the L2 and L3 cache sizes.
Needs matplotlib (pip install matplotlib).
"""
import json
import math
import os
import sys


def human_bytes(v, _pos=None):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= size:
            return f"{v / size:g} {unit}"
    return f"{v:g} B"


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    src, out = argv[1], argv[2]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
    except ImportError as e:
        print(f"plot_bench.py: error: matplotlib is not available ({e}); install it with: pip install matplotlib",
              file=sys.stderr)
        return 1
    with open(src) as f:
        data = json.load(f)
    machine, results = data.get("machine", {}), data["results"]
    if not results:
        print("plot_bench.py: error: no results to plot", file=sys.stderr)
        return 1

    def size_of(r):
        return r.get("filter_bytes") or r["keys"] * r["bits_per_key"] / 8

    groups = {}
    for r in results:
        groups.setdefault((r["backend"], r["threads"]), []).append(r)
    several_thread_counts = len({t for _, t in groups}) > 1

    fig, ax = plt.subplots(figsize=(10, 7), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    xs = []
    for i, ((backend, threads), rs) in enumerate(sorted(groups.items(), key=lambda g: (g[0][1], g[0][0]))):
        rs.sort(key=size_of)
        x = [size_of(r) for r in rs]
        xs += x
        color = colors[i % len(colors)]
        name = backend + (f", {threads} thread{'s' if threads != 1 else ''}" if several_thread_counts else "")
        ax.plot(x, [r["probe_keys_per_s"] / 1e6 for r in rs], "o-", color=color, lw=2,
                label=f"{name}: probe (50% hits)")
        ax.plot(x, [r["insert_keys_per_s"] / 1e6 for r in rs], "s--", color=color, lw=1.2,
                label=f"{name}: insert")

    limit = data.get("limit", {}).get("random_line_reads_per_s")
    if limit:
        ax.axhline(limit / 1e6, color="black", ls=":", lw=1.5,
                   label=f"limit: random 64 B line reads, prefetched, 1 thread ({limit / 1e6:.0f} M/s)")

    at_size = sorted({(size_of(r), r["limit_at_size_lines_per_s"]) for r in data["results"]
                      if r.get("limit_at_size_lines_per_s")})
    if at_size:
        ax.plot([x for x, _ in at_size], [v / 1e6 for _, v in at_size], "k:", marker="x", lw=1.5,
                label="limit at the filter's size: random 64 B line reads over a buffer that large")

    ax.set_xscale("log", base=2)
    lo, hi = min(xs), max(xs)
    caches = [(name, machine.get(key)) for name, key in (("L2", "l2_bytes"), ("L3", "l3_bytes")) if machine.get(key)]
    for _, v in caches:
        lo, hi = min(lo, v), max(hi, v)
    ax.set_xlim(lo / 2, hi * 2)
    ax.set_ylim(bottom=0)
    ymax = ax.get_ylim()[1]
    ax.set_ylim(0, ymax * 1.08)
    for name, v in caches:
        ax.axvline(v, color="grey", lw=0.8, alpha=0.7)
        ax.text(v, ymax * 1.02, f" {name} {human_bytes(v)}", color="grey", fontsize=8, va="bottom")
    # Ticks on powers of two, at most about ten of them.
    first, last = math.floor(math.log2(lo / 2)), math.ceil(math.log2(hi * 2))
    step = max(1, math.ceil((last - first) / 10))
    ax.xaxis.set_major_locator(FixedLocator([2.0**e for e in range(first, last + 1) if e % step == 0]))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(human_bytes))
    ax.set_xlabel("filter size (log scale)")
    ax.set_ylabel("million keys per second")
    first = results[0]
    title = "batchbloom: insert and probe throughput vs filter size"
    if "shape" in first:
        title += f" ({first['shape']}, {first['bits_per_key']:.1f} bits/key, k={first.get('k', '?')})"
    sub = f"{machine.get('cpu', 'unknown CPU')}, {machine.get('cores', '?')} cores; compiler {machine.get('compiler', '?')}"
    ax.set_title(title + "\n" + sub, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    fig.tight_layout()

    # Written atomically: a temporary file beside the output, then a rename.
    fmt = os.path.splitext(out)[1].lstrip(".").lower() or "png"
    tmp = os.path.join(os.path.dirname(out) or ".", f".{os.path.basename(out)}.tmp{os.getpid()}")
    try:
        fig.savefig(tmp, format=fmt)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
