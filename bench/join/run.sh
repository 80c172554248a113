#!/usr/bin/env bash
# The Bloom-join benchmark, end to end: TPC-H data from DuckDB's generator, the C++ joins
# (hash join, and hash join behind a batchbloom JoinFilter on every engine), DuckDB on the
# same rows, then a Markdown table and a plot.
#
#   bench/join/run.sh [SF]          (default SF 1; run from anywhere)
#
# Environment: BUILD_DIR (default build-joinbench), DATA_DIR (default out/join), REPS (41: two-thread
# joins of 10-150 ms on a shared VM move by a tenth from one run to the next, even beside each
# other, so that a row's median of 21 moved by up to 5%),
# THREADS (0 = every core), PYTHON (a Python with duckdb, numpy, pyarrow and matplotlib; default
# .venv/bin/python if it exists, else python3). Generated data and results go under DATA_DIR,
# which is git-ignored. Needs PyPI the first time (duckdb 1.5.5 and its tpch extension wheel,
# installed into BUILD_DIR/tpch-venv: the PyPI extension wheels stop at 1.5.5, and an extension
# loads only into the DuckDB version it was built for).
set -euo pipefail
cd "$(dirname "$0")/../.."
SF=${1:-1}
BUILD_DIR=${BUILD_DIR:-build-joinbench}
DATA_DIR=${DATA_DIR:-out/join}
REPS=${REPS:-41}
THREADS=${THREADS:-0}
if [[ -z ${PYTHON:-} ]]; then
    if [[ -x .venv/bin/python ]]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
TPCH_DUCKDB=1.5.5

echo "== build"
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBATCHBLOOM_BUILD_BENCH=ON >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)" --target batchbloom_join_bench

data="$DATA_DIR/sf$SF"
if [[ ! -f $data/manifest.json ]]; then
    echo "== TPC-H SF $SF (DuckDB $TPCH_DUCKDB dbgen)"
    gen="$BUILD_DIR/tpch-venv"
    if [[ ! -x $gen/bin/python ]]; then
        python3 -m venv "$gen"
        "$gen/bin/pip" install -q "duckdb==$TPCH_DUCKDB" "duckdb-extension-tpch==$TPCH_DUCKDB" numpy
    fi
    "$gen/bin/python" bench/join/gen_data.py --sf "$SF" --out "$DATA_DIR"
fi

# The DuckDB and report steps need duckdb, matplotlib, numpy and pyarrow: installed into PYTHON's
# environment if missing (a virtual environment of its own when PYTHON is the system's python3).
if ! "$PYTHON" -c "import duckdb, matplotlib, numpy, pyarrow" 2>/dev/null; then
    if [[ $PYTHON == python3 ]]; then
        python3 -m venv "$BUILD_DIR/bench-venv"
        PYTHON=$BUILD_DIR/bench-venv/bin/python
    fi
    echo "== installing duckdb, matplotlib, numpy, pyarrow for $PYTHON"
    "$PYTHON" -m pip install -q duckdb matplotlib numpy pyarrow
fi

echo "== C++: hash join and Bloom join"
"$BUILD_DIR/bench/join/batchbloom_join_bench" "$data" --reps "$REPS" --threads "$THREADS" --json "$data/cpp.json"
echo "== DuckDB"
threads=$THREADS
[[ $threads -gt 0 ]] || threads=$(nproc)
"$PYTHON" bench/join/duckdb_join.py "$data" --reps "$REPS" --threads "$threads" --json "$data/duckdb.json" \
    --plans "$data/duckdb_plans.txt"
if "$PYTHON" -c "import batchbloom.duckdb" 2>/dev/null; then
    echo "== DuckDB with a batchbloom SQL function (batchbloom.duckdb)"
    "$PYTHON" bench/join/duckdb_udf.py "$data" --reps "$REPS" --threads "$threads" --json "$data/duckdb_udf.json"
fi
echo "== report"
"$PYTHON" bench/join/report.py "$data/cpp.json" "$data/duckdb.json" --manifest "$data/manifest.json" \
    --markdown "$data/results.md" --plot "$data/results.png" --machine "$data/machine.json"
echo "written: $data/results.md, $data/results.png (DuckDB plans: $data/duckdb_plans.txt)"
