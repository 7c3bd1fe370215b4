//===- ErasureCheckWorkload.cpp - Cost of the drivers' erasure checks -----===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parse + rewrite of about N ops with the rewrite drivers' erasure checks off
// or on (23.1.1; greedy: patch 26, walk: 29, dialect conversion: 30):
//   greedy                 canonicalize (the greedy driver)
//   walk                   walkAndApplyPatterns
//   conversion[-rollback]  applyPartialConversion, one-shot (or with rollback)
// walk and conversion apply one pattern that replaces each `arith.subi` with
// an `arith.muli` of its operands (a third of the ops).
// benchmarks/CMakeLists.txt builds it three times, each with the drivers
// compiled with it, identically: as patched; as each was before its patch (the
// cost of the patches when off); and with
// MLIR_ENABLE_EXPENSIVE_PATTERN_API_CHECKS (the existing compile-time checks).
// benchmarks/erasure_checks.sh counts the instructions inside
// `weakref_workload` under callgrind.
//
//   weakref-erasure-workload[-before|-expensive] off|on N [DRIVER]
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

namespace {
enum class Driver { Greedy, Walk, Conversion, ConversionRollback, Unknown };

/// Replaces `arith.subi` with an `arith.muli` of its operands.
struct SubToMul : public OpRewritePattern<arith::SubIOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::SubIOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::MulIOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};

/// Parses about `n` ops and rewrites them with `driver`: 0 on success.
int parseAndRewrite(MLIRContext &context, Driver driver, unsigned n) {
  if (driver == Driver::Greedy)
    return weakref::bench::parseAndCanonicalize(context, n);
  std::string text = weakref::bench::foldableChains((n + 99) / 100);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 1;
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

extern "C" __attribute__((noinline)) int
weakref_workload(bool checks, Driver driver, unsigned n) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
#ifndef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  context.enableErasureChecks(checks);
#endif
  return parseAndRewrite(context, driver, n);
}

int main(int argc, char **argv) {
  bool on = argc >= 3 && !std::strcmp(argv[1], "on");
  Driver driver = llvm::StringSwitch<Driver>(argc == 4 ? argv[3] : "greedy")
                      .Case("greedy", Driver::Greedy)
                      .Case("walk", Driver::Walk)
                      .Case("conversion", Driver::Conversion)
                      .Case("conversion-rollback", Driver::ConversionRollback)
                      .Default(Driver::Unknown);
  if (argc < 3 || argc > 4 || (!on && std::strcmp(argv[1], "off")) ||
      driver == Driver::Unknown) {
    llvm::errs() << "usage: " << argv[0]
                 << " off|on N [greedy|walk|conversion|conversion-rollback]\n";
    return 2;
  }
#ifdef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  if (on) {
    llvm::errs() << argv[0] << ": error: this build has no erasure checks\n";
    return 2;
  }
#endif
  return weakref_workload(on, driver, std::strtoul(argv[2], nullptr, 10));
}
