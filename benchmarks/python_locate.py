#!/usr/bin/python3
"""Locates the timed Python rows of benchmarks/python_bench.py: per workload,
the time in each package (fastest and median of R alternating runs) and,
under callgrind with cache simulation, the instructions and cache misses
inside the C API call that does the work (20k ops).

  /usr/bin/python3 benchmarks/python_locate.py PATCHED_PKG BASELINE_PKG [R]
  ONLY=<workload> restricts to one; NOCG=1 skips callgrind; FN=<C API
  function> counts inside another function (e.g. mlirOperationGetUserOutside)."""
import os, statistics, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_bench as pb
patched, baseline = sys.argv[1], sys.argv[2]
R = int(sys.argv[3]) if len(sys.argv) > 3 else 11
WL = [("erase_none", 100000, "mlirOperationDestroy"),
      ("erase_all", 100000, "mlirOperationDestroy"),
      ("canonicalize", None, "mlirPassManagerRunOnOp")]
only = os.environ.get("ONLY")
for kind, n, fn in WL:
    if only and kind != only:
        continue
    p, b = pb.alternate(kind, patched, baseline, R, n)
    print(f"{kind}: time ms min/median patched {1e3*min(p):.2f}/{1e3*statistics.median(p):.2f}"
          f" baseline {1e3*min(b):.2f}/{1e3*statistics.median(b):.2f}"
          f" ratio(min) {min(p)/min(b):.3f} ratio(median) {statistics.median(p)/statistics.median(b):.3f}",
          flush=True)
    if os.environ.get("NOCG"):
        continue
    fn = os.environ.get("FN", fn)
    ev = {name: pb.callgrind_events(pkg, kind, 20000, fn, cache_sim=True)
          for name, pkg in (("baseline", baseline), ("patched", patched))}
    for k, pv in ev["patched"].items():
        bv = ev["baseline"][k]
        print(f"  {fn} {k}: patched {pv:,} baseline {bv:,} ratio {pv/bv if bv else float('nan'):.3f}")
