#!/usr/bin/env bash
# End-to-end tests of the batchbloom command-line program.
#
#   cli_test.sh BATCHBLOOM_BINARY SCRATCH_DIR [SECTION...]
#
# Runs the named sections (default: all) in SCRATCH_DIR, which is emptied first. Sections:
# size build_query u64 stdin info fpr rebuild errors bench algebra join parquet blocked_layout classic zstd
# save_paths save_kill classic_algebra key_type honest_build concurrent_insert limits pipes.
set -euo pipefail

if [[ $# -lt 2 ]]; then
    echo "usage: $0 BATCHBLOOM_BINARY SCRATCH_DIR [SECTION...]" >&2
    exit 2
fi
BB=$(realpath "$1")
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")/../data" && pwd)  # committed fixtures
SCRATCH=$2
shift 2
PY=${PYTHON3:-python3}

mkdir -p "$SCRATCH"
SCRATCH=$(realpath "$SCRATCH")
find "$SCRATCH" -mindepth 1 -delete
cd "$SCRATCH"

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# expect_fail PATTERN COMMAND...: COMMAND must exit with status 1 or 2 (an error, not a crash),
# print "batchbloom: error:" on stderr, and its stderr must match the extended regex PATTERN
# (case-insensitive).
expect_fail() {
    local pattern=$1
    shift
    local rc=0
    "$@" >fail.out 2>fail.err || rc=$?
    if [[ $rc -eq 0 ]]; then fail "expected failure, got success: $*"; fi
    if [[ $rc -ne 1 && $rc -ne 2 ]]; then fail "exit status $rc (crash?) from: $* -- $(cat fail.err)"; fi
    grep -q '^batchbloom: error: ' fail.err || fail "no 'batchbloom: error:' message from: $* -- $(cat fail.err)"
    grep -qiE -- "$pattern" fail.err || fail "stderr of '$*' does not match /$pattern/: $(cat fail.err)"
}

# expect_contains FILE PATTERN: FILE has a line matching the extended regex PATTERN.
expect_contains() {
    grep -qE -- "$2" "$1" || fail "$1 does not contain /$2/: $(cat "$1")"
}

# Text keys of every kind: strings, integers (with the extremes of both signed and unsigned
# 64-bit), an empty line, spaces, a CRLF line, and a last line without a newline.
make_mixed_keys() {
    printf 'alpha\n42\n-17\n18446744073709551615\n-9223372036854775808\nhello world\n\n  spaced out  \n0\n007\n18446744073709551616\n12abc\n-\nbeta\r\nlast-line-no-newline' >mixed.txt
    # What query prints for mixed.txt: every key, without the '\r' (the file ends without a
    # newline; query ends every key with one).
    "$PY" -c 'import sys; d=open("mixed.txt","rb").read().split(b"\n"); sys.stdout.buffer.write(b"".join(l.removesuffix(b"\r")+b"\n" for l in d))' >mixed.expected
}

section_size() {
    "$BB" size --n 1000000 --fpr 0.01 >size.out
    expect_contains size.out '^predicted FPR.*[0-9]e-0[0-9]'
    expect_contains size.out '^classic FPR.*[0-9]e-0[0-9]'
    expect_contains size.out '^blocks: +[0-9]+$'
    expect_contains size.out '^bytes: +[0-9]+ \([0-9.]+ MiB\)'
    expect_contains size.out '^k: +[0-9]+$'
    expect_contains size.out '^bits per key: +[0-9.]+$'
    # The predicted FPR meets the target.
    local pred
    pred=$(awk '/^predicted FPR/ {print $5}' size.out)
    "$PY" -c "import sys; sys.exit(0 if 0 < float('$pred') <= 0.01 else 1)" || fail "predicted FPR $pred above target 0.01"

    "$BB" size --n 5000 --bits-per-key 12 --shape split256 >size2.out
    expect_contains size2.out '^shape: +split256$'
    expect_contains size2.out '^predicted FPR'
    expect_contains size2.out '^classic FPR'
    "$BB" size --n 5000 --fpr=0.001 --shape line512 >size3.out
    expect_contains size3.out '^shape: +line512$'
    "$BB" size --help >help.out
    expect_contains help.out '^usage: batchbloom size'
    # Extreme sizing requests refuse at once (10^15 keys near FPR 1 took 9 minutes), naming the
    # FPR as given rather than rounded to "1".
    local start=$SECONDS
    expect_fail 'at FPR 0\.9999999999999999 need more than' "$BB" size --n 1000000000000000 --fpr 0.9999999999999999
    expect_fail 'need more than' "$BB" size --n 18446744073709551615 --fpr 0.9999999999999999
    expect_fail 'need more than' "$BB" size --n 9223372036854775808 --fpr 0.5 --shape line512
    ((SECONDS - start < 10)) || fail "extreme sizing requests took $((SECONDS - start)) s"
}

section_build_query() {
    make_mixed_keys
    "$BB" build --fpr 0.01 --out mixed.bbf mixed.txt 2>build.err
    expect_contains build.err '15 keys read'
    [[ -s mixed.bbf ]] || fail "build wrote no filter"
    # No false negatives, every key printed as it appeared.
    "$BB" query mixed.bbf mixed.txt >query.out
    cmp -s query.out mixed.expected || fail "query output differs: $(diff query.out mixed.expected || true)"
    [[ $("$BB" query mixed.bbf mixed.txt --count) == 15 ]] || fail "query --count is not 15"
    # Integers (--key-type auto or int) are keys by value: 007 is 7, -17 is its two's complement.
    printf '7\n18446744073709551599\n' >ints.txt
    "$BB" build --fpr 0.001 --key-type auto --out ints.bbf ints.txt 2>/dev/null
    printf '007\n-17\n' >ints2.txt
    [[ $("$BB" query ints.bbf ints2.txt --count) == 2 ]] || fail "integer keys are not matched by value"
    # murmur3 with a seed round-trips too.
    "$BB" build --bits-per-key 16 --hash murmur3 --seed 12345 --shape split256 --out m.bbf mixed.txt 2>/dev/null
    "$BB" query m.bbf mixed.txt >query_m.out
    cmp -s query_m.out mixed.expected || fail "murmur3 query output differs"
    "$BB" info m.bbf >info_m.out
    expect_contains info_m.out '^hash: +murmur3$'
    expect_contains info_m.out '^seed: +12345$'
    expect_contains info_m.out '^shape: +split256$'
}

section_u64() {
    "$PY" -c '
import random, struct, sys
r = random.Random(7)
vals = [r.getrandbits(64) for _ in range(10000)] + [0, 2**64 - 1, 42]
open("keys.bin", "wb").write(b"".join(struct.pack("<Q", v) for v in vals))
open("keys.dec", "w").write("".join(f"{v}\n" for v in vals))
'
    "$BB" build --u64 --fpr 0.01 --out u64.bbf keys.bin 2>/dev/null
    "$BB" query --u64 u64.bbf keys.bin >u64.out
    cmp -s u64.out keys.dec || fail "u64 query does not print every key in decimal"
    [[ $("$BB" query u64.bbf keys.bin --u64 --count) == 10003 ]] || fail "u64 --count is not 10003"
    # Binary and text integer keys are the same keys.
    [[ $("$BB" query u64.bbf keys.dec --count) == 10003 ]] || fail "text integers do not match u64 keys"
}

section_stdin() {
    make_mixed_keys
    "$BB" build --fpr 0.01 --out file.bbf mixed.txt 2>/dev/null
    "$BB" build --fpr 0.01 --out dash.bbf - <mixed.txt 2>/dev/null
    cat mixed.txt | "$BB" build --fpr 0.01 --out pipe.bbf 2>/dev/null
    cmp -s file.bbf dash.bbf || fail "filter built from '-' differs from the one built from the file"
    cmp -s file.bbf pipe.bbf || fail "filter built from a pipe differs from the one built from the file"
    cat mixed.txt | "$BB" query file.bbf - >q1.out
    "$BB" query file.bbf <mixed.txt >q2.out
    cmp -s q1.out mixed.expected || fail "query from '-' differs"
    cmp -s q2.out mixed.expected || fail "query from stdin differs"
    # u64 through stdin.
    "$PY" -c 'import struct,sys; sys.stdout.buffer.write(b"".join(struct.pack("<Q", v) for v in range(1, 1001)))' >k.bin
    "$BB" build --u64 --fpr 0.01 --out k.bbf <k.bin 2>/dev/null
    [[ $(cat k.bin | "$BB" query --u64 --count k.bbf -) == 1000 ]] || fail "u64 stdin query --count is not 1000"
}

section_info() {
    seq 1 100000 >keys.txt
    "$BB" build --fpr 0.01 --out f.bbf keys.txt 2>/dev/null
    "$BB" info f.bbf >info.out
    expect_contains info.out '^fill ratio: +0\.[0-9]+$'
    expect_contains info.out '^estimated cardinality: +[0-9]+'
    expect_contains info.out '^FPR at current fill: +[0-9]'
    expect_contains info.out '^bits per estimated key: +[0-9.]+$'
    expect_contains info.out '^shape: +word512$'
    expect_contains info.out '^hash: +xxh3$'
    local est
    est=$(awk '/^estimated cardinality:/ {print $3}' info.out)
    "$PY" -c "import sys; sys.exit(0 if abs(float('$est') - 100000) <= 5000 else 1)" ||
        fail "estimated cardinality $est is not within 5% of 100000"
}

section_fpr() {
    "$PY" -c '
open("present.txt", "w").write("".join(f"key-{i}\n" for i in range(100000)))
open("absent.txt", "w").write("".join(f"absent-{i}\n" for i in range(100000)))
'
    local shape fp
    for shape in word512 split256 line512; do
        "$BB" build --fpr 0.01 --shape "$shape" --out "$shape.bbf" present.txt 2>/dev/null
        [[ $("$BB" query "$shape.bbf" present.txt --count) == 100000 ]] || fail "$shape: false negatives"
        fp=$("$BB" query "$shape.bbf" absent.txt --count)
        # 3x the 1% target of 100000 absent keys.
        [[ $fp -lt 3000 ]] || fail "$shape: $fp false positives in 100000 absent keys (target FPR 0.01)"
        [[ $fp -gt 0 ]] || fail "$shape: no false positives at all in 100000 absent keys (implausible at FPR 0.01)"
    done
}

section_rebuild() {
    mkdir in out
    seq 1 1000 >in/a.txt
    seq 5001 7000 >in/b.txt
    "$BB" build --fpr 0.01 --out out/f.bbf in/a.txt 2>/dev/null
    cp out/f.bbf first.bbf
    "$BB" build --fpr 0.001 --out out/f.bbf in/b.txt 2>/dev/null
    cmp -s out/f.bbf first.bbf && fail "re-building did not replace the filter"
    [[ $("$BB" query out/f.bbf in/b.txt --count) == 2000 ]] || fail "rebuilt filter misses keys"
    local listing
    listing=$(ls -A out)
    [[ $listing == "f.bbf" ]] || fail "output directory holds more than the filter: $listing"
    # A failed build (bad input) leaves the existing filter alone.
    cp out/f.bbf second.bbf
    expect_fail 'no such file' "$BB" build --fpr 0.01 --out out/f.bbf in/missing.txt
    cmp -s out/f.bbf second.bbf || fail "a failed build changed the existing filter"
    [[ $(ls -A out) == "f.bbf" ]] || fail "a failed build left files behind: $(ls -A out)"
}

section_errors() {
    seq 1 1000 >keys.txt
    "$BB" build --fpr 0.01 --out good.bbf keys.txt 2>/dev/null
    local size
    size=$(wc -c <good.bbf)

    # Bad option values.
    expect_fail 'fpr' "$BB" size --n 1000 --fpr 0
    expect_fail 'fpr' "$BB" size --n 1000 --fpr 1.5
    expect_fail 'fpr' "$BB" size --n 1000 --fpr abc
    expect_fail 'fpr' "$BB" build --fpr 1 --out x.bbf keys.txt
    expect_fail 'fpr' "$BB" size --n 1000 --fpr nan
    expect_fail '--n' "$BB" size --n abc --fpr 0.01
    expect_fail '--n' "$BB" size --n -5 --fpr 0.01
    expect_fail '--n' "$BB" size --n 99999999999999999999999 --fpr 0.01
    expect_fail '--n' "$BB" size --n 0 --fpr 0.01
    expect_fail '--n' "$BB" size --fpr 0.01
    expect_fail 'bits-per-key' "$BB" size --n 1000 --bits-per-key -3
    expect_fail 'either' "$BB" size --n 1000 --fpr 0.01 --bits-per-key 10
    expect_fail 'fpr|bits-per-key' "$BB" size --n 1000
    expect_fail 'needs a value' "$BB" size --fpr 0.01 --n
    expect_fail 'shape' "$BB" size --n 1000 --fpr 0.01 --shape cube
    expect_fail 'hash' "$BB" build --fpr 0.01 --hash md5 --out x.bbf keys.txt
    expect_fail 'seed|murmur' "$BB" build --fpr 0.01 --hash murmur3 --seed 4294967296 --out x.bbf keys.txt
    expect_fail 'more than once' "$BB" size --n 1 --n 2 --fpr 0.01
    expect_fail 'takes no value' "$BB" query --count=yes good.bbf keys.txt

    # Unknown command and option, missing and extra arguments.
    expect_fail "unknown command 'frobnicate'" "$BB" frobnicate
    expect_fail "unknown option '--bogus'" "$BB" size --n 1000 --fpr 0.01 --bogus
    expect_fail "unknown option" "$BB" query -x good.bbf
    expect_fail 'missing argument FILE' "$BB" query
    expect_fail 'unexpected argument' "$BB" info good.bbf extra
    expect_fail '--out' "$BB" build --fpr 0.01 keys.txt
    local rc=0
    "$BB" >/dev/null 2>&1 || rc=$?
    [[ $rc -eq 2 ]] || fail "no command: exit status $rc, expected 2"
    rc=0
    "$BB" size --bogus >/dev/null 2>&1 || rc=$?
    [[ $rc -eq 2 ]] || fail "usage error: exit status $rc, expected 2"

    # Missing and unreadable inputs.
    expect_fail 'missing\.txt.*no such file' "$BB" build --fpr 0.01 --out x.bbf missing.txt
    expect_fail 'missing\.txt.*no such file' "$BB" query good.bbf missing.txt
    expect_fail 'nothere\.bbf' "$BB" query nothere.bbf keys.txt
    expect_fail 'nothere\.bbf' "$BB" info nothere.bbf
    expect_fail 'directory' "$BB" build --fpr 0.01 --out x.bbf .
    expect_fail 'no keys in input' "$BB" build --fpr 0.01 --out x.bbf /dev/null
    [[ ! -e x.bbf ]] || fail "a failed build wrote x.bbf"

    # Damaged filter files: truncated in the header and in the payload, a flipped payload
    # byte, a text file, an empty file, trailing garbage.
    head -c 10 good.bbf >trunc_header.bbf
    head -c $((size - 1)) good.bbf >trunc_payload.bbf
    "$PY" -c '
d = bytearray(open("good.bbf", "rb").read()); d[len(d) - 7] ^= 0x10
open("flipped.bbf", "wb").write(bytes(d))'
    : >empty.bbf
    { cat good.bbf; printf 'x'; } >trailing.bbf
    for f in trunc_header.bbf trunc_payload.bbf flipped.bbf keys.txt empty.bbf trailing.bbf; do
        expect_fail '.' "$BB" query "$f" keys.txt
        expect_fail '.' "$BB" info "$f"
    done

    # --u64 input whose size is not a multiple of 8, from a file and from a pipe.
    printf '1234567' >seven.bin
    expect_fail '7 bytes' "$BB" build --u64 --fpr 0.01 --out x.bbf seven.bin
    expect_fail '7 bytes' "$BB" query --u64 good.bbf seven.bin
    expect_fail '7 bytes' "$BB" build --u64 --fpr 0.01 --out x.bbf - <seven.bin
    printf '12345678abc' >eleven.bin
    expect_fail '11 bytes' "$BB" query --u64 --count good.bbf - <eleven.bin

    # Bench options.
    expect_fail 'backend' "$BB" bench --keys 1000 --queries 1000 --backend warp9
    expect_fail '--keys' "$BB" bench --keys 0
    expect_fail '--queries' "$BB" bench --queries x
    # Counts past what any run can hold are usage errors naming the option and the limit (they
    # overflowed the memory estimate and failed in an allocation, naming a C++ internal).
    expect_fail '--queries must be at most 1000G' "$BB" bench --keys 1000 --queries 18446744073709551615
    expect_fail '--keys must be at most 1000G' "$BB" bench --keys 18446744073709551615
    expect_fail '--sizes must be at most 1000G' "$BB" bench --sizes 1000,1001G
}

# Small runs only: 200000 keys, one run per phase, a 32 MiB buffer for the limit row.
section_bench() {
    local small=(--repeat 1 --limit-buffer 32M)
    "$BB" bench --keys 200000 --threads 1,2 --json r.json "${small[@]}" >bench.out
    # The engines of --backend all (the default), as the run lists them; scalar is always one.
    local engines e t
    engines=$(sed -n 's/^# batchbloom bench: engines \([^;]*\);.*/\1/p' bench.out | tr -d ',')
    [[ " $engines " == *" scalar "* ]] || fail "bench lists no scalar engine: $(head -3 bench.out)"
    expect_contains bench.out '^engine +threads +path +keys +bits/ +k +insert +insert +probe +probe +probe +measured +predicted +probe/ +probe/$'
    for e in $engines; do
        for t in 1 2; do
            expect_contains bench.out "^$e +$t +auto\([dp?]/[dp?]\) +200000 +[0-9.]+ +[0-9]+( +[0-9.]+){5}( +[0-9.]+e-[0-9]+){2} +[0-9.]+ +[0-9.]+$"
        done
    done
    expect_contains bench.out '^random 64B line reads \(prefetched\) +[0-9.]+ +[0-9.]+ +1\.00$'
    # The other filter types' rows: same keys, a plausible FPR, the counting filter at 4x the bits.
    for t in "classic scalar" "counting scalar" "scalable [a-z0-9]+"; do
        expect_contains bench.out "^$t +200000 +[0-9.]+ +([0-9]+|-)( +[0-9.]+){3} +[0-9.]+e-0[1-3] +[0-9.]+e-0[1-3]$"
    done
    expect_contains bench.out '^# limit: .*Mlines/s by prefetch distance 0: [0-9.]+, 8: [0-9.]+, 16: [0-9.]+, 32: [0-9.]+(, [0-9]+: [0-9.]+)*$'
    # The limit at the filter's size on each thread count of the run.
    expect_contains bench.out '^# random 64B line reads over a buffer the size of this filter, 1 thread: [0-9.]+ Mlines/s \([0-9.]+ ns/line\)$'
    expect_contains bench.out '^# random 64B line reads over a buffer the size of this filter, 2 threads: [0-9.]+ Mlines/s \([0-9.]+ ns/line\)$'
    "$PY" - r.json "$engines" <<'PYEOF' || fail "bench --json: $(cat r.json)"
import json, sys
d = json.load(open(sys.argv[1]))
engines = sys.argv[2].split()
assert set(d) == {"machine", "limit", "results", "filter_types"}, sorted(d)
types = {t["type"].split()[0] for t in d["filter_types"]}
assert {"classic", "counting", "scalable"} <= types, d["filter_types"]
assert all(t["probe_ns_per_key"] > 0 and 0 <= t["fpr"] < 1 for t in d["filter_types"]), d["filter_types"]
m = d["machine"]
assert isinstance(m["cpu"], str) and m["cpu"], m
assert isinstance(m["cores"], int) and m["cores"] >= 1, m
for k in ("l2_bytes", "l3_bytes"):
    assert isinstance(m[k], int) and m[k] >= 0, m
assert isinstance(m["compiler"], str) and m["compiler"], m
assert d["limit"]["random_line_reads_per_s"] > 0, d["limit"]
rs = d["results"]
assert sorted((r["backend"], r["threads"]) for r in rs) == sorted((e, t) for e in engines for t in (1, 2)), rs
for r in rs:
    for k in ("backend", "threads", "keys", "bits_per_key", "insert_keys_per_s", "probe_keys_per_s",
              "probe_miss_keys_per_s", "fpr", "predicted_fpr", "limit_at_size_lines_per_s", "probe_over_limit_at_size"):
        assert k in r, (k, r)
    assert r["path"] == "automatic" and set(r["chosen"]) == {"insert", "probe"}, r
    assert all(c in ("direct", "partitioned", "automatic") for c in r["chosen"].values()), r
    assert r["limit_at_size_lines_per_s"] > 0 and r["probe_over_limit_at_size"] > 0, r
    assert r["keys"] == 200000 and 9 < r["bits_per_key"] < 12, r
    assert min(r["insert_keys_per_s"], r["probe_keys_per_s"], r["probe_miss_keys_per_s"]) > 0, r
    assert 0.005 < r["fpr"] < 0.02 and 0.009 < r["predicted_fpr"] <= 0.01, r
assert len({r["fpr"] for r in rs}) == 1, "engines disagree on the false positives"
PYEOF
    # One engine, another shape and sizing, several sizes.
    "$BB" bench --sizes 20k,50000 --backend scalar --bits-per-key 10 --shape split256 --seed 9 "${small[@]}" >sizes.out
    expect_contains sizes.out '^# 20000 keys, 20000 queries: split256 filter'
    expect_contains sizes.out '^scalar +1 +auto\(d/d\) +20000 +10\.[0-9]+ '
    expect_contains sizes.out '^scalar +1 +auto\(d/d\) +50000 +10\.[0-9]+ '
    [[ $(grep -c '^scalar ' sizes.out) == 2 ]] || fail "bench --sizes 20k,50000 --backend scalar: not 2 rows: $(cat sizes.out)"
    # Each batch path, beside each other: same filter and answers (else the run fails).
    "$BB" bench --keys 20000 --backend scalar --paths direct,partitioned,auto --json paths.json "${small[@]}" >paths.out
    expect_contains paths.out '^scalar +1 +direct +20000 '
    expect_contains paths.out '^scalar +1 +partitioned +20000 '
    expect_contains paths.out '^scalar +1 +auto\(d/d\) +20000 '
    "$PY" -c 'import json, sys; rs = json.load(open(sys.argv[1]))["results"]; assert [r["path"] for r in rs] == ["direct", "partitioned", "automatic"] and "chosen" not in rs[0] and rs[2]["chosen"] == {"insert": "direct", "probe": "direct"}, rs' paths.json ||
        fail "bench --paths --json: $(cat paths.json)"
    # The sweep: a row per operation with each path's time, the automatic path's choice (a
    # rule: direct for one thread, probes and filters the cache holds), the limit at size over
    # direct and partitioned over the limit, and the partitioned path's first-call cost.
    "$BB" bench --sweep --sweep-filters 256K --keys-per-line 2 --threads 1 --repeat 1 --backend scalar >sweep.out
    expect_contains sweep.out '^256K +0\.2 +2\.0 +1 +8192 +[0-9.]+ \| insert +[0-9.]+ +[0-9.]+ +[0-9.]+ +direct +[0-9.]+ +[0-9.]+ +[0-9.]+ \| +-?[0-9.]+$'
    expect_contains sweep.out '^256K +0\.2 +2\.0 +1 +8192 +[0-9.]+ \| probe +[0-9.]+ +[0-9.]+ +[0-9.]+ +direct +[0-9.]+ +[0-9.]+ +[0-9.]+ \| +-?[0-9.]+$'
    "$BB" bench --sweep --sweep-filters 16M --keys-per-line 1 --threads 1 --repeat 1 --backend scalar >sweep.out
    expect_contains sweep.out '^16M +16\.0 +1\.0 +1 +262144 +[0-9.]+ \| insert .* direct .*\| +-?[0-9.]+$'
    expect_contains sweep.out '^16M +16\.0 +1\.0 +1 +262144 +[0-9.]+ \| probe .* direct .*\| +-?[0-9.]+$'
    expect_fail '--sweep-filters' "$BB" bench --sweep --sweep-filters L9 --backend scalar
    expect_fail '--paths' "$BB" bench --paths direct,fastest
    "$BB" bench --help >help.out
    expect_contains help.out '^usage: batchbloom bench'
    expect_contains help.out '--plot FILE'

    # Mistakes are reported before anything is measured.
    expect_fail 'backend.*nonsense' "$BB" bench --backend nonsense
    expect_fail '--keys must be at least 1' "$BB" bench --keys 0
    expect_fail '--threads' "$BB" bench --threads 1,x
    expect_fail '--sizes' "$BB" bench --sizes 1M,,2M
    expect_fail 'either --keys or --sizes' "$BB" bench --keys 10 --sizes 10,20
    expect_fail '--repeat' "$BB" bench --repeat 0
    expect_fail 'does not exist' "$BB" bench --keys 1000 --json no/such/dir/r.json

    # --plot: needs python3 with matplotlib, and says what to install when it is missing.
    expect_fail 'pip install matplotlib' env BATCHBLOOM_PYTHON=/nonexistent/python3 "$BB" bench --keys 1000 --plot p.png
    [[ ! -e p.png ]] || fail "a failed --plot wrote p.png"
    if "$PY" -c 'import matplotlib' 2>/dev/null; then
        BATCHBLOOM_PYTHON=$PY "$BB" bench --sizes 20k,100k --backend scalar "${small[@]}" --plot p.png >plot.out
        expect_contains plot.out '^# plot written to p\.png$'
        "$PY" -c 'import sys; d=open("p.png","rb").read(); sys.exit(0 if d[:8]==b"\x89PNG\r\n\x1a\n" and len(d)>10000 else 1)' ||
            fail "--plot did not write a PNG"
        [[ -z $(ls -A | grep -E '^\..*tmp') ]] || fail "temporary files left behind: $(ls -A)"
    else
        echo "note: $PY cannot import matplotlib; skipping the bench --plot test (pip install matplotlib)"
    fi
}

section_algebra() {
    seq 1 3000 >a.txt
    seq 2001 5000 >b.txt
    seq 1 5000 >all.txt
    seq 2001 3000 >both.txt
    "$BB" build --bits-per-key 12 --n 8000 --out a.bbf a.txt 2>/dev/null
    "$BB" build --bits-per-key 12 --n 8000 --out b.bbf b.txt 2>/dev/null
    "$BB" build --bits-per-key 12 --n 8000 --out ab.bbf all.txt 2>/dev/null
    "$BB" union a.bbf b.bbf --out u.bbf
    cmp -s u.bbf ab.bbf || fail "the union differs from the filter built from both key files"
    "$BB" intersect a.bbf b.bbf --out i.bbf
    [[ $("$BB" query i.bbf both.txt --count) == 1000 ]] || fail "the intersection lost common keys"
    # 8000 keys at 12 bits/key = 188 blocks (even): fold halves it and keeps every key.
    "$BB" fold ab.bbf --out f.bbf
    [[ $("$BB" query f.bbf all.txt --count) == 5000 ]] || fail "the folded filter lost keys"
    "$BB" info f.bbf >info.out
    expect_contains info.out '^blocks: +94$'
    "$BB" build --bits-per-key 10 --n 8000 --out small.bbf a.txt 2>/dev/null
    expect_fail 'incompatible' "$BB" union a.bbf small.bbf --out x.bbf
    expect_fail 'incompatible' "$BB" intersect a.bbf small.bbf --out x.bbf
    expect_fail 'needs --out' "$BB" union a.bbf b.bbf
    expect_fail 'missing argument' "$BB" union a.bbf --out x.bbf
    "$BB" build --bits-per-key 10 --n 8000 --out odd.bbf a.txt 2>/dev/null  # 157 blocks
    expect_fail 'even number of blocks' "$BB" fold odd.bbf --out x.bbf
    [[ ! -e x.bbf ]] || fail "a failed command wrote its output"
}

section_join() {
    seq 1 2 19999 >b.txt   # 10000 odd build keys
    seq 0 29999 >p.txt     # probe row i holds key i, so the survivors' indices are their keys
    "$BB" join --build b.txt --probe p.txt >j.out 2>j.err
    expect_contains j.err 'join on integer keys: 10000 build keys \(10000 distinct\), 30000 probe rows'
    # Every matching row survives; about 1% of the 20000 others do.
    [[ -z $(comm -23 <(sort b.txt) <(sort j.out)) ]] || fail "join dropped matching probe rows"
    local extra=$(($(wc -l <j.out) - 10000))
    ((extra >= 20 && extra <= 600)) || fail "join let $extra non-matching rows through (expected about 200)"
    sort -n -c j.out || fail "join indices are not ascending"
    # The same filter as 'build' sizes for the same integer keys: query prints the same keys.
    "$BB" build --fpr 0.01 --key-type auto --out b.bbf b.txt 2>/dev/null
    "$BB" query b.bbf p.txt >q.out
    cmp -s j.out q.out || fail "join survivors differ from build + query"
    [[ $("$BB" join --build b.txt --probe p.txt --count 2>/dev/null | tail -n 1) == $(wc -l <j.out) ]] ||
        fail "join --count differs from the number of printed rows"
    # Engines and threads do not change the answer; stdin works for one side.
    for backend in scalar auto; do
        "$BB" join --build b.txt --probe - --backend $backend --threads 1 <p.txt >jb.out 2>/dev/null
        cmp -s j.out jb.out || fail "join --backend $backend --threads 1 differs"
    done
    # --u64 files give the same survivors as their text form.
    "$PY" -c '
import struct
open("b.bin", "wb").write(b"".join(struct.pack("<Q", v) for v in range(1, 20000, 2)))
open("p.bin", "wb").write(b"".join(struct.pack("<Q", v) for v in range(30000)))'
    "$BB" join --u64 --build b.bin --probe p.bin >ju.out 2>/dev/null
    cmp -s j.out ju.out || fail "join --u64 differs from the text join"
    [[ $("$BB" join --build b.txt --probe p.txt --bits-per-key 20 --count 2>/dev/null) -lt $(wc -l <j.out) ]] ||
        fail "20 bits per key did not let fewer rows through than 1% FPR"
    # String keys: the rows holding build names survive.
    printf 'almond blush\nazure coral\nsalmon mint\n' >names.txt
    printf 'ivory\nazure coral\n42\nalmond blush\nazure coral\n' >rows.txt
    "$BB" join --build names.txt --probe rows.txt >s.out 2>s.err
    expect_contains s.err 'join on string keys'
    [[ $(grep -c -x -E '1|3|4' s.out) == 3 ]] || fail "string join lost a matching row: $(cat s.out)"
    : >empty.txt
    [[ $("$BB" join --build empty.txt --probe p.txt --count 2>/dev/null) == 0 ]] || fail "an empty build side let rows through"
    expect_fail 'needs --build' "$BB" join --probe p.txt
    expect_fail 'needs --probe' "$BB" join --build b.txt
    expect_fail 'only one of --build and --probe' "$BB" join --build - --probe -
    expect_fail 'backend' "$BB" join --build b.txt --probe p.txt --backend nonsense
    expect_fail '--fpr must be strictly between 0 and 1' "$BB" join --build b.txt --probe p.txt --fpr 2
    expect_fail 'either --fpr or --bits-per-key' "$BB" join --build b.txt --probe p.txt --fpr 0.1 --bits-per-key 8
    expect_fail 'cannot open' "$BB" join --build missing.txt --probe p.txt
    head -c 12 p.bin >odd.bin
    expect_fail 'not a multiple of 8' "$BB" join --u64 --build b.bin --probe odd.bin
}

section_parquet() {
    # Committed files written by PyArrow and DuckDB (tests/data/make_parquet_fixtures.py): two
    # row groups of 2048 rows; row i holds i64 = 7i + 3 and s = "key-<11i>".
    for writer in pyarrow duckdb; do
        local f=$DATA/${writer}_bloom.parquet
        "$BB" parquet "$f" >list.out
        expect_contains list.out '^row_group	column	type	rows	distinct	filter_bytes	fpr$'
        expect_contains list.out '^1	i32	INT32	2048	(-|2048)	2048	0\.0[0-9]*$'
        "$BB" info "$f" >info.out
        expect_contains info.out '^format: +Parquet, 2 row groups, .*no checksum'
        expect_contains info.out '^1	i32	INT32	2048	(-|2048)	2048	0\.0[0-9]*$'
        printf '3\n10\n14346\n4\n' >k.txt
        "$BB" parquet "$f" --column i64 --query k.txt >q.out
        # 3 and 10 are rows 0 and 1, 14346 row 2049; 4 is in no row group (checked absent).
        [[ $(cat q.out) == $'0\t3\n0\t10\n1\t14346' ]] || fail "$writer i64 query: $(cat q.out)"
        [[ $(printf 'key-0\nkey-22528\nnokey\n' | "$BB" parquet "$f" --column s --query - --count) == $'0\t1\n1\t1' ]] ||
            fail "$writer string query --count"
        # Rebuilt from each row group's own values at the writer's size, the filters are the writer's.
        "$BB" parquet add "$f" --column i64 --column s --replace --ndv 2048 --fpr 0.05 --out same.parquet >add.out
        expect_contains add.out '^1	s	2048	2048	2048	0\.0[0-9]*$'
        for col in i64 s; do
            for rg in 0 1; do
                cmp -s <("$BB" parquet "$f" --column $col --row-group $rg --query k.txt) \
                    <("$BB" parquet same.parquet --column $col --row-group $rg --query k.txt) ||
                    fail "$writer: the rebuilt $col filter of row group $rg answers differently"
            done
        done
        "$BB" parquet same.parquet | grep -q '^0	i64	INT64	2048	2048	2048	' || fail "$writer: listing lacks the distinct count"
    done
    local f=$DATA/pyarrow_bloom.parquet
    # A column without filters gets one per row group, from that row group's values only.
    "$BB" parquet add "$f" --column plain --out plain.parquet >add.out
    expect_contains add.out '^0	plain	2048	2048	4096	0\.00[0-9]*$'
    seq 0 2047 >rg0.txt
    [[ $("$BB" parquet plain.parquet --column plain --query rg0.txt --count) =~ ^0$'\t'2048$'\n'1$'\t'[0-9]{1,2}$ ]] ||
        fail "row group 1's filter holds row group 0's values"
    [[ $("$BB" parquet "$f" --column plain --query k.txt --count 2>note.err) == $'0\t4\n1\t4' ]] ||
        fail "a chunk without a filter must answer 'may be present' for every key"
    expect_contains note.err 'no Bloom filter'
    expect_fail 'needs --column' "$BB" parquet "$f" --query k.txt
    expect_fail "no column 'nope'" "$BB" parquet "$f" --column nope --query k.txt
    expect_fail 'out of range' "$BB" parquet "$f" --row-group 2
    expect_fail "key '1.5' is not a value of INT32 column 'i32'" "$BB" parquet "$f" --column i32 --query <(echo 1.5)
    expect_fail "value 9223372036854775808 does not fit column 'i64' \(INT64\)" \
        "$BB" parquet "$f" --column i64 --query <(echo 9223372036854775808)
    expect_fail '--count needs --query' "$BB" parquet "$f" --count
    expect_fail "belongs to 'parquet add'" "$BB" parquet "$f" --out x.parquet
    expect_fail 'needs --out' "$BB" parquet add "$f" --column plain
    expect_fail 'needs IN.parquet' "$BB" parquet add
    expect_fail "no file or directory 'nodir'" "$BB" parquet add nodir --column i64
    expect_fail 'not a Parquet file' "$BB" parquet k.txt
    expect_fail 'not a Parquet file' "$BB" parquet add k.txt --column x --out x.parquet
    head -c 100 "$f" >cut.parquet
    expect_fail 'not a Parquet file' "$BB" parquet cut.parquet
    [[ ! -e x.parquet ]] || fail "a failed command wrote its output"
    # Filters a file has are kept: a column added later gets only its own (no --replace needed).
    "$BB" parquet add "$f" --column i64 --column plain --out later.parquet >add.out
    [[ $(grep -c '	i64	' add.out) == 0 && $(grep -c '	plain	' add.out) == 2 ]] || fail "add rebuilt kept filters: $(cat add.out)"
    cmp -s <("$BB" parquet "$f" --column i64 --query k.txt) <("$BB" parquet later.parquet --column i64 --query k.txt) ||
        fail "the writer's i64 filters changed"
    cp later.parquet again.parquet
    "$BB" parquet add again.parquet --column i64 --column plain --out again.parquet >/dev/null
    cmp -s later.parquet again.parquet || fail "an add with nothing missing changed the file"
    # A dataset with bad entries: each is reported, the good files are done, exit 1 at the end.
    rm -rf ds && mkdir -p ds/k=1 ds/k=2
    cp "$f" ds/k=1/part-0.parquet
    cp "$f" ds/k=2/part-0.parquet
    ln -s loop.parquet ds/loop.parquet
    ln -s nowhere.parquet ds/dangling.parquet
    echo "notes, not a Parquet file" >ds/k=2/notes.parquet
    expect_fail 'failed for some files' "$BB" parquet add ds --column plain
    expect_contains fail.err 'ds/loop.parquet: .*symbolic links'
    expect_contains fail.err 'ds/dangling.parquet: symbolic link to nothing'
    expect_contains fail.err 'ds/k=2/notes.parquet: .*not a Parquet file'
    expect_contains fail.err '2 file\(s\) given filters, 0 skipped .*, 3 failed'
    for p in ds/k=1/part-0.parquet ds/k=2/part-0.parquet; do
        "$BB" parquet "$p" | grep -qE '^0	plain	INT64	[0-9]+	[0-9]+	[0-9]+	' || fail "$p got no filter"
    done
    rm -rf ds
}

section_blocked_layout() {
    "$BB" size --n 3000 --fpr 0.01 >size.out
    expect_contains size.out '^counting filter bytes: +[0-9]+ '
    expect_contains size.out '^deletable filter bytes: +[0-9]+ .*deletable at n'
    seq 1 3000 >keys.txt
    seq 1 1000 >gone.txt
    seq 100001 103000 >absent.txt
    # Counting: erase what was inserted; refuse what tests negative.
    "$BB" build --format counting --fpr 0.01 --out c.bbf keys.txt 2>build.err
    expect_contains build.err 'counting filter'
    "$BB" info c.bbf >info.out
    expect_contains info.out '^type: +counting$'
    expect_contains info.out '^saturated counters: +0$'
    [[ $("$BB" query c.bbf gone.txt --count) == 1000 ]] || fail "counting filter lost keys"
    "$BB" erase c.bbf gone.txt >erase.out
    expect_contains erase.out '^erased 1000 of 1000 keys; 0 not in the filter$'
    [[ $("$BB" query c.bbf keys.txt --count) -ge 2000 ]] || fail "keys still present went missing"
    [[ $("$BB" query c.bbf gone.txt --count) -lt 100 ]] || fail "erased keys still test positive"
    cp c.bbf before.bbf
    "$BB" erase c.bbf gone.txt --out c2.bbf >erase2.out
    expect_contains erase2.out 'not in the filter'
    cmp -s c.bbf before.bbf || fail "erase --out changed FILE"
    "$BB" insert c.bbf gone.txt >insert.out
    expect_contains insert.out '^inserted 1000 keys$'
    [[ $("$BB" query c.bbf keys.txt --count) == 3000 ]] || fail "re-inserted keys missing"
    # Deletable: three outcomes.
    "$BB" build --format deletable --region-bits 4 --fpr 0.01 --out d.bbf keys.txt 2>/dev/null
    "$BB" info d.bbf >info_d.out
    expect_contains info_d.out '^type: +deletable$'
    expect_contains info_d.out '^regions: +[0-9]+ of 4 bits'
    "$BB" erase d.bbf gone.txt >erase_d.out
    expect_contains erase_d.out '^erased [0-9]+ of 1000 keys; 0 not in the filter; [0-9]+ not deletable'
    [[ $("$BB" query d.bbf <(seq 1001 3000) --count) == 2000 ]] || fail "deletable filter lost a present key"
    # Scalable: grows past its initial capacity and keeps every key.
    "$BB" build --format scalable --fpr 0.01 --n 100 --growth 2 --tightening 0.8 --out s.bbf keys.txt 2>/dev/null
    "$BB" insert s.bbf absent.txt >/dev/null
    "$BB" info s.bbf >info_s.out
    expect_contains info_s.out '^type: +scalable$'
    expect_contains info_s.out '^keys inserted: +6000$'
    expect_contains info_s.out '^  stage 5 '
    [[ $("$BB" query s.bbf keys.txt --count) == 3000 ]] || fail "scalable filter lost keys"
    [[ $("$BB" query s.bbf absent.txt --count) == 3000 ]] || fail "scalable filter lost inserted keys"
    # Errors: wrong types, options for other types, corrupt files.
    "$BB" build --fpr 0.01 --out p.bbf keys.txt 2>/dev/null
    expect_fail 'blocked filters cannot erase' "$BB" erase p.bbf gone.txt
    expect_fail 'scalable filters cannot erase' "$BB" erase s.bbf gone.txt
    expect_fail 'need --format scalable' "$BB" build --format counting --growth 3 --fpr 0.01 --out x.bbf keys.txt
    expect_fail 'needs --format deletable' "$BB" build --region-bits 8 --fpr 0.01 --out x.bbf keys.txt
    expect_fail 'sized by --fpr' "$BB" build --format scalable --bits-per-key 10 --out x.bbf keys.txt
    expect_fail 'power of two' "$BB" build --format deletable --region-bits 6 --fpr 0.01 --out x.bbf keys.txt
    expect_fail 'tightening' "$BB" build --format scalable --tightening 1.5 --fpr 0.01 --out x.bbf keys.txt
    head -c 200 c.bbf >cut.bbf
    expect_fail 'truncated payload' "$BB" info cut.bbf
    expect_fail 'truncated payload' "$BB" erase cut.bbf gone.txt
    "$PY" -c 'import sys; b=bytearray(open("c.bbf","rb").read()); b[-1]^=1; open("flip.bbf","wb").write(b)'
    expect_fail 'payload checksum' "$BB" query flip.bbf keys.txt
    [[ ! -e x.bbf ]] || fail "a failed command wrote its output"
}

section_classic() {
    seq 1 2000 >keys.txt
    seq 100001 102000 >absent.txt
    "$BB" size --n 1000000 --fpr 0.01 >size.out
    expect_contains size.out '^  bits per key +[0-9.]+ +[0-9.]+$'
    expect_contains size.out '^  k +[0-9]+ +7$'
    local fmt scheme typing
    for fmt in classic spark spark-v1; do
        "$BB" build --format "$fmt" --fpr 0.01 --out "$fmt.bin" keys.txt 2>build.err
        scheme=$(case $fmt in classic) echo double_hashing ;; spark) echo spark_v2 ;; *) echo spark_v1 ;; esac)
        expect_contains build.err "\($scheme\)"
        "$BB" info "$fmt.bin" >info.out
        expect_contains info.out "^scheme: +$scheme$"
        [[ $fmt == classic ]] || expect_contains info.out '^format: .*Spark.*\(no checksum\)'
        # Spark's form does not record how keys went in (built per line): --key-type says so
        # (section key_type); batchbloom's classic file records it.
        typing=()
        [[ $fmt == classic ]] || typing=(--key-type auto)
        [[ $("$BB" query --count "${typing[@]}" "$fmt.bin" keys.txt) == 2000 ]] || fail "$fmt filter lost keys"
        [[ $("$BB" query --count "${typing[@]}" "$fmt.bin" absent.txt) -lt 60 ]] || fail "$fmt filter: too many false positives"
    done
    [[ $(head -c 4 spark.bin | od -An -tx1 | tr -d ' ') == 00000002 ]] || fail "spark file does not start with version 2"
    [[ $(head -c 4 spark-v1.bin | od -An -tx1 | tr -d ' ') == 00000001 ]] || fail "spark-v1 file does not start with version 1"
    head -c 100 spark.bin >cut.bin
    expect_fail 'truncated' "$BB" query cut.bin keys.txt
    expect_fail 'truncated' "$BB" info cut.bin
    expect_fail 'hash' "$BB" build --format spark --hash murmur3 --fpr 0.01 --out x.bin keys.txt
    expect_fail 'seed' "$BB" build --format spark-v1 --seed 3 --fpr 0.01 --out x.bin keys.txt
    expect_fail 'format' "$BB" build --format sparkle --fpr 0.01 --out x.bin keys.txt
    [[ ! -e x.bin ]] || fail "a failed command wrote its output"
}

section_zstd() {
    make_mixed_keys
    seq 1 20000 >keys.txt
    "$BB" build --bits-per-key 10 --n 200000 --out plain.bbf keys.txt 2>/dev/null
    "$BB" build --bits-per-key 10 --n 200000 --zstd 19 --out small.bbf keys.txt 2>/dev/null
    # A sparse filter (sized for 10x the keys) compresses; it answers as the uncompressed one.
    (($(stat -c %s small.bbf) < $(stat -c %s plain.bbf) * 3 / 4)) || fail "zstd did not shrink a sparse filter"
    [[ $(head -c 4 small.bbf | od -An -tx1 | tr -d ' ') == 28b52ffd ]] || fail "not a zstd frame"
    "$BB" query plain.bbf mixed.txt >plain.out
    "$BB" query small.bbf mixed.txt >small.out
    cmp -s plain.out small.out || fail "compressed filter answers differently"
    [[ $("$BB" query small.bbf keys.txt --count) == 20000 ]] || fail "compressed filter lost keys"
    "$BB" info small.bbf >info.out
    expect_contains info.out '^shape: +word512$'
    expect_fail 'level' "$BB" build --bits-per-key 10 --zstd 23 --out x.bbf keys.txt
    expect_fail 'compresses blocked filters only' "$BB" build --format counting --bits-per-key 10 --zstd 3 --out x.bbf keys.txt
    head -c 100 small.bbf >cut.bbf
    expect_fail 'truncated' "$BB" query cut.bbf keys.txt
    [[ ! -e x.bbf ]] || fail "a failed command wrote its output"
}

# --out PATH: what each kind of path gets (the library's write_file; nodes made here only).
section_save_paths() {
    seq 1 500 >keys.txt
    "$BB" build --fpr 0.01 --out - keys.txt >expected.bbf 2>/dev/null
    "$BB" query expected.bbf keys.txt | cmp -s - keys.txt || fail "--out - did not write the filter to stdout"
    # A symbolic link is followed: its target replaced, the link kept.
    mkdir real && ln -s real/t.bbf l.bbf
    "$BB" build --fpr 0.01 --out l.bbf keys.txt 2>/dev/null
    [[ -L l.bbf ]] || fail "the link became a file"
    cmp -s real/t.bbf expected.bbf || fail "the link's target does not hold the filter"
    "$BB" insert l.bbf keys.txt >/dev/null 2>&1
    [[ -L l.bbf ]] || fail "insert replaced the link"
    # A FIFO is written in place and stays a FIFO.
    mkfifo p
    cat p >from_fifo &
    "$BB" build --fpr 0.01 --out p keys.txt 2>/dev/null
    wait
    [[ -p p ]] || fail "the FIFO was replaced"
    cmp -s from_fifo expected.bbf || fail "the FIFO's reader did not get the filter"
    if [[ $EUID -eq 0 ]]; then  # a device node of our own: written in place, never replaced
        mknod n c 1 3
        "$BB" build --fpr 0.01 --out n keys.txt 2>/dev/null
        [[ -c n ]] || fail "the device node was replaced"
    fi
    expect_fail "cannot write '/dev/full': No space left on device" "$BB" build --fpr 0.01 --out /dev/full keys.txt
    [[ -c /dev/full ]] || fail "/dev/full is no longer a device"
    mkdir d
    expect_fail "cannot write 'd': it is a directory" "$BB" build --fpr 0.01 --out d keys.txt
    # 'parquet add' goes through the same writer: a link planted at a guessable temporary name is
    # never followed.
    echo victim >victim.txt
    ln -s victim.txt new.parquet.tmp
    ln -s victim.txt .new.parquet.tmp
    "$BB" parquet add "$DATA/pyarrow_bloom.parquet" --column plain --out new.parquet >/dev/null
    [[ $(cat victim.txt) == victim ]] || fail "the Parquet rewrite wrote through a planted link"
    [[ -f new.parquet && ! -L new.parquet ]] || fail "new.parquet is not a regular file"
    rm new.parquet.tmp .new.parquet.tmp
    # A full file system (a 256 KiB tmpfs, where we may mount one): a clear error, the old file intact.
    mkdir small
    local mounted=0
    if [[ $EUID -eq 0 ]] && mount -t tmpfs -o size=256k tmpfs small 2>/dev/null; then mounted=1; fi
    if [[ $mounted -eq 1 ]]; then
        "$BB" build --fpr 0.01 --out small/f.bbf keys.txt 2>/dev/null
        cp small/f.bbf old.bbf
        local rc=0
        "$BB" build --fpr 0.01 --n 1000000 --out small/f.bbf keys.txt 2>full.err || rc=$?
        ls -A small >small.list
        umount small
        [[ $rc -eq 1 ]] || fail "a build onto a full file system exited with $rc"
        grep -q "cannot write 'small/f.bbf': No space left on device" full.err || fail "full disk: $(cat full.err)"
        [[ $(cat small.list) == f.bbf ]] || fail "full disk left: $(cat small.list)"
    else
        echo "save_paths: no tmpfs mounted (not root, or not allowed): the full-file-system case is not run"
    fi
    [[ -z $(ls -A | grep -E '^\..*tmp') ]] || fail "temporary files left behind: $(ls -A)"
}

# SIGKILL `build --out F` at random moments: F is always the complete old or the complete new
# filter, never a partial one. A killed writer may leave its temporary file behind; the next
# save of F removes it.
section_save_kill() {
    seq 1 200000 >keys.txt
    "$BB" build --fpr 0.01 --out old.bbf keys.txt 2>/dev/null
    "$BB" build --fpr 0.001 --n 4000000 --out new.bbf keys.txt 2>/dev/null
    local runs=60 old=0 new=0
    for ((i = 0; i < runs; ++i)); do
        cp old.bbf F.bbf
        "$BB" build --fpr 0.001 --n 4000000 --out F.bbf keys.txt 2>/dev/null &
        local pid=$!
        sleep "0.0$(printf '%02d' $((RANDOM % 60)))"
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        if cmp -s F.bbf old.bbf; then
            old=$((old + 1))
        elif cmp -s F.bbf new.bbf; then
            new=$((new + 1))
        else
            fail "after a kill, F.bbf is neither the old nor the new filter (run $i)"
        fi
    done
    "$BB" build --fpr 0.01 --out F.bbf keys.txt 2>/dev/null
    [[ -z $(ls -A | grep -F .F.bbf.tmp-) ]] || fail "a save left killed writers' temporary files: $(ls -A)"
    echo "save_kill: $runs runs killed at random moments: F was the old filter $old times, the new one $new times"
}

# Set algebra and insert on classic and Spark files, which keep their form.
section_classic_algebra() {
    local typing
    seq 1 1000 >a.txt
    seq 501 1500 >b.txt
    seq 1 1500 >ab.txt
    seq 1 500 >common.txt
    for fmt in spark spark-v1 classic; do
        "$BB" build --format $fmt --fpr 0.01 --n 3000 --out a.$fmt a.txt 2>/dev/null
        "$BB" build --format $fmt --fpr 0.01 --n 3000 --out b.$fmt b.txt 2>/dev/null
        "$BB" build --format $fmt --fpr 0.01 --n 3000 --out ab.$fmt ab.txt 2>/dev/null
        "$BB" union a.$fmt b.$fmt --out u.$fmt
        cmp -s u.$fmt ab.$fmt || fail "$fmt union is not the filter of both key sets"
        "$BB" intersect a.$fmt b.$fmt --out i.$fmt
        # Spark's form does not record how keys went in (built per line): --key-type says so.
        typing=()
        [[ $fmt == classic ]] || typing=(--key-type auto)
        [[ $("$BB" query --count "${typing[@]}" i.$fmt b.txt) -ge 500 ]] || fail "$fmt intersection lost common keys"
        cp a.$fmt grown.$fmt
        "$BB" insert "${typing[@]}" grown.$fmt b.txt >/dev/null
        cmp -s grown.$fmt ab.$fmt || fail "insert into a $fmt file differs from building it with all keys"
    done
    [[ $(head -c 4 u.spark | od -An -tx1 | tr -d ' ') == 00000002 ]] || fail "the union of Spark files is not in Spark's form"
    "$BB" build --format spark --fpr 0.01 --n 6000 --out big.spark a.txt 2>/dev/null
    expect_fail 'incompatible' "$BB" union a.spark big.spark --out x.bin
    "$BB" build --fpr 0.01 --n 3000 --out a.bbf a.txt 2>/dev/null
    expect_fail 'one type; these are spark and blocked' "$BB" union a.spark a.bbf --out x.bin
    "$BB" build --format counting --fpr 0.01 --n 3000 --out a.cbf a.txt 2>/dev/null
    expect_fail 'counting filters have no set algebra' "$BB" union a.cbf a.cbf --out x.bin
    expect_fail 'cannot be folded' "$BB" fold a.spark --out x.bin
    [[ ! -e x.bin ]] || fail "a failed command wrote its output"
}

# --key-type: int refuses other lines, string reads decimal lines as strings, auto is the
# per-line rule; --u64 input is integers only.
section_key_type() {
    printf '123\n007\n02134\nabc\n-5\n' >keys.txt
    "$BB" build --fpr 0.01 --key-type string --out s.bbf keys.txt 2>/dev/null
    "$BB" build --fpr 0.01 --key-type auto --out a.bbf keys.txt 2>/dev/null
    cmp -s s.bbf a.bbf && fail "string and auto typing built the same filter"
    [[ $("$BB" query --count --key-type string s.bbf keys.txt) == 5 ]] || fail "string keys lost"
    [[ $("$BB" query --count --key-type auto a.bbf keys.txt) == 5 ]] || fail "auto keys lost"
    printf '7\n123\n' >ints.txt
    [[ $("$BB" query --count --key-type int a.bbf ints.txt) == 2 ]] || fail "007 is the integer 7 under auto"
    [[ $("$BB" query --count --key-type string s.bbf ints.txt) -le 1 ]] || fail "7 found among string keys"
    expect_fail 'line 4 of .keys.txt. is not a decimal integer.*abc' "$BB" build --fpr 0.01 --key-type int --out x.bbf keys.txt
    expect_fail 'line 4 of .keys.txt. is not a decimal integer' "$BB" query --key-type int a.bbf keys.txt
    expect_fail 'expects int, string or auto' "$BB" query --key-type float a.bbf keys.txt
    expect_fail 'does not apply' "$BB" query --key-type string --u64 a.bbf keys.txt
    expect_fail 'is not a decimal integer.*abc' "$BB" join --build keys.txt --probe ints.txt --key-type int
    [[ $("$BB" join --build keys.txt --probe keys.txt --key-type string --count 2>/dev/null) == 5 ]] || fail "join on strings lost rows"
    [[ ! -e x.bbf ]] || fail "a failed command wrote its output"
    # Defaults. build: string (a text line is the same key as Python's or C++'s string), so the
    # default build is the --key-type string one; the file records it and query follows.
    "$BB" build --fpr 0.01 --out d.bbf keys.txt 2>/dev/null
    cmp -s d.bbf s.bbf || fail "build's default typing is not string"
    [[ $("$BB" query --count d.bbf keys.txt 2>q.err) == 5 ]] || fail "the default query missed string keys"
    [[ ! -s q.err ]] || fail "a query of a recorded filter warned: $(cat q.err)"
    [[ $("$BB" query --count a.bbf keys.txt 2>/dev/null) == 5 ]] || fail "a filter of mixed keys lost keys"
    # Spark's form records nothing: build types per line there. A query cannot know how a
    # decimal line went in (issue 45, row 10: a string-built Spark file missed its decimal-looking
    # keys), so it asks for --key-type rather than guess; lines that are no number need nothing.
    "$BB" build --format spark --fpr 0.01 --out k.spark keys.txt 2>/dev/null
    "$BB" build --format spark --fpr 0.01 --key-type auto --out ka.spark keys.txt 2>/dev/null
    cmp -s k.spark ka.spark || fail "Spark filters are not typed per line by default"
    expect_fail "'k.spark' does not record whether its keys are integers or strings, and line 1 of 'keys.txt' is a decimal number: give --key-type int or string" \
        "$BB" query --count k.spark keys.txt
    [[ $("$BB" query --count --key-type auto k.spark keys.txt) == 5 ]] || fail "Spark keys lost"
    "$BB" build --format spark --fpr 0.01 --key-type string --out ks.spark keys.txt 2>/dev/null
    expect_fail 'line 1 of .keys.txt. is a decimal number: give --key-type' "$BB" query --count ks.spark keys.txt
    [[ $("$BB" query --count --key-type string ks.spark keys.txt) == 5 ]] || fail "string Spark keys lost"
    printf 'abc\nzzz-not-there\n' >words.txt
    [[ $("$BB" query --count ks.spark words.txt) == 1 ]] || fail "a Spark query of words needed --key-type"
    seq 1 500 >ints500.txt
    "$BB" build --format spark --fpr 0.01 --key-type int --out ki.spark ints500.txt 2>/dev/null
    [[ $("$BB" query --count --key-type int ki.spark ints500.txt) == 500 ]] || fail "integer Spark keys lost"
    expect_fail 'line 1 of .ints500.txt. is a decimal number' "$BB" query --count ki.spark ints500.txt
    # A filter that holds both kinds (strings, then integers inserted): a decimal line is
    # probed as either, so it is found however it went in; erase asks which.
    printf '42\n' >42.txt
    cp d.bbf both.bbf
    "$BB" insert --key-type int both.bbf 42.txt >/dev/null
    printf '123\n42\nabc\n' >q3.txt
    [[ $("$BB" query --count both.bbf q3.txt) == 3 ]] || fail "a filter of both kinds missed keys"
    "$BB" build --format counting --fpr 0.01 --out c.bbf keys.txt 2>/dev/null
    "$BB" insert --key-type int c.bbf 42.txt >/dev/null
    expect_fail 'holds both integer and string keys: give --key-type' "$BB" erase c.bbf 42.txt
    # Asking for keys of a kind the filter never took: said, not silently "absent".
    printf '\x7b\0\0\0\0\0\0\0' >123.u64
    [[ $("$BB" query --count --u64 d.bbf 123.u64 2>q.err) == 0 ]] || fail "an integer found among strings"
    expect_contains q.err "holds only byte-string keys; integer keys are never found in it"
    # Files written before the record cannot tell either: --key-type, as for Spark's form.
    expect_fail 'does not record whether its keys are integers or strings.*give --key-type' \
        "$BB" query --count "$DATA/golden/blocked_line512.bbf" <(seq 0 7919 15838)
    [[ $("$BB" query --count --key-type int "$DATA/golden/blocked_line512.bbf" <(seq 0 7919 15838)) == 3 ]] ||
        fail "an old file's integer keys were not found"
}

# Issue 45, row 11: FILE was opened once to tell its kind and again to load it, so a pipe, a
# process substitution or a FIFO lost its first bytes (or blocked). Every form loads from each.
section_pipes() {
    seq 1 3000 >keys.txt
    "$BB" build --fpr 0.01 --key-type int --out blocked.bbf keys.txt 2>/dev/null
    "$BB" build --fpr 0.01 --key-type int --zstd 3 --out zstd.bbf keys.txt 2>/dev/null
    local f
    for f in counting deletable scalable classic spark; do
        "$BB" build --format $f --fpr 0.01 --key-type int --out $f.bbf keys.txt 2>/dev/null
    done
    for f in blocked zstd counting deletable scalable classic spark; do
        [[ $(cat $f.bbf | "$BB" query --count --key-type int /dev/stdin keys.txt) == 3000 ]] || fail "$f from a pipe"
        [[ $("$BB" query --count --key-type int <(cat $f.bbf) keys.txt) == 3000 ]] || fail "$f from <(...)"
        "$BB" info <(cat $f.bbf) >info.out || fail "info of $f from <(...)"
        "$BB" info $f.bbf | tail -n +2 >file.info
        tail -n +2 info.out | cmp -s - file.info || fail "info of $f differs from a pipe: $(cat info.out)"
        rm -f fifo && mkfifo fifo
        cat $f.bbf >fifo &
        [[ $(timeout 20 "$BB" query --count --key-type int fifo keys.txt) == 3000 ]] || fail "$f from a FIFO"
        wait
    done
    # What a file refuses, a pipe refuses alike, and says why.
    expect_fail 'trailing data' bash -c "cat blocked.bbf blocked.bbf | '$BB' query --key-type int /dev/stdin keys.txt"
    expect_fail 'truncated' bash -c "head -c 1000 zstd.bbf | '$BB' query --key-type int /dev/stdin keys.txt"
    expect_fail 'not a filter of any kind' bash -c "seq 1 100 | '$BB' info /dev/stdin"
}

# Builds say when the keys overfill --n; with --n they stream; a progress line only on a terminal.
section_honest_build() {
    seq 1 20000 >ints.txt
    "$BB" build --fpr 0.01 --n 100 --out o.bbf ints.txt 2>o.err
    expect_contains o.err 'warning: more distinct keys than it can count \(20000 keys read\) for a filter sized for --n 100: its FPR at this fill is'
    "$BB" build --fpr 0.01 --n 10000 --out e.bbf ints.txt 2>e.err
    expect_contains e.err 'warning: about (19|20|21)[0-9]{3} distinct keys for a filter sized for --n 10000: its FPR at this fill is'
    "$BB" build --format counting --fpr 0.01 --n 100 --out c.bbf ints.txt 2>c.err
    expect_contains c.err 'warning: 20000 distinct keys for a filter sized for --n 100'
    "$BB" build --fpr 0.01 --n 20000 --out ok.bbf ints.txt 2>ok.err
    grep -q warning ok.err && fail "a build within --n warned: $(cat ok.err)"
    "$BB" build --fpr 0.01 --out held.bbf ints.txt 2>/dev/null
    cmp -s ok.bbf held.bbf || fail "the streamed build differs from the held one"
    "$BB" build --fpr 0.01 --n 100 --quiet --out q.bbf ints.txt 2>q.err
    grep -q 'wrote' q.err && fail "--quiet printed the summary"
    expect_contains q.err 'warning'
    grep -q $'\r' o.err && fail "a progress line went to a file"
    if command -v script >/dev/null; then
        seq 1 300000 >big.txt
        script -qfec "'$BB' build --fpr 0.01 --n 300000 --out big.bbf big.txt" /dev/null >tty.out
        grep -qa 'keys/s' tty.out || fail "no progress line on a terminal"
        grep -qa 'ETA' tty.out || fail "no ETA for an input of known size"
        script -qfec "'$BB' build --quiet --fpr 0.01 --n 300000 --out big.bbf big.txt" /dev/null >quiet.out
        grep -qa 'keys/s' quiet.out && fail "--quiet printed a progress line"
        script -qfec "'$BB' query --count big.bbf big.txt" /dev/null >query.out
        grep -qa 'keys/s' query.out || fail "no progress line for query"
    fi
    true
}

# Eight inserts into one file at once, each with keys of its own (half of them through a
# symbolic link to it): they take turns on the file's lock, so afterwards every key of every set
# is in the filter, and nothing else was left in the directory.
section_concurrent_insert() {
    seq 1 1000 >base.txt
    "$BB" build --fpr 0.01 --n 2000000 --out shared.bbf base.txt 2>/dev/null
    ln -s shared.bbf link.bbf
    local t pids=()
    for ((t = 0; t < 8; ++t)); do seq $((1000000 * (t + 1))) $((1000000 * (t + 1) + 99999)) >k$t.txt; done
    for ((t = 0; t < 8; ++t)); do
        local name=shared.bbf
        [[ $((t % 2)) -eq 1 ]] && name=link.bbf
        "$BB" insert $name k$t.txt >insert$t.out 2>insert$t.err &
        pids+=($!)
    done
    for ((t = 0; t < 8; ++t)); do
        wait "${pids[$t]}" || fail "insert $t failed: $(cat insert$t.err)"
        expect_contains insert$t.out '^inserted 100000 keys$'
    done
    for ((t = 0; t < 8; ++t)); do
        local found
        found=$("$BB" query shared.bbf k$t.txt --count)
        [[ $found == 100000 ]] || fail "after 8 concurrent inserts, key set $t finds $found of 100000 keys"
    done
    [[ $("$BB" query shared.bbf base.txt --count) == 1000 ]] || fail "the keys built into the file went missing"
    [[ -L link.bbf ]] || fail "an insert through the link replaced it"
    [[ -z $(ls -A | grep -F .tmp-) ]] || fail "temporary files left behind: $(ls -A)"
    # A second name (hard link) for the file: a save would split the names into two files, so
    # every rewrite through either name is refused and the file stays one, unchanged.
    ln shared.bbf hard.bbf
    cp shared.bbf before.bbf
    expect_fail 'hard links' "$BB" insert hard.bbf k0.txt
    expect_fail 'hard links' "$BB" insert shared.bbf k0.txt
    cmp -s shared.bbf before.bbf || fail "a refused insert changed the file"
    [[ $(stat -c %i shared.bbf) == $(stat -c %i hard.bbf) ]] || fail "the hard link was split"
}

# Every number a command takes is checked or safely capped, with a message naming the option;
# no count of threads, keys or bytes crashes, overflows or drops rows.
section_limits() {
    seq 1 2000 >jb.txt
    local t
    for t in 1025 100000 4294967295 18446744073709551615; do
        expect_fail 'threads must be in \[0, 1024\]' "$BB" join --build jb.txt --probe jb.txt --count --threads $t
        expect_fail 'threads must be in \[0, 1024\]' "$BB" bench --keys 1000 --threads $t
        expect_fail 'threads must be in \[0, 1024\]' "$BB" parquet add "$DATA/pyarrow_bloom.parquet" --column i64 \
            --threads $t --out o.parquet
    done
    expect_fail 'threads' "$BB" join --build jb.txt --probe jb.txt --count --threads 18446744073709551616
    expect_fail 'threads' "$BB" join --build jb.txt --probe jb.txt --count --threads -1
    [[ $("$BB" join --build jb.txt --probe jb.txt --count --threads 1024) == 2000 ]] || fail "join on 1024 threads"
    [[ $("$BB" join --build jb.txt --probe jb.txt --count --threads 0) == 2000 ]] || fail "join on every core"
    # Under an address-space limit (containers, batch schedulers) 1024 threads' stacks do not
    # fit: the call runs on the threads it can start, never ends the process.
    # (A sanitizer build cannot start under such a limit at all: its shadow memory is larger.)
    if (ulimit -v 4000000; "$BB" --help >/dev/null 2>&1) 2>/dev/null; then
        [[ $(ulimit -v 4000000; "$BB" join --build jb.txt --probe jb.txt --count --threads 1024) == 2000 ]] ||
            fail "join on 1024 threads under ulimit -v"
    fi

    # An empty build side holds no key: 0 distinct, nothing survives, no FPR.
    : >empty.txt
    "$BB" join --build empty.txt --probe jb.txt --count >j0.out 2>j0.err
    [[ $(cat j0.out) == 0 ]] || fail "an empty build side let rows through: $(cat j0.out)"
    expect_contains j0.err '0 build keys \(0 distinct\), 2000 probe rows, 0 survive.*predicted FPR 0$'

    # A scalable filter's --fpr is the whole filter's bound, as Python's fpr=: built at once
    # from keys its build deduplicates by hash (hash-ordered stages once measured 41.8%), or by
    # one build and nine insert runs, it measures at or below 1% (the first stage's rate, as
    # --fpr was read before, left the whole at 3.1% and 4.3%).
    seq 1 100000 >k.txt
    "$BB" build --fpr 0.01 --n 1000 --format scalable --quiet --out s.bbf k.txt
    local fp
    fp=$(seq 200001 300000 | "$BB" query s.bbf - --count)
    ((fp <= 900)) || fail "scalable build: $fp of 100000 absent keys pass (bound 1000)"
    seq 1 10000 | "$BB" build --fpr 0.01 --n 1000 --format scalable --quiet --out s10.bbf
    for i in 1 2 3 4 5 6 7 8 9; do seq $((i * 10000 + 1)) $((i * 10000 + 10000)) | "$BB" insert s10.bbf - >/dev/null; done
    fp=$(seq 200001 300000 | "$BB" query s10.bbf - --count)
    ((fp <= 900)) || fail "scalable build + 9 inserts: $fp of 100000 absent keys pass (bound 1000)"
    "$BB" info s10.bbf >info_s10.out
    expect_contains info_s10.out 'bound at any size 1\.000e-02'
    "$BB" build --help >build_help.out 2>&1 || true
    expect_contains build_help.out "--fpr the whole filter's bound"

    # A filter too full to count its keys says so rather than estimate a quarter of them.
    "$BB" build --fpr 0.01 --n 1 --out b.bbf k.txt 2>b.err
    expect_contains b.err 'more distinct keys than it can count \(100000 keys read\)'

    # Sizes and rates.
    local v
    for v in 0 1 -0.5 nan inf 2 1e400; do
        expect_fail 'fpr' "$BB" build --fpr $v --out x.bbf k.txt
    done
    expect_fail 'need more than 2\^32 - 1 blocks' "$BB" build --fpr 1e-200 --out x.bbf k.txt
    expect_fail 'need more than 2\^32 - 1 blocks' "$BB" size --n 18446744073709551615 --fpr 0.01
    expect_fail 'n must be at least 1' "$BB" build --fpr 0.01 --n 0 --out x.bbf k.txt
    expect_fail 'n' "$BB" build --fpr 0.01 --n 18446744073709551616 --out x.bbf k.txt
    expect_fail 'zstd' "$BB" build --fpr 0.01 --zstd 23 --out x.bbf k.txt
    expect_fail 'seed' "$BB" build --fpr 0.01 --hash murmur3 --seed 4294967296 --out x.bbf k.txt
    expect_fail 'seed' "$BB" build --fpr 0.01 --seed 18446744073709551616 --out x.bbf k.txt
    expect_fail 'seed' "$BB" build --fpr 0.01 --seed -1 --out x.bbf k.txt
    for v in 0 -1 nan 1e300; do
        expect_fail 'bits.per.key|bits/key' "$BB" build --bits-per-key $v --out x.bbf k.txt
    done
    expect_fail 'zstd' "$BB" build --fpr 0.01 --zstd 0 --out x.bbf k.txt
    expect_fail 'zstd' "$BB" build --fpr 0.01 --zstd -1 --out x.bbf k.txt
    for v in 0.5 nan; do
        expect_fail 'growth' "$BB" build --fpr 0.01 --format scalable --growth $v --out x.bbf k.txt
    done
    for v in 0 1; do
        expect_fail 'tightening' "$BB" build --fpr 0.01 --format scalable --tightening $v --out x.bbf k.txt
    done
    for v in 0 3 1024; do
        expect_fail 'bits per region' "$BB" build --fpr 0.01 --format deletable --region-bits $v --out x.bbf k.txt
    done
    expect_fail 'n must be at least 1' "$BB" size --n 0 --fpr 0.01
    expect_fail 'fpr' "$BB" join --build jb.txt --probe jb.txt --fpr 0
    [[ ! -e x.bbf ]] || fail "a refused build wrote its output"

    # Parquet: no filter sized for no value; an FPR past what a Parquet filter can hold is
    # capped at the writers' largest filter, and says so.
    local pq="$DATA/pyarrow_bloom.parquet"
    expect_fail 'ndv must be at least 1' "$BB" parquet add "$pq" --column i64 --replace --ndv 0 --out o.parquet
    "$BB" parquet add "$pq" --column i64 --replace --fpr 1e-200 --out o.parquet >o.out 2>o.err
    expect_contains o.out '^0	i64	2048	2048	134217728	'
    expect_contains o.err 'warning: 2 filter\(s\) hold the most a Parquet filter may \(134217728 bytes\)'
}

all_sections=(size build_query u64 stdin info fpr rebuild errors bench algebra join parquet blocked_layout classic zstd
              save_paths save_kill classic_algebra key_type honest_build concurrent_insert limits pipes)
sections=("$@")
[[ ${#sections[@]} -gt 0 ]] || sections=("${all_sections[@]}")
for s in "${sections[@]}"; do
    declare -F "section_$s" >/dev/null || fail "unknown section '$s'"
    mkdir -p "$SCRATCH/$s"
    cd "$SCRATCH/$s"
    "section_$s"
    cd "$SCRATCH"
    echo "ok: $s"
done
