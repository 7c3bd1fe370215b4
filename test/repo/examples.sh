#!/usr/bin/env bash
# Installs this project's build into a fresh prefix, then configures, builds
# and runs examples/ against the installed package only.
#   test/repo/examples.sh BUILD_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:?usage: examples.sh BUILD_DIR}" && pwd)
PREFIX=$BUILD/examples-install
EXBUILD=$BUILD/examples-build
rm -rf "$PREFIX" "$EXBUILD"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
cmake -S "$ROOT/examples" -B "$EXBUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DMLIRWeakRef_DIR="$PREFIX/lib/cmake/MLIRWeakRef" >"$EXBUILD.log" 2>&1 ||
  { tail -20 "$EXBUILD.log"; exit 1; }
ninja -C "$EXBUILD" >>"$EXBUILD.log" 2>&1 || { grep -A10 FAILED "$EXBUILD.log" | head -40; exit 1; }
"$EXBUILD/cache-example"
"$EXBUILD/readme-example"
"$EXBUILD/c-example"
echo "examples built against $PREFIX and passed"
