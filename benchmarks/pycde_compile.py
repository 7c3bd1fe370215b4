#!/usr/bin/env python3
"""The cost of PyCDE's per-pass check (patches/circt-firtool-1.154.0/0002)
to a user: wall time of `System.compile()` of one generated design with the
check (PyCDE as patched) and as PyCDE is at the tag (its caches dropped and
gc.collect() after every pass, nothing counted), in each build given,
alternated in fresh processes; and the time of `verify` of the design's
`hw.module`s (graph regions) after generation, and of the whole module after
compile. A third mode, PyCDE without the check and without gc.collect(),
tells the check's cost from the rest.

  /usr/bin/python3 benchmarks/pycde_compile.py \\
    --build patched=<patched CIRCT build>/tools/circt/python_packages/pycde \\
    --build unpatched=<unpatched CIRCT build>/tools/circt/python_packages/pycde \\
    [--modules 64] [--regs 64] [--runs 5]

scripts/downstream-circt.py prints each build's package path. Ratios are to
the last build's "at the tag" mode (the unpatched build's: what a PyCDE user
runs today). On the unpatched build the check counts nothing (no weak
references), so there "check" is PyCDE without its gc.collect() after every
pass.
"""
import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def design(modules, regs):
  from pycde import Clock, Input, Module, Output, System, generator
  from pycde.types import Bits, UInt

  class Stage(Module):
    clk = Clock()
    rst = Input(Bits(1))
    a = Input(UInt(16))
    out = Output(UInt(16))

    @generator
    def build(ports):
      v = ports.a
      with ports.clk:
        for i in range(regs):
          v = (v + ports.a).as_uint(16).reg(rst=ports.rst, name=f"r{i}")
      ports.out = v

  class Top(Module):
    clk = Clock()
    rst = Input(Bits(1))
    a = Input(UInt(16))
    out = Output(UInt(16))

    @generator
    def build(ports):
      v = ports.a
      for i in range(modules):
        v = Stage(clk=ports.clk, rst=ports.rst, a=v, instance_name=f"s{i}").out
      ports.out = v

  return System, Top


def patched_pycde():
  """pycde.system, which must carry patch 0002 (else the modes below would
  silently run PyCDE as the build has it)."""
  import pycde.system as ps
  if not hasattr(ps, "_report_erased_ops"):
    sys.exit("this PyCDE lacks patches/circt-firtool-1.154.0/0002 "
             "(built with --no-pycde-patch?): its modes cannot be set")
  return ps


def pycde_without_check():
  """PyCDE as patched, its per-pass check skipped: no walk of the heap
  before a pass, no gc.collect() after it."""
  import weakref
  patched_pycde()._held_live_ops = weakref.WeakSet


def pycde_at_tag():
  """PyCDE's pass loop as before its patch 0002: every cached op dropped and
  gc.collect() after each pass, no count."""
  pycde_without_check()
  ps = patched_pycde()
  release = ps._OpCache.release_ops

  def release_and_collect(self):
    release(self)
    gc.collect()

  ps._OpCache.release_ops = release_and_collect


def one_run(mode, modules, regs):
  if mode == "tag":
    pycde_at_tag()
  elif mode == "none":
    pycde_without_check()
  else:
    patched_pycde()
  System, Top = design(modules, regs)
  with tempfile.TemporaryDirectory() as out:
    system = System([Top], name="Bench", output_directory=out)
    system.generate()
    hw_modules = [op for op in system.mod.body.operations
                  if op.operation.name == "hw.module"]
    start = time.perf_counter()
    for op in hw_modules:
      op.operation.verify()
    verify_before = time.perf_counter() - start
    start = time.perf_counter()
    system.compile()
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    system.mod.operation.verify()
    verify_after = time.perf_counter() - start
    ops = sum(1 for _ in system.mod.body.operations)
  return {"compile": compile_s, "verify_before": verify_before,
          "verify_after": verify_after, "top_ops": ops}


MODES = ("check", "none", "tag")
MODE_NAMES = {"check": "per-pass check", "none": "no check, no gc.collect()",
              "tag": "at the tag"}


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--build", action="append", metavar="LABEL=PYTHONPATH",
                  help="a build's PyCDE package (repeat; default: this PYTHONPATH)")
  ap.add_argument("--modules", type=int, default=64)
  ap.add_argument("--regs", type=int, default=64)
  ap.add_argument("--runs", type=int, default=5)
  ap.add_argument("--one", choices=MODES, help=argparse.SUPPRESS)
  args = ap.parse_args()
  if args.one:
    print(json.dumps(one_run(args.one, args.modules, args.regs)))
    return 0
  builds = {}
  for b in args.build or [f"this={os.environ.get('PYTHONPATH', '')}"]:
    label, sep, path = b.partition("=")
    if not sep or not label or label in builds:
      ap.error(f"--build {b!r}: expected a new LABEL=PYTHONPATH")
    builds[label] = path
  configs = [(b, m) for b in builds for m in MODES]
  runs = {c: [] for c in configs}
  for i in range(args.runs):
    # Rotate the order, so no configuration always runs first.
    k = i % len(configs)
    for build, mode in configs[k:] + configs[:k]:
      env = dict(os.environ, PYTHONPATH=builds[build])
      r = subprocess.run([sys.executable, __file__, "--one", mode, "--modules",
                          str(args.modules), "--regs", str(args.regs)],
                         text=True, capture_output=True, env=env)
      if r.returncode:
        sys.exit(f"{build} {mode}: failed\n{r.stderr[-2000:]}")
      runs[(build, mode)].append(json.loads(r.stdout.splitlines()[-1]))
  med = {c: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
         for c, rs in runs.items()}
  ref = (list(builds)[-1], "tag")
  print(f"design: {args.modules} modules x {args.regs} registers; "
        f"{args.runs} runs of each, order rotated; medians; ratio to {ref[0]} at the tag")
  print("| build | PyCDE | compile (ms) | ratio | verify hw.modules (ms) | verify compiled (ms) |")
  print("|---|---|---|---|---|---|")
  for c in configs:
    m = med[c]
    print(f"| {c[0]} | {MODE_NAMES[c[1]]} "
          f"| {m['compile'] * 1e3:.1f} | {m['compile'] / med[ref]['compile']:.3f} "
          f"| {m['verify_before'] * 1e3:.2f} | {m['verify_after'] * 1e3:.2f} |")
  return 0


if __name__ == "__main__":
  sys.exit(main())
