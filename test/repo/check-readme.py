#!/usr/bin/env python3
"""Checks that every code snippet in README.md (and RFC.md) is quoted verbatim
from a region of a file that the test suite compiles or runs.

A snippet is a fenced block (c, c++, python) preceded by a line

    <!-- snippet: path/to/file#name -->

and `name`'s region is the text between the lines holding `[readme:name]`
and `[/readme:name]` in that file, dedented. In command blocks (sh), each
command that runs a script of this repository (`./setup.sh --flag`,
`scripts/x.sh`) must name an executable file that handles every `--flag`
given to it, and each `patches/...` path must match files.

  check-readme.py [DOC.md ...]    (default: README.md)
"""
import re
import shlex
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = {"c", "c++", "cpp", "python", "rust"}
DIRECTIVE = re.compile(r"<!-- snippet: (\S+)#(\S+) -->")


def region(path, name):
    lines = (ROOT / path).read_text().splitlines()
    start = [i for i, l in enumerate(lines) if f"[readme:{name}]" in l]
    end = [i for i, l in enumerate(lines) if f"[/readme:{name}]" in l]
    if len(start) != 1 or len(end) != 1 or end[0] <= start[0]:
        raise ValueError(f"{path} has no single [readme:{name}] region")
    return textwrap.dedent("\n".join(lines[start[0] + 1:end[0]])).strip("\n")


def check_command(line, where):
    """Errors of one shell command line of a sh block."""
    try:
        words = shlex.split(line, comments=True)
    except ValueError as e:
        return [f"{where}: cannot parse `{line}`: {e}"]
    while words and re.match(r"^[A-Z_]+=", words[0]):
        words = words[1:]  # environment assignments
    errors = []
    if words and (words[0].startswith("./") or words[0].startswith("scripts/")):
        script = ROOT / words[0]
        if not script.is_file() or not script.stat().st_mode & 0o111:
            return [f"{where}: `{words[0]}` is not an executable file of the repository"]
        text = script.read_text()
        for flag in (w.split("=")[0] for w in words[1:] if w.startswith("--")):
            if flag not in text:
                errors.append(f"{where}: {words[0]} does not handle {flag}")
    for word in words:
        if "patches/llvm-" in word:
            pattern = word[word.index("patches/"):]
            if not list(ROOT.glob(pattern)):
                errors.append(f"{where}: {pattern} matches no file")
    return errors


def check(doc):
    errors, checked = [], 0
    lines = (ROOT / doc).read_text().splitlines()
    i = 0
    while i < len(lines):
        fence = re.match(r"```(\S*)$", lines[i])
        if not fence:
            i += 1
            continue
        lang, begin = fence.group(1), i
        i += 1
        while i < len(lines) and lines[i] != "```":
            i += 1
        block = "\n".join(lines[begin + 1:i]).strip("\n")
        i += 1
        if lang == "sh":
            for n, line in enumerate(lines[begin + 1:i - 1], begin + 2):
                errors += check_command(line, f"{doc}:{n}")
            continue
        if lang not in CHECKED:
            continue
        directive = DIRECTIVE.search(lines[begin - 1]) if begin else None
        where = f"{doc}:{begin + 1}"
        if not directive:
            errors.append(f"{where}: ```{lang} block without a <!-- snippet: file#name --> line")
            continue
        try:
            expected = region(*directive.groups())
        except (OSError, ValueError) as e:
            errors.append(f"{where}: {e}")
            continue
        if block != expected:
            errors.append(f"{where}: differs from {directive.group(1)}#{directive.group(2)}:\n"
                          f"--- README\n{block}\n--- source\n{expected}")
        checked += 1
    return errors, checked


def main():
    docs = sys.argv[1:] or ["README.md"]
    failed = False
    for doc in docs:
        errors, checked = check(doc)
        for e in errors:
            print(f"error: {e}")
        failed |= bool(errors)
        print(f"{doc}: {checked} snippets match their tested sources" if not errors
              else f"{doc}: {len(errors)} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
