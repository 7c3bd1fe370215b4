#!/usr/bin/python3
"""check-series-prefixes.py -- every prefix of a release's patch series
(patches 1..k, k = F..N; F = 1, or the first patch after the independent
fixes) builds and passes the tests that prefix adds, so that each patch can
be reviewed and landed on its own; with --alone, each independent fix
builds and passes its tests on the unpatched release.

  [LLVM_VERSION=23.1.1|19.1.7] scripts/check-series-prefixes.py [--dry-run]
  [LLVM_VERSION=...]           scripts/check-series-prefixes.py --alone [--dry-run]
  [LLVM_VERSION=...]           scripts/check-series-prefixes.py --restore [--alone]

A series may begin with a section of independent fixes: the patches listed
after a comment line starting "# Independent fixes" and before the next
comment line of `series` (patches/llvm-23.1.1/ has one). They come first
and are not prefixes of the weak-reference series: the prefixes checked by
default start after them (each includes them all), and --alone checks
each of them on its own, as a reviewer taking it as its own change would.
A prefix's tests are those its weak-reference patches add or change, and
the tests of each fix whose files they change (so that a patch rewriting
a fix's code runs that fix's tests).

  --dry-run   print, per prefix, the files that would be re-made, the
              targets that would be built and the tests that would run;
              changes nothing
  --restore   only put the full series (with --alone: the pristine
              release) back into the build tree after an interrupted run
              (the next run does it too; ./setup.sh refuses such a tree)
  --from K    start at prefix K (the ones before were checked by an
              earlier run of the same patches 1..K-1; K after the
              independent fixes); the last step is still the full series
  --alone     each independent fix alone on the release, in the BASELINE
              tree (`./setup.sh --baseline`: the release unpatched, with
              the LLVM targets of the default set-up): for each fix, the
              files it touches re-made from the pristine source + that
              patch, its targets built and its tests run as below; the
              last step puts the pristine files back and rebuilds what
              any step built, and runs each fix's Python tests on that
              pristine package and its unit tests built against those
              libraries: each must fail (else it does not test its fix)

It works IN the patched build tree of ./setup.sh (`--print-tree`), reusing
its LLVM build: for each prefix k it re-makes the files the series touches
from the pristine source + patches 1..k (files the prefix does not create are
removed; files whose content did not change since the previous step keep
their mtime, the others get a new one, as setup.sh does), then runs
  ninja -C <llvm build> MLIRIR MLIRCAPIIR [+ what the prefix's tests need]
(ninja re-runs cmake itself when a CMakeLists.txt changed) and the tests
the prefix adds (test files patches 1..k create or change):
  mlir/unittests/**.cpp (GTEST_SPECS)  a gtest binary built from it against
      the build's libraries it needs and LLVM's bundled GoogleTest, as
      unittests/CMakeLists.txt builds WeakOpRefUpstreamTests and the others
      (a small CMake project of this script's own: the project's build also
      builds MLIRWeakRef, which needs the whole series)
  mlir/test/CAPI/*.c (CAPI_SPECS)       mlir-capi-<name>-test | FileCheck
      (its RUN line; without a built FileCheck only the exit status counts)
  mlir/test/python/**.py                the LLVM targets setup.sh builds for
      the Python package, then the package itself, as the baseline build
      makes it (weakref/python without this project's own module, which
      needs the whole series), and the prefix's Python test files through
      test/python/run_upstream.py (their RUN lines, PYTHONPATH = the
      package, upstream tests' known skips), in a scratch CMake project
The last step is the full series; afterwards the touched files get back
the mtimes they had before the run (see restore_recorded_mtimes), so that
nothing is rebuilt for the run's sake later. ccache (the LLVM build uses
it) makes going back to content compiled before cheap.

The tree must be what ./setup.sh makes of the current series (re-run it
after changing the series); the script refuses otherwise, and while a
ninja or cmake runs in the LLVM build. Its own state (recorded files,
scratch builds, logs) is in <tree>/prefix-check/.
"""
import dataclasses
import locale
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PROG = "check-series-prefixes"

# The unit tests the series adds or changes: binary, file, libraries.
GTEST_SPECS = [
    "SCFForallPrefixTest mlir/unittests/Dialect/SCF/ForallCanonicalizationTest.cpp MLIRIR MLIRParser MLIRArithDialect MLIRSCFDialect MLIRTransformUtils",
    "WeakOpRefPrefixTest mlir/unittests/IR/WeakOpRefTest.cpp MLIRIR",
    "ErasureChecksPrefixTest mlir/unittests/Transforms/ErasureChecks.cpp MLIRIR MLIRParser MLIRPass MLIRTransforms MLIRTransformUtils",
    "PayloadErasurePrefixTest mlir/unittests/Dialect/Transform/PayloadErasureTest.cpp MLIRIR MLIRParser MLIRTransformDialect",
    "DataFlowSolverPrefixTest mlir/unittests/Analysis/DataFlowFrameworkTest.cpp MLIRIR MLIRParser MLIRAnalysis MLIRArithDialect MLIRControlFlowDialect MLIRFuncDialect",
    "AnalysisCachePrefixTest mlir/unittests/IR/AnalysisCacheTest.cpp MLIRIR",
]
# The C API tests: file, test binary (an LLVM target). Not rewrite.c, which
# patch 26 extends: mlir-capi-rewrite-test links every dialect of MLIR (about
# 2,100 more steps).
CAPI_SPECS = [
    ("mlir/test/CAPI/opref.c", "mlir-capi-opref-test"),
    ("mlir/test/CAPI/users.c", "mlir-capi-users-test"),
]

SCRATCH_PREAMBLE = f"""cmake_minimum_required(VERSION 3.20)
project(@NAME@ LANGUAGES CXX C)
set(CMAKE_CXX_STANDARD 17 CACHE STRING "C++ standard to conform to")
set(CMAKE_CXX_STANDARD_REQUIRED ON)
find_package(MLIR REQUIRED CONFIG)
include("{ROOT}/cmake/MLIROutOfTree.cmake")"""
# The mlir Python package as the baseline build makes it: weakref/python
# without this project's mlir.weakref module (MLIRWeakRefCAPI needs the
# whole series), from the patched tree's Python sources.
PYTHON_CMAKE = SCRATCH_PREAMBLE.replace("@NAME@", "weakref-prefix-python") + f"""
include(MLIRDetectPythonEnv)
mlir_configure_python_dev_packages()
set(MLIR_WEAKREF_PATCHED OFF)
set(MLIR_WEAKREF_PYTHON_CORE_DIALECTS_ONLY ON)
add_subdirectory("{ROOT}/weakref/python" weakref-python)"""


# ------------------------------------------------------ output, processes ----
def say(msg):
    print(f"{PROG}: {msg}")


def warn(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)


def die(msg, status=1):
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    sys.exit(status)


def join(items):
    """The items, ', '-separated (a comma inside one also gets its space)."""
    return ",".join(items).replace(",", ", ")


def dedupe(items):
    """Each item once, in order."""
    return list(dict.fromkeys(items))


def lines_of(text):
    """The lines of text as `mapfile -t` reads them."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def collate(lines, unique=False):
    """`sort` (-u: `sort -u`) in the user's locale, as setup.sh sorts the
    touched files it records."""
    key = lambda s: (locale.strxfrm(s), s)
    return sorted(set(lines) if unique else lines, key=key)


class Signals:
    """SIGINT, SIGTERM and SIGHUP: the script stops (status 128 + the signal;
    130 once the tree may hold a step), after the running child, which gets
    a SIGINT (as from a terminal's Ctrl-C: ninja then stops its jobs; the
    shell version let the child run to its end)."""
    child = None      # the Popen run() waits for
    pending = None    # the status to stop with once it has ended
    holding = False   # the tree may hold a step: 130, as the shell's trap

    @classmethod
    def install(cls):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            # One ignored on entry stays so (nohup, `&`), as in a shell.
            if signal.getsignal(sig) != signal.SIG_IGN:
                signal.signal(sig, cls.handler)

    @classmethod
    def stop_if_pending(cls):
        status, cls.pending = cls.pending, None
        if status is not None:
            raise SystemExit(status)

    @classmethod
    def handler(cls, signum, _frame):
        status = 130 if cls.holding else 128 + signum
        child = cls.child
        if child is not None and child.returncode is None:
            if cls.pending is None:
                cls.pending = status
            try:
                os.kill(child.pid, signal.SIGINT)
            except OSError:
                pass
            return
        raise SystemExit(status)


def run(cmd, log=None, **kw):
    """Runs cmd (output appended to the file log, if given) and returns its
    status; a program that cannot start fails with 127, as in a shell."""
    out = open(log, "ab") if log else None
    try:
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT if out else None, **kw)
        except OSError as e:
            if out:
                out.write(f"{cmd[0]}: {e.strerror}\n".encode())
            return 127
        Signals.child = proc
        try:
            status = proc.wait()
        finally:
            Signals.child = None
    finally:
        if out:
            out.close()
    Signals.stop_if_pending()
    return status


def capture(cmd, merge=False, **kw):
    """(status, stdout) of cmd, stderr inherited (merge: into stdout)."""
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT if merge else None, **kw)
    except OSError as e:
        return 127, f"{cmd[0]}: {e.strerror}\n"
    Signals.child = proc
    try:
        out, _ = proc.communicate()
    finally:
        Signals.child = None
    Signals.stop_if_pending()
    return proc.returncode, out.decode("utf-8", "surrogateescape")


def command_output(cmd):
    """What `$(cmd)` gives: its output less trailing newlines; a failure
    stops the script with its status (as `set -e` does)."""
    status, out = capture(cmd)
    if status:
        sys.exit(status)
    return out.rstrip("\n")


def log_write(log, text):
    with open(log, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)


# ------------------------------------------------------------------ files ----
def dirname(path):
    return os.path.dirname(path) or "."


def rm_rf(path):
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
        os.unlink(path)
    elif os.path.isdir(path):
        shutil.rmtree(path)


def touch(path):
    with open(path, "a"):
        pass
    os.utime(path)


def copy_new(src, dst):
    """`cp SRC DST`: SRC's content into DST (DST's mode kept if it existed)."""
    existed = os.path.exists(dst)
    shutil.copyfile(src, dst)
    if not existed:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(dst, stat.S_IMODE(os.stat(src).st_mode) & ~umask)


def same_content(a, b):
    """`cmp -s A B`."""
    try:
        with open(a, "rb") as fa, open(b, "rb") as fb:
            while True:
                ca, cb = fa.read(1 << 16), fb.read(1 << 16)
                if ca != cb:
                    return False
                if not ca:
                    return True
    except OSError:
        return False


def same_file(a, b):
    """Both absent, or both present with the same content."""
    if os.path.exists(a):
        return os.path.exists(b) and same_content(a, b)
    return not os.path.exists(b)


def write_if_changed(path, text):
    """Rewrites path only on change (no reconfigure)."""
    try:
        old = read_text(path).rstrip("\n") if os.path.isfile(path) else None
    except OSError:
        old = None
    if old != text:
        os.makedirs(dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text + "\n")


# ------------------------------------------------------------- the series ----
def subject(patch):
    """The patch's Subject (folded lines joined), without [PATCH n/m]."""
    s, found = "", False
    for line in lines_of(read_text(patch)):
        if line.startswith("Subject: "):
            s, found = line[9:], True
        elif found and line[:1] in (" ", "\t"):
            s += " " + line.lstrip(" \t")
        elif found:
            break
    return re.sub(r"^\[PATCH[^]]*\] *", "", s)


def touched_files(patches):
    """The files the patches write, from their diff headers (as setup.sh
    computes <tree>/touched)."""
    files = []
    for p in patches:
        for line in lines_of(read_text(p)):
            if line.startswith("+++ b/"):
                files.append(line[6:])
            elif line.startswith("--- a/"):
                files.append(line[6:])
    return collate(files, unique=True)


def is_test_file(path):
    return "/test/" in path or "/unittests/" in path


@dataclasses.dataclass
class GTest:
    name: str
    file: str
    libs: str

    @classmethod
    def parse(cls, spec):
        fields = spec.split(None, 2) + ["", "", ""]
        return cls(*fields[:3])

    def spec(self):
        return f"{self.name} {self.file} {self.libs}"


@dataclasses.dataclass
class Plan:
    """What a step's tests and targets are."""
    gtests: list
    capis: list
    py_tests: list
    targets: list


@dataclasses.dataclass
class TestResult:
    ok: bool = True
    names: list = dataclasses.field(default_factory=list)
    failed: list = dataclasses.field(default_factory=list)
    not_run: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)


class Options:
    def __init__(self, argv):
        self.dry_run = self.restore_only = self.alone = False
        self.start = None  # --from, as given
        i = 0
        while i < len(argv):
            arg = argv[i]
            if arg == "--dry-run":
                self.dry_run = True
            elif arg == "--restore":
                self.restore_only = True
            elif arg == "--alone":
                self.alone = True
            elif arg == "--from":
                self.start = argv[i + 1] if i + 1 < len(argv) else ""
                if not re.fullmatch(r"[1-9][0-9]*", self.start):
                    die(f"--from needs a prefix number (1 or more), got '{self.start}'", 2)
                i += 1
            elif arg in ("-h", "--help"):
                sys.stdout.write(__doc__)
                sys.exit(0)
            else:
                die(f"unknown option '{arg}' (try --help)", 2)
            i += 1


class Checker:
    """The series, the tree and the steps: the state the shell version kept
    in globals."""

    def __init__(self, opts):
        self.opts = opts
        self.alone = opts.alone
        self.version = os.environ["LLVM_VERSION"]
        self.jobs = os.environ.get("JOBS") or command_output(["nproc"])
        # Every path comes from setup.sh, the owner of the cache layout.
        # --alone works in the baseline tree.
        self.variant_arg = "--baseline" if self.alone else "--patched"
        self.tree = self.ask("--print-tree")
        self.llvm_build = self.ask("--print-llvm-build")
        self.pristine = self.ask("--print-pristine")
        self.series_dir = self.ask("--print-series-dir")
        self.cache = self.ask("--print-cache")
        self.src = f"{self.tree}/src"
        self.work = f"{self.tree}/prefix-check"
        self.inprogress = f"{self.work}/in-progress"
        self.filecheck = f"{self.llvm_build}/bin/FileCheck"
        self.base = self.pristine
        if not os.path.isfile(f"{self.pristine}/.complete"):
            die(f"no pristine source in {self.pristine}; run ./setup.sh first")
        if not os.path.isfile(f"{self.series_dir}/series"):
            die(f"no series file in {self.series_dir}")
        self.read_series()
        self.read_targets()

    def ask(self, flag):
        return command_output([f"{ROOT}/setup.sh", self.variant_arg, flag])

    # --------------------------------------------------------- the series ----
    def read_series(self):
        series = f"{self.series_dir}/series"
        self.patch_names = [l for l in lines_of(read_text(series))
                            if not re.match(r"^[ \t\n\r\f\v]*(#|$)", l)]
        n = self.n = len(self.patch_names)
        if not n:
            die(f"{series} names no patch")
        # nfix: the number of independent fixes (the series' first nfix
        # patches), as scripts/independent-fixes.sh reads them.
        status, out = capture([f"{ROOT}/scripts/independent-fixes.sh", series])
        if status:
            sys.exit(status)
        nfix = self.nfix = out.count("\n")
        if nfix >= n:
            die(f"{series}: every patch is in the independent fixes' section")
        start = self.opts.start
        if self.alone:
            if not nfix:
                die(f"--alone: {series} has no section of independent fixes ('# Independent fixes' comment)")
            if start is not None:
                die("--alone checks every independent fix: --from does not apply")
            start = "1"
        if start is not None and not self.alone and int(start) <= nfix:
            die(f"--from {start}: patches 1-{nfix} are independent fixes, checked alone (--alone); "
                f"prefixes start at {nfix + 1}")
        self.from_given = start is not None and not self.alone
        self.start = int(start) if start is not None else nfix + 1
        if self.start > n:
            die(f"--from {self.start}: the series has {n} patches")
        self.patches = []
        for p in self.patch_names:
            if not os.path.isfile(f"{self.series_dir}/{p}"):
                die(f"series names '{p}' but {self.series_dir}/{p} does not exist")
            self.patches.append(f"{self.series_dir}/{p}")
        self.touched = touched_files(self.patches[:nfix] if self.alone else self.patches)
        # full: the step the tree is checked against and ends with: the full
        # series, or in --alone mode the pristine release (0). The steps, in
        # order; the last is full.
        if self.alone:
            self.full, self.setup_cmd = 0, "./setup.sh --baseline --no-demo"
            self.steps = list(range(1, nfix + 1)) + [0]
        else:
            self.full, self.setup_cmd = n, "./setup.sh"
            self.steps = list(range(self.start, n + 1))
        # fix_sources[i] / fix_tests[i]: the files fix i+1 touches, outside
        # and in test directories.
        self.fix_sources, self.fix_tests = [], []
        if not self.alone:
            for p in self.patches[:nfix]:
                files = touched_files([p])
                self.fix_sources.append([f for f in files if not is_test_file(f)])
                self.fix_tests.append([f for f in files if is_test_file(f)])

    def read_targets(self):
        """setup_targets: the LLVM targets setup.sh builds for this project,
        its Python package's included, but the dialect set of
        weakref/python/extended-dialects.txt: the package built for a
        prefix's Python tests has builtin, func, arith and cf only
        (MLIR_WEAKREF_PYTHON_CORE_DIALECTS_ONLY), which is all the series'
        tests use; with the set, every prefix that changes an IR header would
        rebuild the dialects' libraries. python_reason: why Python tests
        cannot run here (empty: they can)."""
        extended = set()
        try:
            for line in lines_of(read_text(f"{ROOT}/weakref/python/extended-dialects.txt")):
                fields = line.split()
                if fields and fields[0] in ("lib", "capi", "gen"):
                    extended.add(fields[1] if len(fields) > 1 else "")
        except OSError:
            pass
        _, out = capture([f"{ROOT}/setup.sh", "--print-llvm-targets"])
        self.setup_targets = [t for t in lines_of(out) if t not in extended]
        self.python_reason = ""
        cmake_cache = f"{self.llvm_build}/CMakeCache.txt"
        if os.environ.get("SANITIZE"):
            self.python_reason = f"not in sanitized builds (SANITIZE={os.environ['SANITIZE']})"
        elif os.path.isfile(cmake_cache) and \
                "MLIR_ENABLE_BINDINGS_PYTHON:BOOL=ON" not in lines_of(read_text(cmake_cache)):
            self.python_reason = "the LLVM build has no Python bindings"
        if not self.python_reason and "MLIRCAPIDebug" not in self.setup_targets:
            die("setup.sh --print-llvm-targets did not list the Python package's targets")

    def label(self, k):
        """The step's name in the report."""
        if not self.alone:
            return f"prefix {k}/{self.n} {subject(self.patches[k - 1])}"
        if k:
            return f"fix {k}/{self.nfix} alone {subject(self.patches[k - 1])}"
        return "pristine release (restored)"

    # ----------------------------------------------------- touched files ----
    def copy_touched(self, src, dst):
        """The touched files src has, into dst (mtimes kept)."""
        for f in self.touched:
            if not os.path.exists(f"{src}/{f}"):
                continue
            os.makedirs(dirname(f"{dst}/{f}"), exist_ok=True)
            shutil.copy2(f"{src}/{f}", f"{dst}/{f}")

    def remake(self, d, k):
        """d holds the touched files as pristine + patches 1..k make them (a
        file that does not exist then is absent); in --alone mode, as
        pristine + patch k alone makes them (k = 0: pristine)."""
        rm_rf(d)
        os.makedirs(d, exist_ok=True)
        self.copy_touched(self.pristine, d)
        first = max(k - 1, 0) if self.alone else 0
        for i in range(first, k):
            with open(self.patches[i], "rb") as patch:
                status, out = capture(["patch", "-p1", "-d", d, "--forward", "--batch",
                                       "--no-backup-if-mismatch"], merge=True, stdin=patch)
            if status:
                for line in out.rstrip("\n").split("\n"):
                    print(f"    {line}", file=sys.stderr)
                if self.alone:
                    die(f"patch {self.patch_names[i]} does not apply alone to the pristine release; fix it")
                die(f"patch {self.patch_names[i]} does not apply to pristine + patches 1..{i}; fix the series")

    def differing_files(self, a, b):
        """The touched files whose content differs between the trees a and b."""
        return [f for f in self.touched if not same_file(f"{a}/{f}", f"{b}/{f}")]

    def sync_src(self, d):
        """Makes the tree's touched files those of d; returns those changed.
        Unchanged files keep their mtime; changed or created ones get a new
        one; files d does not have are removed, with directories pristine
        does not have that are left empty."""
        changed = []
        for f in self.touched:
            if same_file(f"{d}/{f}", f"{self.src}/{f}"):
                continue
            changed.append(f)
            if os.path.exists(f"{d}/{f}"):
                os.makedirs(dirname(f"{self.src}/{f}"), exist_ok=True)
                copy_new(f"{d}/{f}", f"{self.src}/{f}")
                os.utime(f"{self.src}/{f}")
            else:
                if os.path.lexists(f"{self.src}/{f}"):
                    os.unlink(f"{self.src}/{f}")
                sub = dirname(f)
                while sub != "." and not os.path.isdir(f"{self.pristine}/{sub}"):
                    try:
                        os.rmdir(f"{self.src}/{sub}")
                    except OSError:
                        break
                    sub = dirname(sub)
        return changed

    def restore_full_series(self):
        """The full series, with new mtimes for what differs: always correct
        for ninja (anything built against other content is rebuilt), used
        after an interrupted run."""
        self.remake(f"{self.work}/step", self.full)
        changed = self.sync_src(f"{self.work}/step")
        rm_rf(f"{self.work}/step")
        what = "pristine release" if self.alone else "full series"
        say(f"{what} restored in {self.src} ({len(changed)} file(s) re-made with new mtimes)")

    # ------------------------------------------------- what a prefix needs ----
    def make_base(self):
        """base: what a step's tests are found against: the pristine release
        with the independent fixes (the fixes' own tests are not the
        weak-reference prefixes': --alone runs them, and with the full series
        ./test.sh), or with --alone the pristine release."""
        if self.nfix and not self.alone:
            self.base = tempfile.mkdtemp(prefix="tmp.")
            self.remake(self.base, self.nfix)

    def cleanup_base(self):
        if self.base != self.pristine:
            shutil.rmtree(self.base, ignore_errors=True)

    def added(self, d, f):
        """The step whose touched files d holds has f, and added or changed it
        from base (an upstream test it does not change is not its test; for
        the fixes' tests see selected)."""
        return os.path.exists(f"{d}/{f}") and not same_file(f"{self.base}/{f}", f"{d}/{f}")

    def selected(self, d, f):
        """f is a test of the step whose touched files d holds: the step added
        or changed it, or it is the test of an independent fix one of whose
        other files the step changed."""
        if self.added(d, f):
            return True
        return any(f in tests and any(self.added(d, s) for s in sources)
                   for sources, tests in zip(self.fix_sources, self.fix_tests))

    def plan(self, d):
        """From a tree of touched files, what its tests and targets are."""
        gtests, libs = [], []
        for spec in map(GTest.parse, GTEST_SPECS):
            if self.selected(d, spec.file):
                gtests.append(spec)
                libs += spec.libs.split()
        capis = [(f, b) for f, b in CAPI_SPECS if self.selected(d, f)]
        py_tests = [f[len("mlir/test/python/"):] for f in self.touched
                    if f.startswith("mlir/test/python/") and f.endswith(".py")
                    and self.selected(d, f)
                    and os.path.basename(f) not in ("lit.cfg.py", "lit.local.cfg.py")]
        targets = ["MLIRIR", "MLIRCAPIIR"]
        # The library sources the prefix changes, each through the object it
        # compiles to (ninja's `source^`): a patch that changes a dialect,
        # say, compiles even when no test of the prefix needs it. The Python
        # bindings' sources are built by the Python package below.
        targets += [f"{self.src}/{f}^" for f in self.touched
                    if f.startswith("mlir/lib/") and f.endswith(".cpp")
                    and not f.startswith("mlir/lib/Bindings/Python/") and self.added(d, f)]
        if gtests:
            targets += ["LLVMSupport", "llvm_gtest", "llvm_gtest_main"] + libs
        targets += [b for _, b in capis]
        if py_tests and not self.python_reason:
            targets += self.setup_targets
        return Plan(gtests, capis, py_tests, dedupe(targets))

    def last_step_targets(self, any_targets):
        """The last step builds what any step built (see
        restore_recorded_mtimes), but a C API test binary exists only where
        the series has its test (an upstream test's binary exists anyway, but
        is only built for the steps that change it)."""
        absent = {b for f, b in CAPI_SPECS if not os.path.exists(f"{self.src}/{f}")}
        return [t for t in dedupe(any_targets) if t not in absent]

    # ------------------------------------------------- the tree is the series ----
    def check_tree(self, scratch):
        """The problems that make a real run refuse: none if the tree holds
        what setup.sh makes of the current series: the same touched list
        and, for each touched file, the content of pristine + the full series
        (a series changed since ./setup.sh, or edits synced from the
        developer tree, fail this)."""
        problems = []
        if not (os.path.isdir(self.src) and os.path.isfile(f"{self.tree}/key")):
            problems.append(f"no patched tree in {self.tree} (no src/ or key)")
        if os.path.isdir(self.src):
            listed = "".join(f"{f}\n" for f in self.touched) or "\n"
            try:
                with open(f"{self.tree}/touched", "rb") as f:
                    same = f.read() == listed.encode("utf-8", "surrogateescape")
            except OSError:
                same = False
            if not self.alone and not same:
                problems.append(f"the series touches other files than {self.tree}/touched lists")
            self.remake(scratch, self.full)
            diff = self.differing_files(scratch, self.src)
            if diff and self.alone:
                problems.append(f"{len(diff)} file(s) of {self.src} the fixes touch differ "
                                f"from the pristine release: {' '.join(diff)}")
            elif diff:
                problems.append(f"{len(diff)} touched file(s) of {self.src} differ "
                                f"from pristine + the series: {' '.join(diff)}")
        # setup.sh's key names the series by a hash of its files: with equal
        # contents a differing one means only commit messages changed, which
        # does not matter here.
        if not self.alone and not problems:
            if f"-series-{self.ask('--print-series-hash')}-" not in self.key():
                say(f"note: {self.tree}/key is for another version of the series, "
                    f"with the same file contents (commit messages changed?)")
        return problems

    def key(self):
        return read_text(f"{self.tree}/key").rstrip("\n")

    def busy(self):
        """A ninja or cmake working in the LLVM build (setup.sh, a
        developer's build): their command lines."""
        try:
            out = subprocess.run(["ps", "-eo", "args="], capture_output=True).stdout
        except OSError:
            return []
        return [l for l in lines_of(out.decode("utf-8", "surrogateescape"))
                if self.llvm_build in l and re.match(r"(\S*/)?(ninja|cmake)( |$)", l)]

    # ------------------------------------------------------------ mtimes ----
    def restore_recorded_mtimes(self):
        """The touched files whose content is what was recorded get their
        recorded mtime back. Only after the last step (the full series) built
        all it had to, and correct then because:
        - every target this script built at any step was built again at the
          last step, whose targets include all earlier steps' (any_targets):
          ninja rebuilt each of its objects whose inputs changed since it was
          last built, so all of them are now built against the last step's
          content (the full series; with --alone the pristine release), and
          are newer than any mtime this restores (this assumes that what a
          target needs at a prefix it still needs at the last step: the
          series adds, it does not drop dependencies); the script's own
          scratch projects count: the last step rebuilds the Python package
          if any step built it, its gtest binaries are every step's, and a
          failure there also keeps the new mtimes;
        - every other object was not touched by this script: it was built,
          before the script ran, against that same content (the tree was
          checked to be pristine + the full series), with those recorded
          mtimes (or was stale then, and still is).
        Lowering a source's mtime to the recorded one never makes an
        up-to-date object look stale, and makes none look up to date that was
        built against other content. Without it, everything including a file
        that changed during the run (MLIR's IR headers: all of MLIR) would be
        rebuilt by the next ninja, for identical content. If the last step
        failed, objects built for a prefix may not have been rebuilt: the new
        mtimes stay."""
        n = 0
        for f in self.touched:
            rec, cur = f"{self.work}/recorded/{f}", f"{self.src}/{f}"
            if os.path.exists(rec) and os.path.exists(cur) and same_content(rec, cur):
                st = os.stat(rec)
                os.utime(cur, ns=(st.st_atime_ns, st.st_mtime_ns))
                n += 1
        say(f"restored the recorded mtimes of {n} of {len(self.touched)} touched files")


class Tests:
    """A step's scratch builds and tests, and the fixes' oracle of --alone."""

    def __init__(self, c):
        self.src, self.work, self.cache, self.jobs = c.src, c.work, c.cache, c.jobs
        self.llvm_build, self.filecheck = c.llvm_build, c.filecheck
        self.python_reason, self.nfix = c.python_reason, c.nfix

    # --------------------------------------------------- scratch CMake projects ----
    def gtest_cmake(self, gtests, root="${LLVM_BUILD_MAIN_SRC_DIR}/.."):
        """The unit tests gtests (a step's), as unittests/CMakeLists.txt
        builds WeakOpRefUpstreamTests and the others: LLVM's bundled
        GoogleTest with LLVM's flags, the libraries each needs. Only the
        step's own, so that the text changes (and ninja re-runs cmake) when a
        step adds one."""
        text = [SCRATCH_PREAMBLE.replace("@NAME@", "weakref-prefix-gtest"),
                f'include("{ROOT}/cmake/LLVMGTest.cmake")']
        for t in gtests:
            text += [f'add_executable({t.name}\n  "{root}/{t.file}")',
                     f"llvm_update_compile_flags({t.name})",
                     f"target_compile_options({t.name} PRIVATE -Wno-suggest-override)",
                     f"target_link_libraries({t.name} PRIVATE llvm_gtest_main llvm_gtest {t.libs})",
                     f"set_target_properties({t.name} PROPERTIES\n"
                     "  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)"]
        return "\n".join(text)

    def scratch_build(self, name, text, target, log):
        """Configures (once; ninja re-runs cmake when needed) and builds the
        scratch project <work>/name; True if it built."""
        proj = f"{self.work}/{name}"
        env = dict(os.environ, CCACHE_DIR=f"{self.cache}/ccache")
        write_if_changed(f"{proj}/src/CMakeLists.txt", text)
        if not os.path.isfile(f"{proj}/build/build.ninja"):
            # The LLVM build's sanitizer flags, as setup.sh gives them to the
            # project.
            san = []
            v = self.cmake_cache_value("LLVM_USE_SANITIZER")
            if v:
                san.append(f"-DLLVM_USE_SANITIZER={v}")
            v = self.cmake_cache_value("CMAKE_CXX_FLAGS")
            if v:
                san += [f"-DCMAKE_CXX_FLAGS={v}", f"-DCMAKE_C_FLAGS={v}"]
            log_write(log, f"+ cmake (configure {name})\n")
            status = run(["cmake", "-S", f"{proj}/src", "-B", f"{proj}/build", "-G", "Ninja",
                          "-DCMAKE_BUILD_TYPE=Release",
                          f"-DMLIR_DIR={self.llvm_build}/lib/cmake/mlir",
                          f"-DLLVM_DIR={self.llvm_build}/lib/cmake/llvm",
                          "-DPython3_EXECUTABLE=/usr/bin/python3", "-DPython_EXECUTABLE=/usr/bin/python3",
                          "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache",
                          *san], log, env=env)
            if status:
                rm_rf(f"{proj}/build/build.ninja")
                return False
        log_write(log, f"+ ninja -C {proj}/build {target}\n")
        return run(["ninja", "-C", f"{proj}/build", f"-j{self.jobs}", target], log, env=env) == 0

    def cmake_cache_value(self, var):
        """The values of var in the LLVM build's CMakeCache.txt (one a line)."""
        try:
            text = read_text(f"{self.llvm_build}/CMakeCache.txt")
        except OSError:
            return ""
        values = [m.group(1) for m in re.finditer(rf"(?m)^{var}:[A-Z]*=(.*)$", text)]
        return "".join(f"{v}\n" for v in values).rstrip("\n")

    # ------------------------------------------------------------------ tests ----
    def python_run_line(self, path):
        """path's first `# RUN:` line with lit's substitutions made (%PYTHON,
        FileCheck, %s), for bash; "" if it has none."""
        cmd = next((l[len("# RUN: "):] for l in lines_of(read_text(path))
                    if l.startswith("# RUN: ")), "").rstrip("\n")
        if not cmd:
            return ""
        cmd = cmd.replace("%PYTHON", "/usr/bin/python3").replace("FileCheck", self.filecheck)
        return cmd.replace("%s", path)

    def capi_command(self, f, binary, result):
        """The C API test's RUN line (a C comment), for bash."""
        cmd = ""
        for line in lines_of(read_text(f"{self.src}/{f}")):
            m = re.match(r"^.*RUN: *(.*)$", line)
            if m:
                cmd = re.sub(r"[ \t]*\*/[ \t]*$", "", m.group(1))
                break
        cmd = cmd or f"{binary} 2>&1 | FileCheck %s"
        if os.access(self.filecheck, os.X_OK):
            cmd = cmd.replace("FileCheck", self.filecheck)
        else:
            # No FileCheck built: the test's exit status alone.
            cmd = cmd.split("|", 1)[0]
            result.notes.append(f"{os.path.basename(f)}: exit status only, "
                                f"no FileCheck in {self.llvm_build}/bin")
        cmd = cmd.replace(binary, f"{self.llvm_build}/bin/{binary}")
        return cmd.replace("%s", f"{self.src}/{f}")

    def python_env(self):
        return dict(os.environ, PYTHONPATH=f"{self.work}/python/build/python_packages/mlir_core")

    def run_tests(self, plan, log):
        """Runs the tests planned for the current step."""
        r = TestResult()
        for t in plan.gtests:
            r.names.append(os.path.basename(t.file))
            binary = f"{self.work}/gtest/build/bin/{t.name}"
            log_write(log, f"+ {binary}\n")
            if run([binary], log):
                r.failed.append(os.path.basename(t.file))
        for f, binary in plan.capis:
            name = os.path.basename(f)
            r.names.append(name)
            cmd = self.capi_command(f, binary, r)
            log_write(log, f"+ {cmd}\n")
            if run(["bash", "-o", "pipefail", "-c", cmd], log):
                r.failed.append(name)
        if plan.py_tests:
            self.run_python_tests(plan.py_tests, log, r)
        r.ok = not r.failed
        return r

    def run_python_tests(self, py_tests, log, r):
        if self.python_reason:
            r.not_run += py_tests
            r.notes.append(f"Python tests not run: {self.python_reason}")
            return
        if not os.access(self.filecheck, os.X_OK):
            r.not_run += py_tests
            r.notes.append(f"Python tests not run: no FileCheck in {self.llvm_build}/bin")
            return
        # The prefix's test files, run by run_upstream.py in the tree (its
        # skips with their reasons); a file it does not run (no RUN line)
        # runs here, the same way.
        package = f"{self.work}/python/build/python_packages/mlir_core"
        log_write(log, f"+ run_upstream.py --only {' '.join(py_tests)} (PYTHONPATH={package})\n")
        _, out = capture(["/usr/bin/python3", f"{ROOT}/test/python/run_upstream.py", f"{self.src}/mlir",
                          self.filecheck, package, "--only", *py_tests], merge=True)
        out = out.rstrip("\n")
        log_write(log, f"{out}\n")
        for t in py_tests:
            r.names.append(t)
            verdict = re.compile(rf"^(PASS|FAIL|SKIP) +{re.escape(t)}( |:|$)")
            line = next((l for l in out.split("\n") if verdict.match(l)), "")
            if line.startswith("SKIP"):
                r.notes.append(f"{t} skipped: {line.split(': ', 1)[-1]}")
            elif line.startswith("FAIL"):
                r.failed.append(t)
            elif not line.startswith("PASS"):
                cmd = self.python_run_line(f"{self.src}/mlir/test/python/{t}")
                if not cmd:
                    r.not_run.append(t)
                    r.notes.append(f"{t} has no RUN line: not run")
                    continue
                log_write(log, f"+ {cmd}\n")
                if run(["bash", "-o", "pipefail", "-c", cmd], log, env=self.python_env()):
                    r.failed.append(t)

    # The oracle of --alone: each fix's Python and unit test files, kept from
    # its step (save_fix_tests), must fail on the pristine release (the last
    # step: its Python package; the unit tests built against its
    # libraries): a test that passes without its fix does not test it.
    def save_fix_tests(self, k, plan):
        saved = f"{self.work}/alone-tests/{k}"
        for t in plan.py_tests:
            os.makedirs(dirname(f"{saved}/{t}"), exist_ok=True)
            copy_new(f"{self.src}/mlir/test/python/{t}", f"{saved}/{t}")
        for t in plan.gtests:
            os.makedirs(dirname(f"{saved}/gtest/{t.file}"), exist_ok=True)
            copy_new(f"{self.src}/{t.file}", f"{saved}/gtest/{t.file}")
            log_write(f"{saved}/gtests", f"{t.spec()}\n")

    def check_fix_tests_fail(self, log):
        """(the report's text, False if a test passes without its fix or a
        unit test does not build without it)."""
        failing, passing, unbuilt = [], [], []
        for k in range(1, self.nfix + 1):
            saved = f"{self.work}/alone-tests/{k}"
            if not os.path.isdir(saved):
                continue
            for f in self.saved_python_tests(saved):
                rel = f[len(saved) + 1:]
                cmd = self.python_run_line(f)
                log_write(log, f"+ (without fix {k}) {cmd}\n")
                if run(["timeout", "300", "bash", "-o", "pipefail", "-c", cmd], log,
                       cwd=self.work, env=self.python_env()):
                    failing.append(rel)
                else:
                    passing.append(f"{rel} (fix {k})")
            if not os.path.isfile(f"{saved}/gtests"):
                continue
            gtests = [GTest.parse(l) for l in lines_of(read_text(f"{saved}/gtests"))]
            for t in gtests:
                base = os.path.basename(t.file)
                if not self.scratch_build("gtest", self.gtest_cmake(gtests, f"{saved}/gtest"), t.name, log):
                    unbuilt.append(f"{base} (fix {k})")
                    continue
                binary = f"{self.work}/gtest/build/bin/{t.name}"
                log_write(log, f"+ (without fix {k}) {binary}\n")
                if run([binary], log):
                    failing.append(base)
                else:
                    passing.append(f"{base} (fix {k})")
        text = f"fixes' tests without their fix: {len(failing)} fail as they must"
        if passing:
            text += f", {join(passing)} PASS (they do not test their fix)"
        if unbuilt:
            text += f", {join(unbuilt)} do not build"
        return text, not passing and not unbuilt

    @staticmethod
    def saved_python_tests(saved):
        """`find SAVED -path SAVED/gtest -prune -o -name '*.py' -print | sort`"""
        found = []
        for top, dirs, files in os.walk(saved):
            if top == saved and "gtest" in dirs:
                dirs.remove("gtest")
            found += [f"{top}/{n}" for n in dirs + files if n.endswith(".py")]
        return collate(found)


# ---------------------------------------------------------------- dry run ----
def dry_run(c):
    tmp = tempfile.mkdtemp(prefix="tmp.")
    try:
        dry_run_in(c, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def dry_run_in(c, tmp):
    say(f"LLVM {c.version}, {c.n} patches, {len(c.touched)} touched files; tree {c.tree}")
    problems = c.check_tree(f"{tmp}/full")
    if os.path.isfile(c.inprogress):
        say("an interrupted run left the tree at a prefix: a real run (or --restore) restores the full series first")
    elif problems:
        for p in problems:
            say(f"a real run would refuse: {p}")
        say(f"(run {c.setup_cmd} first; the plan below compares with the tree as it is)")
    elif c.alone:
        say(f"tree check: {c.src} is the pristine release where the fixes touch it (key {c.key()})")
    else:
        say(f"tree check: {c.src} is pristine + the current series (key {c.key()})")
    busy = c.busy()
    if busy:
        say(f"a real run would refuse now: running in the LLVM build: {busy[0][:120]}...")
    if c.python_reason:
        say(f"Python tests: {c.python_reason}")
    if not os.access(c.filecheck, os.X_OK):
        say(f"no {c.filecheck} (yet): C API tests would be checked by exit status only, Python tests not run")
    prev, any_targets = c.src, []
    for k in c.steps:
        step = f"{tmp}/step-{k}"
        c.remake(step, k)
        changed = c.differing_files(prev, step)
        plan = c.plan(step)
        any_targets += plan.targets
        if k == c.full:
            # The last step builds what any step built (see the real run).
            plan.targets = c.last_step_targets(any_targets)
        print()
        print(f"{c.label(k)}:")
        if changed:
            print(f"  re-make {len(changed)} file(s) (new mtime; '-': removed):")
            for f in changed:
                print(f"    {f}" if os.path.exists(f"{step}/{f}") else f"    - {f}")
        else:
            print("  no file changes")
        print(f"  ninja -C {c.llvm_build} -j{c.jobs} {' '.join(plan.targets)}")
        tests = [f"{os.path.basename(t.file)} (gtest binary {c.work}/gtest/build/bin/{t.name}, against {t.libs})"
                 for t in plan.gtests]
        tests += [f"{os.path.basename(f)} ({b} | FileCheck)" for f, b in plan.capis]
        if plan.py_tests and c.python_reason:
            tests.append(f"Python: not run ({c.python_reason}): {' '.join(plan.py_tests)}")
        elif plan.py_tests:
            tests.append(f"Python (package: ninja -C {c.work}/python/build MLIRWeakRefPythonModules): "
                         f"{' '.join(plan.py_tests)}")
        for t in tests or ["none"]:
            print(f"  test: {t}")
        prev = step
    print()
    say(f"then: restore the recorded mtimes of the {len(c.touched)} touched files whose content is unchanged "
        "(all, if the full series builds)")
    say("dry run: nothing changed")


# ---------------------------------------------------------------- restore ----
def restore_only(c):
    if os.path.isfile(c.inprogress):
        c.restore_full_series()
        os.unlink(c.inprogress)
        return
    say(f"nothing to restore (no interrupted run in {c.tree})")
    other = command_output([f"{ROOT}/setup.sh", "--patched" if c.alone else "--baseline", "--print-tree"])
    if os.path.isfile(f"{other}/prefix-check/in-progress"):
        say(f"but an interrupted run left {other} modified: add{' no' if c.alone else ''} --alone")


# ------------------------------------------------------------------ steps ----
def preconditions(c):
    busy = c.busy()
    if busy:
        die(f"ninja or cmake is running in {c.llvm_build} ({busy[0][:100]}...); wait for it")
    if os.path.exists(f"{c.tree}/src.new"):
        die(f"{c.tree}/src.new exists: setup.sh is re-making the tree (or was interrupted); re-run ./setup.sh")
    if not os.path.isfile(f"{c.llvm_build}/build.ninja"):
        die(f"no LLVM build in {c.llvm_build}; run {c.setup_cmd} first")
    if os.path.isfile(c.inprogress):
        say("an earlier run was interrupted at a prefix: restoring the full series first")
        c.restore_full_series()
        os.unlink(c.inprogress)
    problems = c.check_tree(f"{c.work}/full")
    rm_rf(f"{c.work}/full")
    if problems:
        for p in problems:
            warn(p)
        die(f"{c.src} is not what {c.setup_cmd} makes of the current series; "
            f"run LLVM_VERSION={c.version} {c.setup_cmd} first")


def real_run(c):
    preconditions(c)
    # Record the touched files (content and mtime) of the tree.
    rm_rf(f"{c.work}/recorded")
    os.makedirs(f"{c.work}/recorded")
    c.copy_touched(c.src, f"{c.work}/recorded")
    # From here until the end the tree may hold a prefix: if the run stops
    # early, put the full series back (with new mtimes: correct whatever was
    # built).
    touch(c.inprogress)
    Signals.holding = True
    try:
        all_ok, last_build_ok = run_steps(c)
    except BaseException:
        c.cleanup_base()
        if os.path.isfile(c.inprogress):
            warn("stopped before the end: restoring the tree")
            c.restore_full_series()
            os.unlink(c.inprogress)
        raise
    # The tree holds the full series (the pristine release with --alone)
    # again: the last step.
    os.unlink(c.inprogress)
    Signals.holding = False
    c.cleanup_base()
    if last_build_ok:
        c.restore_recorded_mtimes()
    else:
        say("the last step's build failed: the re-made files keep their new mtimes "
            "(objects built for a step must be rebuilt)")
    if not all_ok:
        say("FAIL: see the steps above")
        return 1
    if c.alone:
        say(f"OK: each of the {c.nfix} independent fixes builds and passes its tests alone on LLVM {c.version}")
    elif c.start > 1:
        say(f"OK: prefixes {c.start} to {c.n} build and pass their tests")
    else:
        say(f"OK: all {c.n} prefixes build and pass their tests")
    return 0


def run_steps(c):
    """Builds and tests each step; (all OK, the last step built)."""
    tests = Tests(c)
    os.makedirs(f"{c.work}/logs", exist_ok=True)
    rm_rf(f"{c.work}/alone-tests")
    if c.alone:
        say(f"LLVM {c.version}: {c.nfix} independent fixes, each alone, in {c.tree} (logs: {c.work}/logs/)")
    else:
        say(f"LLVM {c.version}: {c.n} patches in {c.tree} (logs: {c.work}/logs/)")
        if c.from_given:
            say(f"starting at prefix {c.start} (--from)")
        elif c.nfix:
            say(f"starting at prefix {c.start} (after the {c.nfix} independent fixes, which --alone checks)")
    any_targets, any_python, all_ok, last_build_ok = [], False, True, False
    for k in c.steps:
        subj = c.label(k)
        log = f"{c.work}/logs/{'alone' if c.alone else 'prefix'}-{k}.log"
        open(log, "w").close()
        c.remake(f"{c.work}/step", k)
        changed = c.sync_src(f"{c.work}/step")
        rm_rf(f"{c.work}/step")
        plan = c.plan(c.src)
        any_targets += plan.targets
        build_python = bool(plan.py_tests) and not c.python_reason
        # The last step rebuilds the Python package if any step built it
        # (with --alone it has no tests then), and whatever any step built,
        # so that afterwards no object is left built against a prefix (see
        # restore_recorded_mtimes).
        if k == c.full:
            build_python = build_python or any_python
            plan.targets = c.last_step_targets(any_targets)
        any_python = any_python or build_python
        log_write(log, f"== {subj}: {len(changed)} file(s) re-made; ninja {' '.join(plan.targets)}\n"
                       + "\n".join(changed) + "\n"
                       + f"+ ninja -C {c.llvm_build} -j{c.jobs} {' '.join(plan.targets)}\n")
        build_ok = run(["ninja", "-C", c.llvm_build, f"-j{c.jobs}", *plan.targets], log) == 0
        # The scratch projects are this script's own (not in the LLVM build):
        # they are built for the steps that test with them.
        if build_ok and plan.gtests:
            text = tests.gtest_cmake(plan.gtests)
            build_ok = all(tests.scratch_build("gtest", text, t.name, log) for t in plan.gtests)
        if build_ok and build_python:
            build_ok = tests.scratch_build("python", PYTHON_CMAKE, "MLIRWeakRefPythonModules", log)
        if k == c.full:
            last_build_ok = build_ok
        if build_ok:
            r = tests.run_tests(plan, log)
            if c.alone and k > 0 and r.ok:
                tests.save_fix_tests(k, plan)
            if not r.names:
                result = "tests ok (none run)"
            elif r.ok:
                result = f"tests ok ({join(r.names)})"
            else:
                result = f"tests FAIL ({join(r.failed)})"
                all_ok = False
            if r.not_run:
                result += f" [not run: {join(r.not_run)}]"
            if c.alone and k == 0 and not c.python_reason and os.access(c.filecheck, os.X_OK):
                text, ok = tests.check_fix_tests_fail(log)
                result += f"; {text}"
                all_ok = all_ok and ok
            print(f"{subj}: build ok, {result}")
        else:
            r = TestResult(ok=False)
            all_ok = False
            print(f"{subj}: build FAIL, tests not run")
            for line in build_errors(log)[:40]:
                print(f"    {line}")
        for n in r.notes:
            print(f"    note: {n}")
        if not (build_ok and r.ok):
            print(f"    (log: {log})")
    return all_ok, last_build_ok


def build_errors(log):
    """`grep -A15 -E '^FAILED:|CMake Error' LOG`: the lines of the log's
    errors, 15 lines of context after each, '--' between groups."""
    with open(log, "rb") as f:
        lines = lines_of(f.read().decode("utf-8", "surrogateescape"))
    out, last, after = [], None, 0
    for i, line in enumerate(lines):
        if re.search(r"^FAILED:|CMake Error", line):
            if last is not None and i > last + 1:
                out.append("--")
            out.append(line)
            last, after = i, 15
        elif after:
            out.append(line)
            last, after = i, after - 1
    return out


def main(argv):
    sys.stdout.reconfigure(line_buffering=True, errors="surrogateescape")
    sys.stderr.reconfigure(errors="surrogateescape")
    try:
        locale.setlocale(locale.LC_COLLATE, "")
    except locale.Error:
        pass
    Signals.install()
    opts = Options(argv)
    os.environ["LLVM_VERSION"] = os.environ.get("LLVM_VERSION") or "23.1.1"
    c = Checker(opts)
    try:
        c.make_base()
        if opts.dry_run:
            dry_run(c)
            return 0
        os.makedirs(c.work, exist_ok=True)
        if opts.restore_only:
            restore_only(c)
            return 0
        return real_run(c)
    finally:
        c.cleanup_base()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
