#!/usr/bin/env bash
# Compiler launcher of the batchbloom_ptxas_report target (tests/cuda/CMakeLists.txt), which
# compiles the CUDA engine's kernel files with --resource-usage.
# Usage: ptxas_capture.sh REPORT_DIR COMPILER ARGS...
# Runs the compile command; the ptxas resource report it prints (registers, stack frame,
# spills, per kernel and architecture) goes to REPORT_DIR/<object name>.txt for the
# cuda.ptxas_report test, and everything else the compiler prints passes through.
set -u
report_dir=$1
shift
object=""
prev=""
for arg in "$@"; do
    [[ $prev == "-o" ]] && object=$arg
    prev=$arg
done
log=$(mktemp)
"$@" >"$log" 2>&1
rc=$?
report='^ptxas info|^ +[0-9]+ bytes stack frame'
if [[ $rc == 0 && -n $object ]]; then
    mkdir -p "$report_dir"
    grep -E "$report" "$log" >"$report_dir/$(basename "$object").txt"
fi
grep -vE "$report" "$log" >&2
rm -f "$log"
exit "$rc"
