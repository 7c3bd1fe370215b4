#!/usr/bin/env bash
# The reports of scripts/compare-check-mlir.sh, on made-up lit results: a test
# that passes unpatched and fails or is missing patched is a regression (exit
# 1, named); skips and tests only in the patched tree are not; results of other
# sources are refused (exit 2). The findings of the forced-on run name the
# tests whose output holds a check's report (not a RUN line that only echoes
# one) and the tests the switch makes fail, with or without a report. Builds
# nothing.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export CHECK_MLIR_OUT
CHECK_MLIR_OUT=$(mktemp -d)
trap 'rm -rf "$CHECK_MLIR_OUT"' EXIT
fail=0

results() { # variant testcase-xml...
  local variant=$1
  shift
  printf '<testsuites><testsuite name="MLIR">%s</testsuite></testsuites>\n' "$*" >"$CHECK_MLIR_OUT/$variant.xml"
  bash "$ROOT/scripts/compare-check-mlir.sh" key "$variant" >"$CHECK_MLIR_OUT/$variant.key"
}
pass() { echo "<testcase classname=\"MLIR.IR\" name=\"$1\"/>"; }
failed() { echo "<testcase classname=\"MLIR.IR\" name=\"$1\"><failure>x</failure></testcase>"; }
skipped() { echo "<testcase classname=\"MLIR.IR\" name=\"$1\"><skipped/></testcase>"; }

expect() { # what rc pattern...
  local what=$1 rc=$2 out got
  shift 2
  out=$(bash "$ROOT/scripts/compare-check-mlir.sh" "${command:-compare}" 2>&1)
  got=$?
  if ((got != rc)); then
    echo "FAIL: $what: exit $got, expected $rc:"; echo "$out"; fail=1; return
  fi
  for pattern in "$@"; do
    grep -q -- "$pattern" <<<"$out" || { echo "FAIL: $what: no '$pattern' in:"; echo "$out"; fail=1; return; }
  done
  echo "ok: $what"
}

results baseline "$(pass a.mlir)" "$(pass b.mlir)" "$(pass c.mlir)" "$(skipped d.mlir)"
results patched "$(pass a.mlir)" "$(pass b.mlir)" "$(pass c.mlir)" "$(failed d.mlir)" "$(pass e.mlir)"
expect "same passes, a baseline skip failing and a new test" 0 \
  "baseline *4 tests: 3 passed, 0 failed, 1 unsupported" "only in patched: 1 tests (1 passed)" \
  "pass unpatched, not patched: 0"

results patched "$(pass a.mlir)" "$(failed b.mlir)" "$(skipped d.mlir)"
expect "a failure and a missing test are regressions" 1 \
  "pass unpatched, not patched: 2" "fail: MLIR.IR::b.mlir" "missing: MLIR.IR::c.mlir"

echo "other sources" >"$CHECK_MLIR_OUT/patched.key"
expect "results of other sources are refused" 2 "no results for the current patched sources"

results patched "$(pass a.mlir)"
rm "$CHECK_MLIR_OUT/baseline.xml"
expect "missing results are refused" 2 "no results for the current baseline sources"

results patched "$(pass a.mlir)" "$(pass b.mlir)" "$(pass c.mlir)" "$(pass d.mlir)"
results forced "$(pass a.mlir)" "$(failed b.mlir)" "$(failed c.mlir)" "$(pass d.mlir)"
cat >"$CHECK_MLIR_OUT/forced.log" <<'LOG'
PASS: MLIR :: IR/a.mlir (1 of 4)
# RUN: at line 1
echo "erased 'x' without notifying the rewriter"
# executed command: echo 'erased x without notifying the rewriter'
FAIL: MLIR :: IR/b.mlir (2 of 4)
******************** TEST 'MLIR :: IR/b.mlir' FAILED ********************
# | b.mlir:3:8: error: pattern 'P' erased 'test.op' without notifying the rewriter; erase operations through the rewriter (e.g. RewriterBase::eraseOp); the rewrite stops
********************
FAIL: MLIR :: IR/c.mlir (3 of 4)
# | c.mlir:1:1: error: expected 1 diagnostic
PASS: MLIR :: IR/d.mlir (4 of 4)
# | d.mlir:2:3: error: 'transform.test' erased payload op 'test.op' without notifying the tracking listener (erase payload ops through the TransformRewriter)
LOG
command=findings expect "the findings: reports, and tests that fail forced on" 0 \
  "forced on *4 tests: 2 passed, 2 failed" "tests whose output holds a report: 2" \
  "fail: MLIR.IR::b.mlir" "pass: MLIR.IR::d.mlir" "erased payload op 'test.op'" \
  "pass with the checks off, not forced on: 2 (1 without a report)" \
  "fail, no report: MLIR.IR::c.mlir"
out=$(bash "$ROOT/scripts/compare-check-mlir.sh" findings 2>&1)
if grep -q "a.mlir" <<<"$out"; then
  echo "FAIL: the echoed RUN line of a.mlir counted as a report:"; echo "$out"; fail=1
else
  echo "ok: an echoed RUN line is not a report"
fi

out=$(bash "$ROOT/scripts/compare-check-mlir.sh" key patched-tree 2>&1)
if (($? == 2)) && grep -q "key needs patched, baseline or forced (got 'patched-tree')" <<<"$out"; then
  echo "ok: a bad variant for key is named"
else
  echo "FAIL: key patched-tree: $out"; fail=1
fi

exit $fail
