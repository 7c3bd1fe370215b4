# RUN: %PYTHON %s 2>&1 | FileCheck %s
# REQUIRES: python-bindings
"""The Python snippets of README.md, run as they are quoted there
(test/repo/check-readme.py checks that README.md quotes these regions
verbatim)."""

import sys

from mlir.ir import Context, Location, Module
from mlir.passmanager import PassManager

src = """
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %unused = arith.muli %a, %a : i32
  %r = arith.addi %a, %c : i32
  return %r : i32
}
"""

try:
    # [readme:python-erased]
    with Context(), Location.unknown():
        module = Module.parse(src)
        mul = module.body.operations[0].regions[0].blocks[0].operations[1]
        PassManager.parse("builtin.module(canonicalize)").run(
            module.operation)
        mul.name
    # [/readme:python-erased]
    raise AssertionError("an erased op is usable")
except RuntimeError as e:
    # CHECK: python-erased: RuntimeError: the operation has been erased
    print("python-erased: RuntimeError:", e)

# [readme:python-weakref]
from mlir import weakref

with Context() as ctx, Location.unknown():
    module = Module.parse(src)
    ops = [op.operation for op in module.body.operations[0].regions[0].blocks[0]]
    refs = [weakref.ref(op) for op in ops]            # do not keep ops alive
    names = weakref.WeakOpKeyDictionary({op: op.name for op in ops})
    with weakref.ErasureProvenance(ctx) as provenance:  # optional
        pm = PassManager.parse("builtin.module(canonicalize)")
        provenance.instrument(pm)
        pm.run(module.operation)
        for r in refs:
            print(r() is not None, provenance.describe(r))
    print(list(names.values()))                        # ['func.return']
# [/readme:python-weakref]
# CHECK: False `arith.constant` at loc("-":3:8) erased during pass 'canonicalize'
# CHECK-NEXT: False `arith.muli` at loc("-":4:13) erased during pass 'canonicalize'
# CHECK-NEXT: False `arith.addi` at loc("-":5:8) erased during pass 'canonicalize'
# CHECK-NEXT: True None
# CHECK-NEXT: ['func.return']
