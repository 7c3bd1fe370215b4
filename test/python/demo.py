# RUN: %PYTHON %examples/weakref-demo.py | FileCheck %s
# REQUIRES: python-bindings
# The Python demo that ./setup.sh runs: canonicalize folds the arithmetic and
# erases 7 of 11 ops; their wrappers raise with provenance, the rest survive.

# CHECK: holding 11 wrappers and weak references; running 'builtin.module(canonicalize,cse)'
# Locations name the file; the first constant had its location cleared by
# the folder (it merged the duplicate constant into it) before it died.
# CHECK-NEXT: dead  arith.constant loc("{{.*}}examples/demo.mlir":6:9)
# CHECK-NEXT: RuntimeError: the operation has been erased: `arith.constant` at loc(unknown) erased during pass 'canonicalize'
# CHECK-NEXT: (its location was cleared before it died: MLIR's folder does that to a constant it moves or merges a duplicate into)
# CHECK-NEXT: dead  arith.constant loc("{{.*}}examples/demo.mlir":7:9)
# CHECK-NEXT: RuntimeError: the operation has been erased: `arith.constant` at loc("{{.*}}examples/demo.mlir":7:9) erased during pass 'canonicalize'
# CHECK: dead  arith.muli loc("{{.*}}examples/demo.mlir":12:13)
# CHECK-NEXT: RuntimeError: the operation has been erased: `arith.muli` at loc("{{.*}}examples/demo.mlir":12:13) erased during pass 'canonicalize'
# CHECK-NEXT: alive arith.addi loc("{{.*}}examples/demo.mlir":13:10)
# CHECK-NEXT: alive func.return
# CHECK-NEXT: alive func.func loc("{{.*}}examples/demo.mlir":5:1)
# CHECK-NEXT: alive builtin.module
# CHECK-NEXT: 4 survived, 7 died
# CHECK-NEXT: after dropping the module: 0 alive
