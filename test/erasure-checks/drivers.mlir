// Every rewrite driver's erasure checks fail the pass that ran the driver,
// though the pass ignores the driver's result, and the tool exits non-zero
// without printing the module; correct patterns with the checks on change
// nothing. erasure-check-opt is MlirOptMain, the driver of mlir-opt.
// REQUIRES: erasure-checks

// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=greedy erase=next-directly" 2>&1 \
// RUN: | FileCheck %s --check-prefix=GREEDY
// GREEDY: error: pattern 'EraseNextDirectly' erased 'test.victim' without notifying the rewriter, while rewriting 'test.root'
// GREEDY-NOT: test.other

// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=walk erase=next-directly" 2>&1 \
// RUN: | FileCheck %s --check-prefix=WALK
// WALK: error: pattern 'EraseNextDirectly' erased 'test.victim' without notifying the rewriter; erase operations through the rewriter (e.g. RewriterBase::eraseOp); the walk pattern rewrite driver stops
// WALK-NOT: test.other

// Through the rewriter, but not the matched op: unsupported by the walk.
// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=walk erase=next" 2>&1 \
// RUN: | FileCheck %s --check-prefix=WALKTHROUGH
// WALKTHROUGH: error: pattern 'EraseNext' erased 'test.victim', which the walk visits later; the walk pattern rewrite driver supports erasing only the matched operation and the operations nested in it; the walk pattern rewrite driver stops

// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=conversion erase=next-directly" 2>&1 \
// RUN: | FileCheck %s --check-prefix=CONVERSION
// RUN: not erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=conversion-rollback erase=next-directly" 2>&1 \
// RUN: | FileCheck %s --check-prefix=CONVERSION
// CONVERSION: error: pattern 'EraseNextDirectly' erased 'test.victim' without notifying the rewriter; erase operations through the rewriter (e.g. ConversionPatternRewriter::eraseOp); the dialect conversion stops
// CONVERSION-NOT: test.other

// Correct patterns, checks on: the pass succeeds, silently.
// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=greedy erase=next" 2>&1 | FileCheck %s --check-prefix=OK
// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=walk erase=root" 2>&1 | FileCheck %s --check-prefix=OK-WALK
// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=conversion erase=next" 2>&1 | FileCheck %s --check-prefix=OK
// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --test-erase="driver=conversion-rollback erase=next" 2>&1 | FileCheck %s --check-prefix=OK
// RUN: erasure-check-opt %s --allow-unregistered-dialect --mlir-check-erasures \
// RUN:   --canonicalize 2>&1 | FileCheck %s --check-prefix=OK-CANON
// OK-NOT: error
// OK-NOT: test.root
// OK-NOT: test.victim
// OK: "test.other"() : () -> ()
// OK-WALK-NOT: error
// OK-WALK-NOT: test.root
// OK-WALK: "test.victim"() : () -> ()
// OK-WALK: "test.other"() : () -> ()
// OK-CANON-NOT: error
// OK-CANON: "test.root"() : () -> ()

// Bad input: a clear error, and the pass fails.
// RUN: not erasure-check-opt %s --allow-unregistered-dialect \
// RUN:   --test-erase="driver=bogus" 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: unknown driver 'bogus'; expected greedy, walk, conversion or conversion-rollback

"test.root"() : () -> ()
"test.victim"() : () -> ()
"test.other"() : () -> ()
