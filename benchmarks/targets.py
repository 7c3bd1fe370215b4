"""The benchmark targets (targets.json), for the benchmark scripts."""
import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.json")) as _f:
    _TARGETS = json.load(_f)


def target(name, release):
    """The target of `name` for `release` ('<= 1.05', '>= 5', or None)."""
    t = _TARGETS[name]
    return t[release] if isinstance(t, dict) else t


def met(value, name, release):
    """Whether `value` meets the target of `name` (True when it has none)."""
    t = target(name, release)
    if t is None:
        return True
    op, n = re.match(r"(<=|>=) ([0-9.]+)$", t).groups()
    return value <= float(n) if op == "<=" else value >= float(n)
