#!/usr/bin/env python3
"""Size of each patch of each series (patches/llvm-<release>/, in `series`
order): its code lines and its test lines, and a check that the series stays
reviewable: the first patch of the weak-reference series (patch 1, or the
first after a section of independent fixes, as scripts/independent-fixes.sh
reads it)
has at most 350 code lines, every patch at most 600.

Counted: the added and removed lines of the diff hunks (not the `+++`/`---`
headers, not the commit message) that are neither blank nor comment-only.
Comment-only: after the leading +/- and whitespace, the line starts with
`//` (so `///`), `/*`, `*` (so `*/`), or, in Python, .txt, .cfg and CMake
files only, `#` (in C and C++ `#include` is code). Lines of files under a
`test/` or `unittests/` directory are test lines, all others code lines.

  test/repo/series-stats.py                      both series
  test/repo/series-stats.py --release 23.1.1     one
  test/repo/series-stats.py --limits first=350,any=600
  test/repo/series-stats.py --exempt python      patches whose subject
      contains 'python' are reported (EXEMPT (over limit)) but do not fail

Exit status 1 if a patch over its limit is not exempt (or a series names a
patch file that does not exist), 2 on bad arguments.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PATCHES = os.path.join(ROOT, "patches")
HASH_COMMENT_SUFFIXES = (".py", ".pyi", ".txt", ".cfg", ".cmake")
TEST_DIRS = {"test", "unittests"}


def releases():
    """The release directories under patches/ that have a series, newest first."""
    found = []
    for name in os.listdir(PATCHES):
        m = re.fullmatch(r"llvm-(\d+(?:\.\d+)*)", name)
        if m and os.path.isfile(os.path.join(PATCHES, name, "series")):
            found.append(m.group(1))
    return sorted(found, key=lambda v: [int(x) for x in v.split(".")], reverse=True)


def series(release):
    with open(os.path.join(PATCHES, f"llvm-{release}", "series")) as f:
        return [l.strip() for l in f if l.strip() and not l.lstrip().startswith("#")]


def independent_fixes(release):
    """How many patches the series' section of independent fixes lists (0: none),
    as scripts/independent-fixes.sh reads it for the other checks."""
    out = subprocess.run(
        [os.path.join(ROOT, "scripts", "independent-fixes.sh"),
         os.path.join(PATCHES, f"llvm-{release}", "series")],
        check=True, capture_output=True, text=True).stdout
    return len(out.splitlines())


def subject(text, name):
    """The patch's subject (folded header lines joined), without `[PATCH n/m]`."""
    m = re.search(r"(?m)^Subject: (.*(?:\n[ \t].*)*)", text.split("\ndiff --git ", 1)[0])
    if not m:
        return os.path.splitext(name)[0]
    s = re.sub(r"\s*\n[ \t]+", " ", m.group(1)).strip()
    return re.sub(r"^\[PATCH[^\]]*\]\s*", "", s)


def is_test_file(path):
    return any(part in TEST_DIRS for part in path.split("/")[:-1])


def is_counted(line, path):
    """Whether a hunk line's content (without its +/-) is neither blank nor
    comment-only."""
    s = line.strip()
    if not s:
        return False
    if s.startswith(("//", "/*", "*")):
        return False
    name = os.path.basename(path)
    if s.startswith("#") and (name.endswith(HASH_COMMENT_SUFFIXES) or name == "CMakeLists.txt"):
        return False
    return True


def count(text):
    """(code lines, test lines) of a patch's diffs."""
    code = test = 0
    body = text[text.find("\ndiff --git ") + 1:] if "\ndiff --git " in text else ""
    lines = body.split("\n")
    i = 0
    path = None
    while i < len(lines):
        line = lines[i]
        m = re.match(r"diff --git a/(\S+) b/(\S+)", line)
        if m:
            path = m.group(2)
            i += 1
            continue
        h = re.match(r"@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@", line)
        if h and path is not None:
            # The hunk header says how many old and new lines follow: read
            # exactly those (so the signature's `-- ` line is never counted).
            old = int(h.group(1)) if h.group(1) is not None else 1
            new = int(h.group(2)) if h.group(2) is not None else 1
            i += 1
            while (old > 0 or new > 0) and i < len(lines):
                l = lines[i]
                i += 1
                if l.startswith("\\"):  # "\ No newline at end of file"
                    continue
                tag = l[:1]
                if tag == "-":
                    old -= 1
                elif tag == "+":
                    new -= 1
                else:  # context (a blank context line may have lost its space)
                    old -= 1
                    new -= 1
                    continue
                if is_counted(l[1:], path):
                    if is_test_file(path):
                        test += 1
                    else:
                        code += 1
            continue
        i += 1
    return code, test


def parse_limits(spec):
    limits = {"first": 350, "any": 600}
    for item in spec.split(","):
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or key not in limits or not value.strip().isdigit():
            raise ValueError(f"bad --limits item '{item}' (want first=N,any=N)")
        limits[key] = int(value)
    return limits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--release", help="only this release (e.g. 23.1.1)")
    ap.add_argument("--limits", default="first=350,any=600",
                    help="code line limits: of the first weak-reference patch and of any patch (default %(default)s)")
    ap.add_argument("--exempt", action="append", default=[], metavar="SUBSTRING",
                    help="patches whose subject contains SUBSTRING are reported "
                         "but do not fail the limits (repeatable)")
    args = ap.parse_args()
    try:
        limits = parse_limits(args.limits)
    except ValueError as e:
        ap.error(str(e))
    all_releases = releases()
    if args.release:
        if args.release not in all_releases:
            ap.error(f"no series for release '{args.release}' (have: {', '.join(all_releases)})")
        todo = [args.release]
    else:
        todo = all_releases

    print(f"limits: first patch of the weak-reference series <= {limits['first']} code lines, "
          f"any patch <= {limits['any']}")
    if args.exempt:
        print("EXEMPT from the limits (reported, not failing): patches whose subject contains "
              + ", ".join(f"'{e}'" for e in args.exempt) + " (--exempt)")
    failures = []
    for release in todo:
        rows = []
        first = independent_fixes(release) + 1
        for n, name in enumerate(series(release), 1):
            path = os.path.join(PATCHES, f"llvm-{release}", name)
            if not os.path.isfile(path):
                rows.append((n, name, None, None, "MISSING"))
                failures.append(f"llvm-{release}/series names '{name}', which does not exist")
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            subj = subject(text, name)
            code, test = count(text)
            limit, which = (limits["first"], "first") if n == first else (limits["any"], "any")
            # The first patch is held to both limits (the smaller one decides).
            if n == first and limits["any"] < limit:
                limit, which = limits["any"], "any"
            status = "ok"
            if code > limit:
                if any(e in subj for e in args.exempt):
                    status = f"EXEMPT (over limit: {which}={limit})"
                else:
                    status = f"OVER LIMIT ({which}={limit})"
                    failures.append(f"llvm-{release} patch {n} ({name}: {subj}) has {code} "
                                    f"code lines, over the {which} limit of {limit}")
            rows.append((n, subj, code, test, status))

        print(f"\n== llvm-{release} ({len(rows)} patches)")
        width = min(max([len(r[1]) for r in rows] + [7]), 72)
        print(f"{'#':>2}  {'subject':<{width}}  {'code':>5}  {'test':>5}  status")
        for n, subj, code, test, status in rows:
            if len(subj) > width:
                subj = subj[:width - 3] + "..."
            c = "-" if code is None else code
            t = "-" if test is None else test
            print(f"{n:>2}  {subj:<{width}}  {c:>5}  {t:>5}  {status}")
        tc = sum(r[2] or 0 for r in rows)
        tt = sum(r[3] or 0 for r in rows)
        print(f"{'':>2}  {'total':<{width}}  {tc:>5}  {tt:>5}")

    if failures:
        print()
        for f in failures:
            print("series-stats: FAIL: " + f)
        return 1
    print("\nseries-stats: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
