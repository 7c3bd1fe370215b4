#!/usr/bin/env bash
# Regenerates patches/llvm-19.1.7/ from a development llvm-project git tree
# whose commits on top of BASE (default: the tag 'base', pointing at
# llvmorg-19.1.7) are the series.
#   scripts/export-patches.sh /path/to/llvm-project [BASE]
set -euo pipefail
src=${1:?usage: export-patches.sh LLVM_GIT_DIR [BASE]}
base=${2:-base}
out=$(cd "$(dirname "$0")/.." && pwd)/patches/llvm-19.1.7
rm -f "$out"/*.patch
git -C "$src" format-patch --quiet --no-signature --zero-commit -o "$out" "$base"..HEAD
(cd "$out" && ls *.patch) >"$out/series"
echo "wrote $(wc -l <"$out/series") patches to $out:"
cat "$out/series"
