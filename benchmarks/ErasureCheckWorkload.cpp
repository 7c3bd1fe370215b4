//===- ErasureCheckWorkload.cpp - Cost of the drivers' erasure checks -----===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parse + rewrite of about N ops with the rewrite drivers' erasure checks off
// or on (23.1.1; greedy: patch 25, walk: 28, dialect conversion: 29,
// Transform interpreter: 28):
//   greedy                 canonicalize (the greedy driver)
//   walk                   walkAndApplyPatterns
//   conversion[-rollback]  applyPartialConversion, one-shot (or with rollback)
//   transform              a Transform script: a handle to every `arith.subi`
//                          and one to every function, then, per function,
//                          canonicalization patterns and CSE; the payload
//                          check of patch 27 runs under the interpreter's
//                          expensive checks, which `expensive` turns on alone
// walk and conversion apply one pattern that replaces each `arith.subi` with
// an `arith.muli` of its operands (a third of the ops).
// benchmarks/CMakeLists.txt builds it three times, each with the drivers
// compiled with it, identically: as patched; as each was before its patch (the
// cost of the patches when off); and with
// MLIR_ENABLE_EXPENSIVE_PATTERN_API_CHECKS (the existing compile-time checks).
// benchmarks/erasure_checks.sh counts the instructions inside
// `weakref_workload` under callgrind.
//
//   weakref-erasure-workload[-before|-expensive] off|on|expensive N [DRIVER]
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace {
enum class Driver {
  Greedy,
  Walk,
  Conversion,
  ConversionRollback,
  Transform,
  Unknown
};

/// The Transform script of the `transform` workload.
constexpr const char *kTransformScript = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @subi(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["arith.subi"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @func(%op: !transform.any_op {transform.readonly})
      -> !transform.any_op {
    transform.match.operation_name %op ["func.func"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.sequence failures(propagate) {
  ^bb0(%root: !transform.any_op):
    %subs = transform.collect_matching @subi in %root
        : (!transform.any_op) -> !transform.any_op
    %funcs = transform.collect_matching @func in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb1(%f: !transform.any_op):
      transform.apply_patterns to %f {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %f : !transform.any_op
    }
  }
}
)mlir";

/// Runs kTransformScript on `payload`, with the interpreter's expensive checks
/// if `expensiveChecks`: 0 on success.
int runTransformScript(ModuleOp payload, bool expensiveChecks) {
  OwningOpRef<ModuleOp> script =
      parseSourceString<ModuleOp>(kTransformScript, payload.getContext());
  if (!script)
    return 1;
  auto sequence =
      cast<transform::TransformOpInterface>(script->getBody()->back());
  return failed(transform::applyTransforms(
      payload, sequence, {},
      transform::TransformOptions().enableExpensiveChecks(expensiveChecks)));
}

/// Replaces `arith.subi` with an `arith.muli` of its operands.
struct SubToMul : public OpRewritePattern<arith::SubIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SubIOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::MulIOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

/// Parses about `n` ops and rewrites them with `driver` (`expensive`: with the
/// Transform interpreter's expensive checks): 0 on success.
int parseAndRewrite(MLIRContext &context, Driver driver, bool expensive,
                    unsigned n) {
  if (driver == Driver::Greedy)
    return weakref::bench::parseAndCanonicalize(context, n);
  std::string text = weakref::bench::foldableChains((n + 99) / 100);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 1;
  if (driver == Driver::Transform)
    return runTransformScript(*module, expensive);
  RewritePatternSet patterns(&context);
  patterns.add<SubToMul>(&context);
  if (driver == Driver::Walk) {
    walkAndApplyPatterns(*module, std::move(patterns));
    return 0;
  }
  ConversionTarget target(context);
  target.addIllegalOp<arith::SubIOp>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  ConversionConfig config;
  config.allowPatternRollback = driver == Driver::ConversionRollback;
  return failed(
      applyPartialConversion(*module, target, std::move(patterns), config));
}
} // namespace

/// `checks`: the erasure checks (for `transform`, with the expensive checks);
/// `expensive`: the Transform interpreter's expensive checks.
extern "C" __attribute__((noinline)) int
weakref_workload(bool checks, bool expensive, Driver driver, unsigned n) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect,
                  transform::TransformDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
#ifndef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  context.enableErasureChecks(checks);
#endif
  return parseAndRewrite(context, driver, checks || expensive, n);
}

int main(int argc, char **argv) {
  bool on = argc >= 3 && !std::strcmp(argv[1], "on");
  bool expensive = argc >= 3 && !std::strcmp(argv[1], "expensive");
  Driver driver = llvm::StringSwitch<Driver>(argc == 4 ? argv[3] : "greedy")
                      .Case("greedy", Driver::Greedy)
                      .Case("walk", Driver::Walk)
                      .Case("conversion", Driver::Conversion)
                      .Case("conversion-rollback", Driver::ConversionRollback)
                      .Case("transform", Driver::Transform)
                      .Default(Driver::Unknown);
  if (argc < 3 || argc > 4 ||
      (!on && !expensive && std::strcmp(argv[1], "off")) ||
      driver == Driver::Unknown || (expensive && driver != Driver::Transform)) {
    llvm::errs() << "usage: " << argv[0]
                 << " off|on N "
                    "[greedy|walk|conversion|conversion-rollback|transform]\n"
                 << "       " << argv[0] << " expensive N transform\n";
    return 2;
  }
#ifdef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  if (on) {
    llvm::errs() << argv[0] << ": error: this build has no erasure checks\n";
    return 2;
  }
#endif
  return weakref_workload(on, expensive, driver,
                          std::strtoul(argv[2], nullptr, 10));
}
