#!/usr/bin/env bash
# Bad input to setup.sh: each case must stop with a one-line, actionable error
# and a non-zero exit, and leave the cached build usable (its key unchanged).
# Needs a completed ./setup.sh run (it uses the same cache).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
TREE_KEY=$("$ROOT/setup.sh" --print-tree)/key
SERIES=$("$ROOT/setup.sh" --print-series-dir)
RELEASE=$(basename "$SERIES")
key_before=$(cat "$TREE_KEY")

expect_error() { # description pattern command...
  local what=$1 pattern=$2
  shift 2
  local out rc
  out=$("$@" 2>&1 >/dev/null)
  rc=$?
  local err
  err=$(printf '%s\n' "$out" | grep '^setup.sh: error:' || true)
  if ((rc == 0)); then
    echo "FAIL: $what: exit code 0"; fail=1
  elif [[ $(printf '%s\n' "$err" | grep -c .) != 1 ]]; then
    echo "FAIL: $what: expected one 'setup.sh: error:' line, got:"; printf '%s\n' "$out" | tail -5; fail=1
  elif ! grep -q -- "$pattern" <<<"$err"; then
    echo "FAIL: $what: error does not mention '$pattern': $err"; fail=1
  else
    echo "ok: $what -> $err"
  fi
}

expect_error "missing LLVM_SRC" "does not exist" \
  env LLVM_SRC="$TMP/no-such-checkout" "$ROOT/setup.sh" --no-demo

expect_error "unknown LLVM_VERSION" "must be 23.1.1 or 19.1.7" \
  env LLVM_VERSION=18.1.8 "$ROOT/setup.sh" --no-demo

mkdir -p "$TMP/llvm18/llvm" "$TMP/llvm18/mlir" "$TMP/llvm18/cmake/Modules"
printf 'set(LLVM_VERSION_MAJOR 18)\nset(LLVM_VERSION_MINOR 1)\nset(LLVM_VERSION_PATCH 8)\n' \
  >"$TMP/llvm18/cmake/Modules/LLVMVersion.cmake"
expect_error "wrong LLVM version in LLVM_SRC" "is LLVM '18.1.8'" \
  env LLVM_SRC="$TMP/llvm18" MLIR_WEAKREF_CACHE="$TMP/cache" "$ROOT/setup.sh" --no-demo

# A copy of the project whose series has a patch that does not apply.
mkdir -p "$TMP/proj/patches/$RELEASE"
cp "$ROOT/setup.sh" "$TMP/proj/"
mkdir -p "$TMP/proj/weakref/python"
cp "$ROOT/weakref/python/extended-dialects.txt" "$TMP/proj/weakref/python/"
cp "$SERIES"/*.patch "$TMP/proj/patches/$RELEASE/"
cat >"$TMP/proj/patches/$RELEASE/0099-broken.patch" <<'PATCH'
From: nobody <nobody@example.com>
Subject: [PATCH] broken

--- a/mlir/lib/IR/Operation.cpp
+++ b/mlir/lib/IR/Operation.cpp
@@ -1,3 +1,3 @@
-this line is not in Operation.cpp
+neither is this one
 nor this one
PATCH
(cat "$SERIES/series"; echo 0099-broken.patch) >"$TMP/proj/patches/$RELEASE/series"
expect_error "series entry that does not apply" "0099-broken.patch" "$TMP/proj/setup.sh" --no-demo

rm "$TMP/proj/patches/$RELEASE/0099-broken.patch"
expect_error "series entry that does not exist" "0099-broken.patch" "$TMP/proj/setup.sh" --no-demo

# A tree that scripts/check-series-prefixes.py holds at a step (here, of an
# empty cache: refused before anything is downloaded or built).
held=$(MLIR_WEAKREF_CACHE="$TMP/cache-held" "$ROOT/setup.sh" --print-tree)
mkdir -p "$held/prefix-check" && touch "$held/prefix-check/in-progress"
expect_error "tree held by the prefix check" "check-series-prefixes.py" \
  env MLIR_WEAKREF_CACHE="$TMP/cache-held" "$ROOT/setup.sh" --no-demo

key_after=$(cat "$TREE_KEY")
if [[ $key_before != "$key_after" ]]; then
  echo "FAIL: the cached tree's key changed: $key_before -> $key_after"; fail=1
elif [[ ! -f $(dirname "$TREE_KEY")/src/llvm/CMakeLists.txt ]]; then
  echo "FAIL: the cached source tree is gone"; fail=1
else
  echo "ok: cache still holds key $key_after"
fi
exit $fail
