#!/usr/bin/env bash
# Instructions per key of one bulk call, per engine, shape and operation, counted by callgrind
# inside the call (bench/callgrind_driver.cpp: one thread, the direct path). Instruction counts
# do not depend on the machine's load, so they compare kernels where timings cannot.
#
#   bench/callgrind_ipk.sh [--keys N] [--engines "scalar avx2 avx512"] [--shapes "word512 ..."]
#                          [--k "0 8"] [--ops "insert contains insert_hashes contains_hashes"]
#
# --keys defaults to 1000000 (a 1.2 MiB word512 filter at 1% FPR: the in-cache kernel runs
# where the batch layer counts that size as cache-resident, FilterRef::prefetch 0, else the
# prefetching one); --k 0 means the k Params::for_fpr(N, 0.01) gives, any other value 10 bits
# per key with that k. Environment: BUILD_DIR (default build; the script builds
# batchbloom_callgrind_driver there, with the benchmarks configured on). Needs valgrind.
# An engine this machine (or valgrind, whose CPU model may lack AVX-512) cannot run prints
# "n/a" and the reason. Not part of CI: each run takes seconds under callgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
keys=1000000 engines="scalar avx2 avx512" shapes="word512 split256 line512" ks="0 8"
ops="insert contains insert_hashes contains_hashes"
while [[ $# -gt 0 ]]; do
    case $1 in
        --keys) keys=$2; shift 2 ;;
        --engines) engines=$2; shift 2 ;;
        --shapes) shapes=$2; shift 2 ;;
        --k) ks=$2; shift 2 ;;
        --ops) ops=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "callgrind_ipk.sh: error: unknown option '$1' (see --help)" >&2; exit 1 ;;
    esac
done
command -v valgrind >/dev/null || { echo "callgrind_ipk.sh: error: valgrind not found" >&2; exit 1; }
BUILD_DIR=${BUILD_DIR:-build}
if [[ ! -f $BUILD_DIR/CMakeCache.txt ]]; then
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBATCHBLOOM_BUILD_BENCH=ON >/dev/null
elif ! grep -q '^BATCHBLOOM_BUILD_BENCH:BOOL=ON' "$BUILD_DIR/CMakeCache.txt"; then
    cmake "$BUILD_DIR" -DBATCHBLOOM_BUILD_BENCH=ON >/dev/null
fi
cmake --build "$BUILD_DIR" --target batchbloom_callgrind_driver >/dev/null
driver=$BUILD_DIR/bench/batchbloom_callgrind_driver
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%-8s %-9s %3s %-16s %10s\n' engine shape k op instr/key
for engine in $engines; do
    for shape in $shapes; do
        for k in $ks; do
            for op in $ops; do
                if ! BATCHBLOOM_BACKEND=$engine valgrind --tool=callgrind --callgrind-out-file="$tmp/out" \
                        --toggle-collect=measured_call "$driver" "$shape" "$keys" "$k" "$op" >"$tmp/log" 2>&1; then
                    why=$(grep -m1 -o 'error: .*' "$tmp/log" || tail -n1 "$tmp/log")
                    if [[ $why == *"is not available"* ]]; then  # the same for every row of the engine
                        printf '%-8s %-9s %3s %-16s %10s  %s\n' "$engine" all - all n/a "$why"
                        continue 4
                    fi
                    printf '%-8s %-9s %3s %-16s %10s  %s\n' "$engine" "$shape" "$k" "$op" n/a "$why"
                    continue
                fi
                real_k=$(grep -o ' k=[0-9]*' "$tmp/log" | cut -d= -f2)
                total=$(sed -n 's/^summary: *//p' "$tmp/out")
                printf '%-8s %-9s %3s %-16s %10.2f\n' "$engine" "$shape" "$real_k" "$op" \
                    "$(awk -v t="$total" -v n="$keys" 'BEGIN { print t / n }')"
            done
        done
    done
done
