"""The false-positive rate of Spark's runtime join filter at its default size caps, beside a
filter batchbloom.spark.build_native sizes exactly for the same keys.

    python bench/spark/runtime_filter_fpr.py [--sizes 1M,4M,20M,100M] [--json F]

Spark's runtime filter (InjectRuntimeFilter) aggregates the build side's xxhash64 values with
bloom_filter_agg: BloomFilter.create(items, bits) with items = min(the side's row count,
spark.sql.optimizer.runtime.bloomFilter.maxNumItems = 4M) and bits = min(8 * items,
spark.sql.optimizer.runtime.bloomFilter.maxNumBits = 64M), so past 4M keys it fills up. The
same filter is made here bit for bit (batchbloom's ClassicFilter with Spark's scheme and those
bits and k) and filled with n random 64-bit keys (as xxhash64 values are); build_native's filter
is ClassicFilter.spark(n, 0.01). Both are probed with 10M keys that were not inserted.
"""
import argparse
import json
import math

import numpy as np

import batchbloom

MAX_ITEMS, MAX_BITS, BITS_PER_ITEM = 4_000_000, 64 * 2**20, 8


def parse_count(text):
    scale = {"k": 10**3, "M": 10**6, "G": 10**9}.get(text[-1], 1)
    return int(float(text[:-1] if scale != 1 else text) * scale)


def measured_fpr(f, absent):
    return float(f.count(absent)) / absent.size


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1M,4M,20M,100M")
    ap.add_argument("--probes", type=int, default=10_000_000)
    ap.add_argument("--json", help="append one JSON line per size here")
    args = ap.parse_args()
    rng = np.random.default_rng(47547)
    absent = rng.integers(0, 2**62, size=args.probes, dtype=np.int64) * 2 + 1  # odd: never inserted
    for n in map(parse_count, args.sizes.split(",")):
        keys = rng.integers(0, 2**62, size=n, dtype=np.int64) * 2  # even
        items = min(n, MAX_ITEMS)
        bits = min(BITS_PER_ITEM * items, MAX_BITS)
        bits = (bits + 63) // 64 * 64  # Spark's bit array holds whole longs
        k = max(1, round(bits / items * math.log(2)))
        runtime = batchbloom.ClassicFilter.from_params(batchbloom.ClassicParams(bits, k), scheme="spark_v2")
        runtime.insert(keys)
        exact = batchbloom.ClassicFilter.spark(n, 0.01)
        exact.insert(keys)
        r = {"keys": n, "runtime_bits": bits, "runtime_k": k, "runtime_fpr": measured_fpr(runtime, absent),
             "exact_bits": exact.bits, "exact_k": exact.k, "exact_fpr": measured_fpr(exact, absent)}
        print(json.dumps(r), flush=True)
        if args.json:
            with open(args.json, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
