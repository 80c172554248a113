"""Small synthetic data in the layout gen_data.py writes, for a quick run of batchbloom_join_bench
(its smoke test: every plan, adaptive or not, must give the hash join's answer).

    python3 bench/join/synthetic_data.py OUT_DIR [--rows N]

Probe keys are drawn from a key space of which the build side holds 1%, 10% or 50%, so the
filter pays at 1% and the adaptive plans have something to decide at 50%."""
import argparse
import os
import random


def write_u64(path, values):
    with open(path, "wb") as f:
        f.write(b"".join(v.to_bytes(8, "little") for v in values))


def write_lines(path, strings):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(s + "\n" for s in strings))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=300_000)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rnd = random.Random(7)
    space = args.rows // 4
    probe = [rnd.randrange(space) for _ in range(args.rows)]
    write_u64(f"{args.out}/probe_orderkey.u64", probe)
    write_u64(f"{args.out}/probe_quantity.u64", [i % 50 for i in range(args.rows)])
    write_lines(f"{args.out}/sprobe_name.txt", [f"part {k}" for k in probe])
    write_u64(f"{args.out}/sprobe_availqty.u64", [i % 97 for i in range(args.rows)])
    for s in (1, 10, 50):
        keys = [k for k in range(space) if k % 100 < s]
        write_u64(f"{args.out}/build_{s}_orderkey.u64", keys)
        write_u64(f"{args.out}/build_{s}_custkey.u64", [k % 1000 for k in keys])
        write_lines(f"{args.out}/sbuild_{s}_name.txt", [f"part {k}" for k in keys])
        write_u64(f"{args.out}/sbuild_{s}_size.u64", [k % 50 for k in keys])


if __name__ == "__main__":
    main()
