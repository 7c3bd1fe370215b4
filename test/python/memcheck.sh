#!/usr/bin/env bash
# Runs Python test files under Valgrind's memcheck against a package: any
# read or write of freed (or never allocated) memory fails the run, with
# memcheck's report. The unsanitized builds' memory oracle for the Transform
# flows (ASan builds run them through lit instead).
#
#   test/python/memcheck.sh PACKAGE_ROOT FILE.py...
#
# PYTHONMALLOC=malloc: CPython's small-object allocator would hide its own
# blocks from memcheck. A file's own failure (a non-zero exit without a
# memcheck error) fails the run too.
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 PACKAGE_ROOT FILE.py..." >&2; exit 2; }
package=$1
shift
[[ -d $package/mlir ]] || { echo "memcheck.sh: no mlir package under '$package'" >&2; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for file in "$@"; do
  status=0
  PYTHONMALLOC=malloc PYTHONPATH=$package valgrind --tool=memcheck --error-exitcode=99 \
    --leak-check=no --num-callers=30 /usr/bin/python3 "$file" >"$log" 2>&1 || status=$?
  errors=$(grep -o "ERROR SUMMARY: [0-9]* errors" "$log" | tail -1 || true)
  if ((status != 0)); then
    grep -E '^==[0-9]+== ' "$log" | head -80
    tail -20 "$log"
    echo "FAIL  $file: exit $status, memcheck ${errors:-did not finish}"
    exit 1
  fi
  echo "PASS  $file: memcheck $errors"
done
