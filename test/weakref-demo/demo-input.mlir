// The demo on its input, examples/demo.mlir: compiled in (no argument) and
// read from the file (the Python demo's way), with the same result.
// RUN: weakref-demo | FileCheck %s
// RUN: weakref-demo %examples/demo.mlir | FileCheck %s
// RUN: weakref-demo --pass-pipeline='builtin.module(cse)' | FileCheck %s --check-prefix=CSE

// canonicalize folds the arithmetic: the constants, the folded addi and subi,
// the addi of a zero and the unused muli die; the function, the addi that
// uses the folded value and the return survive.
// CHECK: holding weak references to 11 operations; running 'builtin.module(canonicalize,cse)'
// CHECK-NEXT: alive builtin.module
// CHECK-NEXT: alive func.func
// CHECK-NEXT: dead  arith.constant loc("{{.*}}demo.mlir":6:9)
// CHECK-NEXT: dead  arith.constant
// CHECK-NEXT: dead  arith.constant
// CHECK-NEXT: dead  arith.addi
// CHECK-NEXT: dead  arith.subi
// CHECK-NEXT: dead  arith.addi
// CHECK-NEXT: dead  arith.muli
// CHECK-NEXT: alive arith.addi
// CHECK-NEXT: alive func.return
// CHECK-NEXT: 4 survived, 7 died
// CHECK-NEXT: after destroying the module: 0 alive

// cse alone merges the duplicate constant, which leaves the muli trivially
// dead.
// CSE: dead  arith.constant loc("{{.*}}demo.mlir":8:15)
// CSE: dead  arith.muli
// CSE: 9 survived, 2 died
