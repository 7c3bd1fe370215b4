#!/usr/bin/env bash
# benchmarks/solver_liveness.sh -- what the data-flow solver's anchor liveness
# tracking (23.1.1 series, DataFlowConfig::setTrackAnchorLiveness) costs, in
# instructions counted by callgrind inside `weakref_workload`
# (benchmarks/SolverWorkload.cpp; parsing is outside), the patched and the
# unpatched build's binaries run side by side:
#   solver   dead code + constant propagation + integer ranges over a function
#            of N ops, then every value's range looked up: unpatched, patched
#            with tracking off, and on
#   pass     int-range-optimizations over the same function as each build has
#            it: unpatched (folding and region simplification off) and
#            patched (both on, the solver tracking)
#
#   benchmarks/solver_liveness.sh [PATCHED_BUILD [BASELINE_BUILD]] [N...]
#   (default: the release builds build-noassert and build-baseline-noassert,
#   sizes 1000 10000 100000)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# count, ratio, builds_and_sizes, require_built
source "$ROOT/benchmarks/workload_counts.sh"
builds_and_sizes 1000 10000 100000 -- "$@"
require_built bin/weakref-solver-workload
"$PATCHED/bin/weakref-solver-workload" on 6 2>/dev/null || {
  echo "solver_liveness.sh: error: $PATCHED is not a build against the patched tree (its workload has no 'on')" >&2
  exit 1
}
printf '| ops | solver unpatched | off | on | off / unpatched | on / off | pass unpatched | pass patched | patched / unpatched |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for n in "${SIZES[@]}"; do
  base=$(count "$BASELINE/bin/weakref-solver-workload" off "$n")
  off=$(count "$PATCHED/bin/weakref-solver-workload" off "$n")
  on=$(count "$PATCHED/bin/weakref-solver-workload" on "$n")
  pbase=$(count "$BASELINE/bin/weakref-solver-workload" pass "$n")
  ppatched=$(count "$PATCHED/bin/weakref-solver-workload" pass "$n")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$base" "$off" "$on" \
    "$(ratio "$off" "$base")" "$(ratio "$on" "$off")" "$pbase" "$ppatched" "$(ratio "$ppatched" "$pbase")"
done
