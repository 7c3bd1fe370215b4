#!/usr/bin/env bash
# benchmarks/erasure_checks.sh -- what the rewrite drivers' erasure checks
# (23.1.1; greedy: patch 25, walk: 28, dialect conversion: 29) cost on parse +
# rewrite (greedy: canonicalize; walk and conversion, one-shot and with
# rollback: a pattern replacing a third of the ops), in instructions counted
# by callgrind inside `weakref_workload` (benchmarks/ErasureCheckWorkload.cpp),
# all binaries of one build run side by side:
#   off / before   the driver with the checks off, over the driver before its
#                  patch (target <= 1.001)
#   on / off       the checks on, over off (target <= 2, at 100k ops)
#   on / expensive the checks on, over the driver built with
#                  MLIR_ENABLE_EXPENSIVE_PATTERN_API_CHECKS (checks off)
# The expensive checks fingerprint the whole scope around every pattern
# application (quadratic): they are measured at 1,000 ops only.
#
#   benchmarks/erasure_checks.sh [BUILD_DIR] [N...]   (default build/, 1000 10000 100000)
#   DRIVERS="walk conversion" benchmarks/erasure_checks.sh ...   (default: all)
# The Transform interpreter's payload check (patch 27) runs under its
# expensive checks, with the context's erasure checks: its table compares the
# script with no checks, with the expensive checks (before patch 27, and
# patched with the erasure checks off), and with both.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$ROOT/build}
shift || true
SIZES=("$@")
((${#SIZES[@]})) || SIZES=(1000 10000 100000)
BIN=$BUILD/bin
for b in weakref-erasure-workload{,-before,-expensive}; do
  [[ -x $BIN/$b ]] || { echo "erasure_checks.sh: error: $BIN/$b not built (a 23.1.1 build with patch 25: ./setup.sh)" >&2; exit 1; }
done
# count, ratio
source "$ROOT/benchmarks/workload_counts.sh"
read -ra drivers <<<"${DRIVERS:-greedy walk conversion conversion-rollback transform}"
transform=0
for i in "${!drivers[@]}"; do
  [[ ${drivers[i]} == transform ]] && { transform=1; unset 'drivers[i]'; }
done
printf '| driver | ops | before | off | on | expensive | off / before | on / off | on / expensive |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for d in "${drivers[@]}"; do
  for n in "${SIZES[@]}"; do
    before=$(count "$BIN/weakref-erasure-workload-before" off "$n" "$d")
    off=$(count "$BIN/weakref-erasure-workload" off "$n" "$d")
    on=$(count "$BIN/weakref-erasure-workload" on "$n" "$d")
    if ((n <= 1000)); then
      expensive=$(count "$BIN/weakref-erasure-workload-expensive" off "$n" "$d")
      e_ratio=$(ratio "$on" "$expensive")
    else
      expensive="(not run)" e_ratio="-"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$d" "$n" "$before" "$off" \
      "$on" "$expensive" "$(ratio "$off" "$before")" "$(ratio "$on" "$off")" "$e_ratio"
  done
done
((transform)) || exit 0
printf '\n| transform | ops | no checks | expensive, before 28 | expensive | expensive + erasure checks | expensive: patched / before | erasure checks: both / expensive |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for n in "${SIZES[@]}"; do
  off=$(count "$BIN/weakref-erasure-workload" off "$n" transform)
  before=$(count "$BIN/weakref-erasure-workload-before" expensive "$n" transform)
  expensive=$(count "$BIN/weakref-erasure-workload" expensive "$n" transform)
  on=$(count "$BIN/weakref-erasure-workload" on "$n" transform)
  printf '| transform | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$off" "$before" \
    "$expensive" "$on" "$(ratio "$expensive" "$before")" "$(ratio "$on" "$expensive")"
done
