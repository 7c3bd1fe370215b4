#!/usr/bin/env python3
#  Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
#  Exceptions.
"""The demo from Python: holds a wrapper and a weak reference for every op of
a module, runs a real pass pipeline with erasure provenance on, and prints
which ops died (and what erased them) and which survived. Touching a dead
op's wrapper raises instead of crashing.

  PYTHONPATH=build/python_packages/mlir_core /usr/bin/python3 examples/weakref-demo.py \\
      [file.mlir] [--pass-pipeline=PIPELINE]
"""
import argparse
import gc
import os

from mlir import weakref
from mlir.ir import Context, Location, Module, WalkResult
from mlir.passmanager import PassManager

# The input shared with the C++ demo (weakref-demo compiles it in).
DEFAULT_INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.mlir")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?")
    parser.add_argument("--pass-pipeline", default="builtin.module(canonicalize,cse)")
    args = parser.parse_args()
    with open(args.input or DEFAULT_INPUT) as f:
        source = f.read()

    with Context() as ctx, Location.unknown():
        ctx.enable_multithreading(False)
        module = Module.parse(source)
        ops = []

        def collect(op):
            ops.append(op.operation)
            return WalkResult.ADVANCE

        module.operation.walk(collect)
        refs = [weakref.ref(op) for op in ops]
        print(f"holding {len(ops)} wrappers and weak references; running "
              f"'{args.pass_pipeline}'")
        with weakref.ErasureProvenance(ctx) as provenance:
            pm = PassManager.parse(args.pass_pipeline)
            provenance.instrument(pm)
            pm.run(module.operation)
            for op, ref in zip(ops, refs):
                if ref() is not None:
                    print(f"alive {op.name}")
                    continue
                try:
                    op.name
                except RuntimeError as e:
                    print(f"dead  RuntimeError: {e}")
        alive = sum(r.alive for r in refs)
        print(f"{alive} survived, {len(refs) - alive} died")
        # Wrappers of attached ops keep their module alive: drop them too.
        ops.clear()
        del module, op
        gc.collect()
        print(f"after dropping the module: {sum(r.alive for r in refs)} alive")


if __name__ == "__main__":
    main()
