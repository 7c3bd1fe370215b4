#!/usr/bin/env bash
# Installs the wheel ./setup.sh wrote (dist/) as a user would: into a fresh
# virtual environment (with the system's site packages, for Debian's numpy),
# `pip install --no-index --no-deps`, then runs README's Python example and
# the Python demo from a directory outside the repository.
#
#   check-wheel.sh BUILD_DIR LLVM_VERSION
#
# Exits 77 (skipped) for a project build other than setup.sh's default one
# of that release, which is the one the wheel is made from.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
export LLVM_VERSION=$2
if [[ $BUILD != "$("$ROOT/setup.sh" --print-build-dir)" ]]; then
  echo "check-wheel: $BUILD is not the default $LLVM_VERSION build; skipped"
  exit 77
fi
HASH=$("$ROOT/setup.sh" --print-series-hash)
shopt -s nullglob
wheels=("$ROOT"/dist/mlir_weakref-"$LLVM_VERSION"+series."$HASH"-*.whl)
((${#wheels[@]} == 1)) ||
  { echo "check-wheel: expected one wheel of series $HASH in $ROOT/dist, found ${#wheels[@]}; run ./setup.sh" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$WORK/venv"
"$WORK/venv/bin/python" -m pip install --quiet --no-index --no-deps "${wheels[0]}"
cd "$WORK"
fail() { echo "check-wheel: $*" >&2; exit 1; }

"$WORK/venv/bin/python" -m pip show mlir-weakref | tee pip-show.txt
grep -qx "Version: $LLVM_VERSION+series.$HASH" pip-show.txt || fail "wrong version"
# The package imported is the installed one, not the build tree's.
where=$("$WORK/venv/bin/python" -c "import mlir.weakref, mlir.ir; print(mlir.ir.__file__)")
[[ $where == "$WORK/venv/"* ]] || fail "mlir.ir imported from $where"
echo "mlir.ir from $where"
# README's Python example (test/python/readme_snippets.py holds it verbatim).
"$WORK/venv/bin/python" "$ROOT/test/python/readme_snippets.py" >readme.txt 2>&1 ||
  { cat readme.txt; fail "README's example failed"; }
grep -q "\['func.return'\]" readme.txt || { cat readme.txt; fail "README's example printed the wrong survivors"; }
# The Python demo.
"$WORK/venv/bin/python" "$ROOT/examples/weakref-demo.py" >demo.txt 2>&1 ||
  { cat demo.txt; fail "the demo failed"; }
cat demo.txt
grep -qx "4 survived, 7 died" demo.txt || fail "the demo's survivors differ"
echo "check-wheel: ${wheels[0]##*/} installs and runs"
