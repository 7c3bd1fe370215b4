#!/usr/bin/env bash
# Builds upstream's mlir/examples/standalone from the patched tree against
# its LLVM build, as a downstream project consumes MLIR (find_package(MLIR),
# its own `mlir_standalone` Python package with MLIR's Python core rebuilt in
# its own nanobind domain), then runs upstream's smoke test (which also
# imports the project's `mlir` package beside it: the two domains must not
# collide) and standalone_weakref.py on that package.
#
#   standalone.sh MLIR_SRC_DIR LLVM_BUILD_DIR WORK_DIR FILECHECK MLIR_PACKAGE
#
# Only the Python package is built (StandalonePythonModules: about 55 steps),
# not standalone-opt, which links every dialect. The system linker: gold
# rejects the `-z,undefs` that AddMLIRPython.cmake passes.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($# == 5)) || { echo "usage: standalone.sh MLIR_SRC_DIR LLVM_BUILD_DIR WORK_DIR FILECHECK MLIR_PACKAGE" >&2; exit 2; }
SRC=$1/examples/standalone LLVM_BUILD=$2 WORK=$3 FILECHECK=$4 MLIR_PACKAGE=$5
[[ -f $SRC/CMakeLists.txt ]] || { echo "standalone.sh: no $SRC/CMakeLists.txt" >&2; exit 1; }
CACHE=$("$HERE/../../setup.sh" --print-cache)
export CCACHE_DIR=$CACHE/ccache
if [[ ! -f $WORK/build.ninja ]]; then
  cmake -S "$SRC" -B "$WORK" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$LLVM_BUILD/lib/cmake/mlir" -DLLVM_DIR="$LLVM_BUILD/lib/cmake/llvm" \
    -DMLIR_ENABLE_BINDINGS_PYTHON=ON \
    -DPython3_EXECUTABLE=/usr/bin/python3 -DPython_EXECUTABLE=/usr/bin/python3 \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >"$WORK.configure.log" 2>&1 ||
    { tail -30 "$WORK.configure.log" >&2; rm -f "$WORK/build.ninja"; echo "standalone.sh: configure failed" >&2; exit 1; }
fi
ninja -C "$WORK" StandalonePythonModules >"$WORK.build.log" 2>&1 ||
  { grep -A20 '^FAILED' "$WORK.build.log" | head -40 >&2; echo "standalone.sh: build failed (log: $WORK.build.log)" >&2; exit 1; }
echo "== upstream's test/python/smoketest.py on mlir_standalone (and $MLIR_PACKAGE's mlir)"
PYTHONPATH=$WORK/python_packages/standalone:$MLIR_PACKAGE /usr/bin/python3 "$SRC/test/python/smoketest.py" 2>&1 |
  "$FILECHECK" "$SRC/test/python/smoketest.py"
echo "smoketest.py: passed"
echo "== standalone_weakref.py"
PYTHONPATH=$WORK/python_packages/standalone /usr/bin/python3 "$HERE/standalone_weakref.py"
