// RUN: weakref-opt %s --pass-pipeline='builtin.module(cse,func.func(canonicalize),symbol-dce)' | FileCheck %s
// RUN: weakref-opt %s --mlir-disable-threading --pass-pipeline='builtin.module(cse,func.func(canonicalize),symbol-dce)' | FileCheck %s

// Locations are lines of this file; the function starts on line 22.
// cse drops the unused %c1, and the muli it finds dead (its operand is kept).
// CHECK:      tracking 12 operations
// CHECK-NEXT: pass cse: 2 died
// CHECK-NEXT:   died: arith.constant loc("{{.*}}per-pass.mlir":23:9)
// CHECK-NEXT:   died: arith.muli loc("{{.*}}per-pass.mlir":25:13)
// canonicalize folds %arg0 + 0, the branch on a constant, and dead constants.
// CHECK-NEXT: pass func.func(canonicalize{{.*}}): 5 died
// CHECK-DAG:    died: arith.constant loc("{{.*}}per-pass.mlir":24:15)
// CHECK-DAG:    died: arith.addi loc("{{.*}}per-pass.mlir":27:8)
// CHECK-DAG:    died: cf.cond_br loc("{{.*}}per-pass.mlir":29:3)
// symbol-dce erases the unused private function and its body.
// CHECK:      pass symbol-dce: 2 died
// CHECK-NEXT:   died: func.func loc("{{.*}}per-pass.mlir":33:1)
// CHECK-NEXT:   died: func.return loc("{{.*}}per-pass.mlir":34:3)
// CHECK-NEXT: survived: 3 of 12
// CHECK-NEXT:   alive: builtin.module
// CHECK-NEXT:   alive: func.func loc("{{.*}}per-pass.mlir":22:1)
func.func @f(%arg0: i32, %b: i1) -> i32 {
  %c1 = arith.constant 1 : i32
  %c1_again = arith.constant 1 : i32
  %unused = arith.muli %arg0, %c1_again : i32
  %c0 = arith.constant 0 : i32
  %x = arith.addi %arg0, %c0 : i32
  %true = arith.constant true
  cf.cond_br %true, ^bb1, ^bb1
^bb1:
  return %x : i32
}
func.func private @dead_private() {
  return
}
// CHECK-NEXT:   alive: func.return loc("{{.*}}per-pass.mlir":31:3)
