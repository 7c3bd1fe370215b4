#!/usr/bin/env bash
# check-series-prefixes.sh -- every prefix of a release's patch series
# (patches 1..k, k = F..N; F = 1, or the first patch after the independent
# fixes) builds and passes the tests that prefix adds, so that each patch can
# be reviewed and landed on its own; with --alone, each independent fix
# builds and passes its tests on the unpatched release.
#
#   [LLVM_VERSION=23.1.1|19.1.7] scripts/check-series-prefixes.sh [--dry-run]
#   [LLVM_VERSION=...]           scripts/check-series-prefixes.sh --alone [--dry-run]
#   [LLVM_VERSION=...]           scripts/check-series-prefixes.sh --restore [--alone]
#
# A series may begin with a section of independent fixes: the patches listed
# after a comment line starting "# Independent fixes" and before the next
# comment line of `series` (patches/llvm-23.1.1/ has one). They come first
# and are not prefixes of the weak-reference series: the prefixes checked by
# default start after them (each includes them all), and --alone checks
# each of them on its own, as a reviewer taking it as its own change would.
# A prefix's tests are those its weak-reference patches add or change, and
# the tests of each fix whose files they change (so that a patch rewriting
# a fix's code runs that fix's tests).
#
#   --dry-run   print, per prefix, the files that would be re-made, the
#               targets that would be built and the tests that would run;
#               changes nothing
#   --restore   only put the full series (with --alone: the pristine
#               release) back into the build tree after an interrupted run
#               (the next run does it too; ./setup.sh refuses such a tree)
#   --from K    start at prefix K (the ones before were checked by an
#               earlier run of the same patches 1..K-1; K after the
#               independent fixes); the last step is still the full series
#   --alone     each independent fix alone on the release, in the BASELINE
#               tree (`./setup.sh --baseline`: the release unpatched, with
#               the LLVM targets of the default set-up): for each fix, the
#               files it touches re-made from the pristine source + that
#               patch, its targets built and its tests run as below; the
#               last step puts the pristine files back and rebuilds what
#               any step built, and runs each fix's Python tests on that
#               pristine package and its unit tests built against those
#               libraries: each must fail (else it does not test its fix)
#
# It works IN the patched build tree of ./setup.sh (`--print-tree`), reusing
# its LLVM build: for each prefix k it re-makes the files the series touches
# from the pristine source + patches 1..k (files the prefix does not create are
# removed; files whose content did not change since the previous step keep
# their mtime, the others get a new one, as setup.sh does), then runs
#   ninja -C <llvm build> MLIRIR MLIRCAPIIR [+ what the prefix's tests need]
# (ninja re-runs cmake itself when a CMakeLists.txt changed) and the tests
# the prefix adds (test files patches 1..k create or change):
#   mlir/unittests/**.cpp (GTEST_SPECS)  a gtest binary built from it against
#       the build's libraries it needs and LLVM's bundled GoogleTest, as
#       unittests/CMakeLists.txt builds WeakOpRefUpstreamTests and the others
#       (a small CMake project of this script's own: the project's build also
#       builds MLIRWeakRef, which needs the whole series)
#   mlir/test/CAPI/*.c (CAPI_SPECS)       mlir-capi-<name>-test | FileCheck
#       (its RUN line; without a built FileCheck only the exit status counts)
#   mlir/test/python/**.py                the LLVM targets setup.sh builds for
#       the Python package, then the package itself, as the baseline build
#       makes it (weakref/python without this project's own module, which
#       needs the whole series), and the prefix's Python test files through
#       test/python/run_upstream.py (their RUN lines, PYTHONPATH = the
#       package, upstream tests' known skips), in a scratch CMake project
# The last step is the full series; afterwards the touched files get back
# the mtimes they had before the run (see restore_recorded_mtimes), so that
# nothing is rebuilt for the run's sake later. ccache (the LLVM build uses
# it) makes going back to content compiled before cheap.
#
# The tree must be what ./setup.sh makes of the current series (re-run it
# after changing the series); the script refuses otherwise, and while a
# ninja or cmake runs in the LLVM build. Its own state (recorded files,
# scratch builds, logs) is in <tree>/prefix-check/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export LLVM_VERSION=${LLVM_VERSION:-23.1.1}
JOBS=${JOBS:-$(nproc)}
DRY_RUN=0
RESTORE_ONLY=0
ALONE=0
FROM=
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  arg=${args[i]}
  case $arg in
  --dry-run) DRY_RUN=1 ;;
  --restore) RESTORE_ONLY=1 ;;
  --alone) ALONE=1 ;;
  --from)
    FROM=${args[i + 1]:-}
    [[ $FROM =~ ^[1-9][0-9]*$ ]] ||
      { echo "check-series-prefixes: error: --from needs a prefix number (1 or more), got '$FROM'" >&2; exit 2; }
    i=$((i + 1)) ;;
  -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  *) echo "check-series-prefixes: error: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

die() { echo "check-series-prefixes: error: $*" >&2; exit 1; }
say() { echo "check-series-prefixes: $*"; }
join() { local IFS=,; printf '%s' "$*" | sed 's/,/, /g'; }

# Every path comes from setup.sh, the owner of the cache layout. --alone
# works in the baseline tree.
VARIANT_ARG=--patched
((ALONE)) && VARIANT_ARG=--baseline
ask() { "$ROOT/setup.sh" "$VARIANT_ARG" "$1"; }
TREE=$(ask --print-tree)
LLVM_BUILD=$(ask --print-llvm-build)
PRISTINE=$(ask --print-pristine)
SERIES_DIR=$(ask --print-series-dir)
CACHE=$(ask --print-cache)
SRC=$TREE/src
WORK=$TREE/prefix-check
INPROGRESS=$WORK/in-progress
FILECHECK=$LLVM_BUILD/bin/FileCheck

[[ -f $PRISTINE/.complete ]] || die "no pristine source in $PRISTINE; run ./setup.sh first"
[[ -f $SERIES_DIR/series ]] || die "no series file in $SERIES_DIR"

# ------------------------------------------------------------- the series ----
mapfile -t PATCH_NAMES < <(grep -v -e '^\s*#' -e '^\s*$' "$SERIES_DIR/series" || true)
N=${#PATCH_NAMES[@]}
((N)) || die "$SERIES_DIR/series names no patch"
# NFIX: the number of independent fixes (the series' first NFIX patches).
NFIX=$("$ROOT/scripts/independent-fixes.sh" "$SERIES_DIR/series" | wc -l)
((NFIX < N)) || die "$SERIES_DIR/series: every patch is in the independent fixes' section"
if ((ALONE)); then
  ((NFIX)) || die "--alone: $SERIES_DIR/series has no section of independent fixes ('# Independent fixes' comment)"
  [[ -z $FROM ]] || die "--alone checks every independent fix: --from does not apply"
  FROM=1
fi
if [[ -n $FROM ]] && ((!ALONE && FROM <= NFIX)); then
  die "--from $FROM: patches 1-$NFIX are independent fixes, checked alone (--alone); prefixes start at $((NFIX + 1))"
fi
FROM_GIVEN=${FROM:+1}
FROM=${FROM:-$((NFIX + 1))}
((FROM <= N)) || die "--from $FROM: the series has $N patches"
PATCHES=()
for p in "${PATCH_NAMES[@]}"; do
  [[ -f $SERIES_DIR/$p ]] || die "series names '$p' but $SERIES_DIR/$p does not exist"
  PATCHES+=("$SERIES_DIR/$p")
done
subject() { # the patch's Subject (folded lines joined), without [PATCH n/m]
  awk '/^Subject: / { s = substr($0, 10); f = 1; next }
       f && /^[ \t]/ { sub(/^[ \t]+/, " "); s = s $0; next }
       f { exit }
       END { sub(/^\[PATCH[^]]*\] */, "", s); print s }' "$1"
}
# The files the series writes, from its diff headers (as setup.sh computes
# <tree>/touched).
touched_files() {
  local p
  for p in "$@"; do sed -n 's#^+++ b/\(.*\)#\1#p; s#^--- a/\(.*\)#\1#p' "$p"; done | sort -u
}
if ((ALONE)); then
  mapfile -t TOUCHED < <(touched_files "${PATCHES[@]:0:NFIX}")
else
  mapfile -t TOUCHED < <(touched_files "${PATCHES[@]}")
fi

# remake DIR K: DIR holds the touched files as pristine + patches 1..K make
# them (a file that does not exist then is absent); in --alone mode, as
# pristine + patch K alone makes them (K = 0: pristine).
# copy_touched FROM TO: the touched files FROM has, into TO (mtimes kept).
copy_touched() {
  local f
  for f in "${TOUCHED[@]}"; do
    [[ -e $1/$f ]] || continue
    mkdir -p "$2/$(dirname "$f")"
    cp -p "$1/$f" "$2/$f"
  done
}

remake() {
  local dir=$1 k=$2 i out first=0
  rm -rf "$dir"
  mkdir -p "$dir"
  copy_touched "$PRISTINE" "$dir"
  ((ALONE)) && first=$((k > 0 ? k - 1 : 0))
  for ((i = first; i < k; i++)); do
    if ! out=$(patch -p1 -d "$dir" --forward --batch --no-backup-if-mismatch <"${PATCHES[i]}" 2>&1); then
      echo "$out" | sed 's/^/    /' >&2
      ((ALONE)) && die "patch ${PATCH_NAMES[i]} does not apply alone to the pristine release; fix it"
      die "patch ${PATCH_NAMES[i]} does not apply to pristine + patches 1..$i; fix the series"
    fi
  done
}
# FULL: the step the tree is checked against and ends with: the full series,
# or in --alone mode the pristine release (0).
FULL=$N
SETUP_CMD="./setup.sh"
((ALONE)) && FULL=0 SETUP_CMD="./setup.sh --baseline --no-demo"
# The steps, in order; the last is FULL.
STEPS=()
if ((ALONE)); then
  for ((k = 1; k <= NFIX; k++)); do STEPS+=("$k"); done
  STEPS+=(0)
else
  for ((k = FROM; k <= N; k++)); do STEPS+=("$k"); done
fi
label() { # the step's name in the report
  if ((ALONE)); then
    (($1)) && echo "fix $1/$NFIX alone $(subject "${PATCHES[$1 - 1]}")" || echo "pristine release (restored)"
  else
    echo "prefix $1/$N $(subject "${PATCHES[$1 - 1]}")"
  fi
}
same_file() { # A B: both absent, or both present with the same content
  if [[ -e $1 ]]; then [[ -e $2 ]] && cmp -s "$1" "$2"; else [[ ! -e $2 ]]; fi
}
# differing_files A B: the touched files whose content differs between the
# trees A and B (one line each: the path).
differing_files() {
  local f
  for f in "${TOUCHED[@]}"; do same_file "$1/$f" "$2/$f" || echo "$f"; done
}
# sync_src DIR: make $SRC's touched files those of DIR. Unchanged files keep
# their mtime; changed or created ones get a new one (the copy writes them);
# files DIR does not have are removed, with directories pristine does not
# have that are left empty.
sync_src() {
  local dir=$1 f d
  CHANGED=()
  for f in "${TOUCHED[@]}"; do
    same_file "$dir/$f" "$SRC/$f" && continue
    CHANGED+=("$f")
    if [[ -e $dir/$f ]]; then
      mkdir -p "$(dirname "$SRC/$f")"
      cp "$dir/$f" "$SRC/$f"
      touch "$SRC/$f"
    else
      rm -f "$SRC/$f"
      d=$(dirname "$f")
      while [[ $d != . && ! -d $PRISTINE/$d ]] && rmdir "$SRC/$d" 2>/dev/null; do d=$(dirname "$d"); done
    fi
  done
}
# The full series, with new mtimes for what differs: always correct for
# ninja (anything built against other content is rebuilt), used after an
# interrupted run.
restore_full_series() {
  remake "$WORK/step" "$FULL"
  sync_src "$WORK/step"
  rm -rf "$WORK/step"
  if ((ALONE)); then
    say "pristine release restored in $SRC (${#CHANGED[@]} file(s) re-made with new mtimes)"
  else
    say "full series restored in $SRC (${#CHANGED[@]} file(s) re-made with new mtimes)"
  fi
}

# ---------------------------------------------------- what a prefix needs ----
# The unit tests the series adds or changes: binary, file, libraries.
GTEST_SPECS=(
  "SCFForallPrefixTest mlir/unittests/Dialect/SCF/ForallCanonicalizationTest.cpp MLIRIR MLIRParser MLIRArithDialect MLIRSCFDialect MLIRTransformUtils"
  "WeakOpRefPrefixTest mlir/unittests/IR/WeakOpRefTest.cpp MLIRIR"
  "ErasureChecksPrefixTest mlir/unittests/Transforms/ErasureChecks.cpp MLIRIR MLIRParser MLIRPass MLIRTransforms MLIRTransformUtils"
  "PayloadErasurePrefixTest mlir/unittests/Dialect/Transform/PayloadErasureTest.cpp MLIRIR MLIRParser MLIRTransformDialect"
  "DataFlowSolverPrefixTest mlir/unittests/Analysis/DataFlowFrameworkTest.cpp MLIRIR MLIRParser MLIRAnalysis MLIRArithDialect MLIRControlFlowDialect MLIRFuncDialect"
  "AnalysisCachePrefixTest mlir/unittests/IR/AnalysisCacheTest.cpp MLIRIR"
)
# The C API tests: file, test binary (an LLVM target). Not rewrite.c, which
# patch 26 extends: mlir-capi-rewrite-test links every dialect of MLIR (about
# 2,100 more steps).
CAPI_SPECS=(
  "mlir/test/CAPI/opref.c mlir-capi-opref-test"
  "mlir/test/CAPI/users.c mlir-capi-users-test"
)
# The LLVM targets setup.sh builds for this project, its Python package's
# included, but the dialect set of weakref/python/extended-dialects.txt: the
# package built for a prefix's Python tests has builtin, func, arith and cf
# only (MLIR_WEAKREF_PYTHON_CORE_DIALECTS_ONLY), which is all the series'
# tests use; with the set, every prefix that changes an IR header would
# rebuild the dialects' libraries.
mapfile -t SETUP_TARGETS < <("$ROOT/setup.sh" --print-llvm-targets |
  grep -vxFf <(awk '$1 == "lib" || $1 == "capi" || $1 == "gen" { print $2 }' \
    "$ROOT/weakref/python/extended-dialects.txt"))
python_reason= # why Python tests cannot run here (empty: they can)
if [[ -n ${SANITIZE:-} ]]; then
  python_reason="not in sanitized builds (SANITIZE=$SANITIZE)"
elif [[ -f $LLVM_BUILD/CMakeCache.txt ]] && ! grep -qx 'MLIR_ENABLE_BINDINGS_PYTHON:BOOL=ON' "$LLVM_BUILD/CMakeCache.txt"; then
  python_reason="the LLVM build has no Python bindings"
fi

[[ -n $python_reason ]] || printf '%s\n' "${SETUP_TARGETS[@]}" | grep -qx MLIRCAPIDebug ||
  die "setup.sh --print-llvm-targets did not list the Python package's targets"

# BASE: what a step's tests are found against: the pristine release with
# the independent fixes (the fixes' own tests are not the weak-reference
# prefixes': --alone runs them, and with the full series ./test.sh), or with
# --alone the pristine release.
BASE=$PRISTINE
cleanup_base() { [[ $BASE == "$PRISTINE" ]] || rm -rf "$BASE"; }
if ((NFIX && !ALONE)); then
  BASE=$(mktemp -d)
  trap cleanup_base EXIT
  remake "$BASE" "$NFIX"
fi
# added DIR FILE: the step whose touched files DIR holds has FILE, and
# added or changed it from BASE (an upstream test it does not change is not
# its test; for the fixes' tests see selected below).
added() { [[ -e $1/$2 ]] && ! same_file "$BASE/$2" "$1/$2"; }
is_test_file() { [[ $1 == */test/* || $1 == */unittests/* ]]; }
# FIX_SOURCES[i] / FIX_TESTS[i]: the files fix i+1 touches, outside and in
# test directories (space-separated).
FIX_SOURCES=() FIX_TESTS=()
if ((!ALONE)); then
  for ((i = 0; i < NFIX; i++)); do
    srcs=() tsts=()
    while read -r f; do
      if is_test_file "$f"; then tsts+=("$f"); else srcs+=("$f"); fi
    done < <(touched_files "${PATCHES[i]}")
    FIX_SOURCES+=("${srcs[*]}") FIX_TESTS+=("${tsts[*]}")
  done
fi
# selected DIR FILE: FILE is a test of the step whose touched files DIR
# holds: the step added or changed it, or it is the test of an independent
# fix one of whose other files the step changed.
selected() {
  local i f
  added "$1" "$2" && return 0
  for ((i = 0; i < ${#FIX_TESTS[@]}; i++)); do
    [[ " ${FIX_TESTS[i]} " == *" $2 "* ]] || continue
    for f in ${FIX_SOURCES[i]}; do added "$1" "$f" && return 0; done
  done
  return 1
}
# plan DIR: from a tree of touched files, what its tests and targets are.
plan() {
  local dir=$1 f spec name libs
  GTESTS=() GTEST_LIBS=() CAPIS=() PY_TESTS=()
  for spec in "${GTEST_SPECS[@]}"; do
    read -r name f libs <<<"$spec"
    selected "$dir" "$f" || continue
    GTESTS+=("$name $f $libs")
    read -ra libs <<<"$libs"
    GTEST_LIBS+=("${libs[@]}")
  done
  for spec in "${CAPI_SPECS[@]}"; do
    read -r f name <<<"$spec"
    selected "$dir" "$f" && CAPIS+=("$spec")
  done
  HAS_GTEST=${#GTESTS[@]} HAS_CAPI=${#CAPIS[@]}
  for f in "${TOUCHED[@]}"; do
    if [[ $f != mlir/test/python/*.py ]] || ! selected "$dir" "$f"; then continue; fi
    [[ $(basename "$f") == lit.cfg.py || $(basename "$f") == lit.local.cfg.py ]] && continue
    PY_TESTS+=("${f#mlir/test/python/}")
  done
  TARGETS=(MLIRIR MLIRCAPIIR)
  # The library sources the prefix changes, each through the object it
  # compiles to (ninja's `source^`): a patch that changes a dialect, say,
  # compiles even when no test of the prefix needs it. The Python bindings'
  # sources are built by the Python package below.
  for f in "${TOUCHED[@]}"; do
    if [[ $f == mlir/lib/*.cpp && $f != mlir/lib/Bindings/Python/* ]] && added "$dir" "$f"; then
      TARGETS+=("$SRC/$f^")
    fi
  done
  ((HAS_GTEST)) && TARGETS+=(LLVMSupport llvm_gtest llvm_gtest_main "${GTEST_LIBS[@]}")
  for spec in "${CAPIS[@]}"; do TARGETS+=("${spec#* }"); done
  ((${#PY_TESTS[@]})) && [[ -z $python_reason ]] && TARGETS+=("${SETUP_TARGETS[@]}")
  # Each target once, in order.
  mapfile -t TARGETS < <(printf '%s\n' "${TARGETS[@]}" | awk '!seen[$0]++')
}

# drop_absent_capi_targets: a C API test binary exists only where the series
# has its test (an upstream test's binary exists anyway, but is only built
# for the steps that change it).
drop_absent_capi_targets() {
  local spec f bin
  for spec in "${CAPI_SPECS[@]}"; do
    read -r f bin <<<"$spec"
    [[ -e $SRC/$f ]] || mapfile -t TARGETS < <(printf '%s\n' "${TARGETS[@]}" | grep -vx "$bin")
  done
}

# --------------------------------------------------- scratch CMake projects ----
write_if_changed() { # file content: rewrite only on change (no reconfigure)
  if [[ ! -f $1 || $(cat "$1") != "$2" ]]; then mkdir -p "$(dirname "$1")"; printf '%s\n' "$2" >"$1"; fi
}
SCRATCH_PREAMBLE='cmake_minimum_required(VERSION 3.20)
project(@NAME@ LANGUAGES CXX C)
set(CMAKE_CXX_STANDARD 17 CACHE STRING "C++ standard to conform to")
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(MLIR REQUIRED CONFIG)
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})
list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)
include_directories(${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
link_directories(${LLVM_BUILD_LIBRARY_DIR})
add_definitions(${LLVM_DEFINITIONS})'
# The unit tests of the step (GTESTS), as unittests/CMakeLists.txt builds
# WeakOpRefUpstreamTests and the others: LLVM's bundled GoogleTest with
# LLVM's flags, the libraries each needs. Only the step's own, so that the
# text changes (and ninja re-runs cmake) when a step adds one.
gtest_cmake() { # [source root: default the LLVM build's source tree]
  local spec name f libs root=${1:-'${LLVM_BUILD_MAIN_SRC_DIR}/..'}
  printf '%s\n' "${SCRATCH_PREAMBLE//@NAME@/weakref-prefix-gtest}"
  printf 'include("%s/cmake/LLVMGTest.cmake")\n' "$ROOT"
  for spec in "${GTESTS[@]}"; do
    read -r name f libs <<<"$spec"
    printf 'add_executable(%s\n  "%s/%s")\n' "$name" "$root" "$f"
    printf 'llvm_update_compile_flags(%s)\n' "$name"
    printf 'target_compile_options(%s PRIVATE -Wno-suggest-override)\n' "$name"
    printf 'target_link_libraries(%s PRIVATE llvm_gtest_main llvm_gtest %s)\n' "$name" "$libs"
    printf 'set_target_properties(%s PROPERTIES\n  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)\n' "$name"
  done
}
# The mlir Python package as the baseline build makes it: weakref/python
# without this project's mlir.weakref module (MLIRWeakRefCAPI needs the
# whole series), from the patched tree's Python sources.
PYTHON_CMAKE="${SCRATCH_PREAMBLE//@NAME@/weakref-prefix-python}
include(MLIRDetectPythonEnv)
mlir_configure_python_dev_packages()
set(MLIR_WEAKREF_PATCHED OFF)
set(MLIR_WEAKREF_PYTHON_CORE_DIALECTS_ONLY ON)
add_subdirectory(\"$ROOT/weakref/python\" weakref-python)"

# scratch_build NAME CMAKE-TEXT TARGET LOG: configure (once; ninja re-runs
# cmake when needed) and build the scratch project $WORK/NAME.
scratch_build() {
  local name=$1 text=$2 target=$3 log=$4 san=() v
  write_if_changed "$WORK/$name/src/CMakeLists.txt" "$text"
  if [[ ! -f $WORK/$name/build/build.ninja ]]; then
    # The LLVM build's sanitizer flags, as setup.sh gives them to the project.
    v=$(sed -n 's/^LLVM_USE_SANITIZER:[A-Z]*=//p' "$LLVM_BUILD/CMakeCache.txt" 2>/dev/null)
    [[ -n $v ]] && san+=("-DLLVM_USE_SANITIZER=$v")
    v=$(sed -n 's/^CMAKE_CXX_FLAGS:[A-Z]*=//p' "$LLVM_BUILD/CMakeCache.txt" 2>/dev/null)
    [[ -n $v ]] && san+=("-DCMAKE_CXX_FLAGS=$v" "-DCMAKE_C_FLAGS=$v")
    echo "+ cmake (configure $name)" >>"$log"
    CCACHE_DIR=$CACHE/ccache cmake -S "$WORK/$name/src" -B "$WORK/$name/build" -G Ninja \
      -DCMAKE_BUILD_TYPE=Release \
      -DMLIR_DIR="$LLVM_BUILD/lib/cmake/mlir" -DLLVM_DIR="$LLVM_BUILD/lib/cmake/llvm" \
      -DPython3_EXECUTABLE=/usr/bin/python3 -DPython_EXECUTABLE=/usr/bin/python3 \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
      "${san[@]}" >>"$log" 2>&1 || { rm -f "$WORK/$name/build/build.ninja"; return 1; }
  fi
  echo "+ ninja -C $WORK/$name/build $target" >>"$log"
  CCACHE_DIR=$CACHE/ccache ninja -C "$WORK/$name/build" -j"$JOBS" "$target" >>"$log" 2>&1
}

# ------------------------------------------------------------------ tests ----
# python_run_line FILE: FILE's first `# RUN:` line with lit's substitutions
# made (%PYTHON, FileCheck, %s), for bash; nothing if it has none.
python_run_line() {
  local cmd
  cmd=$(sed -n 's/^# RUN: //p' "$1" | head -1)
  [[ -n $cmd ]] || return 0
  cmd=${cmd//%PYTHON//usr/bin/python3}
  cmd=${cmd//FileCheck/$FILECHECK}
  printf '%s\n' "${cmd//%s/$1}"
}
# run_tests LOG: runs the tests planned for the current step; sets TEST_OK,
# TEST_NAMES (those run), TEST_FAILED, TEST_NOT_RUN and TEST_NOTES.
run_tests() {
  local log=$1 cmd t out line
  TEST_OK=1 TEST_NAMES=() TEST_FAILED=() TEST_NOT_RUN=() TEST_NOTES=()
  local spec name f bin
  for spec in "${GTESTS[@]}"; do
    read -r name f _ <<<"$spec"
    TEST_NAMES+=("$(basename "$f")")
    echo "+ $WORK/gtest/build/bin/$name" >>"$log"
    "$WORK/gtest/build/bin/$name" >>"$log" 2>&1 || TEST_FAILED+=("$(basename "$f")")
  done
  for spec in "${CAPIS[@]}"; do
    read -r f bin <<<"$spec"
    name=$(basename "$f")
    TEST_NAMES+=("$name")
    cmd=$(sed -n 's#^.*RUN: *\(.*\)$#\1#p' "$SRC/$f" | head -1 | sed 's#[ \t]*\*/[ \t]*$##')
    [[ -n $cmd ]] || cmd="$bin 2>&1 | FileCheck %s"
    if [[ -x $FILECHECK ]]; then
      cmd=${cmd//FileCheck/$FILECHECK}
    else
      # No FileCheck built: the test's exit status alone.
      cmd=${cmd%%|*}
      TEST_NOTES+=("$name: exit status only, no FileCheck in $LLVM_BUILD/bin")
    fi
    cmd=${cmd//$bin/$LLVM_BUILD/bin/$bin}
    cmd=${cmd//%s/$SRC/$f}
    echo "+ $cmd" >>"$log"
    bash -o pipefail -c "$cmd" >>"$log" 2>&1 || TEST_FAILED+=("$name")
  done
  if ((${#PY_TESTS[@]})); then
    if [[ -n $python_reason ]]; then
      TEST_NOT_RUN+=("${PY_TESTS[@]}")
      TEST_NOTES+=("Python tests not run: $python_reason")
    elif [[ ! -x $FILECHECK ]]; then
      TEST_NOT_RUN+=("${PY_TESTS[@]}")
      TEST_NOTES+=("Python tests not run: no FileCheck in $LLVM_BUILD/bin")
    else
      # The prefix's test files, run by run_upstream.py in the tree (its
      # skips with their reasons); a file it does not run (no RUN line)
      # runs here, the same way.
      echo "+ run_upstream.py --only ${PY_TESTS[*]} (PYTHONPATH=$WORK/python/build/python_packages/mlir_core)" >>"$log"
      out=$(/usr/bin/python3 "$ROOT/test/python/run_upstream.py" "$SRC/mlir" \
        "$FILECHECK" "$WORK/python/build/python_packages/mlir_core" --only "${PY_TESTS[@]}" 2>&1) || true
      echo "$out" >>"$log"
      for t in "${PY_TESTS[@]}"; do
        TEST_NAMES+=("$t")
        line=$(grep -E "^(PASS|FAIL|SKIP) +$t( |:|\$)" <<<"$out" | head -1 || true)
        case $line in
        PASS*) ;;
        SKIP*) TEST_NOTES+=("$t skipped: ${line#*: }") ;;
        FAIL*) TEST_FAILED+=("$t") ;;
        *)
          cmd=$(python_run_line "$SRC/mlir/test/python/$t")
          if [[ -z $cmd ]]; then
            TEST_NOT_RUN+=("$t")
            TEST_NOTES+=("$t has no RUN line: not run")
            continue
          fi
          echo "+ $cmd" >>"$log"
          PYTHONPATH=$WORK/python/build/python_packages/mlir_core bash -o pipefail -c "$cmd" >>"$log" 2>&1 ||
            TEST_FAILED+=("$t")
          ;;
        esac
      done
    fi
  fi
  ((${#TEST_FAILED[@]} == 0)) || TEST_OK=0
}

# The oracle of --alone: each fix's Python and unit test files, kept from its
# step (save_fix_tests K), must fail on the pristine release (the last step:
# its Python package; the unit tests built against its libraries): a test
# that passes without its fix does not test it.
save_fix_tests() {
  local k=$1 t spec f
  for t in "${PY_TESTS[@]}"; do
    mkdir -p "$(dirname "$WORK/alone-tests/$k/$t")"
    cp "$SRC/mlir/test/python/$t" "$WORK/alone-tests/$k/$t"
  done
  for spec in "${GTESTS[@]}"; do
    read -r _ f _ <<<"$spec"
    mkdir -p "$(dirname "$WORK/alone-tests/$k/gtest/$f")"
    cp "$SRC/$f" "$WORK/alone-tests/$k/gtest/$f"
    echo "$spec" >>"$WORK/alone-tests/$k/gtests"
  done
}
# check_fix_tests_fail LOG: sets UNFIXED_RESULT, and all_ok=0 if a test
# passes without its fix (or a unit test does not build without it).
check_fix_tests_fail() {
  local log=$1 k f rel cmd spec name failing=() passing=() unbuilt=()
  # Each fix's saved unit tests, for gtest_cmake (the step's own are done).
  local GTESTS=()
  for ((k = 1; k <= NFIX; k++)); do
    [[ -d $WORK/alone-tests/$k ]] || continue
    while read -r f; do
      rel=${f#"$WORK/alone-tests/$k/"}
      cmd=$(python_run_line "$f")
      echo "+ (without fix $k) $cmd" >>"$log"
      if (cd "$WORK" && PYTHONPATH=$WORK/python/build/python_packages/mlir_core timeout 300 bash -o pipefail -c "$cmd") >>"$log" 2>&1; then
        passing+=("$rel (fix $k)")
      else
        failing+=("$rel")
      fi
    done < <(find "$WORK/alone-tests/$k" -path "$WORK/alone-tests/$k/gtest" -prune -o -name '*.py' -print | sort)
    [[ -f $WORK/alone-tests/$k/gtests ]] || continue
    mapfile -t GTESTS <"$WORK/alone-tests/$k/gtests"
    for spec in "${GTESTS[@]}"; do
      read -r name f _ <<<"$spec"
      if ! scratch_build gtest "$(gtest_cmake "$WORK/alone-tests/$k/gtest")" "$name" "$log"; then
        unbuilt+=("$(basename "$f") (fix $k)")
        continue
      fi
      echo "+ (without fix $k) $WORK/gtest/build/bin/$name" >>"$log"
      if "$WORK/gtest/build/bin/$name" >>"$log" 2>&1; then
        passing+=("$(basename "$f") (fix $k)")
      else
        failing+=("$(basename "$f")")
      fi
    done
  done
  UNFIXED_RESULT="fixes' tests without their fix: ${#failing[@]} fail as they must"
  if ((${#passing[@]})); then
    UNFIXED_RESULT+=", $(join "${passing[@]}") PASS (they do not test their fix)"
    all_ok=0
  fi
  if ((${#unbuilt[@]})); then
    UNFIXED_RESULT+=", $(join "${unbuilt[@]}") do not build"
    all_ok=0
  fi
}

# ------------------------------------------------- the tree is the series ----
# Refuses unless $TREE/src holds what setup.sh makes of the current series:
# the same touched list and, for each touched file, the content of pristine +
# the full series (a series changed since ./setup.sh, or edits synced from
# the developer tree, fail this).
check_tree() { # scratch-dir
  local problems=() diff
  [[ -d $SRC && -f $TREE/key ]] || problems+=("no patched tree in $TREE (no src/ or key)")
  if [[ -d $SRC ]]; then
    if ((!ALONE)) && ! printf '%s\n' "${TOUCHED[@]}" | cmp -s - "$TREE/touched"; then
      problems+=("the series touches other files than $TREE/touched lists")
    fi
    remake "$1" "$FULL"
    mapfile -t diff < <(differing_files "$1" "$SRC")
    if ((ALONE)); then
      ((${#diff[@]} == 0)) || problems+=("${#diff[@]} file(s) of $SRC the fixes touch differ from the pristine release: ${diff[*]}")
    else
      ((${#diff[@]} == 0)) || problems+=("${#diff[@]} touched file(s) of $SRC differ from pristine + the series: ${diff[*]}")
    fi
  fi
  TREE_PROBLEMS=("${problems[@]}")
  # setup.sh's key names the series by a hash of its files (as setup.sh's
  # series_hash): with equal contents a differing one means only commit
  # messages changed, which does not matter here.
  local hash p
  hash=$({ cat "$SERIES_DIR/series"; for p in "${PATCHES[@]}"; do cat "$p"; done; } | sha256sum | cut -c1-12)
  if ((!ALONE && ${#problems[@]} == 0)) && [[ $(cat "$TREE/key") != *-series-$hash-* ]]; then
    say "note: $TREE/key is for another version of the series, with the same file contents (commit messages changed?)"
  fi
}
# A ninja or cmake working in the LLVM build (setup.sh, a developer's build).
busy() { ps -eo args= 2>/dev/null | grep -F -- "$LLVM_BUILD" | grep -E '^(\S*/)?(ninja|cmake)( |$)' || true; }

# ---------------------------------------------------------------- dry run ----
if ((DRY_RUN)); then
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"; cleanup_base' EXIT
  say "LLVM $LLVM_VERSION, $N patches, $((${#TOUCHED[@]})) touched files; tree $TREE"
  check_tree "$TMP/full"
  if [[ -f $INPROGRESS ]]; then
    say "an interrupted run left the tree at a prefix: a real run (or --restore) restores the full series first"
  elif ((${#TREE_PROBLEMS[@]})); then
    for p in "${TREE_PROBLEMS[@]}"; do say "a real run would refuse: $p"; done
    say "(run $SETUP_CMD first; the plan below compares with the tree as it is)"
  else
    ((ALONE)) && say "tree check: $SRC is the pristine release where the fixes touch it (key $(cat "$TREE/key"))"
    ((ALONE)) || say "tree check: $SRC is pristine + the current series (key $(cat "$TREE/key"))"
  fi
  b=$(busy)
  [[ -n $b ]] && say "a real run would refuse now: running in the LLVM build: $(head -1 <<<"$b" | cut -c1-120)..."
  [[ -n $python_reason ]] && say "Python tests: $python_reason"
  [[ -x $FILECHECK ]] || say "no $FILECHECK (yet): C API tests would be checked by exit status only, Python tests not run"
  prev=$SRC
  any_targets=()
  for k in "${STEPS[@]}"; do
    remake "$TMP/step-$k" "$k"
    mapfile -t changed < <(differing_files "$prev" "$TMP/step-$k")
    plan "$TMP/step-$k"
    any_targets+=("${TARGETS[@]}")
    if ((k == FULL)); then
      # The last step builds what any step built (see the real run below).
      mapfile -t TARGETS < <(printf '%s\n' "${any_targets[@]}" | awk '!seen[$0]++')
      drop_absent_capi_targets
    fi
    echo
    echo "$(label "$k"):"
    if ((${#changed[@]})); then
      echo "  re-make ${#changed[@]} file(s) (new mtime; '-': removed):"
      for f in "${changed[@]}"; do
        [[ -e $TMP/step-$k/$f ]] && echo "    $f" || echo "    - $f"
      done
    else
      echo "  no file changes"
    fi
    echo "  ninja -C $LLVM_BUILD -j$JOBS ${TARGETS[*]}"
    tests=()
    for spec in "${GTESTS[@]}"; do
      read -r name f libs <<<"$spec"
      tests+=("$(basename "$f") (gtest binary $WORK/gtest/build/bin/$name, against $libs)")
    done
    for spec in "${CAPIS[@]}"; do
      read -r f name <<<"$spec"
      tests+=("$(basename "$f") ($name | FileCheck)")
    done
    if ((${#PY_TESTS[@]})); then
      if [[ -n $python_reason ]]; then
        tests+=("Python: not run ($python_reason): ${PY_TESTS[*]}")
      else
        tests+=("Python (package: ninja -C $WORK/python/build MLIRWeakRefPythonModules): ${PY_TESTS[*]}")
      fi
    fi
    ((${#tests[@]})) || tests=("none")
    for t in "${tests[@]}"; do echo "  test: $t"; done
    prev=$TMP/step-$k
  done
  echo
  say "then: restore the recorded mtimes of the ${#TOUCHED[@]} touched files whose content is unchanged (all, if the full series builds)"
  say "dry run: nothing changed"
  exit 0
fi

# ---------------------------------------------------------------- restore ----
mkdir -p "$WORK"
if ((RESTORE_ONLY)); then
  if [[ -f $INPROGRESS ]]; then
    restore_full_series
    rm -f "$INPROGRESS"
  else
    say "nothing to restore (no interrupted run in $TREE)"
    other=$("$ROOT/setup.sh" "$( ((ALONE)) && echo --patched || echo --baseline)" --print-tree)
    [[ -f $other/prefix-check/in-progress ]] &&
      say "but an interrupted run left $other modified: add$( ((ALONE)) && echo " no" || echo "") --alone"
  fi
  cleanup_base
  exit 0
fi

# ------------------------------------------------------------- preconditions ----
b=$(busy)
[[ -z $b ]] || die "ninja or cmake is running in $LLVM_BUILD ($(head -1 <<<"$b" | cut -c1-100)...); wait for it"
[[ ! -e $TREE/src.new ]] || die "$TREE/src.new exists: setup.sh is re-making the tree (or was interrupted); re-run ./setup.sh"
[[ -f $LLVM_BUILD/build.ninja ]] || die "no LLVM build in $LLVM_BUILD; run $SETUP_CMD first"
if [[ -f $INPROGRESS ]]; then
  say "an earlier run was interrupted at a prefix: restoring the full series first"
  restore_full_series
  rm -f "$INPROGRESS"
fi
check_tree "$WORK/full"
if ((${#TREE_PROBLEMS[@]})); then
  for p in "${TREE_PROBLEMS[@]}"; do echo "check-series-prefixes: $p" >&2; done
  rm -rf "$WORK/full"
  die "$SRC is not what $SETUP_CMD makes of the current series; run LLVM_VERSION=$LLVM_VERSION $SETUP_CMD first"
fi
rm -rf "$WORK/full"

# Record the touched files (content and mtime) of the tree.
rm -rf "$WORK/recorded"
mkdir -p "$WORK/recorded"
copy_touched "$SRC" "$WORK/recorded"

# From here until the end the tree may hold a prefix: if the run stops early,
# put the full series back (with new mtimes: correct whatever was built).
touch "$INPROGRESS"
on_exit() {
  local rc=$?
  cleanup_base
  if [[ -f $INPROGRESS ]]; then
    echo "check-series-prefixes: stopped before the end: restoring the tree" >&2
    restore_full_series && rm -f "$INPROGRESS"
  fi
  exit "$rc"
}
trap on_exit EXIT
trap 'exit 130' INT TERM HUP

# restore_recorded_mtimes: the touched files whose content is what was
# recorded get their recorded mtime back. Only after the last step (the full
# series) built all it had to, and correct then because:
# - every target this script built at any step was built again at the last
#   step, whose targets include all earlier steps' (any_targets): ninja
#   rebuilt each of its objects whose inputs changed since it was last built,
#   so all of them are now built against the last step's content (the full
#   series; with --alone the pristine release), and are newer than any mtime
#   this restores (this assumes that what a target needs at a prefix it
#   still needs at the last step: the series adds, it does not drop
#   dependencies); the script's own scratch projects count: the last step
#   rebuilds the Python package if any step built it, its gtest binaries are
#   every step's, and a failure there also keeps the new mtimes;
# - every other object was not touched by this script: it was built, before
#   the script ran, against that same content (the tree was checked to be
#   pristine + the full series), with those recorded mtimes (or was stale
#   then, and still is).
# Lowering a source's mtime to the recorded one never makes an up-to-date
# object look stale, and makes none look up to date that was built against
# other content. Without it, everything including a file that changed
# during the run (MLIR's IR headers: all of MLIR) would be rebuilt by the next
# ninja, for identical content. If the last step failed, objects built for
# a prefix may not have been rebuilt: the new mtimes stay.
restore_recorded_mtimes() {
  local f n=0
  for f in "${TOUCHED[@]}"; do
    if [[ -e $WORK/recorded/$f && -e $SRC/$f ]] && cmp -s "$WORK/recorded/$f" "$SRC/$f"; then
      touch -r "$WORK/recorded/$f" "$SRC/$f"
      n=$((n + 1))
    fi
  done
  say "restored the recorded mtimes of $n of ${#TOUCHED[@]} touched files"
}

# ------------------------------------------------------------------ steps ----
mkdir -p "$WORK/logs"
rm -rf "$WORK/alone-tests"
if ((ALONE)); then
  say "LLVM $LLVM_VERSION: $NFIX independent fixes, each alone, in $TREE (logs: $WORK/logs/)"
else
  say "LLVM $LLVM_VERSION: $N patches in $TREE (logs: $WORK/logs/)"
  if [[ -n $FROM_GIVEN ]]; then
    say "starting at prefix $FROM (--from)"
  elif ((NFIX)); then
    say "starting at prefix $FROM (after the $NFIX independent fixes, which --alone checks)"
  fi
fi
any_targets=()
any_python=0
all_ok=1
last_build_ok=0
for k in "${STEPS[@]}"; do
  subj=$(label "$k")
  log=$WORK/logs/prefix-$k.log
  ((ALONE)) && log=$WORK/logs/alone-$k.log
  : >"$log"
  remake "$WORK/step" "$k"
  sync_src "$WORK/step"
  rm -rf "$WORK/step"
  plan "$SRC"
  any_targets+=("${TARGETS[@]}")
  build_gtest=$HAS_GTEST
  build_python=0
  ((${#PY_TESTS[@]})) && [[ -z $python_reason ]] && build_python=1
  # The last step rebuilds the Python package if any step built it (with
  # --alone it has no tests then), so that no object of it is left built
  # against another step's sources (see restore_recorded_mtimes).
  ((k == FULL && any_python)) && build_python=1
  ((build_python)) && any_python=1
  if ((k == FULL)); then
    # The last step builds whatever any step built, so that afterwards no
    # object is left built against a prefix (see restore_recorded_mtimes).
    mapfile -t TARGETS < <(printf '%s\n' "${any_targets[@]}" | awk '!seen[$0]++')
    drop_absent_capi_targets
  fi
  echo "== $subj: ${#CHANGED[@]} file(s) re-made; ninja ${TARGETS[*]}" >>"$log"
  printf '%s\n' "${CHANGED[@]}" >>"$log"
  build_ok=1
  echo "+ ninja -C $LLVM_BUILD -j$JOBS ${TARGETS[*]}" >>"$log"
  ninja -C "$LLVM_BUILD" -j"$JOBS" "${TARGETS[@]}" >>"$log" 2>&1 || build_ok=0
  # The scratch projects are this script's own (not in the LLVM build): they
  # are built for the steps that test with them.
  if ((build_ok && build_gtest)); then
    for spec in "${GTESTS[@]}"; do
      scratch_build gtest "$(gtest_cmake)" "${spec%% *}" "$log" || { build_ok=0; break; }
    done
  fi
  ((build_ok && build_python)) && { scratch_build python "$PYTHON_CMAKE" MLIRWeakRefPythonModules "$log" || build_ok=0; }
  ((k == FULL)) && last_build_ok=$build_ok
  if ((build_ok)); then
    run_tests "$log"
    ((ALONE && k > 0 && TEST_OK)) && save_fix_tests "$k"
    if ((${#TEST_NAMES[@]} == 0)); then
      result="tests ok (none run)"
    elif ((TEST_OK)); then
      result="tests ok ($(join "${TEST_NAMES[@]}"))"
    else
      result="tests FAIL ($(join "${TEST_FAILED[@]}"))"
      all_ok=0
    fi
    ((${#TEST_NOT_RUN[@]})) && result+=" [not run: $(join "${TEST_NOT_RUN[@]}")]"
    if ((ALONE && k == 0)) && [[ -z $python_reason && -x $FILECHECK ]]; then
      check_fix_tests_fail "$log"
      result+="; $UNFIXED_RESULT"
    fi
    echo "$subj: build ok, $result"
  else
    TEST_NOTES=() TEST_OK=0
    all_ok=0
    echo "$subj: build FAIL, tests not run"
    grep -A15 -E '^FAILED:|CMake Error' "$log" | head -40 | sed 's/^/    /'
  fi
  for n in "${TEST_NOTES[@]}"; do echo "    note: $n"; done
  ((build_ok && TEST_OK)) || echo "    (log: $log)"
done

# The tree holds the full series (the pristine release with --alone) again:
# the last step.
rm -f "$INPROGRESS"
trap - EXIT
cleanup_base
if ((last_build_ok)); then
  restore_recorded_mtimes
else
  say "the last step's build failed: the re-made files keep their new mtimes (objects built for a step must be rebuilt)"
fi
if ((all_ok)); then
  if ((ALONE)); then
    say "OK: each of the $NFIX independent fixes builds and passes its tests alone on LLVM $LLVM_VERSION"
  elif ((FROM > 1)); then
    say "OK: prefixes $FROM to $N build and pass their tests"
  else
    say "OK: all $N prefixes build and pass their tests"
  fi
else
  say "FAIL: see the steps above"
  exit 1
fi
