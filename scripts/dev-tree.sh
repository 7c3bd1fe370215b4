#!/usr/bin/env bash
# The developer tree of a patch series: a git repository holding the pristine
# mlir/ of one release (commit tagged 'base') with the series applied as
# commits on top. Edit and commit there; `export` writes the commits back to
# patches/llvm-<release>/; `./setup.sh` then re-applies the series to the
# build tree, where ninja rebuilds only what the changed files affect.
#
#   [LLVM_VERSION=23.1.1|19.1.7] scripts/dev-tree.sh init     create it (once)
#   [LLVM_VERSION=...]           scripts/dev-tree.sh path     print where it is
#   [LLVM_VERSION=...]           scripts/dev-tree.sh sync     copy its working
#        files that differ from base into the patched build tree's source, to
#        rebuild (ninja -C "$(./setup.sh --print-llvm-build)" TARGETS) before
#        exporting; the next ./setup.sh after an export re-makes that source
#   [LLVM_VERSION=...]           scripts/dev-tree.sh export   its commits since
#        'base' -> patches/llvm-<release>/ (scripts/export-patches.sh)
#
# The series touches only mlir/, so the tree holds only mlir/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LLVM_VERSION=${LLVM_VERSION:-23.1.1}
DEV=$("$ROOT/setup.sh" --print-dev-tree)
git_dev() { git -C "$DEV" -c user.name=mlir-weakref -c user.email=dev@localhost "$@"; }

case ${1:-} in
path) echo "$DEV" ;;
init)
  [[ -e $DEV ]] && { echo "dev-tree: $DEV exists; remove it to start again" >&2; exit 1; }
  PRISTINE=$("$ROOT/setup.sh" --print-pristine)
  [[ -f $PRISTINE/.complete ]] || "$ROOT/setup.sh" --source-only >/dev/null
  SERIES_DIR=$("$ROOT/setup.sh" --print-series-dir)
  mkdir -p "$DEV"
  cp -a "$PRISTINE/mlir" "$DEV/"
  git_dev init -q
  git_dev add -A
  git_dev commit -qm "llvmorg-$LLVM_VERSION (mlir/)"
  git_dev tag base
  for p in $(grep -v -e '^\s*#' -e '^\s*$' "$SERIES_DIR/series"); do
    git_dev am -q --keep-non-patch "$SERIES_DIR/$p"
  done
  git_dev log --oneline base..HEAD
  echo "dev-tree: $DEV (LLVM $LLVM_VERSION, series applied on tag 'base')"
  ;;
sync)
  [[ -d $DEV/.git ]] || { echo "dev-tree: no tree at $DEV; run '$0 init'" >&2; exit 1; }
  SRC=$("$ROOT/setup.sh" --print-tree)/src
  [[ -d $SRC ]] || { echo "dev-tree: no patched build tree; run ./setup.sh first" >&2; exit 1; }
  n=0
  while IFS= read -r f; do
    [[ -f $DEV/$f ]] || continue
    if ! cmp -s "$DEV/$f" "$SRC/$f"; then
      mkdir -p "$(dirname "$SRC/$f")"
      cp "$DEV/$f" "$SRC/$f"
      echo "synced $f"
      n=$((n + 1))
    fi
  done < <({ git_dev diff --name-only base; git_dev ls-files --others --exclude-standard; } | sort -u)
  echo "dev-tree: $n file(s) copied into $SRC"
  ;;
export) exec "$ROOT/scripts/export-patches.sh" "$DEV" base ;;
*) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
