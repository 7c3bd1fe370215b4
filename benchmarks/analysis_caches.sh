#!/usr/bin/env bash
# benchmarks/analysis_caches.sh -- what the weak references of DominanceInfo's
# and SymbolTableCollection's cache entries (23.1.1 series) cost, in
# instructions counted by callgrind inside `weakref_workload`
# (benchmarks/AnalysisCacheWorkload.cpp), the patched and the unpatched
# build's binaries run side by side:
#   dominance  every operand of N diamond-CFG functions checked to dominate
#              its user through one DominanceInfo, twice (parsing outside)
#   symbols    the callees of N functions looked up through one
#              SymbolTableCollection, twice (parsing outside)
#   verify     N single-block functions of 9 ops verified twice (parsing
#              outside)
#   users      a SymbolUserMap built over the symbols module, then every
#              function's users asked for, twice (parsing outside)
#   pipeline   parse N diamond-CFG functions, then cse, canonicalize, cse
#              with the verifier after each pass
#   graph      N ops in the module's block (a graph region), each using the
#              results of the ops before and after it; every operand checked
#              to dominate its user through one DominanceInfo, twice
#   graph-verify  the graph module verified twice (parsing outside)
#
#   benchmarks/analysis_caches.sh [PATCHED_BUILD [BASELINE_BUILD]] [N...]
#   (default: the release builds build-noassert and build-baseline-noassert,
#   sizes 100 1000 10000)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# count, ratio, builds_and_sizes, require_built
source "$ROOT/benchmarks/workload_counts.sh"
builds_and_sizes 100 1000 10000 -- "$@"
BIN=bin/weakref-analysis-cache-workload
require_built "$BIN"
printf '| workload | functions | unpatched | patched | patched / unpatched |\n'
printf '|---|---|---|---|---|\n'
for kind in dominance verify symbols users pipeline graph graph-verify; do
  for n in "${SIZES[@]}"; do
    base=$(count "$BASELINE/$BIN" "$kind" "$n")
    patched=$(count "$PATCHED/$BIN" "$kind" "$n")
    printf '| %s | %s | %s | %s | %s |\n' "$kind" "$n" "$base" "$patched" "$(ratio "$patched" "$base")"
  done
done
