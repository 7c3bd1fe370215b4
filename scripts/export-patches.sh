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
# A series in two sections (comment lines before each, as patches/llvm-23.1.1/
# has: the independent fixes first, then the weak-reference series) keeps its
# comments and the number of patches in its first section; a series in one
# section keeps its leading comments. If the number of patches changed, the
# section boundary may be wrong: the script says so.
old_series=$(cat "$out/series" 2>/dev/null || true)
old_count=$(grep -cv -e '^\s*#' -e '^\s*$' <<<"$old_series" || true)
mapfile -t names < <(cd "$out" && ls *.patch)
awk -v names="${names[*]}" '
  BEGIN { n = split(names, p, " ") }
  /^[ \t]*#/ { if (listed && !second) { second = 1 }; if (second) c2 = c2 $0 "\n"; else c1 = c1 $0 "\n"; next }
  /^[ \t]*$/ { next }
  { listed = 1; if (!second) first++ }
  END {
    printf "%s", c1
    if (!second) { for (i = 1; i <= n; i++) print p[i]; exit }
    for (i = 1; i <= first && i <= n; i++) print p[i]
    printf "%s", c2; for (; i <= n; i++) print p[i]
  }' <<<"$old_series" >"$out/series"
if grep -q '^# Independent fixes' "$out/series" && ((old_count != ${#names[@]})); then
  echo "export-patches: note: the series had $old_count patches and has ${#names[@]}; the first section keeps its old length: check the section boundary in $out/series" >&2
fi
echo "wrote ${#names[@]} patches to $out:"
cat "$out/series"
