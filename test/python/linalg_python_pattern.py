# RUN: %PYTHON %s 2>&1 | FileCheck %s
# REQUIRES: python-bindings, python-rewrite-patterns
"""A Python rewrite pattern that replaces a linalg op: wrappers of the op and
its results raise afterwards."""

import os
import sys

from mlir.dialects import func, linalg, tensor  # noqa: F401 (OpView classes)
from mlir.ir import Context, Location, Module
from mlir.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import log, run, expect_erased, find  # noqa: E402


MATMUL = """
func.func @mm(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
"""


# CHECK-LABEL: TEST: testPythonPatternOnLinalg
@run
def testPythonPatternOnLinalg():
    with Context(), Location.unknown():
        payload = Module.parse(MATMUL)
        matmul = find(payload, "linalg.matmul")[0]
        held = matmul.results[0]

        def replace_by_init(op, rewriter):
            # A (wrong but valid) rewrite: the result becomes the init.
            rewriter.replace_op(op, [op.operands[2]])
            return True

        patterns = RewritePatternSet()
        patterns.add("linalg.matmul", replace_by_init)
        apply_patterns_and_fold_greedily(payload, patterns.freeze())
        # CHECK: rewritten matmul: RuntimeError: the operation has been erased
        expect_erased("rewritten matmul", lambda: matmul.name)
        # CHECK: its held result: RuntimeError: the value has been erased
        expect_erased("its held result", lambda: held.type)
        # CHECK: matmuls left: 0
        log("matmuls left:", len(find(payload, "linalg.matmul")))
