#!/usr/bin/env python3
"""Runs upstream MLIR's Python tests (every file of the patched source tree's
mlir/test/python with a RUN line) against this project's `mlir` package, the
way their RUN lines say: `%PYTHON %s [2>&1] | FileCheck %s [args]`.

  run_upstream.py MLIR_SRC FILECHECK PACKAGE_ROOT
                  [--baseline | --baseline-if-built BASELINE_ROOT] [--only FILE...]

A file that imports a module upstream has and this package does not build
(a dialect, the JIT, a test extension) is skipped, with the modules it
needs; so is a file whose `# REQUIRES:` features are not set, and the few
files and test functions listed below, each with its reason. A failing
file fails the run. With --baseline, every file the project's series does
not add or change also runs against the unpatched package (where that
package has what the file imports), side by side: a file failing in both is
reported, not counted as a regression; the series' own files must pass.
"""
import argparse
import ast
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("mlir_src")
parser.add_argument("filecheck")
parser.add_argument("package_root")
parser.add_argument("--baseline", metavar="BASELINE_ROOT")
parser.add_argument("--baseline-if-built", metavar="BASELINE_ROOT",
                    help="as --baseline where BASELINE_ROOT holds a package")
parser.add_argument("--only", nargs="*", default=[], help="run just these files")
args = parser.parse_args()
if args.baseline and not (Path(args.baseline) / "mlir").is_dir():
    parser.error(f"--baseline {args.baseline}: no mlir package there")
if args.baseline_if_built:
    if (Path(args.baseline_if_built) / "mlir").is_dir():
        args.baseline = args.baseline_if_built
    else:
        print(f"no baseline package at {args.baseline_if_built} (./setup.sh --baseline builds it)")
tests_dir = Path(args.mlir_src) / "test" / "python"
upstream_python = Path(args.mlir_src) / "python"


def series_tests():
    """The test files this project's series for the tree's release adds or
    changes: they are its own tests, so they must pass patched whatever they
    do unpatched."""
    version = (Path(args.mlir_src) / ".." / "cmake" / "Modules" / "LLVMVersion.cmake")
    parts = dict(re.findall(r"set\(LLVM_VERSION_(MAJOR|MINOR|PATCH) (\d+)\)",
                            version.read_text())) if version.exists() else {}
    series = (Path(__file__).resolve().parents[2] / "patches" /
              f"llvm-{parts.get('MAJOR')}.{parts.get('MINOR')}.{parts.get('PATCH')}")
    if not (series / "series").exists():
        sys.exit(f"run_upstream.py: no patch series for the tree at {args.mlir_src} "
                 f"(looked for {series}/series)")
    files = set()
    for line in (series / "series").read_text().splitlines():
        name = line.strip()
        if not name or name.startswith("#"):  # a section's comment
            continue
        files.update(re.findall(r"^diff --git a/mlir/test/python/(\S+) b/",
                                (series / name).read_text(), re.M))
    return files

SKIPPED_FILES = {
    "develoment_files.py": "checks upstream's package layout (the C API headers in the package, "
                           "a library named MLIRPythonCAPI); this package's is MLIRWeakRefPythonCAPI "
                           "and has no headers",
}
# file -> a module the file needs without importing it (it parses that
# dialect's IR): skipped where the package does not have it.
NEEDS = {
    "ir/builtin_types.py": "mlir.dialects.tensor",
}
# `# REQUIRES:` features this package has (upstream's lit config sets them).
FEATURES = {"python-ge-311"} if sys.version_info >= (3, 11) else set()
# file -> {test function: (module, what it needs)}: where the package lacks
# the module, the function and its CHECK lines are cut (the lists cover both
# releases), and so are the missing names of its `from mlir.dialects import`.
SKIPPED_FUNCTIONS = {
    "pass_manager.py": {
        "testInvalidNesting": ("mlir.dialects.memref", "needs memref's NormalizeMemRefs pass"),
    },
    "rewrite.py": {
        "testConversionPattern": ("mlir.dialects.smt", "needs the smt dialect"),
    },
    "ir/operation.py": {
        "testFailedGenericOperationCreationReportsError": ("mlir.dialects.shape",
                                                           "needs the shape dialect"),
        **{name: ("mlir.dialects.scf", "needs the scf dialect")
           for name in ("testGetParentOfType", "testIndexSwitch", "testOpWalk",
                        "test_get_ops_of_type")},
    },
}


def module_path(root, module):
    """Where `module` (dotted, starting with mlir) lives under `root`, if
    anywhere: a .py file, a package (a directory: namespace packages count),
    or a native extension (.so)."""
    parts = module.split(".")
    base = Path(root).joinpath(*parts)
    if base.with_suffix(".py").exists() or base.is_dir():  # a package, or a namespace package
        return base
    # A native extension, or a name inside one (`_mlir.ir`).
    for n in range(len(parts), 1, -1):
        prefix = Path(root).joinpath(*parts[:n])
        if prefix.parent.is_dir() and list(prefix.parent.glob(parts[n - 1] + ".*so")):
            return prefix
    return None


def upstream_has(module):
    parts = module.split(".")
    if parts[:2] == ["mlir", "_mlir_libs"] and len(parts) > 2:
        return parts[2].startswith("_mlir")  # a native extension upstream builds
    return module_path(upstream_python, module) is not None


def imported_modules(source, package=None):
    """Every mlir module a file imports, at any depth (a function that
    imports a missing module fails when it runs); relative imports resolve
    against `package`, the package of the module `source` is."""
    modules = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return modules
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.name for a in node.names if a.name.startswith("mlir"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if not package:
                    continue
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            if not base.startswith("mlir"):
                continue
            modules.add(base)
            modules.update(f"{base}.{a.name}" for a in node.names if a.name != "*")
    return modules


def missing_modules(source, root, seen=None, package=None, third_party=False):
    """Modules upstream has that the package at `root` lacks, imported by
    `source` or by the package's modules it imports (the parent package of
    a missing module stands for it). Module names in string literals count
    (tests that import_module("mlir...."). With third_party: instead, the
    modules outside mlir that this interpreter cannot import, imported by
    `source` or by the package's modules it imports (numpy, for a Python
    built from source)."""
    seen = set() if seen is None else seen
    modules = imported_modules(source, package)
    modules.update(re.findall(r"[\"'](mlir(?:\.\w+)+)[\"']", source))
    missing = set(third_party_missing(source)) if third_party else set()
    for module in sorted(modules):
        path = module_path(root, module)
        if upstream_has(module) and path is None:
            if third_party:
                continue
            if not any(module.startswith(m + ".") for m in missing):
                missing.add(module)
        elif path is not None and module not in seen:
            seen.add(module)
            for file, pkg in ((path.with_suffix(".py"), module.rpartition(".")[0]),
                              (path / "__init__.py", module)):
                if file.exists():
                    missing.update(missing_modules(file.read_text(), root, seen, pkg,
                                                   third_party))
    return sorted(missing)


def third_party_missing(source):
    """Top-level modules outside mlir the file imports, outside a `try` that
    catches the ImportError, that this interpreter cannot import (numpy, for
    a Python built from source)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = set()

    def visit(node, guarded):
        if isinstance(node, ast.Try):
            caught = {getattr(h.type, "id", None) for h in node.handlers}
            inner = guarded or bool(caught & {"ImportError", "ModuleNotFoundError",
                                              "Exception", None})
            for child in node.body:
                visit(child, inner)
            for child in node.handlers + node.orelse + node.finalbody:
                visit(child, guarded)
            return
        if not guarded and isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif (not guarded and isinstance(node, ast.ImportFrom) and not node.level
              and node.module):
            names.add(node.module.split(".")[0])
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(tree, False)
    return sorted(n for n in names - {"mlir"} if importlib.util.find_spec(n) is None)


def without_functions(text, names):
    """Drops each `# CHECK-LABEL: TEST: name` section up to the next label,
    or, for a test without a label, its `@run` function up to the next
    top-level `@run` or label."""
    lines, out, skipping = text.splitlines(keepends=True), [], False
    for i, line in enumerate(lines):
        m = re.match(r"# CHECK-LABEL: TEST: (\w+)", line)
        if m:
            skipping = m.group(1) in names
        elif line.startswith("@run"):
            following = lines[i + 1] if i + 1 < len(lines) else ""
            d = re.match(r"def (\w+)\(", following)
            if d and not (i > 0 and lines[i - 1].startswith("# CHECK-LABEL")):
                skipping = d.group(1) in names
        if not skipping:
            out.append(line)
    return "".join(out)


def run_test(test, text, run, root):
    with tempfile.TemporaryDirectory() as tmp:
        # Tests find files next to them (e.g. ir/custom_dialect): run them in
        # place, unless they had to be edited (`text`).
        path = tests_dir / test
        if text is not None:
            path = Path(tmp) / Path(test).name
            path.write_text(text)
        command = (run.replace("%PYTHON", sys.executable)
                   .replace("FileCheck", args.filecheck)
                   .replace("%s", str(path)))
        try:
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                    env=dict(os.environ, PYTHONPATH=root),
                                    capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return 124, "timed out after 300 s"
    return result.returncode, result.stdout + result.stderr


def plan(test):
    """(reason to skip or None, RUN line, functions cut with their reasons,
    the file's text as it runs: None to run it in place, unedited)."""
    source = (tests_dir / test).read_text()
    reason = SKIPPED_FILES.get(test)
    if not reason:
        missing = [f for line in re.findall(r"^# REQUIRES: (.*)$", source, re.M)
                   for f in line.replace(",", " ").split() if f not in FEATURES]
        if missing:
            reason = f"requires {', '.join(missing)}, not built here"
    if not reason and test == "multithreaded_tests.py" and getattr(sys, "_is_gil_enabled", lambda: True)():
        reason = "runs its tests only on a free-threaded CPython (here it would pass running none)"
    if not reason and test in NEEDS and not module_path(args.package_root, NEEDS[test]):
        reason = f"needs {NEEDS[test]}, not built here"
    run = re.search(r"^# RUN: (.*)$", source, re.M)
    cut = {f: f"{needs}, not built here"
           for f, (module, needs) in SKIPPED_FUNCTIONS.get(test, {}).items()
           if (f"# CHECK-LABEL: TEST: {f}" in source or f"def {f}(" in source)
           and not module_path(args.package_root, module)}
    imports = {}
    for line in re.findall(r"^from mlir\.dialects import .*\n", source, re.M) if cut else []:
        names = line.split(" import ")[1].strip().split(", ")
        kept = [n for n in names if module_path(args.package_root, f"mlir.dialects.{n}")]
        if kept != names:
            imports[line] = f"from mlir.dialects import {', '.join(kept)}\n"
    text = None
    if cut or imports:
        text = without_functions(source, cut)
        for old, new in imports.items():
            text = text.replace(old, new)
    if not reason:
        # What the file imports once its cut functions are gone, and the
        # modules its RUN lines run (`python -m module`).
        imported = (source if text is None else text) + "".join(
            f"\nimport {m}" for m in re.findall(r"^# RUN: .*-m (mlir[\w.]*)", source, re.M))
        missing = missing_modules(imported, args.package_root)
        if missing:
            reason = f"needs {', '.join(missing)}, not built here"
        else:
            absent = missing_modules(imported, args.package_root, third_party=True)
            if absent:
                reason = f"needs {', '.join(absent)}, not installed for {sys.executable}"
    return reason, run and run.group(1), cut, text


def without_unrunnable_modules(source):
    """multithreaded_tests.py imports the tests of the files its
    TEST_MODULES lists and runs them on many threads: keeps the entries
    whose files run here whole (no skip, no cut function). Returns the new
    source and how many entries were dropped."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    dropped = 0
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "TEST_MODULES" for t in node.targets):
            for entry in node.value.elts:
                name = entry.elts[0].value
                file = f"{name}.py"
                reason, _, cut, _ = (plan(file) if (tests_dir / file).exists()
                                     else ("no such file", None, {}, None))
                if reason or cut:
                    dropped += 1
                    for i in range(entry.lineno - 1, entry.end_lineno):
                        lines[i] = ""
    text = "".join(lines)
    # It finds those files next to itself; it runs from a copy.
    text = text.replace("Path(__file__).parent.absolute()", f"Path({str(tests_dir)!r})")
    return text, dropped


tests = sorted(str(p.relative_to(tests_dir)) for p in tests_dir.rglob("*.py")
               if re.search(r"^# RUN: ", p.read_text(), re.M))
if args.only:
    tests = [t for t in tests if t in args.only]
counts = {"passed": 0, "failed": 0, "skipped": 0, "failing unpatched too": 0}
own_tests = series_tests() if args.baseline else set()
for test in tests:
    reason, run, cut, text = plan(test)
    if reason:
        print(f"SKIP  {test}: {reason}")
        counts["skipped"] += 1
        continue
    if test == "multithreaded_tests.py":
        text, dropped = without_unrunnable_modules((tests_dir / test).read_text())
        cut = {f"{dropped} of its TEST_MODULES": "files skipped or cut here"}
    code, output = run_test(test, text, run, args.package_root)
    note = "".join(f" (without {f}: {r})" for f, r in cut.items())
    baseline = None
    if args.baseline:
        if test in own_tests:
            note += "; the series adds or changes it: not run unpatched"
        elif lacking := missing_modules(
                (tests_dir / test).read_text() if text is None else text, args.baseline):
            note += f"; unpatched: not run (the package lacks {', '.join(lacking)})"
        else:
            baseline, _ = run_test(test, text, run, args.baseline)
            note += "; unpatched: " + ("pass" if baseline == 0 else f"fail (exit {baseline})")
    if code == 0:
        print(f"PASS  {test}{note}")
        counts["passed"] += 1
    elif baseline not in (None, 0):
        print(f"FAIL  {test} (exit {code}){note}: not a regression")
        counts["failing unpatched too"] += 1
    else:
        print(f"FAIL  {test} (exit {code}){note}")
        print(output[-3000:])
        counts["failed"] += 1
print(", ".join(f"{n} {what}" for what, n in counts.items()))
sys.exit(1 if counts["failed"] else 0)
