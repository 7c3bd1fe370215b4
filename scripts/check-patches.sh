#!/usr/bin/env bash
# Checks the patch series against pristine LLVM 19.1.7 sources (from the
# setup.sh cache): it applies with `git am` onto a git tree and with
# `patch -p1` onto the release tarball's files, and clang-format (LLVM style)
# is clean on the lines it changes.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERIES_DIR=$ROOT/patches/llvm-19.1.7
CACHE=${MLIR_WEAKREF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlir-weakref}
PRISTINE=${1:-$(ls -d "$CACHE"/pristine/debian-* 2>/dev/null | head -1)}
[[ -f $PRISTINE/.complete ]] || { echo "check-patches: no pristine source; run ./setup.sh first" >&2; exit 1; }
mapfile -t patches < <(grep -v -e '^\s*#' -e '^\s*$' "$SERIES_DIR/series" | sed "s#^#$SERIES_DIR/#")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# The pristine files the series modifies: those it names as `--- a/...`,
# less those one of its patches creates (a later patch may modify them).
mapfile -t files < <(comm -23 \
  <(sed -n 's#^--- a/\(.*\)#\1#p' "${patches[@]}" | sort -u) \
  <(grep -A1 '^--- /dev/null' "${patches[@]}" | sed -n 's#^.*+++ b/\(.*\)#\1#p' | sort -u))
# ... and the .clang-format files that govern them (mlir/ has its own).
mapfile -t -O "${#files[@]}" files < <(cd "$PRISTINE" && find mlir -name .clang-format)
for dir in git tarball; do
  mkdir -p "$TMP/$dir"
  (cd "$PRISTINE" && cp --parents .clang-format "${files[@]}" "$TMP/$dir/")
done

git -C "$TMP/git" init -q
git -C "$TMP/git" add -A
git -C "$TMP/git" -c user.name=check -c user.email=check@localhost commit -qm "llvmorg-19.1.7 (files touched by the series)"
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

fmt=$(git -C "$TMP/git" diff -U0 base HEAD -- '*.h' '*.cpp' '*.c' | (cd "$TMP/git" && clang-format-diff -p1))
if [[ -n $fmt ]]; then
  echo "FAIL: clang-format is not clean on the changed lines:"
  echo "$fmt"
  exit 1
fi
echo "ok: clang-format ($(clang-format --version | grep -o 'version [0-9.]*')) clean on changed lines"
