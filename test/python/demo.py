# RUN: %PYTHON %examples/weakref-demo.py | FileCheck %s
# REQUIRES: python-bindings
# The Python demo that ./setup.sh runs: canonicalize folds the arithmetic and
# erases 7 of 11 ops; their wrappers raise with provenance, the rest survive.

# CHECK: holding 11 wrappers and weak references; running 'builtin.module(canonicalize,cse)'
# CHECK: dead  RuntimeError: the operation has been erased: `arith.constant` at loc({{.*}}) erased during pass 'canonicalize'
# CHECK: dead  RuntimeError: the operation has been erased: `arith.muli` at loc("-":12:13) erased during pass 'canonicalize'
# CHECK: alive arith.addi
# CHECK-NEXT: alive func.return
# CHECK-NEXT: alive func.func
# CHECK-NEXT: alive builtin.module
# CHECK-NEXT: 4 survived, 7 died
# CHECK-NEXT: after dropping the module: 0 alive
