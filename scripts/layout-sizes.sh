#!/usr/bin/env bash
# layout-sizes.sh -- sizeof(Operation), sizeof(Block) and
# sizeof(detail::BlockArgumentImpl) with the series (the patched tree's
# source) and without it (the pristine release), for 64-bit and, where the
# compiler has 32-bit headers (Debian: g++-multilib), 32-bit x86 hosts.
# Compile-only (-fsyntax-only): the sizes are read from the compiler's
# errors on an incomplete template instantiated with each size.
#
#   [LLVM_VERSION=23.1.1|19.1.7] scripts/layout-sizes.sh
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TREE=$("$ROOT/setup.sh" --print-tree)
BUILD=$("$ROOT/setup.sh" --print-llvm-build)
PRISTINE=$("$ROOT/setup.sh" --print-pristine)
[[ -d $BUILD/tools/mlir/include ]] || { echo "layout-sizes.sh: error: no patched build at $BUILD; run ./setup.sh first" >&2; exit 1; }
probe=$(mktemp --suffix=.cpp)
trap 'rm -f "$probe"' EXIT
cat >"$probe" <<'CPP'
#include "mlir/IR/Block.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
template <int N> struct Size;
Size<sizeof(mlir::Operation)> op;
Size<sizeof(mlir::Block)> block;
Size<sizeof(mlir::detail::BlockArgumentImpl)> arg;
CPP
printf '%-8s %-10s %10s %6s %17s\n' host source Operation Block BlockArgumentImpl
for m in 64 32; do
  for variant in patched unpatched; do
    src=$TREE/src
    [[ $variant == unpatched ]] && src=$PRISTINE
    out=$(g++ -m$m -std=c++17 -fsyntax-only -I"$src/mlir/include" -I"$BUILD/tools/mlir/include" \
      -I"$src/llvm/include" -I"$BUILD/include" "$probe" 2>&1 || true)
    mapfile -t sizes < <(grep -o 'Size<[0-9]*>' <<<"$out" | tr -dc '0-9\n')
    if ((${#sizes[@]} != 3)); then
      echo "-m$m: not measured ($(grep -m1 -o 'fatal error: .*' <<<"$out" || echo 'no sizes in the output'); 32-bit needs g++-multilib)"
      continue 2
    fi
    printf '%-8s %-10s %10s %6s %17s\n' "-m$m" "$variant" "${sizes[@]}"
  done
done
