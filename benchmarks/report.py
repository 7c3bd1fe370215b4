#!/usr/bin/env python3
"""Turns bench-results/ into a Markdown table of ratios against their targets
(printed) and a chart of how much of each target's budget was used
(OUT/chart.png, with python3-matplotlib).

  report.py OUT_DIR [--chart PNG]
"""
import json
import re
import statistics
import sys
from pathlib import Path

out = Path(sys.argv[1])
sys.path.insert(0, str(Path(__file__).resolve().parent))
import targets  # noqa: E402  (benchmarks/targets.json, the one table of targets)

# OUT_DIR is bench-results/llvm-<release>.
RELEASE = out.resolve().name.removeprefix("llvm-")
rows = []  # (metric, measured, target, ok)
budget = []  # (metric, share of the target's budget used, ok)


def budget_used(value, target):
    """How much of a target's budget `value` uses: 1.0 is exactly on target.
    For a ratio target such as "<= 1.05x", the budget is the overhead (0.05);
    for a plain bound, the bound; for ">= N", N / value."""
    m = re.match(r"(<=|>=) ([0-9.]+)(x?)$", target)
    if not m:
        return None
    op, bound = m.group(1), float(m.group(2))
    if op == ">=":
        return bound / value
    if bound <= 2:  # a patched/baseline style ratio
        return max(value - 1, 0) / (bound - 1)
    return value / bound


def add_target(metric, value, fmt, name, unit="x"):
    """Adds a row whose target is targets.json's `name` ("x": a ratio)."""
    t = targets.target(name, RELEASE)
    add(metric, value, fmt, "(report)" if t is None else t + unit,
        targets.met(value, name, RELEASE))


def add(metric, value, fmt, target, ok):
    rows.append((metric, fmt.format(value), target, "yes" if ok else "**no**"))
    used = budget_used(value, target)
    if used is not None:
        budget.append((metric, used, ok))


for line in (out / "instructions.txt").read_text().splitlines():
    *workload, base, patched = line.split()
    ratio = int(patched) / int(base)
    name, count = " ".join(workload[:-1]), int(workload[-1])
    label = {"create-erase": "bare create + destroy",
             "create-erase-arith": "create (OpBuilder) + erase of `arith.addi`",
             "canonicalize": "parse + canonicalize"}.get(name, name)
    add_target(f"instructions, patched/baseline: {label}, {count:,} ops",
               ratio, "{:.4f}", "instructions, patched/baseline", unit="")

runs = json.loads((out / "core.json").read_text())["benchmarks"]


def iterations(results, name):
    found = [b for b in results
             if b.get("run_name", b["name"]) == name and b.get("run_type") == "iteration"]
    if not found:
        raise SystemExit(f"no results for {name}")
    return found


def median(name, field="real_time", results=None):
    return statistics.median(b[field] for b in iterations(results or runs, name))


def ns_per_item(name, results=None):
    return statistics.median(1e9 / b["items_per_second"]
                             for b in iterations(results or runs, name))


get_live = ns_per_item("BM_RefGetLive")
get_dead = ns_per_item("BM_RefGetDead")
lock = ns_per_item("BM_WeakPtrLock")
registry = ns_per_item("BM_RegistryLookup")
create = ns_per_item("BM_RefCreateFirst/manual_time")
copy = ns_per_item("BM_RefCopy")
destroy0 = ns_per_item("BM_DestroyOp/0/manual_time")
destroy1 = ns_per_item("BM_DestroyOp/1/manual_time")
# Measured one size per process (run.sh): memory-<count>.json.
mems = {b["name"].split("/")[1]: b["bytes_per_ref_op"]
        for path in sorted(out.glob("memory-*.json"))
        for b in json.loads(path.read_text())["benchmarks"]
        if b["name"].startswith("BM_MemoryPerReferencedOp/") and b.get("run_type") == "iteration"}

add_target("`get()` on a live ref vs `std::weak_ptr::lock` (speed-up)", lock / get_live, "{:.1f}x",
           "get() live vs std::weak_ptr::lock (speed-up)")
add_target("`get()` on a dead ref vs `std::weak_ptr::lock` (speed-up)", lock / get_dead, "{:.1f}x",
           "get() dead vs std::weak_ptr::lock (speed-up)")
add_target("`get()` vs a mutex + `DenseMap<Operation *, T>` registry lookup (speed-up)",
           registry / get_live, "{:.1f}x", "get() vs mutex + DenseMap registry lookup (speed-up)")
add_target("first reference to an op (ns)", create, "{:.1f}", "first reference to an op (ns)", unit="")
add_target("copy + drop of an extra reference (ns)", copy, "{:.1f}",
           "copy + drop of an extra reference (ns)", unit="")
add_target("invalidation: destroying a referenced op minus an unreferenced one (ns)", destroy1 - destroy0,
           "{:.1f}", "invalidation: destroy referenced - unreferenced op (ns)", unit="")
for count, mem in sorted(mems.items(), key=lambda kv: int(kv[0])):
    add_target(f"heap bytes per referenced op (control block + table entry), {int(count):,} ops",
               mem, "{:.1f}", "heap bytes per referenced op", unit="")
for threads in (1, 2):
    none = median(f"BM_ParallelCanonicalize/0/{threads}")
    every = median(f"BM_ParallelCanonicalize/1/{threads}")
    add_target(f"canonicalize 128 functions, every op referenced / none, {threads} thread(s)",
               every / none, "{:.3f}x", "parallel canonicalize, every op referenced / none")

ext = json.loads((out / "extension.json").read_text())["benchmarks"]


def ext_ns(name):
    return ns_per_item(name, ext)


def ext_median(name):
    return median(name, results=ext)


lookup = ext_ns("BM_LookupWeakOpMap") / ext_ns("BM_LookupDenseMap")
add_target("`WeakOpMap` lookup / `DenseMap<Operation *, T>` lookup", lookup, "{:.2f}x",
           "WeakOpMap lookup / DenseMap lookup")
insert = ext_ns("BM_InsertWeakOpMap/manual_time") / ext_ns("BM_InsertDenseMap/manual_time")
add_target("`WeakOpMap` insert of fresh ops (first reference included) / `DenseMap` insert",
           insert, "{:.2f}x", "WeakOpMap insert of fresh ops / DenseMap insert")
insert_ref = ext_ns("BM_InsertWeakOpMapReferenced/manual_time") / ext_ns("BM_InsertDenseMap/manual_time")
add_target("`WeakOpMap` insert of already-referenced ops / `DenseMap` insert",
           insert_ref, "{:.2f}x", "WeakOpMap insert of referenced ops / DenseMap insert")
prov = ext_median("BM_CanonicalizeProvenance/1") / ext_median("BM_CanonicalizeProvenance/0")
add_target("canonicalize 64 functions, all ops referenced: provenance on / off", prov, "{:.3f}x",
           "canonicalize, provenance on / off")

python_results = out / "python.json"
if python_results.exists():
    for r in json.loads(python_results.read_text()):
        if "patched_instr" in r:
            add_target(f"Python {r['metric']}, patched/baseline", r["ratio"], "{:.3f}x",
                       r["target"])
        elif "ratio" in r:
            add_target(f"Python: {r['metric']}, patched/baseline "
                       f"({r['patched_ms']:.1f} / {r['baseline_ms']:.1f} ms)", r["ratio"],
                       "{:.3f}x", r["target"])
        else:
            add(f"Python: {r['metric']}, patched (baseline {r['baseline']:.0f})",
                r["patched"], "{:.0f}", "(report)", True)



def chart(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [re.sub(r" \(([0-9.]+ / [0-9.]+ ms)\)", "", m).replace("`", "")
              for m, _, _ in budget]
    values = [u for _, u, _ in budget]
    floor = 0.02  # zero overhead (or a speed-up) is drawn at the floor
    colors = ["#3a7d44" if ok else "#c0392b" for _, _, ok in budget]
    fig, ax = plt.subplots(figsize=(10, 0.3 * len(budget) + 1.4))
    y = list(range(len(budget)))[::-1]
    ax.barh(y, [max(v, floor) for v in values], color=colors)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xscale("log")
    ax.set_xlim(floor / 1.5, max(values) * 3)
    ax.set_xlabel("share of the target's budget used (log scale; 1 = on target)", fontsize=8)
    ax.set_title("mlir-weakref benchmarks vs targets: green met, red missed.\n"
                 "Ratio targets (e.g. <= 1.05x): measured overhead / allowed overhead;\n"
                 "speed-ups (>= 5x): target / measured", fontsize=8)
    for yi, v in zip(y, values):
        ax.text(max(v, floor) * 1.08, yi, f"{v:.2f}", va="center", fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if "--chart" in sys.argv:
    chart(sys.argv[sys.argv.index("--chart") + 1])

print("| metric | measured | target | met |")
print("|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
