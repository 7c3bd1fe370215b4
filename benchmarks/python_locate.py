#!/usr/bin/python3
"""Locates the timed Python rows of benchmarks/python_bench.py: per workload,
the time in each package (fastest and median of R alternating runs) and,
under callgrind with cache simulation, the instructions and cache misses
inside the C API call that does the work (20k ops).

  /usr/bin/python3 benchmarks/python_locate.py PATCHED_PKG BASELINE_PKG [R]
  ONLY=<workload> restricts to one; NOCG=1 skips callgrind; FN=<C API
  function> counts inside another function (e.g. mlirOperationGetUserOutside)."""
import os, statistics, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import python_bench as pb
patched, baseline = sys.argv[1], sys.argv[2]
R = int(sys.argv[3]) if len(sys.argv) > 3 else 11
WL = [("erase_none", 100000, "mlirOperationDestroy"),
      ("erase_all", 100000, "mlirOperationDestroy"),
      ("canonicalize", None, "mlirPassManagerRunOnOp")]
only = os.environ.get("ONLY")
for kind, n, fn in WL:
    if only and kind != only: continue
    t = {"patched": [], "baseline": []}
    for _ in range(R):
        for name, pkg in (("baseline", baseline), ("patched", patched)):
            t[name].append(pb.run(pkg, kind, n))
    print(f"{kind}: time ms min/median patched {1e3*min(t['patched']):.2f}/{1e3*statistics.median(t['patched']):.2f}"
          f" baseline {1e3*min(t['baseline']):.2f}/{1e3*statistics.median(t['baseline']):.2f}"
          f" ratio(min) {min(t['patched'])/min(t['baseline']):.3f} ratio(median) {statistics.median(t['patched'])/statistics.median(t['baseline']):.3f}", flush=True)
    if os.environ.get("NOCG"): continue
    fn = os.environ.get("FN", fn)
    ev = {}
    for name, pkg in (("baseline", baseline), ("patched", patched)):
        cmd = ["valgrind", "--tool=callgrind", "--cache-sim=yes", "--callgrind-out-file=/dev/null", f"--toggle-collect={fn}",
               sys.executable, "-c", pb.CHILD, kind] + ["20000"]
        out = subprocess.run(cmd, env=dict(pb.child_env(pkg), PYTHONHASHSEED="0"), capture_output=True, text=True, check=True)
        names = out.stderr.split("Events    :")[1].split("\n")[0].split()
        vals = [int(x) for x in out.stderr.split("Collected :")[1].split("\n")[0].split()]
        ev[name] = dict(zip(names, vals))
    for k in ev["patched"]:
        b, p = ev["baseline"][k], ev["patched"][k]
        print(f"  {fn} {k}: patched {p:,} baseline {b:,} ratio {p/b if b else float('nan'):.3f}")
