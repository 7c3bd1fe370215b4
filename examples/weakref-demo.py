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
from mlir.ir import Context, Location, Module, Operation, WalkResult
from mlir.passmanager import PassManager

# The input shared with the C++ demo (weakref-demo compiles it in).
DEFAULT_INPUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo.mlir")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", default=DEFAULT_INPUT)
    parser.add_argument("--pass-pipeline", default="builtin.module(canonicalize,cse)")
    args = parser.parse_args()
    with open(args.input) as f:
        source = f.read()

    with Context() as ctx, Location.unknown():
        ctx.enable_multithreading(False)
        # Parsed with the file's name, so that locations name the file; a
        # file without a top-level module gets one, as Module.parse does.
        parsed = Operation.parse(source, source_name=args.input)
        if parsed.operation.name == "builtin.module":
            module = parsed
        else:
            module = Module.create(Location.file(args.input, 1, 1))
            module.body.append(parsed)
            del parsed
        ops, parsed = [], []

        def collect(op):
            ops.append(op.operation)
            parsed.append(f"{op.name} {op.location}")
            return WalkResult.ADVANCE

        module.operation.walk(collect)
        refs = [weakref.ref(op) for op in ops]
        print(f"holding {len(ops)} wrappers and weak references; running "
              f"'{args.pass_pipeline}'")
        with weakref.ErasureProvenance(ctx) as provenance:
            pm = PassManager.parse(args.pass_pipeline)
            provenance.instrument(pm)
            pm.run(module.operation)
            for op, ref, what in zip(ops, refs, parsed):
                if ref() is not None:
                    print(f"alive {what}")
                    continue
                try:
                    op.name
                except RuntimeError as e:
                    print(f"dead  {what}\n      RuntimeError: {e}")
                    if ("constant` at loc(unknown)" in str(e)
                            and not what.endswith("loc(unknown)")):
                        # MLIR's folder (OperationFolder) resets to unknown
                        # the location of a constant it moves to the top of
                        # its region or merges a duplicate into.
                        print("      (its location was cleared before it died: "
                              "MLIR's folder does that to a constant it moves "
                              "or merges a duplicate into)")
        alive = sum(r.alive for r in refs)
        print(f"{alive} survived, {len(refs) - alive} died")
        # Wrappers of ops nested in it keep the module alive: drop them too.
        ops.clear()
        del module, op
        gc.collect()
        print(f"after dropping the module: {sum(r.alive for r in refs)} alive")


if __name__ == "__main__":
    main()
