#!/usr/bin/env bash
# test.sh -- build (via setup.sh, cached) and run every test of this project:
# the project's GoogleTest and lit suites through ctest (patch 0001's upstream
# unit test, the Python tests and the hostile suite included), and upstream
# MLIR's MLIRPassTests/MLIRSupportTests and the C API lit test built from the
# patched tree (MLIRIRTests too when built: ./setup.sh --upstream-ir-tests).
#
#   ./test.sh                 everything
#   ./test.sh --no-upstream   skip upstream MLIR's unit test suites
#   SANITIZE=address ./test.sh   an ASan build of MLIR, this project and the
#                                Python package (own cache; every Python test
#                                runs with the ASan runtime preloaded)
#   SANITIZE=address,undefined ./test.sh   the C++/C tests in an ASan+UBSan
#   SANITIZE=thread ./test.sh              (or TSan) build (own cache; no
#                                          upstream suites, no Python package)
# Extra arguments after -- go to ctest.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
START=$SECONDS
UPSTREAM=1
CTEST_ARGS=()
while (($#)); do
  case $1 in
  --no-upstream) UPSTREAM=0 ;;
  --) shift; CTEST_ARGS=("$@"); break ;;
  *) echo "test.sh: error: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

if [[ -n ${SANITIZE:-} ]]; then
  UPSTREAM=0
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
fi
setup_args=(--no-demo)
((UPSTREAM)) && setup_args+=(--upstream-tests)
"$ROOT/setup.sh" "${setup_args[@]}"
BUILD=$("$ROOT/setup.sh" --print-build-dir)
# The LLVM build directory of a tree: setup.sh prints its lib/cmake/mlir.
llvm_build_dir() { dirname "$(dirname "$(dirname "$("$ROOT/setup.sh" "$@" --print-mlir-dir)")")"; }
LLVM_BUILD=$(llvm_build_dir)

status=0
echo
echo "==> ctest (project tests)"
ctest --test-dir "$BUILD" --output-on-failure -j"$(nproc)" "${CTEST_ARGS[@]}" || status=1

# Runs one upstream gtest suite; prints "<passed> passed, <failed> failed".
run_suite() { # binary
  local out rc passed failed
  out=$("$1" --gtest_brief=1 2>&1) && rc=0 || rc=$?
  passed=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
  failed=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
  ((rc)) && echo "$out" | grep -E '^\[  FAILED  \]' | head -20 >&2
  echo "${passed:-0} passed, ${failed:-0} failed$( ((rc)) && echo " (exit $rc)")"
  return "$rc"
}

if ((UPSTREAM)); then
  echo
  echo "==> upstream MLIR unit test suites (patched tree; baseline tree if built)"
  BASELINE_BUILD=$(llvm_build_dir --baseline)
  for suite in IR/MLIRIRTests Pass/MLIRPassTests Support/MLIRSupportTests; do
    name=$(basename "$suite")
    if [[ ! -x $LLVM_BUILD/tools/mlir/unittests/$suite ]]; then
      # Only MLIRIRTests is optional (it links MLIR's Test dialect: about
      # 1,000 more build steps). Patch 0001's own test in it,
      # WeakOpRefTest.cpp, runs in ctest above as WeakOpRefUpstreamTests.
      printf '%-18s not built (./setup.sh --upstream-ir-tests); its WeakOpRefTest.cpp ran above as WeakOpRefUpstreamTests\n' "$name"
      continue
    fi
    if result=$(run_suite "$LLVM_BUILD/tools/mlir/unittests/$suite"); then :; else status=1; fi
    base=$BASELINE_BUILD/tools/mlir/unittests/$suite
    if [[ -x $base ]]; then
      base_result="baseline: $(run_suite "$base" || true)"
    else
      base_result="baseline: not built (./setup.sh --baseline --upstream-tests)"
    fi
    printf '%-18s patched: %-28s %s\n' "$name" "$result" "$base_result"
  done
  # The C API test added by patch 0002, through upstream's own lit setup.
  if out=$("$LLVM_BUILD/bin/llvm-lit" -q "$LLVM_BUILD/tools/mlir/test/CAPI/opref.c" 2>&1); then
    echo "mlir/test/CAPI/opref.c: passed"
  else
    echo "$out" | tail -30
    echo "mlir/test/CAPI/opref.c: FAILED"
    status=1
  fi
fi
echo
if ((status)); then
  echo "test.sh: FAILED after $((SECONDS - START))s"
else
  echo "test.sh: all tests passed in $((SECONDS - START))s"
fi
exit $status
