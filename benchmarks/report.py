#!/usr/bin/env python3
"""Turns bench-results/llvm-<release>/ into a Markdown report (printed): a
table of every result, in the build with LLVM's assertions and in the one
without, next to its target; the curve of heap bytes per referenced op; and,
function by function, where the instructions the patch adds to code that does
not use it are. With --chart, also a chart of how much of each target's budget
was used (python3-matplotlib).

  report.py OUT_DIR [--chart PNG] [--flavors assertions,release]

--flavors names the build flavours to report (run.sh passes those it just
measured, so that a one-flavour run does not report an older run of the
other); by default, every flavour OUT_DIR has results for.
"""
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path


def grown_sizes(baseline_histogram, patched_histogram):
    """The allocation sizes whose requests moved to 8 bytes more in the
    patched build (alloc_layout.cpp's histograms of one workload): at least
    100 fewer requests of a size there, and about as many more of size + 8.
    Returned as ALLOC_GROW wants them, "40,72". Net counts: a size that both
    gains (from size - 8) and loses (to size + 8) requests can hide a move."""
    def read(path):
        return {int(s): int(c) for s, c in
                (line.split() for line in Path(path).read_text().splitlines())}
    base, patched = read(baseline_histogram), read(patched_histogram)
    sizes = []
    for size in sorted(base):
        fewer = base[size] - patched.get(size, 0)
        more = patched.get(size + 8, 0) - base.get(size + 8, 0)
        if fewer >= 100 and abs(more - fewer) <= fewer // 10:
            sizes.append(size)
    return ",".join(map(str, sizes))


if sys.argv[1:2] == ["--grown-sizes"]:
    print(grown_sizes(sys.argv[2], sys.argv[3]))
    sys.exit(0)

out = Path(sys.argv[1])
sys.path.insert(0, str(Path(__file__).resolve().parent))
import targets  # noqa: E402  (benchmarks/targets.json, the one table of targets)

# OUT_DIR is bench-results/llvm-<release>, with one folder per build flavour.
RELEASE = out.resolve().name.removeprefix("llvm-")
FLAVORS = [f for f in ("assertions", "release") if (out / f / "instructions.txt").exists()]
if "--flavors" in sys.argv:
    wanted = sys.argv[sys.argv.index("--flavors") + 1].split(",")
    missing = [f for f in wanted if f not in FLAVORS]
    if missing:
        raise SystemExit(f"{out} has no results for {', '.join(missing)}")
    FLAVORS = [f for f in FLAVORS if f in wanted]
if not FLAVORS:
    raise SystemExit(f"{out} has no results (assertions/ or release/); run benchmarks/run.sh")

# metric -> flavour -> (text, target, ok, share of the budget used or None)
results = {}


def budget_used(value, target):
    """How much of a target's budget `value` uses: 1.0 is exactly on target.
    `target` is targets.json's ("<= 1.05"), or None for a row without one.
    For a ratio target such as "<= 1.05", the budget is the overhead (0.05);
    for a plain bound, the bound; for ">= N", N / value."""
    if target is None:
        return None
    op, bound = targets.parse(target)
    if op == ">=":
        return bound / value
    if bound <= 2:  # a patched/baseline style ratio
        return max(value - 1, 0) / (bound - 1)
    return value / bound


def add(flavor, metric, value, fmt, name, unit="x", note=""):
    """Records `metric` in `flavor`; its target is targets.json's `name`."""
    t = targets.target(name, RELEASE, flavor)
    target = "(report)" if t is None else t + unit
    ok = targets.met(value, name, RELEASE, flavor)
    results.setdefault(metric, {})[flavor] = (
        fmt.format(value) + note, target, ok, budget_used(value, t))


def iterations(runs, name):
    found = [b for b in runs
             if b.get("run_name", b["name"]) == name and b.get("run_type") == "iteration"]
    if not found:
        raise SystemExit(f"no results for {name}")
    return found


def median(runs, name, field="real_time"):
    return statistics.median(b[field] for b in iterations(runs, name))


def ns_per_item(runs, name):
    return statistics.median(1e9 / b["items_per_second"] for b in iterations(runs, name))


LABELS = {"create-erase": "bare create + destroy",
          "create-erase-arith": "create (OpBuilder) + erase of `arith.addi`",
          "canonicalize": "parse + canonicalize"}
memory_curves = {}  # column ("<flavour> build[, glibc tcache off]") -> {count: bytes}


def read_layout(d):
    """run.sh's heap layout control in flavour folder `d` (layout.txt), as
    (ops, sizes grown, baseline, grown baseline, patched instructions), or
    None if the run made none."""
    layout = d / "layout.txt"
    if not layout.exists():
        return None
    _, count, sizes, base, grown, patched = layout.read_text().split()
    return int(count), sizes, int(base), int(grown), int(patched)


def collect(flavor):
    d = out / flavor
    for line in (d / "instructions.txt").read_text().splitlines():
        *workload, base, patched = line.split()
        name, count = " ".join(workload[:-1]), int(workload[-1])
        target = ("instructions, patched/baseline: bare create + destroy"
                  if name == "create-erase" else "instructions, patched/baseline")
        add(flavor, f"instructions, patched/baseline: {LABELS.get(name, name)}, {count:,} ops",
            int(patched) / int(base), "{:.4f}", target, unit="")

    # The heap layout control (run.sh, alloc_layout.cpp): every count here is
    # made with the preload loaded, so none is compared with the rows above.
    layout = read_layout(d)
    if layout:
        count, sizes, base, grown, patched = layout
        grown_text = "none found" if sizes == "none" else sizes.replace(",", ", ") + " B"
        add(flavor, f"heap layout control, parse + canonicalize, {count:,} ops: the baseline "
            f"with the requests of the sizes the patch grows ({grown_text}) 8 bytes larger "
            "/ the baseline", grown / base, "{:.4f}",
            "heap layout control: baseline, sizes grown / baseline", unit="")
        add(flavor, "heap layout control: patched / that grown baseline (the patch's code and "
            "the binary's own layout)", patched / grown, "{:.4f}",
            "heap layout control: patched / baseline, sizes grown", unit="")

    runs = [b for name in ("core.json", "core-ir.json") if (d / name).exists()
            for b in json.loads((d / name).read_text())["benchmarks"]]
    get_live = ns_per_item(runs, "BM_RefGetLive")
    lock = ns_per_item(runs, "BM_WeakPtrLock")
    add(flavor, "`get()` on a live ref vs `std::weak_ptr::lock` (speed-up)", lock / get_live,
        "{:.1f}x", "get() live vs std::weak_ptr::lock (speed-up)", unit="")
    add(flavor, "`get()` on a dead ref vs `std::weak_ptr::lock` (speed-up)",
        lock / ns_per_item(runs, "BM_RefGetDead"), "{:.1f}x",
        "get() dead vs std::weak_ptr::lock (speed-up)", unit="")
    add(flavor, "`get()` vs a mutex + `DenseMap<Operation *, T>` registry lookup (speed-up)",
        ns_per_item(runs, "BM_RegistryLookup") / get_live, "{:.1f}x",
        "get() vs mutex + DenseMap registry lookup (speed-up)", unit="")
    add(flavor, "first reference to an op (ns)", ns_per_item(runs, "BM_RefCreateFirst/manual_time"),
        "{:.1f}", "first reference to an op (ns)", unit="")
    # Each iteration times one and two threads back to back (CoreIRBench.cpp);
    # "scaling" is the median of its ratios, 2 * t(1 thread) / t(2 threads).
    def scaling(mode):
        name = f"BM_FirstReferenceThreads/{mode}/manual_time"
        return (median(runs, name, "scaling"),
                median(runs, name, "one_thread_s"), median(runs, name, "two_threads_s"))
    ratio, one, two = scaling(0)
    per_thread = median(runs, "BM_FirstReferenceThreads/0/manual_time", "ops_per_thread")
    add(flavor, "first references to disjoint ops of one context: throughput on 2 threads / 1 thread",
        ratio, "{:.2f}x", "first references to disjoint ops, 2 threads / 1 thread (throughput)",
        unit="", note=f" ({2 * per_thread / two / 1e6:.1f} / {per_thread / one / 1e6:.1f} M/s)")
    add(flavor, "control for the row above: the same threads storing each op's location instead",
        scaling(1)[0], "{:.2f}x",
        "first references, control loop: 2 threads / 1 thread (throughput)", unit="")
    add(flavor, "second control: a reference's stores and set insert on per-thread data, no lock",
        scaling(2)[0], "{:.2f}x",
        "first references, private-traffic control: 2 threads / 1 thread (throughput)", unit="")
    add(flavor, "third control: the second one under an uncontended mutex of the thread's own",
        scaling(3)[0], "{:.2f}x",
        "first references, locked private-traffic control: 2 threads / 1 thread (throughput)",
        unit="")
    hot_ops = median(runs, "BM_FirstReferenceThreads/4/manual_time", "hot_ops")
    add(flavor, "fourth control: the row's references and releases on "
        f"{hot_ops:,.0f} ops per thread, taken again and again (data in the thread's caches)",
        scaling(4)[0], "{:.2f}x",
        "first references, cache-resident control: 2 threads / 1 thread (throughput)", unit="")
    add(flavor, "fifth control: the row, each thread's ops referenced and released once "
        "before the clock (control blocks the thread freed itself, through the "
        "allocator's per-CPU stacks)",
        scaling(5)[0], "{:.2f}x",
        "first references, warm-allocator control: 2 threads / 1 thread (throughput)", unit="")
    # BM_FirstReferenceOversubscribed: the two threads' work shared among 8
    # threads on the machine's cores, throughput over the two threads'.
    def oversubscribed(mode):
        name = f"BM_FirstReferenceOversubscribed/{mode}/manual_time"
        return (median(runs, name, "oversubscribed"), median(runs, name, "threads"))
    ratio, threads = oversubscribed(0)
    control, _ = oversubscribed(1)
    add(flavor, f"the row's first references and releases on {threads:.0f} threads on this "
        "machine's cores / 2 threads (throughput, the same ops in all)", ratio, "{:.2f}x",
        "first references, oversubscribed / 2 threads (throughput)", unit="",
        note=f" (the location-store control: {control:.2f}x)")
    add(flavor, "copy + drop of an extra reference (ns)", ns_per_item(runs, "BM_RefCopy"),
        "{:.1f}", "copy + drop of an extra reference (ns)", unit="")
    add(flavor, "for scale: one uncontended atomic read-modify-write (ns)",
        ns_per_item(runs, "BM_AtomicIncrement"), "{:.1f}",
        "one uncontended atomic read-modify-write (ns)", unit="")
    add(flavor, "invalidation: destroying a referenced op minus an unreferenced one (ns)",
        ns_per_item(runs, "BM_DestroyOp/1/manual_time")
        - ns_per_item(runs, "BM_DestroyOp/0/manual_time"),
        "{:.1f}", "invalidation: destroy referenced - unreferenced op (ns)", unit="")
    # Measured one size per process (run.sh): memory-<count>.json, and
    # tcache-off-memory-<count>.json with glibc's per-thread cache off.
    def memory_curve(pattern):
        return {int(b["name"].split("/")[1]): b["bytes_per_ref_op"]
                for path in d.glob(pattern)
                for b in json.loads(path.read_text())["benchmarks"]
                if b["name"].startswith("BM_MemoryPerReferencedOp/")
                and b.get("run_type") == "iteration"}
    curve = memory_curve("memory-*.json")
    memory_curves[f"{flavor} build"] = curve
    worst = max(curve, key=curve.get)
    add(flavor, f"heap bytes per referenced op (control block + table entry), worst of "
        f"{len(curve)} table sizes from {min(curve):,} to {max(curve):,}",
        curve[worst], "{:.1f}", "heap bytes per referenced op", unit="",
        note=f" (at {worst:,})")
    for n in (1000, 100000):
        if n in curve:
            add(flavor, f"heap bytes per referenced op at {n:,} references", curve[n],
                "{:.1f}", f"heap bytes per referenced op at {n:,}", unit="")
    off = memory_curve("tcache-off-memory-*.json")
    if off:
        memory_curves[f"{flavor} build, glibc tcache off"] = off
        worst = max(off, key=off.get)
        add(flavor, "the same with glibc's per-thread cache off (bucket arrays a set outgrew "
            "and freed into it are not counted as in use)", off[worst], "{:.1f}",
            "heap bytes per referenced op, glibc tcache off", unit="", note=f" (at {worst:,})")
    for threads in (1, 2):
        none = median(runs, f"BM_ParallelCanonicalize/0/{threads}")
        every = median(runs, f"BM_ParallelCanonicalize/1/{threads}")
        add(flavor, f"canonicalize 128 functions, every op referenced / none, {threads} thread(s)",
            every / none, "{:.3f}x", "parallel canonicalize, every op referenced / none")

    ext = json.loads((d / "extension.json").read_text())["benchmarks"]
    add(flavor, "`WeakOpMap` lookup / `DenseMap<Operation *, T>` lookup",
        ns_per_item(ext, "BM_LookupWeakOpMap") / ns_per_item(ext, "BM_LookupDenseMap"),
        "{:.2f}x", "WeakOpMap lookup / DenseMap lookup")
    # Arg 0: a new map per batch (growth timed; issue 15's targets); Arg 1: a
    # map that keeps its capacity (the inserts alone; reported, no target).
    for arg, how, suffix in ((0, "a new map", ""), (1, "a map kept at capacity", " (kept capacity)")):
        dense_insert = ns_per_item(ext, f"BM_InsertDenseMap/{arg}/manual_time")
        add(flavor, f"`WeakOpMap` insert of fresh ops (first reference included) / `DenseMap` insert, {how}",
            ns_per_item(ext, f"BM_InsertWeakOpMap/{arg}/manual_time") / dense_insert, "{:.2f}x",
            "WeakOpMap insert of fresh ops / DenseMap insert" + suffix)
        add(flavor, f"`WeakOpMap` insert of already-referenced ops / `DenseMap` insert, {how}",
            ns_per_item(ext, f"BM_InsertWeakOpMapReferenced/{arg}/manual_time") / dense_insert, "{:.2f}x",
            "WeakOpMap insert of referenced ops / DenseMap insert" + suffix)
    add(flavor, "canonicalize 64 functions, all ops referenced: provenance on / off",
        median(ext, "BM_CanonicalizeProvenance/1") / median(ext, "BM_CanonicalizeProvenance/0"),
        "{:.3f}x", "canonicalize, provenance on / off")

    python_results = d / "python.json"
    if python_results.exists():
        for r in json.loads(python_results.read_text()):
            if "patched_instr" in r:
                add(flavor, f"Python {r['metric']}, patched/baseline", r["ratio"], "{:.3f}x",
                    r["target"])
            elif "ratio" in r:
                add(flavor, f"Python: {r['metric']}, patched/baseline", r["ratio"], "{:.3f}x",
                    r["target"], note=f" ({r['patched_ms']:.1f} / {r['baseline_ms']:.1f} ms)")
            else:
                results.setdefault(f"Python: {r['metric']}, patched / baseline", {})[flavor] = (
                    f"{r['patched']:.0f} / {r['baseline']:.0f}", "(report)", True, None)


def function_costs(profile):
    """Self instructions per function in a callgrind profile."""
    text = subprocess.run(["callgrind_annotate", "--threshold=100", str(profile)],
                          capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([0-9,]+) \([ 0-9.]+%\)\s+(.*?)(?: \[[^]]*\])?$", line)
        if m and "PROGRAM TOTALS" not in m.group(2):
            name = re.sub(r"^(\?\?\?|[^:]*):", "", m.group(2), count=1)
            costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def where_added(flavor, limit=8):
    """Lines naming the functions whose instruction counts differ most
    between the patched and the baseline profile of each workload."""
    lines = []
    d = out / flavor
    compared = []  # (label, count, baseline profile, patched profile)
    for line in (d / "instructions.txt").read_text().splitlines():
        *workload, base, patched = line.split()
        name, count = " ".join(workload[:-1]), int(workload[-1])
        compared.append((LABELS.get(name, name), count, d / f"callgrind-{name}-baseline.out",
                         d / f"callgrind-{name}-patched.out"))
    layout = read_layout(d)
    if layout:
        compared.append(("parse + canonicalize, heap layout control: patched vs the grown "
                         "baseline", layout[0], d / "callgrind-layout-grown.out",
                         d / "callgrind-layout-patched.out"))
    for label, count, pb, pp in compared:
        if not (pb.exists() and pp.exists()):
            continue
        cb, cp = function_costs(pb), function_costs(pp)
        diff = {f: cp.get(f, 0) - cb.get(f, 0) for f in set(cb) | set(cp)}
        diff = {f: v for f, v in diff.items() if v}
        base, patched = sum(cb.values()), sum(cp.values())
        total = (patched - base) / count
        lines.append(f"- **{label}** ({flavor}): {total:+.2f} instructions "
                     f"per op in all ({base / count:.1f} -> {patched / count:.1f}); "
                     "largest differences per op:")
        for f, v in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:limit]:
            short = f if len(f) <= 110 else f[:107] + "..."
            lines.append(f"  - `{short}`: {v / count:+.2f}")
    return lines


for flavor in FLAVORS:
    collect(flavor)


def chart(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bars = [(f"{re.sub(r'`', '', metric)} [{flavor}]", v[3], v[2])
            for metric, by_flavor in results.items()
            for flavor, v in by_flavor.items() if v[3] is not None]
    labels = [b[0] for b in bars]
    values = [b[1] for b in bars]
    floor = 0.02  # zero overhead (or a speed-up) is drawn at the floor
    colors = ["#3a7d44" if ok else "#c0392b" for _, _, ok in bars]
    fig, ax = plt.subplots(figsize=(11, 0.25 * len(bars) + 1.4))
    y = list(range(len(bars)))[::-1]
    ax.barh(y, [max(v, floor) for v in values], color=colors)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=6)
    ax.set_xscale("log")
    ax.set_xlim(floor / 1.5, max(values) * 3)
    ax.set_xlabel("share of the target's budget used (log scale; 1 = on target)", fontsize=8)
    ax.set_title(f"mlir-weakref {RELEASE} benchmarks vs targets: green met, red missed.\n"
                 "Ratio targets (e.g. <= 1.05x): measured overhead / allowed overhead;\n"
                 "speed-ups (>= 5x): target / measured", fontsize=8)
    for yi, v in zip(y, values):
        ax.text(max(v, floor) * 1.08, yi, f"{v:.2f}", va="center", fontsize=5)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if "--chart" in sys.argv:
    chart(sys.argv[sys.argv.index("--chart") + 1])

# The previous, tuned core's last figures (benchmarks/previous-core-<release>.md),
# printed next to this run's, by metric, for each flavour measured.
previous = {}
previous_file = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             f"previous-core-{RELEASE}.md")
if os.path.exists(previous_file):
    for line in open(previous_file):
        if line.startswith("| "):
            cols = [c.strip() for c in line.strip().strip("|").split("|")]
            previous[cols[0]] = dict(zip(["assertions", "release"], cols[1:3]))
prev_header = "".join(f" | previous core, {f}" for f in FLAVORS) if previous else ""
print("| metric | " + " | ".join(f"{f} build" for f in FLAVORS) + prev_header +
      " | target | met |")
print("|---|" + "---|" * len(FLAVORS) + ("---|" * len(FLAVORS) if previous else "") +
      "---|---|")
for metric, by_flavor in results.items():
    cells = [by_flavor[f][0] if f in by_flavor else "-" for f in FLAVORS]
    if previous:
        cells += [previous.get(metric, {}).get(f, "-") for f in FLAVORS]
    tgts = sorted({v[1] for v in by_flavor.values()})
    tgt = " / ".join(f"{v[1]} ({f})" for f, v in by_flavor.items()) if len(tgts) > 1 else tgts[0]
    missed = [f for f, v in by_flavor.items() if not v[2]]
    met = "yes" if not missed else "**no**" + ("" if len(missed) == len(by_flavor)
                                              else f" ({', '.join(missed)})")
    print(f"| {metric} | " + " | ".join(cells) + f" | {tgt} | {met} |")

print()
print("Heap bytes per referenced op by table size (each size in a fresh process):")
print()
sizes = sorted({n for c in memory_curves.values() for n in c})
print("| references | " + " | ".join(memory_curves) + " |")
print("|---|" + "---|" * len(memory_curves))
for n in sizes:
    print(f"| {n:,} | " + " | ".join(
        f"{c[n]:.1f}" if n in c else "-" for c in memory_curves.values()) + " |")

added = [line for f in FLAVORS for line in where_added(f)]
if added:
    print()
    print("Where the instructions added to code that uses no weak reference are "
          "(callgrind, self instructions per op, patched minus baseline):")
    print()
    print("\n".join(added))
