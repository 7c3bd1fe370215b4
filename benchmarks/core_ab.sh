#!/usr/bin/env bash
# benchmarks/core_ab.sh -- one core patch's effect on the core's benchmarks,
# before and after side by side, without a second LLVM tree: the core's files
# (WeakOpRef.cpp, Operation.cpp, Block.cpp, Region.cpp, Value.cpp,
# MLIRContext.cpp and the headers the series changes) are taken from the
# patched tree's source as they are ("after") and with PATCH reversed
# ("before"), compiled -O2 -DNDEBUG, and linked ahead of the patched build's
# libraries into weakref-core-ir-bench (CoreIRBench.cpp) and
# weakref-core-bench (CoreBench.cpp). The two builds run in alternating
# rounds; the medians of each counter are printed side by side. Only the core
# files are built without assertions: rows that run MLIR's passes
# (BM_ParallelCanonicalize) run the tree's other code as it was built.
#
#   benchmarks/core_ab.sh PATCH [ROUNDS] [-- benchmark args]
#   e.g. benchmarks/core_ab.sh patches/llvm-23.1.1/0016-*.patch 3
#   CORE_SRC=<a patched llvm-project checkout> takes the core files from it
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PATCH=$(realpath "${1:?usage: core_ab.sh PATCH [ROUNDS] [-- benchmark args]}")
shift
ROUNDS=3
[[ ${1:-} =~ ^[0-9]+$ ]] && { ROUNDS=$1; shift; }
[[ ${1:-} == -- ]] && shift
SRC=$("$ROOT/setup.sh" --print-tree)/src
# The core's files (mlir/ only) may come from another checkout of the
# patched tree, e.g. scripts/dev-tree.sh's, before a patch is exported.
CORE_SRC=${CORE_SRC:-$SRC}
BUILD=$("$ROOT/setup.sh" --print-llvm-build)
PROJECT=$ROOT/build
[[ -f $BUILD/lib/libMLIRIR.a && -f $PROJECT/lib/libMLIRWeakRef.a ]] ||
  { echo "core_ab.sh: error: run ./setup.sh first (no patched build or project build)" >&2; exit 1; }
OUT=$ROOT/bench-results/core-ab
rm -rf "$OUT" && mkdir -p "$OUT"
CORE=(mlir/lib/IR/{WeakOpRef,Operation,Block,Region,Value,MLIRContext}.cpp mlir/lib/IR/WeakRefTable.h
  mlir/include/mlir/IR/{Operation,Block,Value,WeakOpRef}.h mlir/unittests/IR/WeakOpRefTest.cpp)
for variant in before after; do
  for f in "${CORE[@]}"; do install -D -m644 "$CORE_SRC/$f" "$OUT/$variant/$f"; done
done
patch -s -R -p1 -d "$OUT/before" <"$PATCH" ||
  { echo "core_ab.sh: error: $PATCH does not reverse on the core files" >&2; exit 1; }
# The link lines of the project's own build of the two benchmarks.
link_line() { ninja -C "$PROJECT" -t commands "$1" | tail -1 | sed 's/^: && //; s/ && :$//'; }
for variant in before after; do
  V=$OUT/$variant
  FLAGS=(-std=c++17 -O2 -DNDEBUG -fno-rtti -I"$V/mlir/include" -I"$SRC/mlir/include"
    -I"$BUILD/tools/mlir/include" -I"$SRC/llvm/include" -I"$BUILD/include" -I"$V/mlir/lib/IR"
    -I"$SRC/mlir/lib/IR" -I"$ROOT/benchmarks" -I"$ROOT/weakref/include")
  objs=() pids=()
  for f in WeakOpRef Operation Block Region Value MLIRContext; do
    c++ "${FLAGS[@]}" -c "$V/mlir/lib/IR/$f.cpp" -o "$V/$f.o" &
    pids+=($!) objs+=("$V/$f.o")
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "core_ab.sh: error: compiling the $variant core failed" >&2; exit 1; }
  done
  for bench in core-ir core; do
    src=$ROOT/benchmarks/$([[ $bench == core ]] && echo CoreBench || echo CoreIRBench).cpp
    c++ "${FLAGS[@]}" -c "$src" -o "$V/$bench.o"
    line=$(link_line "weakref-$bench-bench")
    line=${line/benchmarks\/CMakeFiles\/weakref-$bench-bench.dir\/*.cpp.o/$V/$bench.o ${objs[*]}}
    (cd "$PROJECT" && eval "${line/-o bin\/weakref-$bench-bench/-o $V/weakref-$bench-bench}")
  done
done
for ((r = 1; r <= ROUNDS; r++)); do
  for variant in before after; do
    for bench in core-ir core; do
      echo "round $r: $variant weakref-$bench-bench"
      "$OUT/$variant/weakref-$bench-bench" --benchmark_filter=-BM_MemoryPerReferencedOp "$@" \
        --benchmark_out="$OUT/$variant-$bench-$r.json" --benchmark_out_format=json >/dev/null
    done
  done
done
# Heap per referenced op: malloc's accounting, the same in every round.
for variant in before after; do
  "$OUT/$variant/weakref-core-ir-bench" --benchmark_filter=BM_MemoryPerReferencedOp \
    --benchmark_out="$OUT/$variant-memory.json" --benchmark_out_format=json >/dev/null
done
/usr/bin/python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def medians(variant):
    values = {}
    for bench in ("core-ir", "core"):
        for r in range(1, rounds + 1):
            for b in json.load(open(f"{out}/{variant}-{bench}-{r}.json"))["benchmarks"]:
                for key in ("scaling", "oversubscribed", "bytes_per_context", "items_per_second", "real_time"):
                    if key in b and (key != "real_time" or "items_per_second" not in b):
                        v = 1e9 / b[key] if key == "items_per_second" else b[key]
                        k = "ns per item" if key == "items_per_second" else key
                        values.setdefault((b["name"], k), []).append(v)
    return {k: statistics.median(v) for k, v in values.items()}
before, after = medians("before"), medians("after")
for variant, values in (("before", before), ("after", after)):
    for b in json.load(open(f"{out}/{variant}-memory.json"))["benchmarks"]:
        values[(b["name"], "bytes_per_ref_op")] = b["bytes_per_ref_op"]
    values[("BM_MemoryPerReferencedOp (worst size)", "bytes_per_ref_op")] = max(
        v for k, v in values.items() if k[1] == "bytes_per_ref_op")
print(f"{'benchmark':58} {'counter':14} {'before':>10} {'after':>10}")
for key in sorted(before.keys() & after.keys()):
    print(f"{key[0]:58} {key[1]:14} {before[key]:10.3f} {after[key]:10.3f}")
PY
