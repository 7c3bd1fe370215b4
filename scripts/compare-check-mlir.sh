#!/usr/bin/env bash
# compare-check-mlir.sh -- MLIR's own regression suite as the oracle of the
# series: runs `check-mlir`'s lit suite (MLIR's lit tests and its unit tests;
# its Python tests are left out, see below) in the patched tree and in the
# unpatched (baseline) tree of one release, and reports the difference. Every
# test that passes unpatched must pass patched.
#
#   [LLVM_VERSION=23.1.1|19.1.7] scripts/compare-check-mlir.sh [patched|baseline|compare]
#   scripts/compare-check-mlir.sh key patched|baseline
#
# With `patched` or `baseline` it runs only that tree, then compares with the
# other tree's results from an earlier run if they come from the same sources
# and options (kept in <variant>.key; `key` prints what they must be): the
# halves can run in separate sittings. `compare` only compares.
#
# Opt-in, never part of ./setup.sh or ./test.sh: it builds all of mlir-opt,
# MLIR's Test dialect and its unit tests in both trees (about 2,800 steps each
# beyond ./setup.sh's; hours on 2 cores from a cold cache; the baseline tree
# takes the objects of the unpatched llvm/ part from ccache), and the baseline
# tree itself if it is not there (./setup.sh --baseline --no-demo).
#
# Writes {patched,baseline}.xml (lit's xunit output), .log and .key to
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
case ${1:-both} in
both) variants=(patched baseline) ;;
patched | baseline) variants=("$1") ;;
compare) variants=() ;;
key)
  [[ ${2:-} == patched || ${2:-} == baseline ]] ||
    { echo "compare-check-mlir: key needs patched or baseline (got '${2:-}')" >&2; exit 2; }
  sources "$2"
  exit 0 ;;
*) echo "compare-check-mlir: unknown argument '$1' (expected patched, baseline or compare)" >&2; exit 2 ;;
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
  echo "== $variant: ninja <${#deps[@]} inputs of check-mlir> and lit in $build (log: $OUT/$variant.log)"
  # lit exits 1 when a test fails; the xunit file says which.
  { ninja -C "$build" -j"$JOBS" "${deps[@]}" &&
    (cd "$build/tools/mlir/test" && /usr/bin/python3 "$build/bin/llvm-lit" -sv -j"$JOBS" \
      --filter-out '^MLIR :: python/' --xunit-xml-output="$OUT/$variant.xml" .)
  } >"$OUT/$variant.log" 2>&1 || true
  [[ -s $OUT/$variant.xml ]] ||
    { tail -20 "$OUT/$variant.log" >&2; echo "compare-check-mlir: no test results for $variant (did the build fail?); log: $OUT/$variant.log" >&2; exit 2; }
  sources "$variant" >"$OUT/$variant.key"
done

for variant in patched baseline; do
  [[ -s $OUT/$variant.xml && $(cat "$OUT/$variant.key" 2>/dev/null) == "$(sources "$variant")" ]] ||
    { echo "compare-check-mlir: no results for the current $variant sources; run: $0 $variant" >&2; exit 2; }
done
exec /usr/bin/python3 - "$OUT/patched.xml" "$OUT/baseline.xml" <<'EOF'
import sys
import xml.etree.ElementTree as ET


def results(path):
    """{test id: 'pass' | 'fail' | 'skip'} from lit's xunit output."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        key = case.get("classname", "") + "::" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            out[key] = "fail"
        elif case.find("skipped") is not None:
            out[key] = "skip"
        else:
            out[key] = "pass"
    return out


patched, baseline = results(sys.argv[1]), results(sys.argv[2])
for name, res in (("baseline", baseline), ("patched", patched)):
    counts = {k: sum(1 for v in res.values() if v == k) for k in ("pass", "fail", "skip")}
    print(f"{name:9} {len(res):6} tests: {counts['pass']} passed, {counts['fail']} failed, "
          f"{counts['skip']} unsupported or skipped")
regressions = sorted(k for k, v in baseline.items() if v == "pass" and patched.get(k) != "pass")
added = sorted(set(patched) - set(baseline))
print(f"only in patched: {len(added)} tests "
      f"({sum(1 for k in added if patched[k] == 'pass')} passed)")
for k in added:
    if patched[k] != "pass":
        print(f"  {patched[k]}: {k}")
print(f"pass unpatched, not patched: {len(regressions)}")
for k in regressions:
    print(f"  {patched.get(k, 'missing')}: {k}")
sys.exit(1 if regressions else 0)
EOF
