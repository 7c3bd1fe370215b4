#!/usr/bin/env bash
# benchmarks/run.sh -- every benchmark of this project, from one command.
# Builds the patched and the baseline trees (cached), with and without LLVM's
# assertions, then prints each ratio, in both builds, next to its target.
# Results go to bench-results/llvm-<release>/: the raw measurements (one
# folder per build flavour), report.md (the table, the memory curve and where
# the added instructions are) and chart.png (each result against its target).
#
#   [LLVM_VERSION=19.1.7] benchmarks/run.sh [--quick] [--readme] [--no-setup]
#                                           [--flavor assertions|release]
#     --quick    fewer ops and repetitions
#     --no-setup measure the trees as they are (no setup.sh run)
#     --flavor   measure one build flavour only (default: both)
#     --readme   also put the table into docs/BENCHMARKS.md (between its
#                benchmark-table markers) and the chart into docs/
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
QUICK=0
README=0
SETUP=1
FLAVORS=(assertions release)
while (($#)); do
  arg=$1
  shift
  case $arg in
  --flavor)
    [[ ${1:-} == assertions || ${1:-} == release ]] || { echo "run.sh: error: --flavor takes assertions or release" >&2; exit 2; }
    FLAVORS=("$1")
    shift
    ;;
  --quick) QUICK=1 ;;
  --no-setup) SETUP=0 ;;
  --readme) README=1 ;;
  *) echo "run.sh: error: unknown option '$arg'" >&2; exit 2 ;;
  esac
done
# One release per run (LLVM_VERSION, default 23.1.1), each with its results.
RELEASE=${LLVM_VERSION:-23.1.1}
export LLVM_VERSION=$RELEASE
OUT=$ROOT/bench-results/llvm-$RELEASE
mkdir -p "$OUT"

# The chart needs Debian's matplotlib (not a set-up dependency).
if ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "installing python3-matplotlib (for the chart)"
  [[ $(id -u) == 0 ]] || { echo "run.sh: error: python3-matplotlib missing; run as root or install it" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null
fi

count_instructions() { # profile binary args...
  local profile=$1
  shift
  valgrind --tool=callgrind --toggle-collect=weakref_workload \
    --callgrind-out-file="$profile" "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
N_CREATE=1000000
N_CANON=100000
((QUICK)) && N_CREATE=100000 && N_CANON=20000
reps=5
((QUICK)) && reps=2
# Each flavour of the trees: with LLVM's assertions (the trees the tests use)
# and without them (LLVM_ENABLE_ASSERTIONS=OFF, as distributions ship LLVM).
# Every measurement is taken in both, patched next to baseline.
declare -A FLAVOR_ASSERTIONS=([assertions]=ON [release]=OFF)
measure() { # flavour
  local flavor=$1 FOUT=$OUT/$1
  export ASSERTIONS=${FLAVOR_ASSERTIONS[$flavor]}
  mkdir -p "$FOUT"
  echo "== $flavor build (LLVM_ENABLE_ASSERTIONS=$ASSERTIONS) =="
  if ((SETUP)); then
    "$ROOT/setup.sh" --no-demo >"$FOUT/setup-patched.log" 2>&1 || { tail -20 "$FOUT/setup-patched.log"; exit 1; }
    "$ROOT/setup.sh" --no-demo --baseline >"$FOUT/setup-baseline.log" 2>&1 || { tail -20 "$FOUT/setup-baseline.log"; exit 1; }
  fi
  local PATCHED BASELINE
  PATCHED=$("$ROOT/setup.sh" --print-build-dir)
  BASELINE=$("$ROOT/setup.sh" --baseline --print-build-dir)
  [[ -x $PATCHED/bin/weakref-workload && -x $BASELINE/bin/weakref-workload ]] ||
    { echo "run.sh: error: no $flavor builds ($PATCHED, $BASELINE); run without --no-setup" >&2; exit 1; }

  # Zero cost when unused: instructions executed inside weakref_workload(),
  # counted by callgrind (deterministic; perf counters are not available on
  # every machine here). The profiles are kept: report.py shows, function by
  # function, where the added instructions are.
  echo "counting instructions with callgrind (patched vs baseline, same flags)..."
  rm -f "$FOUT"/callgrind-*.out
  local w b p
  for w in "create-erase $N_CREATE" "create-erase-arith $N_CREATE" "canonicalize $N_CANON"; do
    # shellcheck disable=SC2086
    b=$(count_instructions "$FOUT/callgrind-${w%% *}-baseline.out" "$BASELINE/bin/weakref-workload" $w)
    # shellcheck disable=SC2086
    p=$(count_instructions "$FOUT/callgrind-${w%% *}-patched.out" "$PATCHED/bin/weakref-workload" $w)
    echo "$w $b $p"
  done >"$FOUT/instructions.txt"

  # Heap layout control for parse + canonicalize (alloc_layout.cpp): the
  # allocation sizes the patch changes (Block and block arguments, 8 bytes
  # larger) are found from both builds' histograms; then the baseline is
  # counted again with those requests made 8 bytes larger, next to both
  # binaries under the same preload.
  echo "counting the heap layout control (baseline with the patched build's allocation sizes)..."
  local lib=$FOUT/alloc_layout.so grow run dir sizes count
  c++ -O2 -shared -fPIC -o "$lib" "$ROOT/benchmarks/alloc_layout.cpp"
  ALLOC_HISTOGRAM=$FOUT/alloc-baseline.txt LD_PRELOAD=$lib "$BASELINE/bin/weakref-workload" canonicalize "$N_CANON"
  ALLOC_HISTOGRAM=$FOUT/alloc-patched.txt LD_PRELOAD=$lib "$PATCHED/bin/weakref-workload" canonicalize "$N_CANON"
  grow=$(/usr/bin/python3 "$ROOT/benchmarks/report.py" --grown-sizes "$FOUT/alloc-baseline.txt" "$FOUT/alloc-patched.txt")
  {
    printf 'canonicalize %s %s' "$N_CANON" "${grow:-none}"
    for run in baseline grown patched; do
      dir=$BASELINE sizes=
      [[ $run == grown ]] && sizes=$grow
      [[ $run == patched ]] && dir=$PATCHED
      count=$(ALLOC_GROW=$sizes LD_PRELOAD=$lib count_instructions \
        "$FOUT/callgrind-layout-$run.out" "$dir/bin/weakref-workload" canonicalize "$N_CANON")
      [[ $count =~ ^[0-9]+$ ]] || { echo "run.sh: error: no instruction count for the $run layout run" >&2; exit 1; }
      printf ' %s' "$count"
    done
    echo
  } >"$FOUT/layout.txt"

  local bench filter n
  for bench in core core-ir extension; do
    echo "running weakref-$bench-bench (Google Benchmark, $reps repetitions, interleaved)..."
    filter=()
    [[ $bench == core-ir ]] && filter=(--benchmark_filter=-BM_MemoryPerReferencedOp)
    "$PATCHED/bin/weakref-$bench-bench" --benchmark_repetitions=$reps \
      --benchmark_min_time=0.2 \
      --benchmark_enable_random_interleaving=true "${filter[@]}" \
      --benchmark_out="$FOUT/$bench.json" --benchmark_out_format=json >/dev/null
  done
  # Memory per referenced op: each size in a process of its own. In a process
  # that made references before, new ones reuse the memory freed blocks and a
  # grown table left behind and the heap barely grows (an undercount).
  # Again with glibc's per-thread cache off: a map that grows frees its old
  # bucket array, and mallinfo2 counts a chunk in that cache as in use.
  echo "measuring heap bytes per referenced op (one process per size)..."
  rm -f "$FOUT"/memory-*.json "$FOUT"/tcache-off-memory-*.json
  # The sizes are the benchmark's own (its Args in CoreIRBench.cpp).
  for n in $("$PATCHED/bin/weakref-core-ir-bench" --benchmark_list_tests \
      --benchmark_filter='^BM_MemoryPerReferencedOp/' | cut -d/ -f2); do
    "$PATCHED/bin/weakref-core-ir-bench" --benchmark_filter="^BM_MemoryPerReferencedOp/$n/" \
      --benchmark_out="$FOUT/memory-$n.json" --benchmark_out_format=json >/dev/null
    GLIBC_TUNABLES=glibc.malloc.tcache_count=0 "$PATCHED/bin/weakref-core-ir-bench" \
      --benchmark_filter="^BM_MemoryPerReferencedOp/$n/" \
      --benchmark_out="$FOUT/tcache-off-memory-$n.json" --benchmark_out_format=json >/dev/null
  done

  if [[ -d $PATCHED/python_packages/mlir_core && -d $BASELINE/python_packages/mlir_core ]]; then
    echo "running the Python benchmarks (patched vs baseline bindings, alternating)..."
    # Snapshots: a rebuild of a package during the run cannot mix versions.
    rm -rf "$FOUT/packages"
    mkdir -p "$FOUT/packages"
    cp -a "$PATCHED/python_packages/mlir_core" "$FOUT/packages/patched"
    cp -a "$BASELINE/python_packages/mlir_core" "$FOUT/packages/baseline"
    /usr/bin/python3 "$ROOT/benchmarks/python_bench.py" "$FOUT/packages/patched" \
      "$FOUT/packages/baseline" --reps "$reps" --instructions --json "$FOUT/python.json" \
      --release "$RELEASE" >/dev/null
    rm -rf "$FOUT/packages"
  fi
}
for flavor in "${FLAVORS[@]}"; do measure "$flavor"; done

FLAVOR_LIST=$(IFS=,; echo "${FLAVORS[*]}")
/usr/bin/python3 "$ROOT/benchmarks/report.py" "$OUT" --chart "$OUT/chart.png" \
  --flavors "$FLAVOR_LIST" | tee "$OUT/report.md"
echo "chart: $OUT/chart.png"

if ((README)); then
  mkdir -p "$ROOT/docs"
  cp "$OUT/chart.png" "$ROOT/docs/benchmarks-$RELEASE.png"
  /usr/bin/python3 - "$ROOT/docs/BENCHMARKS.md" "$OUT/report.md" "$RELEASE" <<'PY'
import re, sys
readme, table, release = sys.argv[1], open(sys.argv[2]).read().strip(), sys.argv[3]
text = open(readme).read()
begin, end = f"<!-- benchmark-table:{release}:begin -->", f"<!-- benchmark-table:{release}:end -->"
if begin not in text or end not in text:
    sys.exit(f"{readme} has no {begin} ... {end} markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(f"{head}{begin}\n{table}\n{end}{tail}")
PY
  echo "docs/BENCHMARKS.md table ($RELEASE) and docs/benchmarks-$RELEASE.png updated"
fi
