#!/usr/bin/env bash
# Checks the patch series of one release (LLVM_VERSION, default 23.1.1)
# against its pristine LLVM sources (setup.sh's cache; downloaded with
# `setup.sh --source-only` if missing): it applies with `git am` onto a git
# tree and with `patch -p1` onto the release tarball's files, each of its
# independent fixes (if it has that section) applies alone, and clang-format
# (LLVM style) is clean on the lines it changes.
#   [LLVM_VERSION=23.1.1|19.1.7] test/repo/check-patches.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export LLVM_VERSION=${LLVM_VERSION:-23.1.1}
SERIES_DIR=$("$ROOT/setup.sh" --print-series-dir)
PRISTINE=$("$ROOT/setup.sh" --print-pristine)
if [[ ! -f $PRISTINE/.complete ]]; then
  "$ROOT/setup.sh" --source-only >/dev/null ||
    { echo "check-patches: could not get the pristine LLVM $LLVM_VERSION source" >&2; exit 1; }
fi
mapfile -t patches < <(grep -v -e '^\s*#' -e '^\s*$' "$SERIES_DIR/series" | sed "s#^#$SERIES_DIR/#")
echo "LLVM $LLVM_VERSION: ${#patches[@]} patches in $SERIES_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The pristine files the series modifies: those it names as `--- a/...`,
# less those one of its patches creates (a later patch may modify them).
mapfile -t files < <(comm -23 \
  <(sed -n 's#^--- a/\(.*\)#\1#p' "${patches[@]}" | sort -u) \
  <(grep -A1 '^--- /dev/null' "${patches[@]}" | sed -n 's#^.*+++ b/\(.*\)#\1#p' | sort -u))
# ... and the .clang-format files that govern them (mlir/ has its own).
mapfile -t -O "${#files[@]}" files < <(cd "$PRISTINE" && find mlir -name .clang-format)
for dir in git tarball alone; do
  mkdir -p "$TMP/$dir"
  (cd "$PRISTINE" && cp --parents .clang-format "${files[@]}" "$TMP/$dir/")
done

# clang-format 14 (Debian 12's) does not know LineEnding (23.1.1's
# mlir/.clang-format sets it to LF, which is what it does anyway).
for dir in git tarball; do
  find "$TMP/$dir" -name .clang-format -exec sed -i '/^LineEnding:/d' {} +
done

git -C "$TMP/git" init -q
git -C "$TMP/git" add -A
git -C "$TMP/git" -c user.name=check -c user.email=check@localhost commit -qm "llvmorg-$LLVM_VERSION (files touched by the series)"
git -C "$TMP/git" tag base
for p in "${patches[@]}"; do
  git -C "$TMP/git" -c user.name=check -c user.email=check@localhost am -q --keep-non-patch --whitespace=error-all "$p" ||
    { echo "FAIL: git am $(basename "$p")"; exit 1; }
done
echo "ok: git am applies ${#patches[@]} patches"

for p in "${patches[@]}"; do
  patch -p1 -s -d "$TMP/tarball" --forward --batch --no-backup-if-mismatch <"$p" ||
    { echo "FAIL: patch -p1 $(basename "$p")"; exit 1; }
done
diff -r -x .git "$TMP/git" "$TMP/tarball" >/dev/null ||
  { echo "FAIL: git am and patch -p1 give different trees"; exit 1; }
echo "ok: patch -p1 applies ${#patches[@]} patches, same result as git am"

# The independent fixes (scripts/independent-fixes.sh) each apply to the
# release alone, without fuzz: a reviewer can take any of them as its own
# change (scripts/check-series-prefixes.py --alone builds and tests each).
mapfile -t fixes < <("$ROOT/scripts/independent-fixes.sh" "$SERIES_DIR/series" | sed "s#^#$SERIES_DIR/#")
if ((${#fixes[@]})); then
  for p in "${fixes[@]}"; do
    (cd "$TMP/alone" && git apply --check "$p") ||
      { echo "FAIL: $(basename "$p") does not apply alone to llvmorg-$LLVM_VERSION"; exit 1; }
  done
  echo "ok: each of the ${#fixes[@]} independent fixes applies alone"
fi

fmt=$(git -C "$TMP/git" diff -U0 base HEAD -- '*.h' '*.cpp' '*.c' | (cd "$TMP/git" && clang-format-diff -p1))
if [[ -n $fmt ]]; then
  echo "FAIL: clang-format is not clean on the changed lines:"
  echo "$fmt"
  exit 1
fi
echo "ok: clang-format ($(clang-format --version | grep -o 'version [0-9.]*')) clean on changed lines"
