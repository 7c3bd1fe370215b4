# benchmarks/workload_counts.sh -- sourced by the scripts that compare
# workload binaries in instructions (erasure_checks.sh, solver_liveness.sh,
# analysis_caches.sh).
# `count BINARY ARGS...` prints the instructions callgrind counts inside
# `weakref_workload`; `ratio A B` prints A / B to four places.
command -v valgrind >/dev/null || { echo "${0##*/}: error: valgrind not installed" >&2; exit 1; }
count() { # binary args...
  local out
  out=$(valgrind --tool=callgrind --toggle-collect=weakref_workload \
    --callgrind-out-file=/dev/null "$@" 2>&1) || { echo "$out" >&2; return 1; }
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out"
}
ratio() { python3 -c "print(f'{$1/$2:.4f}')"; }
