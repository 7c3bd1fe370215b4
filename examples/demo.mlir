// The demo's input, shared by weakref-demo (C++, compiled in) and
// examples/weakref-demo.py: canonicalize folds the arithmetic and cse
// merges the duplicate constant, so several ops die while the function and
// its return survive.
func.func @demo(%arg0: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c1_again = arith.constant 1 : i32
  %sum = arith.addi %c1, %c2 : i32
  %zero = arith.subi %c1, %c1_again : i32
  %x = arith.addi %arg0, %zero : i32
  %unused = arith.muli %x, %sum : i32
  %res = arith.addi %x, %sum : i32
  return %res : i32
}
