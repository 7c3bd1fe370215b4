//===- erasure-check-opt.cpp - mlir-opt with patterns that erase wrongly --===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A test tool: MLIR's `MlirOptMain`, the driver of mlir-opt and of every
// downstream *-opt tool (so `--mlir-check-erasures` is the option they all
// have), with canonicalize, the Transform interpreter and one test pass. The
// pass runs a pattern rooted at `test.root` that erases the root through the
// rewriter, with the rewrite driver chosen by its `driver` option, and ignores
// the driver's result, as canonicalize and many other passes do:
//
//   --test-erase="driver=greedy|walk|conversion|conversion-rollback
//                 erase=root|next|next-directly"
//
// `next` also erases the op after the root through the rewriter (which the
// walk driver does not support), `next-directly` with `Operation::erase`,
// behind the rewriter's back: run those with `--mlir-check-erasures` only
// (without, they are the use-after-free the checks exist to report).
//
// For the Transform interpreter, `transform.test_erase_payload` erases the
// payload ops of its operand (read only) directly, or with `through_rewriter`
// through the TransformRewriter.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Transform/Interfaces/TransformInterfaces.h"
#include "mlir/Dialect/Transform/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;

namespace {
struct Erase : public RewritePattern {
  Erase(MLIRContext *context, StringRef what)
      : RewritePattern("test.root", /*benefit=*/1, context), what(what) {
    setDebugName(what == "next-directly" ? "EraseNextDirectly"
                 : what == "next"        ? "EraseNext"
                                         : "EraseRoot");
  }
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (Operation *next = op->getNextNode()) {
      if (what == "next")
        rewriter.eraseOp(next);
      else if (what == "next-directly")
        next->erase();
    }
    rewriter.eraseOp(op);
    return success();
  }
  std::string what;
};

struct TestErasePass
    : public PassWrapper<TestErasePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestErasePass)
  TestErasePass() = default;
  TestErasePass(const TestErasePass &other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "test-erase"; }
  StringRef getDescription() const final {
    return "Erase each test.root (and what `erase` says), with the driver of "
           "the `driver` option, ignoring its result";
  }

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    if (erase != "root" && erase != "next" && erase != "next-directly") {
      getOperation().emitError() << "unknown erase '" << erase
                                 << "'; expected root, next or next-directly";
      return signalPassFailure();
    }
    RewritePatternSet patterns(context);
    patterns.add<Erase>(context, erase);
    ModuleOp module = getOperation();
    if (driver == "greedy") {
      (void)applyPatternsGreedily(module, std::move(patterns));
    } else if (driver == "walk") {
      walkAndApplyPatterns(module, std::move(patterns));
    } else if (driver == "conversion" || driver == "conversion-rollback") {
      ConversionTarget target(*context);
      target.markUnknownOpDynamicallyLegal([](Operation *op) {
        return op->getName().getStringRef() != "test.root";
      });
      ConversionConfig config;
      config.allowPatternRollback = driver == "conversion-rollback";
      (void)applyPartialConversion(module, target, std::move(patterns), config);
    } else {
      module.emitError() << "unknown driver '" << driver
                         << "'; expected greedy, walk, conversion or "
                            "conversion-rollback";
      signalPassFailure();
    }
  }

  Option<std::string> driver{*this, "driver",
                             llvm::cl::desc("The rewrite driver to run"),
                             llvm::cl::init("greedy")};
  Option<std::string> erase{*this, "erase",
                            llvm::cl::desc("root, next or next-directly"),
                            llvm::cl::init("root")};
};
/// Erases the payload ops of its operand, directly or, with
/// `through_rewriter`, through the rewriter; only reads the handle.
struct TestErasePayloadOp
    : public Op<TestErasePayloadOp, OpTrait::OneOperand, OpTrait::ZeroResults,
                OpTrait::ZeroSuccessors, OpTrait::ZeroRegions,
                transform::TransformOpInterface::Trait,
                MemoryEffectOpInterface::Trait> {
  using Op::Op;
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestErasePayloadOp)
  static ArrayRef<StringRef> getAttributeNames() { return {}; }
  static StringRef getOperationName() { return "transform.test_erase_payload"; }

  DiagnosedSilenceableFailure apply(transform::TransformRewriter &rewriter,
                                    transform::TransformResults &,
                                    transform::TransformState &state) {
    for (Operation *op : llvm::to_vector(state.getPayloadOps(getOperand()))) {
      if ((*this)->hasAttr("through_rewriter"))
        rewriter.eraseOp(op);
      else
        op->erase();
    }
    return DiagnosedSilenceableFailure::success();
  }

  void getEffects(SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
    transform::onlyReadsHandle(getOperation()->getOpOperands(), effects);
    transform::modifiesPayload(effects);
  }
};

struct TestTransformExtension
    : public transform::TransformDialectExtension<TestTransformExtension> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestTransformExtension)
  using Base::Base;
  void init() { registerTransformOps<TestErasePayloadOp>(); }
};
} // namespace

int main(int argc, char **argv) {
  registerCanonicalizerPass();
  transform::registerInterpreterPass();
  PassRegistration<TestErasePass>();
  DialectRegistry registry;
  registry.insert<transform::TransformDialect>();
  registry.addExtensions<TestTransformExtension>();
  return asMainReturnCode(
      MlirOptMain(argc, argv, "erasure check test driver\n", registry));
}
