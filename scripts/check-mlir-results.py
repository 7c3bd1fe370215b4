#!/usr/bin/env python3
"""Reads the lit results scripts/compare-check-mlir.sh writes, and runs lit
for its forced-on variant.

  check-mlir-results.py compare <dir>    patched.xml against baseline.xml
  check-mlir-results.py findings <dir>   forced.xml and forced.log against
                                         patched.xml
  check-mlir-results.py lit-forced <lit source dir> <llvm-lit> [lit args]
                                         llvm-lit with MLIR_CHECK_ERASURES=1
                                         in every test's environment

`compare` prints each tree's counts and every test that passes unpatched and
does not pass patched; exits 1 if there is one.

`findings` is the run with the erasure checks forced on in every context
(MLIR_CHECK_ERASURES=1, lit -a so that every test's output is in the log): it
prints the counts, every test whose output holds an erasure check's report
(with the report's lines), and every test that passes with the checks off and
does not pass with them on (with whether its output holds a report: a test
without one is affected by the switch alone, e.g. a test of the default).
Exits 0: the findings are for a person to triage.
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

# The reports of the greedy driver, the walk driver, dialect conversion
# ("...; the <driver> stops") and the Transform interpreter.
REPORT = re.compile(r"without notifying the (rewriter|tracking listener)"
                    r"|; the [a-z ]+ stops\b")
# lit -a: a test's result line, then its output up to the next result line.
RESULT = re.compile(r"^[A-Z]+: (.+) \(\d+ of \d+(, .*)?\)$")


def results(path):
    """{test: 'pass' | 'fail' | 'skip'} from lit's xunit output."""
    out = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        key = case.get("classname", "") + "::" + case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            out[key] = "fail"
        elif case.find("skipped") is not None:
            out[key] = "skip"
        else:
            out[key] = "pass"
    return out


def counts(name, res):
    c = {k: sum(1 for v in res.values() if v == k) for k in ("pass", "fail", "skip")}
    print(f"{name:9} {len(res):6} tests: {c['pass']} passed, {c['fail']} failed, "
          f"{c['skip']} unsupported or skipped")


def compare(out):
    patched, baseline = results(out / "patched.xml"), results(out / "baseline.xml")
    counts("baseline", baseline)
    counts("patched", patched)
    regressions = sorted(k for k, v in baseline.items()
                         if v == "pass" and patched.get(k) != "pass")
    added = sorted(set(patched) - set(baseline))
    print(f"only in patched: {len(added)} tests "
          f"({sum(1 for k in added if patched[k] == 'pass')} passed)")
    for k in added:
        if patched[k] != "pass":
            print(f"  {patched[k]}: {k}")
    print(f"pass unpatched, not patched: {len(regressions)}")
    for k in regressions:
        print(f"  {patched.get(k, 'missing')}: {k}")
    return 1 if regressions else 0


def xunit_key(full_name, known):
    """The xunit key of the test lit names `full_name` ("<suite> :: <path>"),
    as lit's xunit report writes it (classname "<suite>.<dirs, '.' -> '_'>",
    name the last component); a gtest name may hold '/', so the split that
    gives a known key wins."""
    suite, _, path = full_name.partition(" :: ")
    parts = path.split("/")
    keys = []
    for i in range(len(parts) - 1, -1, -1):
        dirs = "/".join(parts[:i]).replace(".", "_")
        keys.append(f"{suite}.{dirs or suite}::{'/'.join(parts[i:])}")
    return next((k for k in keys if k in known), keys[0])


def reports(log, known):
    """{xunit key: [report lines]} from a lit -a log."""
    found, test, command = {}, None, False
    for line in log.read_text(errors="replace").splitlines():
        result = RESULT.match(line)
        # A RUN line's command, echoed after "# RUN: at line N" and as
        # "# executed command: ...", is not its output.
        echoed, command = command, line.startswith("# RUN: at line")
        if result:
            test = xunit_key(result.group(1), known)
        elif echoed or line.startswith("# executed command:"):
            continue
        elif test and REPORT.search(line):
            lines = found.setdefault(test, [])
            if line.strip() not in lines:
                lines.append(line.strip())
    return found


def findings(out):
    off, forced = results(out / "patched.xml"), results(out / "forced.xml")
    found = reports(out / "forced.log", forced)
    counts("checks off", off)
    counts("forced on", forced)
    print(f"tests whose output holds a report: {len(found)}")
    for test in sorted(found):
        print(f"  {forced.get(test, '?')}: {test}")
        for line in found[test][:5]:
            print(f"      {line[:300]}")
    affected = sorted(k for k, v in off.items() if v == "pass" and forced.get(k) != "pass")
    print(f"pass with the checks off, not forced on: {len(affected)} "
          f"({sum(1 for k in affected if k not in found)} without a report)")
    for k in affected:
        print(f"  {forced.get(k, 'missing')}{'' if k in found else ', no report'}: {k}")
    return 0


def lit_forced(lit_source, llvm_lit, args):
    """Runs `llvm_lit` as it is, with MLIR_CHECK_ERASURES=1 added to every
    test configuration: lit passes only the variables it knows to tests, and
    every configuration starts from TestingConfig.fromdefaults."""
    import runpy
    sys.path.insert(0, lit_source)
    import lit.TestingConfig as testing_config

    fromdefaults = testing_config.TestingConfig.fromdefaults

    def forced(lit_config):
        config = fromdefaults(lit_config)
        config.environment["MLIR_CHECK_ERASURES"] = "1"
        return config

    testing_config.TestingConfig.fromdefaults = staticmethod(forced)
    sys.argv = [llvm_lit] + args
    runpy.run_path(llvm_lit, run_name="__main__")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "lit-forced":
        lit_forced(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif len(sys.argv) != 3 or sys.argv[1] not in ("compare", "findings"):
        sys.exit(__doc__)
    else:
        sys.exit({"compare": compare, "findings": findings}[sys.argv[1]](Path(sys.argv[2])))
