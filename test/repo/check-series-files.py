#!/usr/bin/env python3
"""Checks that the files both patch series add to MLIR's C++ core and C API
(WeakOpRef.h, WeakOpRef.cpp, WeakRefTable.h, their unit test and the C API
tests) stay the same in every release, except for the differences recorded in
series-files.diff: one release's series cannot drift from the other's
unnoticed. The Python tests are left out: they test two different bindings
(pybind11 in 19.1.7, nanobind in 23.1.1). Needs only the patch files (and
`patch`), not the LLVM sources.

  test/repo/check-series-files.py            check
  test/repo/check-series-files.py --update   rewrite series-files.diff
                                             after a deliberate change
"""
import difflib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELEASES = ["23.1.1", "19.1.7"]
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "series-files.diff")


def sections(patch_text):
    """(path, text of its `diff --git` section) for each file of a patch."""
    parts = re.split(r"(?m)^(?=diff --git )", patch_text)
    for part in parts:
        m = re.match(r"diff --git a/(\S+) b/(\S+)", part)
        if m:
            # Drop the signature / trailer after the last hunk.
            yield m.group(2), re.sub(r"(?ms)^-- \n.*\Z", "", part)


def new_files(release):
    """{path: final content} of the files the series of `release` creates."""
    series_dir = os.path.join(ROOT, "patches", f"llvm-{release}")
    with open(os.path.join(series_dir, "series")) as f:
        names = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    created, diffs = set(), {}
    for name in names:
        with open(os.path.join(series_dir, name)) as f:
            for path, text in sections(f.read()):
                if path.startswith("mlir/test/python/"):
                    continue
                if "\nnew file mode" in text.split("@@")[0]:
                    created.add(path)
                diffs.setdefault(path, []).append(text)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(created):
            for text in diffs[path]:
                subprocess.run(["patch", "-p1", "-s", "-d", tmp, "--batch", "--forward"],
                               input=text, text=True, check=True)
            with open(os.path.join(tmp, path)) as f:
                out[path] = f.read()
    return out


def main():
    files = {r: new_files(r) for r in RELEASES}
    common = sorted(set(files[RELEASES[0]]) & set(files[RELEASES[1]]))
    diff = []
    for path in common:
        diff += difflib.unified_diff(
            files[RELEASES[0]][path].splitlines(keepends=True),
            files[RELEASES[1]][path].splitlines(keepends=True),
            f"llvm-{RELEASES[0]}/{path}", f"llvm-{RELEASES[1]}/{path}")
    diff = "".join(diff)
    only = {r: sorted(set(files[r]) - set(common)) for r in RELEASES}
    print(f"{len(common)} files added by both series:")
    for path in common:
        print("  " + path)
    for r in RELEASES:
        if only[r]:
            print(f"only in the {r} series: " + ", ".join(only[r]))
    if "--update" in sys.argv:
        with open(EXPECTED, "w") as f:
            f.write(diff)
        print(f"wrote {EXPECTED} ({diff.count(chr(10))} lines)")
        return 0
    with open(EXPECTED) as f:
        expected = f.read()
    if diff != expected:
        print("FAIL: the files both series add differ otherwise than "
              "test/repo/series-files.diff records:")
        sys.stdout.writelines(difflib.unified_diff(
            expected.splitlines(keepends=True), diff.splitlines(keepends=True),
            "recorded", "now"))
        print("Make the change in both series, or, if the releases require "
              "it, run test/repo/check-series-files.py --update.")
        return 1
    print(f"ok: identical except the {expected.count(chr(10) + '@@')} recorded "
          "hunk(s) of series-files.diff")
    return 0


if __name__ == "__main__":
    sys.exit(main())
