// RUN: weakref-demo %s | FileCheck %s
// RUN: weakref-demo %s --pass-pipeline='builtin.module(cse)' | FileCheck %s --check-prefix=CSE

// canonicalize folds 1 + 2 into a new constant, so the old constants, the
// folded addi and the unused muli die; the function, the addi that uses the
// folded value and the return survive.
// CHECK: holding weak references to 9 operations; running 'builtin.module(canonicalize,cse)'
// CHECK-NEXT: alive builtin.module
// CHECK-NEXT: alive func.func
// CHECK-NEXT: dead  arith.constant loc("{{.*}}demo.mlir":{{[0-9]+}}:{{[0-9]+}})
// CHECK-NEXT: dead  arith.constant
// CHECK-NEXT: dead  arith.constant
// CHECK-NEXT: dead  arith.muli
// CHECK-NEXT: dead  arith.addi
// CHECK-NEXT: alive arith.addi
// CHECK-NEXT: alive func.return
// CHECK-NEXT: 4 survived, 5 died
// CHECK-NEXT: after destroying the module: 0 alive

// cse merges the duplicate constant, which leaves the muli trivially dead.
// CSE: 7 survived, 2 died
func.func @f(%arg0: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c1_again = arith.constant 1 : i32
  %unused = arith.muli %arg0, %c1_again : i32
  %sum = arith.addi %c1, %c2 : i32
  %x = arith.addi %arg0, %sum : i32
  return %x : i32
}
