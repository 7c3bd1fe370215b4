// RUN: not weakref-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: not weakref-opt %S/does-not-exist.mlir --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=FILE

// PASS: 'no-such-pass' does not refer to a registered pass
// FILE: weakref-opt: cannot open input file
func.func @h() {
  return
}
