#!/usr/bin/env python3
"""benchmarks/targets.py and targets.json: every target parses, a row
without a target is reported rather than failing the report (run.sh's
report once died with KeyError on such a row), and met() compares the way
the targets read."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import targets  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


for name, t in targets._TARGETS.items():
    if name.startswith("_"):
        continue
    if isinstance(t, dict):
        check(all(k in ("assertions", "release") or re.match(r"\d+\.\d+\.\d+$", k) for k in t),
              f"target of '{name}' has keys other than releases and flavours: {list(t)}")
    for value in (t.values() if isinstance(t, dict) else [t]):
        check(value is None or targets.parse(value) is not None,
              f"target of '{name}' does not parse: {value!r}")

check(targets.target("a row without a target", "23.1.1", "assertions") is None,
      "a row without a target must have target None")
check(targets.met(123.0, "a row without a target", "23.1.1", "assertions") is True,
      "a row without a target counts as met")

name = "WeakOpMap insert of fresh ops / DenseMap insert"
check(targets.target(name, "23.1.1") == "<= 3", f"'{name}' should be '<= 3'")
check(targets.met(2.99, name, "23.1.1") and not targets.met(3.01, name, "23.1.1"),
      "met() of a '<=' target")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"bench targets: {sum(not n.startswith('_') for n in targets._TARGETS)} targets parse; rows without a target are reported")
