#!/usr/bin/env bash
# Runs the core patches' unit test (mlir/unittests/IR/WeakOpRefTest.cpp) and
# the extension-free core under a sanitizer without an instrumented LLVM
# tree: the core's own sources (WeakOpRef.cpp and the MLIR files the series
# changes: Operation.cpp, Block.cpp, Region.cpp, Value.cpp, MLIRContext.cpp)
# and the test are compiled with -fsanitize=<kind> from the patched tree's
# source and linked ahead of the patched build's libMLIRIR.a, whose other
# objects are not instrumented. Every access the weak references make to their control
# blocks, tables and flags is instrumented; accesses inside the rest of MLIR
# are not (a full instrumented tree: SANITIZE=thread ./test.sh). With
# `address` on 23.1.1 it then runs the drivers' erasure check tests the same
# way (ErasureChecksAsanTests: the greedy, walk, conversion and Transform
# drivers, the pattern applicator and rewriter instrumented too), and the
# analysis caches' tests (AnalysisCachesAsanTests: the data-flow solver,
# dominance and symbol tables instrumented).
#
#   scripts/sanitize-core.sh thread|address [gtest args...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIND=${1:?usage: sanitize-core.sh thread|address [gtest args]}
shift
case $KIND in thread | address) ;; *) echo "sanitize-core.sh: error: unknown sanitizer '$KIND' (thread or address)" >&2; exit 2 ;; esac
TREE=$("$ROOT/setup.sh" --print-tree)
SRC=$TREE/src
BUILD=$("$ROOT/setup.sh" --print-llvm-build)
[[ -f $BUILD/lib/libMLIRIR.a ]] || { echo "sanitize-core.sh: error: no patched build at $BUILD; run ./setup.sh first" >&2; exit 1; }
OUT=$BUILD/sanitize-core-$KIND
mkdir -p "$OUT"
FLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fno-rtti -fsanitize="$KIND"
  -I"$SRC/mlir/include" -I"$BUILD/tools/mlir/include" -I"$SRC/llvm/include"
  -I"$BUILD/include" -I"$SRC/mlir/lib/IR"
  -I"$SRC/third-party/unittest/googletest/include"
  -I"$SRC/third-party/unittest/googlemock/include"
  -D_GNU_SOURCE -D__STDC_CONSTANT_MACROS -D__STDC_FORMAT_MACROS -D__STDC_LIMIT_MACROS
  -DGTEST_HAS_RTTI=0)
SOURCES=("$SRC/mlir/lib/IR/"{WeakOpRef,Operation,Block,Region,Value,MLIRContext}.cpp
  "$SRC/mlir/unittests/IR/WeakOpRefTest.cpp")
# An object is rebuilt when it is missing or older than its source or any
# header it included (its -MMD dependency file): the series changes headers
# (Value.h, Block.h) whose layout every object must agree on.
stale() {
  local obj=$1 dep
  [[ -f $obj && -f $obj.d ]] || return 0
  for dep in $(sed -e 's/\\$//' -e 's/^[^:]*://' "$obj.d"); do
    [[ $dep -nt $obj ]] && return 0
  done
  return 1
}
objs=()
for src in "${SOURCES[@]}"; do
  obj=$OUT/$(basename "$src" .cpp).o
  if stale "$obj"; then
    echo "compiling $(basename "$src") (-fsanitize=$KIND)"
    g++ "${FLAGS[@]}" -MMD -MF "$obj.d" -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
libs=(MLIRIR MLIRSupport LLVMSupport LLVMDemangle llvm_gtest_main llvm_gtest)
g++ -fsanitize="$KIND" -o "$OUT/WeakOpRefTest" "${objs[@]}" \
  -Wl,--start-group $(printf "$BUILD/lib/lib%s.a " "${libs[@]}") -Wl,--end-group -lpthread
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
# allow_user_poisoning=0: the BumpPtrAllocator code inlined into the
# instrumented MLIRContext.cpp poisons memory that the uninstrumented
# allocator in libLLVMSupport.a never unpoisons (a false use-after-poison).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allow_user_poisoning=0}
echo "running $OUT/WeakOpRefTest"
"$OUT/WeakOpRefTest" "$@"

# 23.1.1: the drivers' erasure checks (patches 15 and 25-27), their unit tests
# with the core, the pattern machinery and both drivers instrumented the same
# way (unittests/CMakeLists.txt, target ErasureChecksAsanTests); then the
# analysis caches' tests with the core and the caches instrumented
# (AnalysisCachesAsanTests).
PROJECT_BUILD=$("$ROOT/setup.sh" --print-build-dir)
if [[ $KIND == address ]]; then
  # (The target list is read whole: `grep -q` on ninja's pipe would stop it
  # early, and under pipefail its SIGPIPE would skip these tests silently.)
  project_targets=$(ninja -C "$PROJECT_BUILD" -t targets all 2>/dev/null || true)
  if grep -q '^ErasureChecksAsanTests:' <<<"$project_targets"; then
    echo "building ErasureChecksAsanTests (-fsanitize=address)"
    ninja -C "$PROJECT_BUILD" ErasureChecksAsanTests >/dev/null
    echo "running $PROJECT_BUILD/unittests/ErasureChecksAsanTests"
    "$PROJECT_BUILD/unittests/ErasureChecksAsanTests" "$@"
    # The analysis caches (patches 31, 33-34): solver, dominance, symbol tables.
    if grep -q '^AnalysisCachesAsanTests:' <<<"$project_targets"; then
      echo "building AnalysisCachesAsanTests (-fsanitize=address)"
      ninja -C "$PROJECT_BUILD" AnalysisCachesAsanTests >/dev/null
      echo "running $PROJECT_BUILD/unittests/AnalysisCachesAsanTests"
      "$PROJECT_BUILD/unittests/AnalysisCachesAsanTests" "$@"
    fi
  elif [[ ${LLVM_VERSION:-23.1.1} != 19.1.7 ]]; then
    echo "sanitize-core.sh: no ErasureChecksAsanTests target in $PROJECT_BUILD (run ./setup.sh); the drivers' checks were not run" >&2
    exit 1
  fi
fi
