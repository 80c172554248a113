#!/usr/bin/env python3
"""Membership of N uint64 keys from Python: batchbloom vs rbloom vs a Python set.

    python bench/python/bench_membership.py              # 10M keys, median of 5 runs
    python bench/python/bench_membership.py --keys 1000000 --repeats 3

batchbloom gets a NumPy uint64 array (read in place, one call per batch). rbloom (a Rust
Bloom filter) and set get the same keys as a list of Python ints, their natural input, and
are probed one key at a time through map(); the list conversion is not timed. Probes are
half inserted keys, half fresh random keys, shuffled. Each figure is the median over the runs;
the table also gives the measured false-positive rate and the structure's size.
"""
import argparse
import statistics
import sys
import time

import numpy as np

import batchbloom


def median_seconds(fn, repeats, setup=None):
    times = []
    result = None
    for _ in range(repeats):
        state = setup() if setup else None
        t0 = time.perf_counter()
        result = fn(state)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def bench_batchbloom(keys, probes, inserted, absent, args):
    def fresh():
        return batchbloom.Filter(n=keys.size, fpr=args.fpr, backend=args.backend, threads=args.threads)

    insert_s, f = median_seconds(lambda f: (f.insert(keys), f)[1], args.repeats, setup=fresh)
    contains_s, hits = median_seconds(lambda _: f.contains(probes), args.repeats)
    count_s, _ = median_seconds(lambda _: f.count(probes), args.repeats)
    label = f"batchbloom ({batchbloom.resolve_backend(args.backend)}, threads={args.threads or 'all'})"
    rows = [(label + " contains", insert_s, contains_s, f.count(absent) / absent.size, f.nbytes),
            (label + " count", None, count_s, None, None)]
    if args.threads != 1:
        f.threads = 1
        one_s, _ = median_seconds(lambda _: f.contains(probes), args.repeats)
        rows.append((label.replace(f"threads={args.threads or 'all'}", "threads=1") + " contains", None, one_s, None, None))
    assert hits[inserted].all(), "false negative"
    return rows


def bench_rbloom(key_list, probe_list, absent_list, args):
    import rbloom

    def build(_):
        b = rbloom.Bloom(len(key_list), args.fpr)
        b.update(key_list)
        return b

    insert_s, b = median_seconds(build, args.repeats)
    contains_s, hits = median_seconds(lambda _: sum(map(b.__contains__, probe_list)), args.repeats)
    fpr = sum(map(b.__contains__, absent_list)) / len(absent_list)
    return [(f"rbloom {rbloom.__version__ if hasattr(rbloom, '__version__') else ''}".strip(), insert_s, contains_s,
             fpr, b.size_in_bits // 8)]


def bench_set(key_list, probe_list, args):
    insert_s, s = median_seconds(lambda _: set(key_list), max(1, args.repeats // 2))
    contains_s, _ = median_seconds(lambda _: sum(map(s.__contains__, probe_list)), max(1, args.repeats // 2))
    return [("Python set (table only, not the int objects)", insert_s, contains_s, 0.0, sys.getsizeof(s))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keys", type=int, default=10_000_000, help="keys inserted, and probes (default 10M)")
    ap.add_argument("--fpr", type=float, default=0.01)
    ap.add_argument("--repeats", type=int, default=5, help="runs per figure; the median is reported")
    ap.add_argument("--backend", default="auto", help="batchbloom engine (default: the best)")
    ap.add_argument("--threads", type=int, default=0, help="batchbloom threads (default 0 = all cores)")
    ap.add_argument("--no-rbloom", action="store_true")
    ap.add_argument("--no-set", action="store_true")
    args = ap.parse_args()

    rng = np.random.default_rng(1)
    keys = rng.integers(0, 2**64, size=args.keys, dtype=np.uint64, endpoint=False)
    absent = rng.integers(0, 2**64, size=args.keys // 2, dtype=np.uint64, endpoint=False)
    probes = np.concatenate([keys[: args.keys // 2], absent])
    order = rng.permutation(probes.size)
    probes = probes[order]
    inserted = order < args.keys // 2  # probes[i] is one of the inserted keys

    rows = bench_batchbloom(keys, probes, inserted, absent, args)
    if not (args.no_rbloom and args.no_set):
        key_list, probe_list, absent_list = keys.tolist(), probes.tolist(), absent.tolist()
        if not args.no_rbloom:
            rows += bench_rbloom(key_list, probe_list, absent_list, args)
        if not args.no_set:
            rows += bench_set(key_list, probe_list, args)

    n = args.keys
    print(f"{n:,} uint64 keys inserted, {probes.size:,} probes (half present), target FPR {args.fpr}, "
          f"median of {args.repeats} runs")
    print(f"{'structure':<48} {'insert Mkeys/s':>14} {'contains Mkeys/s':>16} {'ns/probe':>9} {'FPR':>8} {'MB':>8}")
    for name, ins, con, fpr, size in rows:
        ins_s = f"{n / ins / 1e6:14.1f}" if ins else f"{'':>14}"
        fpr_s = f"{fpr * 100:7.3f}%" if fpr is not None else f"{'':>8}"
        size_s = f"{size / 1e6:8.1f}" if size else f"{'':>8}"
        print(f"{name:<48} {ins_s} {probes.size / con / 1e6:16.1f} {con / probes.size * 1e9:9.2f} {fpr_s} {size_s}")


if __name__ == "__main__":
    main()
