// The Transform interpreter's payload check (--mlir-check-erasures, with the
// expensive checks, on by default): a transform op that erases a payload op
// a handle maps without the tracking listener fails the interpreter pass, and
// the tool exits non-zero; through the TransformRewriter nothing is reported.
// REQUIRES: erasure-checks

// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --transform-interpreter=entry-point=erase_directly 2>&1 \
// RUN: | FileCheck %s --check-prefix=DIRECT
// DIRECT: error: 'transform.test_erase_payload' erased payload op 'test.victim' without notifying the tracking listener (erase payload ops through the TransformRewriter)
// DIRECT: note: erased payload op
// DIRECT: note: it was associated with handle operand #0 of 'transform.test_erase_payload'
// DIRECT-NOT: test.other

// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --transform-interpreter=entry-point=erase_through_rewriter 2>&1 \
// RUN: | FileCheck %s --check-prefix=REWRITER
// REWRITER-NOT: error
// REWRITER-NOT: "test.victim"
// REWRITER: "test.other"() : () -> ()

module attributes {transform.with_named_sequence} {
  "test.victim"() : () -> ()
  "test.other"() : () -> ()

  transform.named_sequence @victim(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["test.victim"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @erase_directly(%root: !transform.any_op {transform.readonly}) {
    %v = transform.collect_matching @victim in %root
        : (!transform.any_op) -> !transform.any_op
    "transform.test_erase_payload"(%v) : (!transform.any_op) -> ()
    transform.yield
  }
  transform.named_sequence @erase_through_rewriter(%root: !transform.any_op {transform.readonly}) {
    %v = transform.collect_matching @victim in %root
        : (!transform.any_op) -> !transform.any_op
    "transform.test_erase_payload"(%v) {through_rewriter} : (!transform.any_op) -> ()
    transform.yield
  }
}
