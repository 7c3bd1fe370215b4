# benchmarks/workload_counts.sh -- sourced by the scripts that compare
# workload binaries in instructions (erasure_checks.sh, solver_liveness.sh,
# analysis_caches.sh).
# `builds_and_sizes DEFAULT_SIZES... -- [PATCHED_BUILD [BASELINE_BUILD]] [N...]`
# sets PATCHED and BASELINE (default: the release builds build-noassert and
# build-baseline-noassert) and SIZES (default: DEFAULT_SIZES).
# `require_built BINARY` exits unless both builds have BINARY (a path in
# the build directory).
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
builds_and_sizes() {
  local defaults=()
  while [[ $1 != -- ]]; do defaults+=("$1"); shift; done
  shift
  PATCHED=${1:-$ROOT/build-noassert}
  BASELINE=${2:-$ROOT/build-baseline-noassert}
  shift 2 || shift $# || true
  SIZES=("$@")
  ((${#SIZES[@]})) || SIZES=("${defaults[@]}")
}
require_built() { # binary, relative to the build directories
  local b
  for b in "$PATCHED" "$BASELINE"; do
    [[ -x $b/$1 ]] || {
      echo "${0##*/}: error: $b/$1 not built (a 23.1.1 project build: ASSERTIONS=OFF ./setup.sh [--baseline] --no-demo)" >&2
      exit 1
    }
  done
}
