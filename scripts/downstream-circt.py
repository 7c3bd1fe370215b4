#!/usr/bin/env python3
"""Builds CIRCT's Python bindings and PyCDE against the patched MLIR (or,
with --unpatched, the unpatched source) and runs PyCDE's own tests: the
downstream that broke when MLIR's Python bindings dropped their map of live
operations (circt #9008). Opt-in: not part of ./setup.sh, ./test.sh or CI;
it builds for hours on 2 cores, and a build that is stopped resumes where it
stopped (ninja, and the project's ccache).

  scripts/downstream-circt.py --circt-git URL_OR_REPO [--ref firtool-1.154.0]
  scripts/downstream-circt.py --circt-src /path/to/circt   (your checkout)
  scripts/downstream-circt.py ... --unpatched    the unpatched 23.1.1 source
  scripts/downstream-circt.py ... --checks       PyCDE's tests with the
                                                 context's erasure checks on
  scripts/downstream-circt.py ... --valgrind     test/downstream/pycde under
                                                 memcheck (no lit run)
  scripts/downstream-circt.py ... --steps        print what is left to build
  scripts/downstream-circt.py ... --no-pycde-patch   PyCDE as the tag has it

What it does:
 1. the CIRCT source: exports REF from the repository (a URL, a clone or a
    bare repository) or copies your checkout (without llvm/, .git, build*),
    on every run, into
    the cache, and applies patches/circt-<ref>/series (patch -p1);
 2. the LLVM tree: runs ./setup.sh --no-demo [--baseline] (seconds when it
    is built; --no-setup skips it and takes the source the last run
    prepared) and takes its patched source, CMake options and ccache;
 3. configures CIRCT's unified build (LLVM_EXTERNAL_PROJECTS=circt, which
    CIRCT's Python bindings require) in <tree>/circt-<ref>, beside the
    tree's own build/, so ccache serves the LLVM/MLIR objects setup.sh built;
 4. builds PyCDE and the lit tools, then runs PyCDE's lit tests and this
    project's PyCDE tests (test/downstream/pycde/), writing
    <build>/pycde-results*.json.
"""
import argparse
import collections
import filecmp
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "setup.sh"
DEFAULT_REF = "firtool-1.154.0"
# LLVM options the unified build replaces: gold rejects the `-z,undefs` that
# MLIR's AddMLIRPython.cmake links the Python extensions with.
DROPPED_OPTS = ("-DLLVM_USE_LINKER=",)
CIRCT_OPTS = [
    "-DLLVM_EXTERNAL_PROJECTS=circt",
    "-DCIRCT_BINDINGS_PYTHON_ENABLED=ON",
    "-DCIRCT_ENABLE_FRONTENDS=PyCDE",
    # CIRCT's own setup.py gives its bindings their own nanobind domain.
    "-DMLIR_BINDINGS_PYTHON_NB_DOMAIN=circt",
    # patches/circt-firtool-1.154.0: PyCDE never calls export_llvm_ir.
    "-DCIRCT_BINDINGS_PYTHON_EXPORT_LLVM=OFF",
    "-DZ3_DISABLE=ON",
    "-DOR_TOOLS_DISABLE=ON",
    "-DVERILATOR_DISABLE=ON",
    "-DIVERILOG_DISABLE=ON",
    "-DESI_RUNTIME=OFF",
    # CIRCT's unified build makes this a cache default of ON, in effect from
    # the second configure on: every LLVM/MLIR object would get a flag that
    # setup.sh's objects lack, and no ccache hit.
    "-DCMAKE_VISIBILITY_INLINES_HIDDEN=OFF",
]
# What `ninja check-pycde` depends on (frontends/PyCDE/test/CMakeLists.txt).
TARGETS = ["PyCDE", "FileCheck", "count", "not"]


class Error(Exception):
    pass


def log(msg):
    print(f"==> {msg}", flush=True)


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def setup_print(what, unpatched):
    """What `setup.sh --print-WHAT` says (the owner of the cache's layout)."""
    cmd = [str(SETUP), f"--print-{what}"] + (["--baseline"] if unpatched else [])
    r = subprocess.run(cmd, text=True, capture_output=True)
    if r.returncode:
        raise Error(f"{' '.join(cmd)} failed: {r.stderr.strip()}")
    return r.stdout


# PyCDE's runtime needs (its pyproject.toml): Debian's packages. PyCDE asks
# for executing >= 2.2.0; Debian 12's 1.2.0 passes PyCDE's test_tracer.py,
# the tests of the one function that uses it (docs/TESTING.md).
PYTHON_PACKAGES = {"executing": "python3-executing", "numpy": "python3-numpy",
                   "yaml": "python3-yaml"}


def prepared_source_key(tree, setup_cmd):
    """--no-setup: the key of the source the last ./setup.sh prepared in
    `tree` (an error if there is none)."""
    if not (tree / "key").is_file() or \
            not (tree / "src" / "llvm" / "CMakeLists.txt").is_file():
        raise Error(f"--no-setup: {tree} holds no prepared source; run "
                    f"{' '.join(map(str, setup_cmd))} first")
    return (tree / "key").read_text().strip()


def ensure_python_packages():
    missing = [pkg for mod, pkg in PYTHON_PACKAGES.items()
               if subprocess.run(["/usr/bin/python3", "-c", f"import {mod}"],
                                 capture_output=True).returncode]
    if not missing:
        return
    if os.geteuid() != 0:
        raise Error(f"PyCDE needs {' '.join(missing)}; install them (as root)")
    log(f"installing {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"]
                      + missing, env=env, capture_output=True).returncode:
        run(["apt-get", "update", "-qq"], env=env)
        run(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing,
            env=env, stdout=subprocess.DEVNULL)


def circt_options(llvm_opts, circt_src):
    """setup.sh's options, less those the unified build cannot use, plus
    CIRCT's. Options are 'NAME=value' strings; the generator is kept."""
    opts = [o for o in llvm_opts if not o.startswith(DROPPED_OPTS)]
    return opts + CIRCT_OPTS + [f"-DLLVM_EXTERNAL_CIRCT_SOURCE_DIR={circt_src}"]


def series_patches(patch_dir):
    series = patch_dir / "series"
    if not series.is_file():
        raise Error(f"{series} does not exist (use --no-pycde-patch only "
                    "for PyCDE's patch; the series is needed)")
    names = [l.strip() for l in series.read_text().splitlines()
             if l.strip() and not l.lstrip().startswith("#")]
    for n in names:
        if not (patch_dir / n).is_file():
            raise Error(f"{series} names {n}, which does not exist")
    return [patch_dir / n for n in names]


def resolve_source(args):
    """A string that identifies the CIRCT source to use: for a repository, the
    ref and the commit it names (fetched into the cache; without network,
    the source prepared last for this ref, if any); for a checkout, None (it
    is copied and compared on every run: uncommitted edits count)."""
    if args.circt_src:
        if not (Path(args.circt_src) / "frontends" / "PyCDE").is_dir():
            raise Error(f"--circt-src {args.circt_src} has no frontends/PyCDE: "
                        "point it at the root of a CIRCT checkout")
        return None
    git = Path(args.cache) / "circt" / "git"
    if not (git / "HEAD").exists():
        run(["git", "init", "-q", "--bare", git])
    fetched = subprocess.run(
        ["git", "--git-dir", str(git), "fetch", "-q", "--depth", "1", "--no-tags",
         args.circt_git, f"+{args.ref}:refs/weakref/{args.ref}"],
        text=True, capture_output=True)
    if fetched.returncode:
        key = Path(args.cache) / "circt" / args.ref / "key"
        if key.is_file() and key.read_text().startswith(f"{args.ref} "):
            log(f"could not fetch {args.ref} from {args.circt_git}; using the "
                f"source prepared before ({key.read_text().split(' patches')[0]})")
            return key.read_text().split(" patches")[0]
        raise Error(f"could not fetch {args.ref} from {args.circt_git}: "
                    f"{fetched.stderr.strip()}")
    commit = subprocess.run(
        ["git", "--git-dir", str(git), "rev-parse", f"refs/weakref/{args.ref}^{{commit}}"],
        check=True, text=True, capture_output=True).stdout.strip()
    return f"{args.ref} {commit}"


def export_source(args, ident, dest):
    """Puts the pristine CIRCT source in dest: the commit `ident` names, or a
    copy of the checkout without llvm/ (not used), .git and build*/."""
    dest.mkdir(parents=True)
    if args.circt_src:
        skip = shutil.ignore_patterns(".git", "build*")
        for entry in Path(args.circt_src).iterdir():
            if entry.name in ("llvm", ".git") or entry.name.startswith("build"):
                continue
            if entry.is_dir():
                shutil.copytree(entry, dest / entry.name, symlinks=True, ignore=skip)
            else:
                shutil.copy2(entry, dest / entry.name)
        return
    git = Path(args.cache) / "circt" / "git"
    commit = ident.split()[-1]
    archive = subprocess.Popen(["git", "--git-dir", str(git), "archive", commit],
                               stdout=subprocess.PIPE)
    with archive.stdout:
        run(["tar", "x", "-C", dest], stdin=archive.stdout)
    if archive.wait():
        raise Error(f"git archive {commit} failed")


def keep_unchanged_stamps(new, old):
    """Gives every file of `new` that `old` has with the same content the old
    file's time stamp, and every other file the time now, so that ninja
    rebuilds exactly what changed (a file restored to older content, or a
    ref moved to an older commit, included)."""
    now = time.time()
    for dirpath, _, files in os.walk(new):
        for name in files:
            n = Path(dirpath) / name
            if n.is_symlink():
                continue
            o = old / n.relative_to(new)
            if o.is_file() and not o.is_symlink() and filecmp.cmp(n, o, shallow=False):
                st = o.stat()
                os.utime(n, (st.st_atime, st.st_mtime))
            else:
                os.utime(n, (now, now))


def prepare_source(args, patches):
    """CIRCT's source with the patches applied, under the cache. Re-made when
    the source or the patches change (a checkout: on every run); files whose
    content did not change keep their time stamps (as setup.sh does for
    LLVM), so ninja rebuilds only what changed. A patch that does not apply
    leaves the previous source as it was."""
    base = Path(args.cache) / "circt" / args.ref
    src, new = base / "src", base / "src.new"
    digest = hashlib.sha256()
    for p in patches:
        digest.update(p.name.encode() + p.read_bytes())
    ident = resolve_source(args)
    key = f"{ident} patches {digest.hexdigest()[:12]}"
    if ident and (base / "key").is_file() and (base / "key").read_text().strip() == key:
        log(f"CIRCT source up to date ({key})")
        return src
    if ident is None:
        key = f"checkout {Path(args.circt_src).resolve()} patches {digest.hexdigest()[:12]}"
    log(f"preparing CIRCT source ({key})")
    shutil.rmtree(new, ignore_errors=True)
    export_source(args, ident, new)
    for p in patches:
        log(f"applying {p.name}")
        r = subprocess.run(["patch", "-p1", "-d", str(new), "--forward",
                            "--batch", "--no-backup-if-mismatch", "-i", str(p)],
                           text=True, capture_output=True)
        if r.returncode:
            shutil.rmtree(new)
            raise Error(f"{p.name} does not apply to {ident or args.circt_src}:\n"
                        f"{r.stdout}{r.stderr}")
    keep_unchanged_stamps(new, src)
    (base / "key").unlink(missing_ok=True)
    shutil.rmtree(src, ignore_errors=True)
    new.rename(src)
    (base / "key").write_text(key + "\n")
    return src


def ccache_stats(ccache_dir):
    """(hits, misses) of the project's ccache."""
    r = subprocess.run(["ccache", "--print-stats"], text=True, capture_output=True,
                       env={**os.environ, "CCACHE_DIR": ccache_dir})
    stats = dict(l.split("\t", 1) for l in r.stdout.splitlines() if "\t" in l)
    hits = sum(int(stats.get(k, 0)) for k in ("direct_cache_hit", "preprocessed_cache_hit"))
    return hits, int(stats.get("cache_miss", 0))


def build(build_dir, jobs, ccache_dir, log_path):
    """Runs ninja, printing every 50th step and the ccache hit rate since it
    started (the first 50 steps tell whether the LLVM/MLIR objects come from
    setup.sh's build; the counters are the cache's, so a build sharing it
    at the same time counts too)."""
    hits0, miss0 = ccache_stats(ccache_dir)
    cmd = ["ninja", "-C", str(build_dir), f"-j{jobs}"] + TARGETS
    with open(log_path, "w") as logf:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        for line in proc.stdout:
            logf.write(line)
            m = re.match(r"^\[(\d+)/(\d+)\]", line)
            if m and (int(m[1]) % 50 == 0 or m[1] == m[2] or m[1] == "1"):
                hits, miss = ccache_stats(ccache_dir)
                h, n = hits - hits0, hits - hits0 + miss - miss0
                rate = f"{100 * h / n:.0f}% of {n}" if n else "no compiles yet"
                print(f"{line.rstrip()[:100]}   [ccache hits {rate}]", flush=True)
        rc = proc.wait()
    if rc:
        text = Path(log_path).read_text(errors="replace").splitlines()
        failed = [i for i, l in enumerate(text) if l.startswith("FAILED:")]
        for i in failed[:3]:
            print("\n".join(text[i:i + 15]), file=sys.stderr)
        raise Error(f"CIRCT build failed (full log: {log_path}); re-run to resume")


def steps_left(build_dir):
    out = subprocess.run(["ninja", "-C", str(build_dir), "-n"] + TARGETS,
                         text=True, capture_output=True).stdout
    m = re.findall(r"^\[\d+/(\d+)\]", out, re.M)
    return int(m[-1]) if m else 0


LIT_LINE = re.compile(r"^(PASS|FAIL|XFAIL|XPASS|UNSUPPORTED|UNRESOLVED|TIMEOUT): "
                      r"[^:]+ :: (\S+) \(\d+ of \d+\)")


def parse_lit_output(text):
    """{test file: status} from lit -v's result lines."""
    return {m[2]: m[1] for m in map(LIT_LINE.match, text.splitlines()) if m}


def run_lit(build_dir, env):
    lit = build_dir / "bin" / "llvm-lit"
    suite = build_dir / "tools" / "circt" / "frontends" / "PyCDE" / "test"
    r = subprocess.run(["/usr/bin/python3", str(lit), "-v", str(suite)],
                       text=True, capture_output=True, env=env)
    (build_dir / "pycde-lit.log").write_text(r.stdout + r.stderr)
    results = parse_lit_output(r.stdout)
    if not results:
        raise Error(f"lit ran no PyCDE test (log: {build_dir / 'pycde-lit.log'})")
    return results


VALGRIND = ["valgrind", "--error-exitcode=99", "--leak-check=no", "--track-origins=no",
            "--suppressions=/usr/lib/valgrind/python3.supp"]


def valgrind_errors(text):
    """{kind: count} of memcheck's reports ('Invalid read of size 8', ...)."""
    kinds = {}
    for m in re.finditer(r"^==\d+== (Invalid (?:read|write|free)|Use of uninitialised|"
                         r"Conditional jump)[^\n]*", text, re.M):
        kinds[m[1]] = kinds.get(m[1], 0) + 1
    return kinds


def run_own_test(test, env, valgrind):
    """Runs one of test/downstream/pycde/; under valgrind (pymalloc off, so
    every Python allocation is checked too), also counts memcheck's reports."""
    cmd = ["/usr/bin/python3", str(test)]
    if valgrind:
        cmd = VALGRIND + cmd
        env = {**env, "PYTHONMALLOC": "malloc"}
    r = subprocess.run(cmd, text=True, capture_output=True, env=env)
    result = {"status": "PASS" if r.returncode == 0 else "FAIL", "stdout": r.stdout}
    if valgrind:
        result["valgrind"] = valgrind_errors(r.stderr)
    if r.returncode:
        print(f"--- {test.name} (exit {r.returncode})\n{r.stdout}{r.stderr[-4000:]}",
              file=sys.stderr)
    return result


def summarize(results):
    """{status: count} of {test: status}."""
    return dict(collections.Counter(results.values()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--circt-git", help="a git URL or repository (bare or not) holding --ref")
    src.add_argument("--circt-src", help="a CIRCT checkout to copy (its llvm/ is not used)")
    ap.add_argument("--ref", default=DEFAULT_REF, help=f"tag or branch (default {DEFAULT_REF})")
    ap.add_argument("--unpatched", action="store_true",
                    help="build against the unpatched LLVM source (./setup.sh --baseline)")
    ap.add_argument("--checks", action="store_true",
                    help="run the tests with the context's erasure checks on")
    ap.add_argument("--no-pycde-patch", action="store_true",
                    help="leave PyCDE as the tag has it (apply only the build patches)")
    ap.add_argument("--steps", action="store_true",
                    help="configure, print the build steps left, and stop")
    ap.add_argument("--no-tests", action="store_true", help="build only")
    ap.add_argument("--no-setup", action="store_true",
                    help="do not run ./setup.sh: use the tree's source as the "
                    "last ./setup.sh left it (CIRCT's build then compiles the "
                    "LLVM/MLIR objects it needs that setup.sh has not built)")
    ap.add_argument("--valgrind", action="store_true",
                    help="run this project's PyCDE tests under valgrind's memcheck")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", os.cpu_count())))
    args = ap.parse_args(argv)
    # Everything asked of setup.sh and the patches first: no hour of work
    # before a missing piece is found.
    args.cache = setup_print("cache", False).strip()
    tree = Path(setup_print("tree", args.unpatched).strip())
    llvm_opts = setup_print("llvm-opts", args.unpatched).splitlines()
    ccache_dir = [o.split("=", 1)[1] for o in llvm_opts if o.startswith("-DLLVM_CCACHE_DIR=")]
    if len(ccache_dir) != 1:
        raise Error("setup.sh --print-llvm-opts names no -DLLVM_CCACHE_DIR")
    ccache_dir = ccache_dir[0]
    patch_dir = ROOT / "patches" / f"circt-{args.ref}"
    patches = series_patches(patch_dir)
    if args.no_pycde_patch:
        patches = [p for p in patches if "PyCDE" not in p.name]
    if not args.steps and not args.no_tests:
        ensure_python_packages()
    circt_src = prepare_source(args, patches)

    variant = "unpatched" if args.unpatched else "patched"
    setup_cmd = [SETUP, "--no-demo"] + (["--baseline"] if args.unpatched else [])
    if args.no_setup:
        key = prepared_source_key(tree, setup_cmd)
        log(f"LLVM/MLIR source ({variant}): {tree / 'src'}, as prepared for {key}")
    else:
        log(f"LLVM/MLIR tree ({variant}): {' '.join(map(str, setup_cmd))}")
        run(setup_cmd)
    # --no-pycde-patch changes only PyCDE's Python sources: same build.
    build_dir = tree / f"circt-{args.ref}"

    opts = circt_options(llvm_opts, circt_src)
    stamp = build_dir / "weakref-options"
    if not (build_dir / "build.ninja").is_file() or \
            not stamp.is_file() or stamp.read_text() != "\n".join(opts):
        log(f"configuring CIRCT's unified build in {build_dir}")
        build_dir.mkdir(parents=True, exist_ok=True)
        cfg_log = build_dir.with_name(build_dir.name + ".configure.log")
        with open(cfg_log, "w") as f:
            r = subprocess.run(["cmake", "-S", str(tree / "src" / "llvm"), "-B",
                                str(build_dir)] + opts, stdout=f, stderr=subprocess.STDOUT)
        if r.returncode:
            print("\n".join(cfg_log.read_text().splitlines()[-30:]), file=sys.stderr)
            raise Error(f"configure failed (log: {cfg_log})")
        stamp.write_text("\n".join(opts))
    if args.steps:
        print(f"{steps_left(build_dir)} build steps left in {build_dir}")
        return 0

    log(f"building {' '.join(TARGETS)} (-j{args.jobs})")
    start = time.time()
    build(build_dir, args.jobs, ccache_dir, build_dir.with_name(build_dir.name + ".build.log"))
    log(f"built in {time.time() - start:.0f}s")
    if args.no_tests:
        return 0

    env = dict(os.environ)
    if args.checks:
        # Patch 30 of the 23.1.1 series: every context checks the drivers.
        env["MLIR_CHECK_ERASURES"] = "1"
    report = {"variant": variant, "checks": args.checks, "valgrind": args.valgrind,
              "pycde_patch": not args.no_pycde_patch, "source": str(circt_src)}
    failed = 0
    if not args.valgrind:
        log("PyCDE's lit tests" + (" with the erasure checks on" if args.checks else ""))
        start = time.time()
        results = run_lit(build_dir, env)
        counts = summarize(results)
        report.update(lit=results, lit_counts=counts,
                      lit_seconds=round(time.time() - start, 1))
        for name, status in sorted(results.items()):
            if status not in ("PASS", "UNSUPPORTED"):
                print(f"  {status}: {name}")
        print(f"PyCDE lit ({variant}): "
              + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + f" in {report['lit_seconds']:.0f}s")
        failed += sum(counts.get(k, 0) for k in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT"))
    log("this project's PyCDE tests" + (" under valgrind" if args.valgrind else ""))
    pkg = build_dir / "tools" / "circt" / "python_packages" / "pycde"
    own = report["own"] = {}
    for test in sorted((ROOT / "test" / "downstream" / "pycde").glob("test_*.py")):
        test_env = {**env, "PYTHONPATH": str(pkg), "PYCDE_VARIANT": variant,
                    "PYCDE_PER_PASS_CHECK": "0" if args.no_pycde_patch else "1"}
        own[test.name] = run_own_test(test, test_env, args.valgrind)
        memcheck = (f" (memcheck: {own[test.name]['valgrind'] or 'no report'})"
                    if args.valgrind else "")
        print(f"  {own[test.name]['status']}: {test.name}{memcheck}")
        failed += own[test.name]["status"] != "PASS"
    out = build_dir / ("pycde-results" + ("-checks" if args.checks else "")
                       + ("-valgrind" if args.valgrind else "")
                       + ("-nopycdepatch" if args.no_pycde_patch else "") + ".json")
    out.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    print(f"results: {out}\nPyCDE: PYTHONPATH={pkg}")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Error as e:
        print(f"downstream-circt.py: error: {e}", file=sys.stderr)
        sys.exit(1)
    except subprocess.CalledProcessError as e:
        print(f"downstream-circt.py: error: {' '.join(map(str, e.cmd))} failed "
              f"(exit {e.returncode})", file=sys.stderr)
        sys.exit(1)
