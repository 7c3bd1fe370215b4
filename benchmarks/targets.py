"""The benchmark targets (targets.json), for the benchmark scripts."""
import json
import os
import re

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.json")) as _f:
    _TARGETS = json.load(_f)


def target(name, release, flavor=None):
    """The target of `name` for `release` and build `flavor` ('<= 1.05',
    '>= 5', or None). An object gives one per release or per flavour."""
    t = _TARGETS.get(name)
    if isinstance(t, dict):
        return t[flavor] if flavor in t else t[release]
    return t


def parse(t):
    """The comparison and the bound of a target such as '<= 1.05', or None
    when `t` is not one."""
    m = re.match(r"(<=|>=) ([0-9.]+)$", t)
    return (m.group(1), float(m.group(2))) if m else None


def met(value, name, release, flavor=None):
    """Whether `value` meets the target of `name` (True when it has none)."""
    t = target(name, release, flavor)
    if t is None:
        return True
    op, bound = parse(t)
    return value <= bound if op == "<=" else value >= bound
