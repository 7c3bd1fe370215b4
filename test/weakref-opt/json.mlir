// RUN: weakref-opt %s --pass-pipeline='builtin.module(cse)' --json | FileCheck %s
// RUN: weakref-opt %s --pass-pipeline='builtin.module(cse)' --json | %PYTHON -c "import json, sys; r = json.load(sys.stdin); assert r['tracked'] == 5 and [d['index'] for d in r['passes'][0]['died']] == [3] and len(r['survived']) == 4, r"

// cse replaces %b by the identical %a.
// CHECK:      "tracked": 5,
// CHECK:      "pass": "cse",
// CHECK-NEXT: "died": [
// CHECK-NEXT:   {
// CHECK-NEXT:     "index": 3,
// CHECK-NEXT:     "name": "arith.constant",
// CHECK-NEXT:     "location": "loc(\"{{.*}}json.mlir\":15:8)"
// CHECK:      "survived": [
func.func @g() -> (i32, i32) {
  %a = arith.constant 7 : i32
  %b = arith.constant 7 : i32
  return %a, %b : i32, i32
}
