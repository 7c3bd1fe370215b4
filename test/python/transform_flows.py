# RUN: %PYTHON %s 2>&1 | FileCheck %s
# REQUIRES: python-bindings
"""Python objects held across the Transform interpreter, transform.apply_patterns,
and canonicalize of loops: each raises for what C++ destroyed and keeps
working for what lived (a Python pattern on linalg: linalg_python_pattern.py)."""

import gc
import os
import sys

from mlir import weakref
# The dialects' modules make wrappers their OpView classes, as users hold them.
from mlir.dialects import arith, func, linalg, memref, scf, tensor  # noqa: F401
from mlir.dialects.transform import interpreter
from mlir.ir import Context, Location, Module
from mlir.passmanager import PassManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import log, run, expect_erased, find  # noqa: E402


MATMUL = """
func.func @mm(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""

TILE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loops:2 = transform.structured.tile_using_for %mm tile_sizes [2, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


# CHECK-LABEL: TEST: testTiledOpDies
@run
def testTiledOpDies():
    with Context(), Location.unknown():
        payload = Module.parse(MATMUL)
        script = Module.parse(TILE)
        fn = payload.body.operations[0]
        block = fn.regions[0].blocks[0]
        matmul = block.operations[0]
        result = matmul.results[0]
        operands = matmul.operands
        # %a's use by the matmul dies with it; %r's use by the return lives.
        dead_use = list(block.arguments[0].uses)[0]
        live_use = list(result.uses)[0]
        ref = weakref.ref(matmul)
        ret = block.operations[1]
        # The matmul's own region and block (its payload), and an iterator
        # whose next op is the matmul.
        body_region = matmul.regions[0]
        body_block = body_region.blocks[0]
        it = iter(block.operations)
        interpreter.apply_named_sequence(
            payload.operation, script.body.operations[0], script)
        # CHECK: matmul: RuntimeError: the operation has been erased
        expect_erased("matmul", lambda: matmul.name)
        # CHECK: its result: RuntimeError: the value has been erased
        expect_erased("its result", lambda: result.type)
        # CHECK: its operands: RuntimeError: the operation has been erased
        expect_erased("its operands", lambda: operands[0])
        # CHECK: its use of %a: RuntimeError: the operation owning the operand has been erased
        expect_erased("its use of %a", lambda: dead_use.owner)
        # CHECK: its region: RuntimeError: the operation has been erased
        expect_erased("its region", lambda: list(body_region.blocks))
        # CHECK: its block: RuntimeError: the block has been erased
        expect_erased("its block", lambda: list(body_block.operations))
        # CHECK: iterator at it: RuntimeError: the next operation of the iteration has been erased
        expect_erased("iterator at it", lambda: next(it))
        # CHECK: ref alive: False
        log("ref alive:", ref.alive)
        # What lived: the function, its block, the return (now of the loop).
        # CHECK: return operand: scf.for
        log("return operand:", ret.operands[0].owner.name)
        # CHECK: use of %r, now of the loop: func.return #0
        log("use of %r, now of the loop:", live_use.owner.name,
            f"#{live_use.operand_number}")
        # CHECK: block ops: {{(arith.constant )+}}scf.for func.return
        log("block ops:", " ".join(op.name for op in block.operations))
        # CHECK: tiled matmuls: 1
        log("tiled matmuls:", len(find(payload, "linalg.matmul")))
        payload.operation.verify()


# CHECK-LABEL: TEST: testTransformHandlesPastTheScript
@run
def testTransformHandlesPastTheScript():
    with Context(), Location.unknown():
        payload = Module.parse(MATMUL)
        script = Module.parse(TILE)
        sequence = script.body.operations[0]
        entry = sequence.regions[0].blocks[0]
        handle = entry.arguments[0]
        match = entry.operations[0]
        interpreter.apply_named_sequence(payload.operation, sequence, script)
        # The script is still there: its handles are usable.
        # CHECK: handle type: !transform.any_op
        log("handle type:", handle.type)
        # CHECK: match result type: !transform.any_op
        log("match result type:", match.results[0].type)
        # Dropping the script destroys it: what was held of it raises.
        del script, sequence, entry
        gc.collect()
        # CHECK: handle after the script: RuntimeError: the value has been erased
        expect_erased("handle after the script", lambda: handle.type)
        # CHECK: match after the script: RuntimeError: the operation has been erased
        expect_erased("match after the script", lambda: match.name)


APPLY_PATTERNS = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %f {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
"""

FOLDABLE = """
func.func @f(%x: index) -> index {
  %c0 = arith.constant 0 : index
  %s = arith.addi %x, %c0 : index
  %d = arith.muli %s, %s : index
  return %s : index
}
"""


# CHECK-LABEL: TEST: testApplyPatternsCanonicalization
@run
def testApplyPatternsCanonicalization():
    with Context(), Location.unknown():
        payload = Module.parse(FOLDABLE)
        script = Module.parse(APPLY_PATTERNS)
        block = payload.body.operations[0].regions[0].blocks[0]
        const, add, mul, ret = list(block.operations)
        it = iter(block.operations)
        interpreter.apply_named_sequence(
            payload.operation, script.body.operations[0], script)
        for name, op in (("constant", const), ("addi", add), ("muli", mul)):
            # CHECK: constant: RuntimeError: the operation has been erased
            # CHECK: addi: RuntimeError: the operation has been erased
            # CHECK: muli: RuntimeError: the operation has been erased
            expect_erased(name, lambda: op.name)
        # The iterator's next op (the constant) is gone.
        # CHECK: iterator: RuntimeError: the next operation of the iteration has been erased
        expect_erased("iterator", lambda: next(it))
        # CHECK: return operand is the argument: True
        log("return operand is the argument:",
            ret.operands[0] == block.arguments[0])


UNROLL = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loop = transform.structured.match ops{["scf.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.loop.unroll %loop {factor = 2} : !transform.any_op
    transform.apply_cse to %root : !transform.any_op
    transform.yield
  }
}
"""

COUNTED_LOOP = """
func.func @counted(%m: memref<8xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c0_dup = arith.constant 0 : index
  scf.for %i = %c0 to %c8 step %c1 {
    memref.store %i, %m[%i] : memref<8xindex>
  }
  return
}
"""


# CHECK-LABEL: TEST: testUnrollAndCSE
@run
def testUnrollAndCSE():
    with Context(), Location.unknown():
        payload = Module.parse(COUNTED_LOOP)
        script = Module.parse(UNROLL)
        fn_block = payload.body.operations[0].regions[0].blocks[0]
        c0, c1, c8, c0_dup = list(fn_block.operations)[:4]
        loop = find(payload, "scf.for")[0]
        iv = loop.regions[0].blocks[0].arguments[0]
        store = loop.regions[0].blocks[0].operations[0]
        interpreter.apply_named_sequence(
            payload.operation, script.body.operations[0], script)
        # Unrolling keeps the loop, its body and the first store, and adds one.
        stores = sum(op.name == "memref.store" for op in loop.regions[0].blocks[0])
        # CHECK: loop: scf.for, stores in body: 2
        log(f"loop: {loop.name}, stores in body: {stores}")
        # The first store's two uses of %i and the new iteration's %i + 1.
        # CHECK: iv uses: 3, store: memref.store
        log(f"iv uses: {len(list(iv.uses))}, store: {store.name}")
        # CSE erased the duplicate constant and kept the first.
        # CHECK: duplicate constant: RuntimeError: the operation has been erased
        expect_erased("duplicate constant", lambda: c0_dup.name)
        # CHECK: first constant: arith.constant
        log("first constant:", c0.name)
        payload.operation.verify()


LOOP = """
func.func @loop(%lb: index, %ub: index) {
  %c1 = arith.constant 1 : index
  scf.for %i = %lb to %ub step %c1 {
    %unused = arith.addi %i, %i : index
  }
  return
}
"""


# CHECK-LABEL: TEST: testLoopErasedByCanonicalize
@run
def testLoopErasedByCanonicalize():
    with Context(), Location.unknown():
        module = Module.parse(LOOP)
        loop = find(module, "scf.for")[0]
        iv = loop.regions[0].blocks[0].arguments[0]
        body = loop.regions[0].blocks[0]
        region = loop.regions[0]
        inner = body.operations[0]
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        # CHECK: loop: RuntimeError: the operation has been erased
        expect_erased("loop", lambda: loop.name)
        # CHECK: induction variable: RuntimeError: the value has been erased
        expect_erased("induction variable", lambda: iv.type)
        # CHECK: loop body: RuntimeError: the block has been erased
        expect_erased("loop body", lambda: list(body.operations))
        # CHECK: loop region: RuntimeError: the operation has been erased
        expect_erased("loop region", lambda: list(region.blocks))
        # CHECK: inner op: RuntimeError: the operation has been erased
        expect_erased("inner op", lambda: inner.name)
        # CHECK: function body now: func.return
        log("function body now:", " ".join(
            op.name for op in module.body.operations[0].regions[0].blocks[0]))
