#!/usr/bin/env bash
# Free-threaded Python: builds CPython 3.13t (GIL disabled) from Debian
# unstable's python3.13 orig tarball (sha256 checked against the signed index
# and below; cached under the project's cache, never installed over the
# system's python3), the patched LLVM 23.1.1 `mlir` package with
# `mlir.weakref` for it (into build-free-threaded/), and runs the threaded
# tests (test/free-threaded/threads.py) with the GIL disabled.
#
#   test/free-threaded/run.sh [--tsan] [--bench] [-- threads.py args, e.g. --seeds 20]
#
# --bench: also build the unpatched 23.1.1 package for the same interpreter
# (build-free-threaded-baseline/) and run bench.py: wrapper throughput on 1
# and 2 threads, patched vs unpatched.
#
# --tsan: the same under ThreadSanitizer: CPython built
# --with-thread-sanitizer, and the LLVM tree (SANITIZE=thread), the bindings
# and the extension instrumented, into build-free-threaded-thread/. A report
# fails the run, except those the suppressions file names, each with its
# reason (test/free-threaded/tsan-suppressions.txt).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TSAN=0 BENCH=0
TEST_ARGS=()
while (($#)); do
  case $1 in
  --tsan) TSAN=1 ;;
  --bench) BENCH=1 ;;
  --) shift; TEST_ARGS=("$@"); break ;;
  *) echo "run.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
START=$SECONDS
step() { printf '\n==> [%4ds] %s\n' $((SECONDS - START)) "$*"; }
JOBS=${JOBS:-$(nproc)}
export LLVM_VERSION=23.1.1
CACHE=$("$ROOT/setup.sh" --print-cache)
SAN=() SUFFIX=
if ((TSAN)); then
  SAN=(SANITIZE=thread) SUFFIX=-thread
fi

# ------------------------------------------------------------ CPython 3.13t
PY_VERSION=3.13.15
PY_DEB=3.13.15-1
PY_SHA256=1e66a7945a48390ee4c2a4268a0e4185884059a13c4aab6d148aa208deea4a76
PY_TARBALL=$CACHE/downloads/python3.13_$PY_VERSION.orig.tar.xz
PY_PREFIX=$CACHE/python/$PY_VERSION-freethreaded$SUFFIX
PY=$PY_PREFIX/bin/python3.13t
if [[ ! -f $PY_PREFIX/.complete ]]; then
  if [[ ! -f $PY_TARBALL ]]; then
    step "downloading Debian source package python3.13=$PY_DEB (unstable)"
    "$ROOT/setup.sh" --fetch-source "python3.13=$PY_DEB" "$(dirname "$PY_TARBALL")"
  fi
  echo "$PY_SHA256  $PY_TARBALL" | sha256sum -c --quiet - ||
    { echo "run.sh: $PY_TARBALL does not have sha256 $PY_SHA256; delete it and re-run" >&2; exit 1; }
  step "building CPython $PY_VERSION, free-threaded${SUFFIX:+ (ThreadSanitizer)} -> $PY_PREFIX"
  src=$(mktemp -d)
  trap 'rm -rf "$src"' EXIT
  tar xJf "$PY_TARBALL" -C "$src" --strip-components=1
  conf=(--disable-gil --prefix="$PY_PREFIX" --without-ensurepip)
  if ((TSAN)); then conf+=(--with-thread-sanitizer); fi
  rm -rf "$PY_PREFIX"
  (cd "$src" && ./configure "${conf[@]}" >configure.log 2>&1 && make -j"$JOBS" >make.log 2>&1 &&
    make install >install.log 2>&1) ||
    { tail -30 "$src"/*.log >&2; echo "run.sh: CPython build failed" >&2; exit 1; }
  touch "$PY_PREFIX/.complete"
fi
PYTHON_GIL=0 "$PY" -c 'import sys; assert not sys._is_gil_enabled(); print("interpreter:", sys.executable, sys.version.split()[0], "GIL disabled")'

# ----------------------------------------- the mlir package for that Python
build_package() { # variant (patched|baseline) build-dir
  local variant=$1 build=$2 mlir_dir flags=()
  mlir_dir=$(env "${SAN[@]}" "$ROOT/setup.sh" "--$variant" --print-mlir-dir)
  # Always through setup.sh: MLIRConfig.cmake exists as soon as the tree is
  # configured, so only ninja knows whether an interrupted build finished
  # (a no-op on a complete tree).
  step "building the $variant LLVM 23.1.1 tree (setup.sh; nothing to do if it is complete)"
  env "${SAN[@]}" "$ROOT/setup.sh" "--$variant" --no-demo
  if [[ ! -f $build/build.ninja ]]; then
    step "configuring $build for $PY"
    if ((TSAN)); then flags=(-DLLVM_USE_SANITIZER=Thread); fi
    cmake -S "$ROOT" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$mlir_dir" -DLLVM_DIR="$(dirname "$mlir_dir")/llvm" \
      -DPython3_EXECUTABLE="$PY" -DPython_EXECUTABLE="$PY" \
      -Dnanobind_DIR="$(/usr/bin/python3 -m nanobind --cmake_dir)" \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
      "${flags[@]}" >"$build.configure.log" 2>&1 ||
      { rm -rf "$build"; tail -30 "$build.configure.log" >&2; exit 1; }
  fi
  step "building the $variant mlir package for $PY"
  CCACHE_DIR=$CACHE/ccache ninja -C "$build" -j"$JOBS" MLIRWeakRefPythonModules >"$build.build.log" 2>&1 ||
    { grep -A15 '^FAILED' "$build.build.log" | head -60 >&2; tail -5 "$build.build.log" >&2
      echo "run.sh: building the $variant mlir package failed (full log: $build.build.log)" >&2; exit 1; }
}
BUILD=$ROOT/build-free-threaded$SUFFIX
build_package patched "$BUILD"

# ------------------------------------------------------------------ tests
env=(PYTHON_GIL=0 PYTHONPATH="$BUILD/python_packages/mlir_core")
if ((TSAN)); then
  # A positive control: a deliberate race in a small instrumented library,
  # run from two threads of this interpreter, must be reported (else a clean
  # run below would prove nothing).
  ctl=$(mktemp -d)
  printf 'int counter;\nvoid bump(int n) { for (int i = 0; i < n; ++i) counter++; }\n' >"$ctl/race.c"
  gcc -shared -fPIC -fsanitize=thread -O1 -o "$ctl/librace.so" "$ctl/race.c"
  rc=0
  PYTHON_GIL=0 TSAN_OPTIONS=exitcode=66 "$PY" -c "
import ctypes, threading
lib = ctypes.CDLL('$ctl/librace.so')
barrier = threading.Barrier(2)
def go():
    barrier.wait()
    lib.bump(20000000)
threads = [threading.Thread(target=go) for _ in range(2)]
[t.start() for t in threads]
[t.join() for t in threads]
" >"$ctl/out" 2>&1 || rc=$?
  if ((rc != 66)) || ! grep -q 'WARNING: ThreadSanitizer: data race' "$ctl/out"; then
    cat "$ctl/out" >&2
    echo "run.sh: ThreadSanitizer did not report a deliberate race (exit $rc): not a valid TSan run" >&2
    exit 1
  fi
  echo "ThreadSanitizer is live: a deliberate race was reported"
  rm -rf "$ctl"
  env+=(TSAN_OPTIONS="suppressions=$ROOT/test/free-threaded/tsan-suppressions.txt exitcode=66 halt_on_error=0 report_signal_unsafe=0")
fi
step "threads.py ${TEST_ARGS[*]}"
env "${env[@]}" "$PY" "$ROOT/test/free-threaded/threads.py" "${TEST_ARGS[@]}"
if ((BENCH)); then
  build_package baseline "$ROOT/build-free-threaded-baseline$SUFFIX"
  step "bench.py: wrapper throughput, 1 and 2 threads, patched vs unpatched"
  PYTHON_GIL=0 "$PY" "$ROOT/test/free-threaded/bench.py" "$BUILD/python_packages/mlir_core" \
    "$ROOT/build-free-threaded-baseline$SUFFIX/python_packages/mlir_core"
fi
echo "run.sh: passed in $((SECONDS - START)) s"
