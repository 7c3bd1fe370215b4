# RUN: %PYTHON %s 2>&1 | FileCheck %s
# REQUIRES: python-bindings
"""The package's dialects with what they promise: an interface a dialect
promises and nobody registers aborts the process the first time it is asked
for. Each test asks for one (the lowerings to LLVM, runtime verification,
indexed access) through a Transform script or a pass a user would run."""

import os
import sys

from mlir.dialects import transform  # noqa: F401
from mlir.dialects.transform import interpreter
from mlir.ir import Context, Location, Module
from mlir.passmanager import PassManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import log, run  # noqa: E402


TO_LLVM = """
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %f = transform.structured.match ops{{["func.func"]}} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_conversion_patterns to %f {{
      transform.apply_conversion_patterns.dialect_to_llvm "{dialect}"
    }} with type_converter {{
      transform.apply_conversion_patterns.memref.memref_to_llvm_type_converter
    }} {{legal_dialects = ["llvm"], partial_conversion}} : !transform.any_op
    transform.yield
  }}
}}
"""


# CHECK-LABEL: TEST: testLoweringsToLLVM
@run
def testLoweringsToLLVM():
    # Parsing verifies each script, and the verifier asks the dialect for its
    # lowering (vector's is not built: see docs/REFERENCE.md).
    with Context(), Location.unknown():
        for dialect in ("arith", "cf", "complex", "func", "index", "math",
                        "memref", "ub"):

            Module.parse(TO_LLVM.format(dialect=dialect))
            # CHECK: arith: verified
            # CHECK: ub: verified
            log(f"{dialect}: verified")
        payload = Module.parse("""
          func.func @f(%a: i32) -> i32 {
            %0 = arith.addi %a, %a : i32
            return %0 : i32
          }""")
        script = Module.parse(TO_LLVM.format(dialect="arith"))
        interpreter.apply_named_sequence(
            payload.operation, script.body.operations[0], script)
        # CHECK: lowered: llvm.add
        log("lowered:", " ".join(
            op.name for op in payload.body.operations[0].regions[0].blocks[0]
            if op.name.startswith("llvm.")))


# CHECK-LABEL: TEST: testRuntimeVerification
@run
def testRuntimeVerification():
    with Context(), Location.unknown():
        module = Module.parse("""
          func.func @f(%m: memref<?xf32>, %t: tensor<?xf32>, %i: index) -> (memref<4xf32>, f32) {
            %0 = memref.cast %m : memref<?xf32> to memref<4xf32>
            %1 = tensor.extract %t[%i] : tensor<?xf32>
            return %0, %1 : memref<4xf32>, f32
          }""")
        PassManager.parse("builtin.module(generate-runtime-verification)").run(
            module.operation)
        # CHECK: asserts: True
        log("asserts:", "cf.assert" in str(module))


# CHECK-LABEL: TEST: testFoldMemRefAliasOps
@run
def testFoldMemRefAliasOps():
    with Context(), Location.unknown():
        module = Module.parse("""
          func.func @f(%m: memref<8x8xf32>, %i: index) -> vector<4xf32> {
            %s = memref.subview %m[2, 2] [4, 4] [1, 1]
                : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 18>>
            %v = vector.load %s[%i, %i]
                : memref<4x4xf32, strided<[8, 1], offset: 18>>, vector<4xf32>
            return %v : vector<4xf32>
          }""")
        PassManager.parse("builtin.module(func.func(fold-memref-alias-ops))").run(
            module.operation)
        # CHECK: subview folded away: True
        log("subview folded away:", "memref.subview" not in str(module))
