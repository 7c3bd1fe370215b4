#!/usr/bin/env bash
# Regenerates patches/llvm-<release>/ from a development llvm-project git tree
# whose commits on top of BASE (default: the tag 'base', pointing at
# llvmorg-<release>) are the series.
#   LLVM_VERSION=23.1.1 scripts/export-patches.sh /path/to/llvm-project [BASE]
set -euo pipefail
src=${1:?usage: [LLVM_VERSION=23.1.1|19.1.7] export-patches.sh LLVM_GIT_DIR [BASE]}
base=${2:-base}
out=$(LLVM_VERSION=${LLVM_VERSION:-23.1.1} "$(dirname "$0")/../setup.sh" --print-series-dir)
mkdir -p "$out"
rm -f "$out"/*.patch
git -C "$src" format-patch --quiet --no-signature --zero-commit -o "$out" "$base"..HEAD
(cd "$out" && ls *.patch) >"$out/series"
echo "wrote $(wc -l <"$out/series") patches to $out:"
cat "$out/series"
