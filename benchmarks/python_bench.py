#!/usr/bin/env python3
"""Python bindings, patched (weak references) vs baseline (upstream, same
release), built the same way; every measurement runs both in alternation, in
fresh subprocesses, and reports medians and their ratio.

  python_bench.py PATCHED_PACKAGE_ROOT BASELINE_PACKAGE_ROOT [--reps N] [--json OUT]
                  [--instructions] [--release 23.1.1|19.1.7]

Targets differ by release: 19.1.7's bindings keep a live-operation map (the
patch replaces a map lookup by a weak reference), 23.1.1's keep none (every
weak reference a wrapper takes is pure added cost).

Times are noisy here (several percent between runs), so with --instructions
the wrapper workloads are also counted by callgrind at 20k ops, and the
SymbolTable ones at 1k and 10k symbols, patched over baseline (see COUNTED).
"""
import json
import os
import statistics
import subprocess
import sys

import targets  # targets.json, the one table of targets (per release)

RELEASE = sys.argv[sys.argv.index("--release") + 1] if "--release" in sys.argv else "23.1.1"
WORKLOADS = {
    # name: (python snippet printing seconds, name of its target in targets.json)
    "wrappers + .name over 100k ops": ("names", "Python: wrappers + .name"),
    # 19.1.7's run() invalidates every wrapper by default (a walk); 23.1.1's
    # does nothing for them.
    "canonicalize, 100k ops, 1k held": ("canonicalize", "Python: canonicalize with wrappers held"),
    "erase() of a 100k-op body, no child held": ("erase_none", "Python: erase(), no child held"),
    "erase() of a 100k-op body, every child held": ("erase_all", "Python: erase(), every child held"),
    "parse of a 100k-op function": ("parse", "Python: parse"),
}
# Workloads run at several sizes: their ratio must not grow with the size.
SCALING = {
    # name: (kind, target, sizes)
    "SymbolTable made + N lookups of absent names, N symbols":
        ("symtab_miss", "Python: SymbolTable lookup misses", (1_000, 10_000, 100_000)),
    "SymbolTable of an empty module + N inserts":
        ("symtab_insert", "Python: SymbolTable inserts", (1_000, 10_000, 100_000)),
}

CHILD = r'''
import gc, os, sys, time
from mlir.ir import *
from mlir.passmanager import PassManager
kind = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
text = "func.func @f(%a: i32) -> i32 {\n" + "".join(
    f"  %v{i} = arith.addi %a, %a : i32\n" for i in range(N - 1)) + "  return %a : i32\n}\n"
with Context() as ctx, Location.unknown():
    ctx.allow_unregistered_dialects = True
    if kind.startswith("symtab"):
        # A SymbolTable made once, then N lookups of absent names (miss), or
        # N inserts of detached symbols into an empty module (insert).
        if kind.startswith("symtab_miss"):
            module = Module.parse("".join(
                f"func.func private @s{i}()\n" for i in range(N)))
            names = [f"x{i}" for i in range(N)]
        else:
            module = Module.create()
            symbols = [Operation.create("func.func", regions=1, attributes={
                "sym_name": StringAttr.get(f"s{i}"),
                "function_type": TypeAttr.get(FunctionType.get([], [])),
                "sym_visibility": StringAttr.get("private")}) for i in range(N)]
        gc.collect()
        if kind.endswith("_setup"):
            # What the instruction rows subtract: all but the table's work.
            os._exit(0)
        t0 = time.perf_counter()
        table = SymbolTable(module.operation)
        if kind.startswith("symtab_miss"):
            for name in names:
                name in table
        else:
            for op in symbols:
                table.insert(op)
        print(time.perf_counter() - t0, flush=True)
        # Unpatched 23.1.1 leaves the inserted symbols' wrappers owning them:
        # at exit they would destroy what the module owns (a crash), so the
        # process ends here.
        os._exit(0)
    # Before the parse: the erase workloads count their C API calls by name,
    # and destroying the parsed module at exit runs the same check as erase().
    if kind.startswith("erase"):
        parent = Operation.create("t.parent", regions=1)
        block = parent.regions[0].blocks.append()
        with InsertionPoint(block):
            children = [Operation.create("t.op") for _ in range(N)]
        if kind == "erase_none":
            del children
        gc.collect()
        t0 = time.perf_counter()
        parent.erase()
        print(time.perf_counter() - t0); sys.exit()
    t0 = time.perf_counter()
    module = Module.parse(text)
    t1 = time.perf_counter()
    if kind == "parse":
        print(t1 - t0); sys.exit()
    body = module.body.operations[0].regions[0].blocks[0]
    if kind == "names":
        t0 = time.perf_counter()
        ops = list(body.operations)
        names = [op.name for op in ops]
        print(time.perf_counter() - t0); sys.exit()
    if kind == "canonicalize":
        held = [op for _, op in zip(range(1000), body.operations)]
        pm = PassManager.parse("builtin.module(canonicalize)")
        t0 = time.perf_counter()
        pm.run(module.operation)
        print(time.perf_counter() - t0); sys.exit()
    if kind == "memory":
        import resource
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * resource.getpagesize()
        gc.collect()
        before = rss()
        ops = list(body.operations)
        print((rss() - before) / len(ops)); sys.exit()
'''


def child_env(package):
    """The children import `package` with bytecode caching on (whatever the
    caller's PYTHONDONTWRITEBYTECODE says), so that after the warm-up no run
    pays for compiling a package's Python modules."""
    env = dict(os.environ, PYTHONPATH=package)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(package, kind, n=None):
    out = subprocess.run([sys.executable, "-c", CHILD, kind] + ([str(n)] if n else []),
                         env=child_env(package),
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def callgrind_events(package, kind, n, toggle=None, cache_sim=False):
    """Callgrind's counts for the child process, or with `toggle` (callgrind
    function patterns, comma-separated) only inside those functions: a dict
    from event name (Ir; with `cache_sim`, also the cache events) to count."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if cache_sim:
        cmd.append("--cache-sim=yes")
    for function in (toggle or "").split(","):
        if function:
            cmd.append(f"--toggle-collect={function}")
    # A fixed string hash seed: with a random one per process, the counts of
    # the wrappers row moved by about 0.3% between processes (1.0495x to
    # 1.0525x for 19.1.7's release build; 1.0503x twice with seed 0).
    out = subprocess.run(cmd + [sys.executable, "-c", CHILD, kind, str(n)],
                         env=dict(child_env(package), PYTHONHASHSEED="0"),
                         capture_output=True, text=True, check=True)
    names = out.stderr.split("Events    :")[1].split("\n")[0].split()
    counts = out.stderr.split("Collected :")[1].split("\n")[0].split()
    return dict(zip(names, map(int, counts)))


def instructions(package, kind, n, toggle=None):
    """Instructions executed by the child process, or with `toggle` (a
    callgrind function pattern) only inside that function, by callgrind."""
    return callgrind_events(package, kind, n, toggle)["Ir"]


# Workloads counted with callgrind: (label, kind, what is counted, target).
# The wrappers' cost is the whole process minus a parse-only run (their
# creation, use and destruction). erase() is counted inside the C API calls
# it makes (the extension itself has no symbols): mlirOperationDestroy, and
# upstream's walk that invalidates the children's wrappers, mlirOperationWalk,
# and the patched check that nothing outside uses what erase() destroys,
# mlirOperationGetUserOutside.
ERASE_CALLS = "mlirOperationDestroy,mlirOperationWalk,mlirOperationGetUserOutside"
COUNTED = [
    ("instructions: wrappers + .name over 20k ops (process minus parse-only)",
     "names", "parse", "Python: wrappers + .name"),
    ("instructions: erase() of a 20k-op body, every child held (inside erase()'s C API calls)",
     "erase_all", ERASE_CALLS, "Python: erase(), every child held"),
    ("instructions: erase() of a 20k-op body, no child held (inside erase()'s C API calls)",
     "erase_none", ERASE_CALLS, "Python: erase(), no child held"),
    # The same erase() without the uses-outside check (19.1.7: without
    # upstream's invalidation walk): the destruction alone, of children that
    # had wrappers, and so weak references, that are all gone. Their flags
    # were cleared with their last references, so they cost what ops that
    # were never referenced cost.
    ("instructions: erase() of a 20k-op body whose children's references are all gone, "
     "destruction only (mlirOperationDestroy)",
     "erase_none", "mlirOperationDestroy", "Python: erase(), no child held"),
]

# Scaling workloads counted the same way, at each size: (label, kind, what is
# subtracted, target, sizes). 100k symbols would take minutes under callgrind.
COUNTED_SCALING = [
    ("instructions: SymbolTable made + N lookups of absent names, N symbols "
     "(process minus the same process stopping before the table is made)",
     "symtab_miss", "symtab_miss_setup", "Python: SymbolTable lookup misses",
     (1_000, 10_000)),
    ("instructions: SymbolTable of an empty module + N inserts "
     "(process minus the same process stopping before the table is made)",
     "symtab_insert", "symtab_insert_setup", "Python: SymbolTable inserts",
     (1_000, 10_000)),
]


def alternate(kind, patched, baseline, reps, n=None):
    """The times of `reps` runs of `kind` (at size `n`) in each package,
    alternating so that drift hits both: (patched, baseline) lists."""
    p, b = [], []
    for _ in range(reps):
        b.append(run(baseline, kind, n))
        p.append(run(patched, kind, n))
    return p, b


def side_by_side(label, kind, target, patched, baseline, reps, n=None):
    """Runs `kind` (at size `n`) `reps` times in each package, alternating so
    that drift hits both; the medians and their ratio, with the name of the
    row's target."""
    p, b = alternate(kind, patched, baseline, reps, n)
    return dict(metric=label, baseline_ms=1e3 * statistics.median(b),
                patched_ms=1e3 * statistics.median(p),
                ratio=statistics.median(p) / statistics.median(b), target=target)


def main():
    if "-h" in sys.argv[1:] or "--help" in sys.argv[1:]:
        print(__doc__)
        return
    positional = [a for a in sys.argv[1:3] if not a.startswith("-")]
    if len(positional) < 2:
        sys.exit("usage: " + __doc__.split("\n\n")[1].strip())
    patched, baseline = positional
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    results = []
    # Warm-up: the first import of a package's dialect modules compiles their
    # bytecode (and writes __pycache__), which would be counted against
    # whichever package is measured first.
    for pkg in (baseline, patched):
        for kind in ("parse", "names"):
            run(pkg, kind, 1000)
    for label, (kind, target) in WORKLOADS.items():
        results.append(side_by_side(label, kind, target, patched, baseline, reps))
    for label, (kind, target, sizes) in SCALING.items():
        for n in sizes:
            results.append(side_by_side(f"{label}, N={n:,}", kind, target,
                                        patched, baseline, reps, n))
    if "--instructions" in sys.argv:
        def counted_row(label, kind, counted, target, n):
            """Instructions of `kind` minus those of the `counted` run, or,
            for a list of C API functions, only inside them."""
            if counted.startswith("mlir"):
                delta = {pkg: instructions(pkg, kind, n, toggle=counted)
                         for pkg in (baseline, patched)}
            else:
                delta = {pkg: instructions(pkg, kind, n) - instructions(pkg, counted, n)
                         for pkg in (baseline, patched)}
            return dict(metric=label, baseline_instr=delta[baseline],
                        patched_instr=delta[patched],
                        ratio=delta[patched] / delta[baseline], target=target)
        for label, kind, counted, target in COUNTED:
            results.append(counted_row(label, kind, counted, target, 20_000))
        for label, kind, counted, target, sizes in COUNTED_SCALING:
            for n in sizes:
                results.append(counted_row(f"{label}, N={n:,}", kind, counted, target, n))
    mb, mp = run(baseline, "memory"), run(patched, "memory")
    results.append(dict(metric="bytes per held Operation wrapper (RSS)",
                        baseline=mb, patched=mp))
    if "--json" in sys.argv:
        with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
            json.dump(results, f, indent=2)
    for r in results:
        if "ratio" in r:
            t = targets.target(r["target"], RELEASE)
            ok = "" if t is None else (" met" if targets.met(r["ratio"], r["target"], RELEASE)
                                       else " NOT met")
            t = "(report)" if t is None else t + "x"
        if "patched_instr" in r:
            print(f"{r['metric']}: baseline {r['baseline_instr']:,}, patched "
                  f"{r['patched_instr']:,}, ratio {r['ratio']:.3f} (target {t}){ok}")
        elif "ratio" in r:
            print(f"{r['metric']}: baseline {r['baseline_ms']:.1f} ms, patched "
                  f"{r['patched_ms']:.1f} ms, ratio {r['ratio']:.3f} (target {t}){ok}")
        else:
            print(f"{r['metric']}: baseline {r['baseline']:.0f}, patched {r['patched']:.0f}")


if __name__ == "__main__":
    main()
