#!/usr/bin/env bash
# setup.sh -- turn a fresh Debian 12 machine into a patched LLVM/MLIR build
# (23.1.1 by default, or 19.1.7) plus this project, then run the main demo.
#
#   ./setup.sh               patched MLIR 23.1.1 + project (build/) + demo
#   LLVM_VERSION=19.1.7 ./setup.sh   the 19.1.7 series (build-19.1.7/)
#   ./setup.sh --baseline    same flags, series NOT applied (separate cache)
#   ./setup.sh --no-demo     build only
#   ./setup.sh --upstream-tests   also build upstream MLIRPassTests,
#                                 MLIRSupportTests, MLIRSCFTests (23.1.1)
#                                 and the C API lit tests
#   ./setup.sh --upstream-ir-tests  ... and MLIRIRTests (links MLIR's Test
#                                 dialect: about 340 more steps, most of an
#                                 hour on 2 cores from a cold cache)
#   ./setup.sh --source-only   only download and extract the pristine source
#                              (test/repo/check-patches.sh uses it)
#   ./setup.sh --print-build-dir|--print-mlir-dir|--print-tree|--print-llvm-build
#              |--print-pristine|--print-series-dir|--print-dev-tree|--print-cache
#              |--print-series-hash|--print-llvm-targets|--print-upstream-suites
#              |--print-llvm-opts
#                             print one cache path
#                              (the one owner of the cache layout) and exit
#   ./setup.sh --core-tests-only  build only MLIRIR and the core unit test
#                                 (build*/unittests/WeakOpRefUpstreamTests):
#                                 the quick sanitizer check of the core;
#                                 and weakref-core-ir-bench, the benchmarks
#                                 that need only MLIRIR
#
# Environment:
#   LLVM_VERSION=23.1.1|19.1.7      release (and patches/llvm-<release>/) to build
#   LLVM_SRC=/path/to/llvm-project  use this llvmorg-<release> checkout instead of
#                                   Debian's source package (copied, never modified)
#   MLIR_WEAKREF_CACHE=dir          cache root (default ~/.cache/mlir-weakref)
#   JOBS=n                          parallel build jobs (default: nproc)
#   SANITIZE=address|address,undefined|thread  instrumented build (own cache
#                                   key; 'address' includes the Python package)
#   ASSERTIONS=ON|OFF               LLVM_ENABLE_ASSERTIONS (default ON); OFF is
#                                   the assertion-free build distributions
#                                   ship (own cache key, project build dir
#                                   suffixed -noassert; benchmarks/run.sh)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
START=$SECONDS
LLVM_VERSION=${LLVM_VERSION:-23.1.1}
CACHE=${MLIR_WEAKREF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlir-weakref}
JOBS=${JOBS:-$(nproc)}
SERIES_DIR=$ROOT/patches/llvm-$LLVM_VERSION
VARIANT=patched
DEMO=1
UPSTREAM_TESTS=${UPSTREAM_TESTS:-0}
UPSTREAM_IR_TESTS=${UPSTREAM_IR_TESTS:-0}
CORE_TESTS_ONLY=0
SOURCE_ONLY=0
SANITIZE=${SANITIZE:-}
ASSERTIONS=${ASSERTIONS:-ON}
PRINT_ONLY=
# setup.sh --fetch-source PACKAGE=VERSION DIR: download a source package of
# Debian unstable into DIR through the private apt state below (the
# free-threaded test builds CPython 3.13 this way); nothing else.
FETCH_PKG= FETCH_DIR=
if [[ ${1:-} == --fetch-source ]]; then
  FETCH_PKG=${2:?usage: setup.sh --fetch-source PACKAGE=VERSION DIR}
  FETCH_DIR=${3:?usage: setup.sh --fetch-source PACKAGE=VERSION DIR}
  set --
fi

for arg in "$@"; do
  case $arg in
  --baseline) VARIANT=baseline ;;
  --patched) VARIANT=patched ;;
  --no-demo) DEMO=0 ;;
  --upstream-tests) UPSTREAM_TESTS=1 ;;
  --upstream-ir-tests) UPSTREAM_TESTS=1 UPSTREAM_IR_TESTS=1 ;;
  --core-tests-only) CORE_TESTS_ONLY=1 DEMO=0 ;;
  --source-only) SOURCE_ONLY=1 ;;
  --print-build-dir) PRINT_ONLY=build ;;
  --print-mlir-dir) PRINT_ONLY=mlir ;;
  --print-tree) PRINT_ONLY=tree ;;
  --print-llvm-build) PRINT_ONLY=llvm-build ;;
  --print-pristine) PRINT_ONLY=pristine ;;
  --print-series-dir) PRINT_ONLY=series ;;
  --print-dev-tree) PRINT_ONLY=dev-tree ;;
  --print-cache) PRINT_ONLY=cache ;;
  --print-series-hash) PRINT_ONLY=series-hash ;;
  --print-llvm-targets) PRINT_ONLY=llvm-targets ;;
  --print-upstream-suites) PRINT_ONLY=upstream-suites ;;
  --print-llvm-opts) PRINT_ONLY=llvm-opts ;;
  -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
  *) echo "setup.sh: error: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

step() { printf '\n==> [%4ds] %s\n' $((SECONDS - START)) "$*"; }
die() { echo "setup.sh: error: $*" >&2; exit 1; }

# ------------------------------------------------------------ releases ----
# What differs between the supported releases: where the source comes from,
# which parts of it are extracted, who builds the tablegens and which Python
# binding library the release's bindings use.
case $LLVM_VERSION in
19.1.7)
  DEB_PKG=llvm-toolchain-19 DEB_SRC_VERSION=1:19.1.7-3~deb12u1 DEB_SUITE=bookworm
  ORIG_SHA256= # checked by apt against bookworm's signed index and .dsc
  SRC_PARTS=(llvm mlir cmake third-party .clang-format)
  # Debian 12 ships LLVM 19's tablegens: the tree does not build its own.
  TBLGEN_OPTS=(-DLLVM_TABLEGEN=/usr/lib/llvm-19/bin/llvm-tblgen
    -DMLIR_TABLEGEN=/usr/lib/llvm-19/bin/mlir-tblgen
    -DMLIR_PDLL_TABLEGEN=/usr/lib/llvm-19/bin/mlir-pdll)
  PYTHON_OPTS=()
  RELEASE_PKGS=(llvm-19 llvm-19-tools mlir-19-tools python3-pybind11 pybind11-dev)
  UNSTABLE_PKGS=()
  PROJECT_BUILD_NAME=build-19.1.7
  ;;
23.1.1)
  # Only the orig tarball of unstable's llvm-toolchain-23 1:23.1.1-2 is served
  # (its .dsc and debian tarball are not): its sha256 is checked here.
  DEB_PKG=llvm-toolchain-23 DEB_SRC_VERSION=1:23.1.1-2 DEB_SUITE=unstable
  ORIG_SHA256=0a5838b993f406534db7e6dc7df66e295354a1e9a23bb21e5739cf5df5bc7689
  # llvm/CMakeLists.txt stops with "LLVM libc is not found" without libc/.
  SRC_PARTS=(llvm mlir cmake third-party libc .clang-format)
  # No LLVM 23 binaries exist for Debian 12: the tree builds its tablegens.
  TBLGEN_OPTS=()
  # nanobind's CMake looks for Python, not Python3.
  PYTHON_OPTS=(-DPython_EXECUTABLE=/usr/bin/python3)
  # nanobind-dev depends on libeigen3-dev (bookworm has it).
  RELEASE_PKGS=(libeigen3-dev)
  # nanobind 2.12 (23.1.1 wants >= 2.9, < 3) and the robin-map it accepts
  # (>= 1.3; bookworm has 1.2.1), architecture-independent, from unstable:
  # these three packages and nothing else.
  UNSTABLE_PKGS=(nanobind-dev=2.12.0-2 python3-nanobind=2.12.0-2 robin-map-dev=1.4.1-1)
  PROJECT_BUILD_NAME=build
  ;;
*) die "LLVM_VERSION must be 23.1.1 or 19.1.7 (got '$LLVM_VERSION')" ;;
esac

# ---------------------------------------------------------------- keys ----
# Build options that define a build tree. Anything here goes into the key.
# LLVM's "Undefined" setting passes clang-only flags; with GCC, UBSan's flags
# are given directly (vptr needs RTTI, which LLVM builds without).
SAN_FLAGS=()
UBSAN_CFLAGS="-fsanitize=undefined -fno-sanitize=vptr -fno-sanitize-recover=all"
case $SANITIZE in
'') ;;
address,undefined | undefined,address)
  SAN_FLAGS=(-DLLVM_USE_SANITIZER=Address "-DCMAKE_C_FLAGS=$UBSAN_CFLAGS" "-DCMAKE_CXX_FLAGS=$UBSAN_CFLAGS") ;;
address) SAN_FLAGS=(-DLLVM_USE_SANITIZER=Address) ;;
thread) SAN_FLAGS=(-DLLVM_USE_SANITIZER=Thread) ;;
*) die "SANITIZE must be one of: address,undefined | address | thread (got '$SANITIZE')" ;;
esac
[[ $ASSERTIONS == ON || $ASSERTIONS == OFF ]] || die "ASSERTIONS must be ON or OFF (got '$ASSERTIONS')"
# The mlir Python package is built unsanitized, with ASan (the ASan runtime is
# preloaded into Debian's python3 to load it) and with TSan (for an
# instrumented free-threaded interpreter: test/free-threaded/run.sh --tsan);
# UBSan builds leave it out.
python_bindings() { [[ -z $SANITIZE || $SANITIZE == address || $SANITIZE == thread ]]; }
LLVM_OPTS=(
  -G Ninja
  -DCMAKE_BUILD_TYPE=Release
  -DLLVM_ENABLE_PROJECTS=mlir
  -DLLVM_TARGETS_TO_BUILD=host
  -DLLVM_ENABLE_ASSERTIONS=$ASSERTIONS
  -DLLVM_INCLUDE_TESTS=ON
  -DLLVM_INCLUDE_BENCHMARKS=OFF
  -DLLVM_INCLUDE_EXAMPLES=OFF
  -DLLVM_ENABLE_ZSTD=OFF
  -DLLVM_ENABLE_TERMINFO=OFF
  -DLLVM_ENABLE_LIBXML2=OFF
  -DLLVM_USE_LINKER=gold
  "${TBLGEN_OPTS[@]}"
  -DMLIR_ENABLE_BINDINGS_PYTHON=$(python_bindings && echo ON || echo OFF)
  -DPython3_EXECUTABLE=/usr/bin/python3
  "${PYTHON_OPTS[@]}"
  -DLLVM_CCACHE_BUILD=ON
  "-DLLVM_CCACHE_DIR=$CACHE/ccache"
  # LLVM's own parameters plus a base directory: paths under the trees are
  # hashed relative to the build directory, so trees of the same options
  # (patched and baseline) share the objects of the unpatched llvm/ part.
  "-DLLVM_CCACHE_PARAMS=CCACHE_CPP2=yes CCACHE_HASHDIR=yes CCACHE_SLOPPINESS=pch_defines,time_macros CCACHE_BASEDIR=$CACHE/trees"
  -DLLVM_CCACHE_MAXSIZE=20G
  "${SAN_FLAGS[@]}"
)
# Targets this project (and its tests) need from the LLVM/MLIR build.
LLVM_TARGETS=(
  LLVMSupport llvm_gtest llvm_gtest_main FileCheck not count
  MLIRIR MLIRParser MLIRPass MLIRTransforms MLIRTransformUtils MLIRRewrite
  MLIRFuncDialect MLIRArithDialect MLIRControlFlowDialect
  MLIRCAPIIR MLIRCAPITransforms MLIRCAPIFunc MLIRCAPIArith MLIRCAPIControlFlow
)
# MlirOptMain, for the drivers' erasure checks through mlir-opt's driver
# (23.1.1: test/erasure-checks/erasure-check-opt.cpp).
((${LLVM_VERSION%%.*} >= 23)) && LLVM_TARGETS+=(MLIROptLib)
# The dialects of upstream's integer range lit tests, MLIR's Test dialect
# among them, for test/analyses/analysis-opt.cpp (23.1.1 series).
((${LLVM_VERSION%%.*} >= 23)) && [[ $VARIANT == patched ]] && LLVM_TARGETS+=(
  MLIRAffineDialect MLIRArithTransforms MLIRGPUDialect MLIRIndexDialect
  MLIRLLVMDialect MLIRMemRefDialect MLIRNVVMDialect MLIRSCFDialect
  MLIRTensorDialect MLIRTestDialect MLIRUBDialect MLIRVectorDialect)
# The Python package (python/): its C API and generated dialect bindings.
python_bindings && LLVM_TARGETS+=(
  MLIRCAPIDebug MLIRCAPIInterfaces MLIRFuncInlinerExtension
  tools/mlir/python/dialects/_builtin_ops_gen.py
  tools/mlir/python/dialects/_func_ops_gen.py
  tools/mlir/python/dialects/_arith_ops_gen.py
  tools/mlir/python/dialects/_arith_enum_gen.py
  tools/mlir/python/dialects/_cf_ops_gen.py
)
# ... and those of its tensor, loop and Transform dialects
# (weakref/python/Registration.cpp; an entry with a third field is only for
# LLVM releases from that major version on).
if python_bindings; then
  while read -r kind target since; do
    [[ $kind == lib || $kind == capi || $kind == gen ]] || continue
    [[ -z $since ]] || ((${LLVM_VERSION%%.*} >= since)) || continue
    LLVM_TARGETS+=("$target")
  done <"$ROOT/weakref/python/extended-dialects.txt"
fi
# Upstream unit test suites, under tools/mlir/unittests/ (test.sh runs them).
UPSTREAM_SUITES=(Pass/MLIRPassTests Support/MLIRSupportTests)
# The SCF fix's test (23.1.1 series: ForallCanonicalizationTest.cpp).
((${LLVM_VERSION%%.*} >= 23)) && UPSTREAM_SUITES+=(Dialect/SCF/MLIRSCFTests)
# The data-flow solver's liveness tests (23.1.1 series: DataFlowFrameworkTest.cpp,
# a suite the unpatched tree does not have).
SERIES_SUITES=()
((${LLVM_VERSION%%.*} >= 23)) && SERIES_SUITES+=(Analysis/MLIRAnalysisTests)
UPSTREAM_SUITES+=("${SERIES_SUITES[@]}")
# MLIRIRTests links MLIR's Test dialect: built only with --upstream-ir-tests.
UPSTREAM_IR_SUITE=IR/MLIRIRTests
UPSTREAM_TEST_TARGETS=()
for suite in "${UPSTREAM_SUITES[@]}"; do
  [[ $VARIANT == baseline && " ${SERIES_SUITES[*]} " == *" $suite "* ]] ||
    UPSTREAM_TEST_TARGETS+=("${suite##*/}")
done
((UPSTREAM_IR_TESTS)) && UPSTREAM_TEST_TARGETS+=("${UPSTREAM_IR_SUITE##*/}")
# The C API tests come with the series (weak references: opref.c;
# mlirOperationGetUserOutside: users.c): not in the baseline tree.
[[ $VARIANT == baseline ]] || UPSTREAM_TEST_TARGETS+=(mlir-capi-opref-test mlir-capi-users-test)

series_files() {
  [[ -f $SERIES_DIR/series ]] || return 0
  grep -v -e '^\s*#' -e '^\s*$' "$SERIES_DIR/series" || true
}
series_hash() {
  if [[ $VARIANT == baseline ]]; then echo none; return; fi
  { cat "$SERIES_DIR/series" 2>/dev/null; for p in $(series_files); do cat "$SERIES_DIR/$p"; done; } |
    sha256sum | cut -c1-12
}
OPTS_HASH=$(printf '%s\n' "${LLVM_OPTS[@]}" | sha256sum | cut -c1-8)
check_version() { # $1 = llvm-project root
  local f v=
  for f in "$1/llvm/CMakeLists.txt" "$1/cmake/Modules/LLVMVersion.cmake"; do
    [[ -f $f ]] || continue
    v=$(sed -n 's/.*set(LLVM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]\+\)).*/\2/p' "$f" | head -3 | paste -sd.)
    [[ -n $v ]] && break
  done
  [[ $v == "$LLVM_VERSION" ]] ||
    die "$1 is LLVM '${v:-unknown}', this series targets $LLVM_VERSION; check out llvmorg-$LLVM_VERSION (git -C $1 checkout llvmorg-$LLVM_VERSION)"
}
SRC_ID=debian-${DEB_SRC_VERSION//[:~]/_}
if [[ -n ${LLVM_SRC:-} ]]; then
  [[ -d $LLVM_SRC ]] || die "LLVM_SRC='$LLVM_SRC' does not exist; point it at an llvm-project checkout (llvmorg-$LLVM_VERSION) or unset it"
  LLVM_SRC=$(cd "$LLVM_SRC" && pwd)
  [[ -d $LLVM_SRC/llvm && -d $LLVM_SRC/mlir ]] || die "LLVM_SRC='$LLVM_SRC' has no llvm/ and mlir/; point it at the llvm-project root"
  check_version "$LLVM_SRC"
  # A checkout is identified by its path and, for git, its commit: a new
  # commit gets a fresh copy.
  SRC_ID=local-$({ echo "$LLVM_SRC"; git -C "$LLVM_SRC" rev-parse HEAD 2>/dev/null || true; } | sha256sum | cut -c1-8)
fi
for p in $(series_files); do
  [[ -f $SERIES_DIR/$p ]] || die "series names '$p' but $SERIES_DIR/$p does not exist; fix patches/llvm-$LLVM_VERSION/series"
done
SERIES_HASH=$(series_hash)
KEY="llvm-$LLVM_VERSION-$SRC_ID-series-$SERIES_HASH-opts-$OPTS_HASH"
TREE=$CACHE/trees/$VARIANT-$SRC_ID-$OPTS_HASH${SANITIZE:+-${SANITIZE//,/-}}
[[ $ASSERTIONS == OFF ]] && TREE+=-noassert
LLVM_BUILD=$TREE/build
PROJECT_BUILD=$ROOT/$PROJECT_BUILD_NAME
[[ $VARIANT == baseline ]] && PROJECT_BUILD+=-baseline
PROJECT_BUILD+=${SANITIZE:+-${SANITIZE//,/-}}
[[ $ASSERTIONS == OFF ]] && PROJECT_BUILD+=-noassert
PRISTINE=$CACHE/pristine/$SRC_ID

# The one place that answers path questions about the cache (test.sh, the
# setup tests, test/repo/check-patches.sh and scripts/dev-tree.sh ask here).
if [[ -n $PRINT_ONLY ]]; then
  case $PRINT_ONLY in
  build) echo "$PROJECT_BUILD" ;;
  mlir) echo "$LLVM_BUILD/lib/cmake/mlir" ;;
  tree) echo "$TREE" ;;
  llvm-build) echo "$LLVM_BUILD" ;;
  pristine) echo "$PRISTINE" ;;
  series) echo "$SERIES_DIR" ;;
  dev-tree) echo "$CACHE/dev/llvm-$LLVM_VERSION" ;;
  cache) echo "$CACHE" ;;
  series-hash) echo "$SERIES_HASH" ;;
  llvm-targets) printf '%s\n' "${LLVM_TARGETS[@]}" ;;
  # The tree's CMake options, one a line (scripts/downstream-circt.py
  # configures CIRCT's unified build with them, so the ccache is shared).
  llvm-opts) printf '%s\n' "${LLVM_OPTS[@]}" ;;
  # MLIRIRTests (optional: --upstream-ir-tests) first, then those
  # --upstream-tests builds.
  upstream-suites) printf '%s\n' "$UPSTREAM_IR_SUITE" "${UPSTREAM_SUITES[@]}" ;;
  esac
  exit 0
fi

# A tree that scripts/check-series-prefixes.py holds at one of its steps (it
# runs, or was interrupted): its sources are not what its key says.
if [[ -f $TREE/prefix-check/in-progress ]]; then
  die "$TREE holds a step of scripts/check-series-prefixes.py (running, or interrupted: then run it with --restore$([[ $VARIANT == baseline ]] && echo " --alone"))"
fi

# -------------------------------------------------------------- packages ----
PKGS=(build-essential cmake ninja-build ccache git python3 python3-dev python3-numpy
  python3-venv python3-pip python3-yaml
  libgtest-dev libbenchmark-dev clang-format valgrind xz-utils dpkg-dev rustc cargo
  "${RELEASE_PKGS[@]}")
installed() { # package[=version]
  local want=${1#*=} got
  got=$(dpkg-query -W -f='${Status} ${Version}' "${1%%=*}" 2>/dev/null) || return 1
  [[ $got == 'install ok installed '* ]] || return 1
  [[ $1 != *=* || ${got##* } == "$want" ]]
}
need_root() { [[ $(id -u) == 0 ]] || die "$1; run as root or install them"; }
# apt with a private state of its own (sources, lists, cache) for one Debian
# suite: source downloads and unstable's packages never touch the system's
# apt sources.
private_apt() { # suite types apt-args...
  local suite=$1 types=$2 dir=$CACHE/downloads/apt-$1-${2// /-}
  shift 2
  mkdir -p "$dir/sources.list.d" "$dir/lists/partial" "$dir/cache/archives/partial"
  printf 'Types: %s\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nArchitectures: %s\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$types" "$suite" "$(dpkg --print-architecture)" >"$dir/sources.list.d/$suite.sources"
  apt-get -o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$dir/sources.list.d" \
    -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" "$@" 2>&1 |
    grep -v -e '^W: Download is performed unsandboxed' -e '^N: ' || true
}
if [[ -n $FETCH_PKG ]]; then
  mkdir -p "$FETCH_DIR"
  private_apt unstable deb-src update -qq
  (cd "$FETCH_DIR" && private_apt unstable deb-src source --download-only "$FETCH_PKG")
  exit 0
fi
step "checking Debian packages"
missing=()
for p in "${PKGS[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  need_root "packages missing (${missing[*]})"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "all ${#PKGS[@]} packages present"
fi
missing=()
for p in "${UNSTABLE_PKGS[@]}"; do installed "$p" || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "installing from unstable (these alone): ${missing[*]}"
  need_root "packages missing (${missing[*]}, from Debian unstable)"
  debs=$CACHE/downloads/unstable-debs
  mkdir -p "$debs"
  private_apt unstable deb update -qq
  (cd "$debs" && private_apt unstable deb download "${missing[@]}")
  files=()
  for p in "${missing[@]}"; do
    f=$(ls "$debs/${p%%=*}_${p#*=}"_*.deb 2>/dev/null | head -1)
    [[ -n $f ]] || die "could not download $p from Debian unstable; check the network or install it by hand"
    files+=("$f")
  done
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${files[@]}" >/dev/null
  for p in "${missing[@]}"; do installed "$p" || die "$p did not install"; done
fi

# ---------------------------------------------------------------- source ----
if [[ ! -f $PRISTINE/.complete ]]; then
  rm -rf "$PRISTINE" "$PRISTINE.tmp"
  mkdir -p "$PRISTINE.tmp"
  if [[ -n ${LLVM_SRC:-} ]]; then
    step "copying ${SRC_PARTS[*]} from $LLVM_SRC (read only)"
    for p in "${SRC_PARTS[@]}"; do cp -a "$LLVM_SRC/$p" "$PRISTINE.tmp/"; done
  else
    DL=$CACHE/downloads
    ORIG=$DL/${DEB_PKG}_$LLVM_VERSION.orig.tar.xz
    if [[ ! -f $ORIG ]]; then
      step "downloading Debian source package $DEB_PKG=$DEB_SRC_VERSION ($DEB_SUITE)"
      mkdir -p "$DL"
      private_apt "$DEB_SUITE" deb-src update -qq
      # For 23.1.1 apt fetches and checks the orig tarball against the signed
      # index, then fails on the .dsc that is not served: keep the tarball.
      [[ -n $ORIG_SHA256 ]] && echo "(only the orig tarball of $DEB_PKG is served: apt's errors for its .dsc and debian tarball are expected)"
      (cd "$DL" && private_apt "$DEB_SUITE" deb-src source --download-only -qq "$DEB_PKG=$DEB_SRC_VERSION")
      [[ -f $ORIG ]] || die "download of $DEB_PKG $DEB_SRC_VERSION failed; check the network or use LLVM_SRC=/path/to/llvm-project"
    fi
    if [[ -n $ORIG_SHA256 ]] && ! echo "$ORIG_SHA256  $ORIG" | sha256sum -c --quiet - >/dev/null 2>&1; then
      die "$ORIG does not have sha256 $ORIG_SHA256; delete it and re-run"
    fi
    step "extracting ${SRC_PARTS[*]} from $(basename "$ORIG")"
    tar xJf "$ORIG" -C "$PRISTINE.tmp" --strip-components=1 "${SRC_PARTS[@]/#/${DEB_PKG}_$LLVM_VERSION/}"
    check_version "$PRISTINE.tmp"
  fi
  touch "$PRISTINE.tmp/.complete"
  mv "$PRISTINE.tmp" "$PRISTINE"
fi
if ((SOURCE_ONLY)); then
  echo "setup.sh: pristine LLVM $LLVM_VERSION source in $PRISTINE"
  exit 0
fi

# ------------------------------------------------------ patched tree ----
# The tree under $TREE/src is a copy of the pristine source with the series
# applied. It is re-made from pristine whenever the key changes, so a series
# is never applied on top of an already patched tree. Copies keep pristine
# mtimes; of the files the old or the new series touch, those whose content
# did not change keep their previous mtime and the others get a new one, so
# ninja rebuilds exactly what the change affects.
touched_files() { # files a series writes, from its diff headers
  local p
  for p in "$@"; do sed -n 's#^+++ b/\(.*\)#\1#p; s#^--- a/\(.*\)#\1#p' "$p"; done | sort -u
}
mkdir -p "$TREE"
if [[ $(cat "$TREE/key" 2>/dev/null) != "$KEY" ]]; then
  step "preparing source tree for key $KEY"
  old_touched=()
  [[ -f $TREE/touched && -d $TREE/src ]] && mapfile -t old_touched <"$TREE/touched"
  rm -rf "$TREE/src.new"
  mkdir -p "$TREE/src.new"
  for p in "${SRC_PARTS[@]}"; do cp -a "$PRISTINE/$p" "$TREE/src.new/"; done
  patches=()
  if [[ $VARIANT == patched ]]; then
    for p in $(series_files); do
      [[ -f $SERIES_DIR/$p ]] || { rm -rf "$TREE/src.new"; die "series names '$p' but $SERIES_DIR/$p does not exist"; }
      echo "applying $p"
      if ! out=$(patch -p1 -d "$TREE/src.new" --forward --batch --no-backup-if-mismatch <"$SERIES_DIR/$p" 2>&1); then
        rm -rf "$TREE/src.new"
        echo "$out" | sed 's/^/    /' >&2
        die "patch '$p' does not apply to pristine LLVM $LLVM_VERSION; fix or regenerate it (scripts/export-patches.sh). Cache left unchanged."
      fi
      patches+=("$SERIES_DIR/$p")
    done
  fi
  new_touched=()
  ((${#patches[@]})) && mapfile -t new_touched < <(touched_files "${patches[@]}")
  for f in "${old_touched[@]}" "${new_touched[@]}"; do
    [[ -e $TREE/src.new/$f ]] || continue
    if [[ -e $TREE/src/$f ]] && cmp -s "$TREE/src/$f" "$TREE/src.new/$f"; then
      touch -r "$TREE/src/$f" "$TREE/src.new/$f"
    else
      touch "$TREE/src.new/$f"
    fi
  done
  rm -f "$TREE/key"
  rm -rf "$TREE/src"
  mv "$TREE/src.new" "$TREE/src"
  printf '%s\n' "${new_touched[@]}" >"$TREE/touched"
  echo "$KEY" >"$TREE/key"
else
  step "source tree up to date (key $KEY)"
fi

# ------------------------------------------------------- LLVM/MLIR build ----
# Runs ninja, printing every 25th [n/N] status line; the full output (with
# compiler warnings) goes to a log, whose errors are shown if the build fails.
run_ninja() { # log ninja-args...
  local log=$1 rc
  shift
  set +o pipefail
  local line n t
  ninja "$@" 2>&1 | tee "$log" | while IFS= read -r line; do
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    n=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
    if ((n % 25 == 0 || n == t || n == 1)); then echo "$line"; fi
  done
  rc=${PIPESTATUS[0]}
  set -o pipefail
  if ((rc == 0)); then
    n=$(grep -c '^\[[0-9]*/[0-9]*\]' "$log" || true)
    ((n)) && echo "($n build steps)" || echo "(nothing to build)"
  fi
  if ((rc)); then
    grep -A15 -E '^FAILED:' "$log" | head -100 >&2
    echo "(full log: $log)" >&2
  fi
  return "$rc"
}
if [[ ! -f $LLVM_BUILD/build.ninja ]]; then
  step "configuring LLVM/MLIR ($VARIANT) in $LLVM_BUILD"
  cmake -S "$TREE/src/llvm" -B "$LLVM_BUILD" "${LLVM_OPTS[@]}" >"$TREE/configure.log" 2>&1 ||
    { tail -30 "$TREE/configure.log" >&2; die "LLVM configure failed; full log: $TREE/configure.log"; }
fi
targets=("${LLVM_TARGETS[@]}")
((CORE_TESTS_ONLY)) && targets=(LLVMSupport llvm_gtest llvm_gtest_main MLIRIR FileCheck not count)
((UPSTREAM_TESTS)) && targets+=("${UPSTREAM_TEST_TARGETS[@]}")
step "building LLVM/MLIR targets ($VARIANT, ${#targets[@]} targets, -j$JOBS)"
run_ninja "$TREE/build.log" -C "$LLVM_BUILD" -j"$JOBS" "${targets[@]}" ||
  die "LLVM/MLIR build failed (see above); re-run ./setup.sh after fixing"

# -------------------------------------------------------- this project ----
MLIR_DIR=$LLVM_BUILD/lib/cmake/mlir
if [[ ! -f $PROJECT_BUILD/build.ninja ]] || ! grep -q "^MLIR_DIR:[A-Z]*=$MLIR_DIR\$" "$PROJECT_BUILD/CMakeCache.txt" 2>/dev/null; then
  step "configuring mlir-weakref against $MLIR_DIR"
  rm -rf "$PROJECT_BUILD"
  cmake -S "$ROOT" -B "$PROJECT_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR="$MLIR_DIR" -DLLVM_DIR="$LLVM_BUILD/lib/cmake/llvm" \
    -DPython3_EXECUTABLE=/usr/bin/python3 "${PYTHON_OPTS[@]}" \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    "${SAN_FLAGS[@]}" >"$PROJECT_BUILD.configure.log" 2>&1 ||
    { tail -30 "$PROJECT_BUILD.configure.log" >&2; die "project configure failed; log: $PROJECT_BUILD.configure.log"; }
fi
step "building mlir-weakref ($VARIANT)"
project_targets=()
((CORE_TESTS_ONLY)) && project_targets=(unittests/WeakOpRefUpstreamTests)
((CORE_TESTS_ONLY)) && [[ $VARIANT == patched ]] && project_targets+=(weakref-core-ir-bench)
CCACHE_DIR=$CACHE/ccache run_ninja "$PROJECT_BUILD.build.log" -C "$PROJECT_BUILD" -j"$JOBS" "${project_targets[@]}" ||
  die "mlir-weakref build failed (see above)"

# The wheel of the mlir package with mlir.weakref (default builds only: the
# wheel's name says the release and the series, not the build options).
if [[ $VARIANT == patched && -z $SANITIZE && $ASSERTIONS == ON && -z ${LLVM_SRC:-} ]] &&
  ((!CORE_TESTS_ONLY)) && [[ -d $PROJECT_BUILD/python_packages/mlir_core/mlir/_mlir_libs ]]; then
  step "writing the wheel"
  /usr/bin/python3 "$ROOT/scripts/make-wheel.py" "$PROJECT_BUILD/python_packages/mlir_core" \
    "$ROOT/dist" --llvm-version "$LLVM_VERSION" --series "$SERIES_HASH" ||
    die "writing the wheel failed (see above)"
fi

if ((DEMO)) && [[ $VARIANT == patched ]]; then
  step "running the demo: $PROJECT_BUILD/bin/weakref-demo"
  "$PROJECT_BUILD/bin/weakref-demo"
  if [[ -d $PROJECT_BUILD/python_packages/mlir_core && $SANITIZE != thread ]]; then
    step "running the Python demo: examples/weakref-demo.py"
    asan_python_env=()
    [[ $SANITIZE == address ]] && asan_python_env=(LD_PRELOAD="$(c++ -print-file-name=libasan.so) $(c++ -print-file-name=libstdc++.so)" ASAN_OPTIONS=detect_leaks=0)
    env "${asan_python_env[@]}" PYTHONPATH="$PROJECT_BUILD/python_packages/mlir_core" /usr/bin/python3 "$ROOT/examples/weakref-demo.py"
  fi
fi
echo
echo "setup.sh: OK ($VARIANT, key $KEY) in $((SECONDS - START))s; MLIR_DIR=$MLIR_DIR, project build: $PROJECT_BUILD"
