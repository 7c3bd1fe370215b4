#!/usr/bin/env bash
# Free-threaded Python: builds CPython 3.13t (GIL disabled) from Debian
# unstable's python3.13 orig tarball (sha256 checked against the signed index
# and below; cached under the project's cache, never installed over the
# system's python3), the patched LLVM 23.1.1 `mlir` package with
# `mlir.weakref` for it (into build-free-threaded/), and runs the threaded
# tests (test/free-threaded/threads.py) with the GIL disabled.
#
#   test/free-threaded/run.sh [--tsan] [-- threads.py args, e.g. --seeds 20]
#
# --tsan: the same with ThreadSanitizer: CPython built --with-thread-sanitizer,
# the LLVM tree, the bindings and the extension instrumented
# (SANITIZE=thread), into build-free-threaded-thread/. Reports in CPython
# itself are suppressed (test/free-threaded/tsan-suppressions.txt, each with
# its reason); any report in MLIR, the bindings or the extension fails.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TSAN=0
TEST_ARGS=()
while (($#)); do
  case $1 in
  --tsan) TSAN=1 ;;
  --) shift; TEST_ARGS=("$@"); break ;;
  *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
START=$SECONDS
step() { printf '\n==> [%4ds] %s\n' $((SECONDS - START)) "$*"; }
JOBS=${JOBS:-$(nproc)}
export LLVM_VERSION=23.1.1
SAN=() PY_SUFFIX= BUILD_SUFFIX= WHAT=
if ((TSAN)); then
  SAN=(SANITIZE=thread) PY_SUFFIX=-tsan BUILD_SUFFIX=-thread WHAT=", ThreadSanitizer"
fi
CACHE=$("$ROOT/setup.sh" --print-cache)

# ------------------------------------------------------------ CPython 3.13t
PY_VERSION=3.13.15
PY_DEB=3.13.15-1
PY_SHA256=1e66a7945a48390ee4c2a4268a0e4185884059a13c4aab6d148aa208deea4a76
PY_TARBALL=$CACHE/downloads/python3.13_$PY_VERSION.orig.tar.xz
PY_PREFIX=$CACHE/python/$PY_VERSION-freethreaded$PY_SUFFIX
PY=$PY_PREFIX/bin/python3.13t
if [[ ! -f $PY_PREFIX/.complete ]]; then
  if [[ ! -f $PY_TARBALL ]]; then
    step "downloading Debian source package python3.13=$PY_DEB (unstable)"
    "$ROOT/setup.sh" --fetch-source "python3.13=$PY_DEB" "$(dirname "$PY_TARBALL")"
  fi
  echo "$PY_SHA256  $PY_TARBALL" | sha256sum -c --quiet - ||
    { echo "run.sh: $PY_TARBALL does not have sha256 $PY_SHA256; delete it and re-run" >&2; exit 1; }
  step "building CPython $PY_VERSION, free-threaded$WHAT -> $PY_PREFIX"
  src=$(mktemp -d)
  trap 'rm -rf "$src"' EXIT
  tar xJf "$PY_TARBALL" -C "$src" --strip-components=1
  conf=(--disable-gil --prefix="$PY_PREFIX" --without-ensurepip)
  ((TSAN)) && conf+=(--with-thread-sanitizer)
  rm -rf "$PY_PREFIX"
  (cd "$src" && ./configure "${conf[@]}" >configure.log 2>&1 && make -j"$JOBS" >make.log 2>&1 &&
    make install >install.log 2>&1) ||
    { tail -30 "$src"/*.log >&2; echo "run.sh: CPython build failed" >&2; exit 1; }
  touch "$PY_PREFIX/.complete"
fi
PYTHON_GIL=0 "$PY" -c 'import sys; assert not sys._is_gil_enabled(); print("interpreter:", sys.executable, sys.version.split()[0], "GIL disabled")'

# ----------------------------------------- the mlir package for that Python
MLIR_DIR=$(env "${SAN[@]}" "$ROOT/setup.sh" --print-mlir-dir)
if [[ ! -f $MLIR_DIR/MLIRConfig.cmake ]]; then
  step "building the patched LLVM 23.1.1 tree first"
  env "${SAN[@]}" "$ROOT/setup.sh" --no-demo
fi
BUILD=$ROOT/build-free-threaded$BUILD_SUFFIX
if [[ ! -f $BUILD/build.ninja ]]; then
  step "configuring $BUILD for $PY"
  flags=()
  ((TSAN)) && flags=(-DLLVM_USE_SANITIZER=Thread)
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$MLIR_DIR" -DLLVM_DIR="$(dirname "$MLIR_DIR")/llvm" \
    -DPython3_EXECUTABLE="$PY" -DPython_EXECUTABLE="$PY" \
    -Dnanobind_DIR="$(/usr/bin/python3 -m nanobind --cmake_dir)" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "${flags[@]}" >"$BUILD.configure.log" 2>&1 ||
    { rm -rf "$BUILD"; tail -30 "$BUILD.configure.log" >&2; exit 1; }
fi
step "building the mlir package (mlir.weakref included) for $PY"
CCACHE_DIR=$CACHE/ccache ninja -C "$BUILD" -j"$JOBS" MLIRWeakRefPythonModules >"$BUILD.build.log" 2>&1 ||
  { grep -A15 '^FAILED' "$BUILD.build.log" | head -60 >&2; exit 1; }

# ------------------------------------------------------------------ tests
step "threads.py ${TEST_ARGS[*]}"
env=(PYTHON_GIL=0 PYTHONPATH="$BUILD/python_packages/mlir_core")
if ((TSAN)); then
  # Every report fails the run (exit code 66), except CPython's own, which
  # the suppressions name with their reasons.
  env+=(TSAN_OPTIONS="suppressions=$ROOT/test/free-threaded/tsan-suppressions.txt exitcode=66 halt_on_error=0")
fi
env "${env[@]}" "$PY" "$ROOT/test/free-threaded/threads.py" "${TEST_ARGS[@]}"
echo "run.sh: passed in $((SECONDS - START)) s"
