#!/usr/bin/env bash
# compare-check-mlir.sh -- MLIR's own regression suite as the oracle of the
# series: runs `check-mlir`'s lit suite (MLIR's lit tests and its unit tests;
# its Python tests are left out, see below) in the patched tree and in the
# unpatched (baseline) tree of one release, and reports the difference. Every
# test that passes unpatched must pass patched.
#
#   [LLVM_VERSION=23.1.1|19.1.7] scripts/compare-check-mlir.sh [patched|baseline|compare]
#   scripts/compare-check-mlir.sh forced|findings
#   scripts/compare-check-mlir.sh key patched|baseline|forced
#
# With `patched` or `baseline` it runs only that tree, then compares with the
# other tree's results from an earlier run if they come from the same sources
# and options (kept in <variant>.key; `key` prints what they must be): the
# halves can run in separate sittings. `compare` only compares.
#
# `forced` runs the suite again in the patched tree with the erasure checks
# forced on in every context (MLIR_CHECK_ERASURES=1 in every test's
# environment; lit passes only the variables it knows, so a wrapper adds it)
# and every test's output kept (lit -a), then prints the findings against the
# patched run (checks off): the tests whose output holds a check's report and
# the tests the switch makes fail. `findings` only prints them.
#
# Opt-in, never part of ./setup.sh or ./test.sh: it builds all of mlir-opt,
# MLIR's Test dialect and its unit tests in both trees (about 2,800 steps each
# beyond ./setup.sh's; hours on 2 cores from a cold cache; the baseline tree
# takes the objects of the unpatched llvm/ part from ccache), and the baseline
# tree itself if it is not there (./setup.sh --baseline --no-demo).
#
# Writes {patched,baseline,forced}.xml (lit's xunit output), .log and .key to
# <build dir>/check-mlir/ (or $CHECK_MLIR_OUT), prints the results of each
# tree and every test that passes unpatched and does not pass patched; exits 1
# if there is one, 2 if a tree could not be built or has no current results.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LLVM_VERSION=${LLVM_VERSION:-23.1.1}
JOBS=${JOBS:-$(nproc)}
OUT=${CHECK_MLIR_OUT:-$("$ROOT/setup.sh" --print-build-dir)/check-mlir}
mkdir -p "$OUT"
# setup.sh's options for a variant's tree, in `args`.
setup_args() {
  args=(--no-demo)
  if [[ $1 == baseline ]]; then args+=(--baseline); fi
}
# The tree (release, options) and the series a variant's results come from.
sources() {
  local args
  setup_args "$1"
  echo "$(basename "$("$ROOT/setup.sh" "${args[@]}" --print-tree)") series $("$ROOT/setup.sh" "${args[@]}" --print-series-hash)"
}
# Results of `variant` exist and come from the current sources.
current() {
  [[ -s $OUT/$1.xml && $(cat "$OUT/$1.key" 2>/dev/null) == "$(sources "$1")" ]] ||
    { echo "compare-check-mlir: no results for the current $1 sources; run: $0 $1" >&2; return 1; }
}
case ${1:-both} in
both) variants=(patched baseline) ;;
patched | baseline | forced) variants=("$1") ;;
compare | findings) variants=() ;;
key)
  [[ ${2:-} == patched || ${2:-} == baseline || ${2:-} == forced ]] ||
    { echo "compare-check-mlir: key needs patched, baseline or forced (got '${2:-}')" >&2; exit 2; }
  sources "$2"
  exit 0 ;;
*) echo "compare-check-mlir: unknown argument '$1' (expected patched, baseline, forced, compare or findings)" >&2; exit 2 ;;
esac

for variant in ${variants[@]+"${variants[@]}"}; do
  setup_args "$variant"
  echo "== $variant: ./setup.sh ${args[*]}"
  "$ROOT/setup.sh" "${args[@]}" >"$OUT/$variant.setup.log" 2>&1 ||
    { tail -20 "$OUT/$variant.setup.log" >&2; echo "compare-check-mlir: ./setup.sh ${args[*]} failed; log: $OUT/$variant.setup.log" >&2; exit 2; }
  build=$("$ROOT/setup.sh" "${args[@]}" --print-llvm-build)
  rm -f "$OUT/$variant.xml" "$OUT/$variant.key"
  # check-mlir's inputs except its lit run and the in-tree Python modules:
  # these do not link with the trees' gold (AddMLIRPython.cmake passes
  # `-z undefs`, which gold rejects), so MLIR's Python tests are left out here
  # (test/python/run_upstream.py --baseline compares them on this project's
  # own build of the package).
  mapfile -t deps < <(ninja -C "$build" -t query tools/mlir/test/check-mlir |
    sed -n '/^  input:/,/^  outputs:/{/^    /s/^ *//p}' |
    grep -v -x -e tools/mlir/test/CMakeFiles/check-mlir -e tools/mlir/python/MLIRPythonModules)
  lit=("$build/bin/llvm-lit" -sv)
  if [[ $variant == forced ]]; then
    lit=("$ROOT/scripts/check-mlir-results.py" lit-forced
      "$("$ROOT/setup.sh" "${args[@]}" --print-tree)/src/llvm/utils/lit" "$build/bin/llvm-lit" -sa)
  fi
  echo "== $variant: ninja <${#deps[@]} inputs of check-mlir> and lit in $build (log: $OUT/$variant.log)"
  # lit exits 1 when a test fails; the xunit file says which.
  { ninja -C "$build" -j"$JOBS" "${deps[@]}" &&
    (cd "$build/tools/mlir/test" && /usr/bin/python3 "${lit[@]}" -j"$JOBS" \
      --filter-out '^MLIR :: python/' --xunit-xml-output="$OUT/$variant.xml" .)
  } >"$OUT/$variant.log" 2>&1 || true
  [[ -s $OUT/$variant.xml ]] ||
    { tail -20 "$OUT/$variant.log" >&2; echo "compare-check-mlir: no test results for $variant (did the build fail?); log: $OUT/$variant.log" >&2; exit 2; }
  sources "$variant" >"$OUT/$variant.key"
done

if [[ ${1:-both} == forced || ${1:-both} == findings ]]; then
  current patched && current forced || exit 2
  exec /usr/bin/python3 "$ROOT/scripts/check-mlir-results.py" findings "$OUT"
fi
current patched && current baseline || exit 2
exec /usr/bin/python3 "$ROOT/scripts/check-mlir-results.py" compare "$OUT"
