// transform.alternatives erases the clones of a failed alternative directly:
// with the erasure checks on, not reported (the alternative's scope, whose
// block argument mapped the clones, has ended), and the interpreter goes on
// to the next alternative, whose clone replaces the scope.
// REQUIRES: erasure-checks

// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --transform-interpreter 2>&1 | FileCheck %s
// CHECK-NOT: error
// CHECK: module @scope
// CHECK-NEXT: "test.victim"() : () -> ()

module attributes {transform.with_named_sequence} {
  module @scope {
    "test.victim"() : () -> ()
  }

  transform.named_sequence @victim(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["test.victim"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %v = transform.collect_matching @victim in %root
        : (!transform.any_op) -> !transform.any_op
    %m = transform.get_parent_op %v {isolated_from_above}
        : (!transform.any_op) -> !transform.any_op
    transform.alternatives %m : !transform.any_op {
    ^bb0(%arg: !transform.any_op):
      // Maps the clone's victim, then fails silenceably: the clones are
      // erased and the next alternative is tried.
      %n = transform.collect_matching @victim in %arg
          : (!transform.any_op) -> !transform.any_op
      transform.match.operation_name %arg ["func.func"] : !transform.any_op
    }, {
    ^bb0(%arg: !transform.any_op):
    }
    transform.yield
  }
}
