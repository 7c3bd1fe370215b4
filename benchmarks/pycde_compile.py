#!/usr/bin/env python3
"""The cost of PyCDE's per-pass check (patches/circt-firtool-1.154.0/0002)
to a user: wall time of `System.compile()` of one design, with the check
(PyCDE as patched) and as PyCDE was before (its caches dropped and
gc.collect() after every pass, nothing counted), alternated in fresh
processes; and the time of `verify` of the design's `hw.module`s (graph
regions) after generation, and of the whole module after compile.

  PYTHONPATH=<circt build>/tools/circt/python_packages/pycde \\
    /usr/bin/python3 benchmarks/pycde_compile.py [--modules 64] [--regs 64] [--runs 5]

scripts/downstream-circt.py prints the PYTHONPATH of its build. Against
the unpatched build (the same command, that build's path) the check counts
nothing (no weak references), so there the first mode is PyCDE without
its gc.collect() after every pass.
"""
import argparse
import gc
import json
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


def original_pycde():
  """PyCDE's pass loop as before its patch 0002: every cached op dropped and
  gc.collect() after each pass, no count."""
  import pycde.system as ps
  release = ps._OpCache.release_ops

  def release_and_collect(self):
    release(self)
    gc.collect()

  ps._OpCache.release_ops = release_and_collect
  ps._held_live_ops = lambda: set()


def one_run(mode, modules, regs):
  if mode == "original":
    original_pycde()
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


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  ap.add_argument("--modules", type=int, default=64)
  ap.add_argument("--regs", type=int, default=64)
  ap.add_argument("--runs", type=int, default=5)
  ap.add_argument("--one", choices=["patched", "original"], help=argparse.SUPPRESS)
  args = ap.parse_args()
  if args.one:
    print(json.dumps(one_run(args.one, args.modules, args.regs)))
    return 0
  runs = {"patched": [], "original": []}
  for i in range(args.runs):
    for mode in (("patched", "original") if i % 2 == 0 else ("original", "patched")):
      r = subprocess.run([sys.executable, __file__, "--one", mode, "--modules",
                          str(args.modules), "--regs", str(args.regs)],
                         check=True, text=True, capture_output=True)
      runs[mode].append(json.loads(r.stdout.splitlines()[-1]))
  med = {m: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
         for m, rs in runs.items()}
  print(f"design: {args.modules} modules x {args.regs} registers; "
        f"{args.runs} runs of each, alternated; medians")
  for k in ("compile", "verify_before", "verify_after"):
    p, o = med["patched"][k], med["original"][k]
    print(f"  {k:14} check on {p * 1e3:9.1f} ms   before the patch {o * 1e3:9.1f} ms"
          f"   ratio {p / o:.3f}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
