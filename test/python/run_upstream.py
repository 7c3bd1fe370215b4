#!/usr/bin/env python3
"""Runs upstream MLIR's Python tests (from the patched source tree) against
this project's `mlir` package, the way their RUN lines say:
`%PYTHON %s [2>&1] | FileCheck %s [args]`.

  run_upstream.py MLIR_SRC FILECHECK PACKAGE_ROOT

Tests that need dialects or passes this package does not build are skipped
(whole files) or have single test functions removed, each with its reason.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

mlir_src, filecheck, package_root = sys.argv[1:4]
tests_dir = Path(mlir_src) / "test" / "python"

SKIPPED_FILES = {
    "ir/builtin_types.py": "needs the tensor dialect, not built here",
    "ir/diagnostic_handler.py": "needs the _mlirPythonTestNanobind test extension (23.1.1), not built here",
}
# `# REQUIRES:` features this package has (upstream's lit config sets them).
FEATURES = {"python-ge-311"} if sys.version_info >= (3, 11) else set()
# file -> {test function: reason}; the function and its CHECK lines are cut
# (where the file has it: the lists cover both releases).
SCF_SHAPE = "needs the scf or shape dialect, not built here"
SKIPPED_FUNCTIONS = {
    "pass_manager.py": {
        "testInvalidNesting": "needs memref's NormalizeMemRefs pass, not built here",
    },
    "rewrite.py": {
        "testConversionPattern": "needs the smt dialect, not built here",
    },
    "ir/operation.py": {
        name: SCF_SHAPE
        for name in ("testFailedGenericOperationCreationReportsError", "testGetParentOfType",
                     "testIndexSwitch", "testOpWalk", "test_get_ops_of_type")
    },
}
# file -> {import line: replacement}, for imports of what is cut above.
REWRITTEN_IMPORTS = {
    "ir/operation.py": {
        "from mlir.dialects import arith, func, scf, shape\n": "from mlir.dialects import arith, func\n",
    },
}

tests = sorted(str(p.relative_to(tests_dir)) for p in (tests_dir / "ir").glob("*.py"))
tests += [t for t in ("pass_manager.py", "live_operations.py", "rewrite.py",
                      "rewrite_lifetimes.py", "dialects/ods_helpers.py")
          if (tests_dir / t).exists()]


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


env = dict(os.environ, PYTHONPATH=package_root)
passed, failed, skipped = 0, 0, 0
for test in tests:
    if test in SKIPPED_FILES:
        print(f"SKIP  {test}: {SKIPPED_FILES[test]}")
        skipped += 1
        continue
    source = (tests_dir / test).read_text()
    run = re.search(r"^# RUN: (.*)$", source, re.M).group(1)
    missing = [f for line in re.findall(r"^# REQUIRES: (.*)$", source, re.M)
               for f in line.replace(",", " ").split() if f not in FEATURES]
    if missing:
        print(f"SKIP  {test}: requires {', '.join(missing)}, not built here")
        skipped += 1
        continue
    with tempfile.TemporaryDirectory() as tmp:
        # Tests find files next to them (e.g. ir/custom_dialect): run them in
        # place, unless functions have to be cut out.
        path = tests_dir / test
        cut = {f: r for f, r in SKIPPED_FUNCTIONS.get(test, {}).items()
               if f"# CHECK-LABEL: TEST: {f}" in source or f"def {f}(" in source}
        imports = {a: b for a, b in REWRITTEN_IMPORTS.get(test, {}).items() if a in source}
        if cut or imports:
            path = Path(tmp) / Path(test).name
            text = without_functions(source, cut)
            for old, new in imports.items():
                text = text.replace(old, new)
            path.write_text(text)
        command = (run.replace("%PYTHON", sys.executable)
                   .replace("FileCheck", filecheck)
                   .replace("%s", str(path)))
        result = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                env=env, capture_output=True, text=True,
                                timeout=300)
    if result.returncode == 0:
        note = "".join(f" (without {f}: {r})" for f, r in cut.items())
        print(f"PASS  {test}{note}")
        passed += 1
    else:
        print(f"FAIL  {test} (exit {result.returncode})")
        print((result.stdout + result.stderr)[-3000:])
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
