#!/usr/bin/env bash
# Everything that needs a GPU, in one run: the CUDA tests (the device API and Backend::cuda
# through Filter, JoinFilter and the registry), then the CUDA benchmark and the engines through
# Filter. Built elsewhere (a GPU machine need not have the Debian -dev packages): pass the build
# tree, and put the shared libraries the binaries need on LD_LIBRARY_PATH.
#
#   bench/cuda/device_run.sh BUILD_DIR LOG_DIR
#
# Logs go to LOG_DIR (tests.log, cuda_bench.txt, filter_bench.txt); the last lines printed
# are a summary. Exit status: non-zero if a test failed.
set -uo pipefail
build=${1:?usage: device_run.sh BUILD_DIR LOG_DIR}
logs=${2:?usage: device_run.sh BUILD_DIR LOG_DIR}
mkdir -p "$logs"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader | tee "$logs/gpu.txt"
lscpu | grep -E '^Model name|^CPU\(s\)' | tee -a "$logs/gpu.txt"

status=0
{
    "$build/tests/cuda/batchbloom_cuda_tests" --gtest_brief=1 || status=1
    # The tests of the main suite that take another branch where a CUDA device is present.
    "$build/tests/batchbloom_tests" --gtest_brief=1 \
        --gtest_filter='*Registry*:*Backend*:*Cuda*:*CUDA*:*Join*:Filter*' || status=1
} > "$logs/tests.log" 2>&1
grep -E '^\[  (PASSED|FAILED) |^\[  SKIPPED' "$logs/tests.log"

timeout 300 "$build/bench/cuda/batchbloom_cuda_bench" --repeat 5 > "$logs/cuda_bench.txt" 2>&1 ||
    echo "cuda bench: exit $?"
timeout 120 "$build/tools/batchbloom" bench --keys 10M --backend all --threads 1,0 --repeat 5 \
    > "$logs/filter_bench.txt" 2>&1 || echo "filter bench: exit $?"
tail -n 60 "$logs/cuda_bench.txt"
tail -n 25 "$logs/filter_bench.txt"
exit $status
