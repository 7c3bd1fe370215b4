//===- ProvenanceTest.cpp - Erasure provenance ----------------------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "ReleaseCompat.h"
#include "mlir-weakref/ErasureProvenance.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#if LLVM_ADDRESS_SANITIZER_BUILD
#include <sanitizer/lsan_interface.h>
#endif

using namespace mlir;
using namespace mlir::weakref;

namespace {
class ProvenanceTest : public ::testing::Test {
protected:
  ProvenanceTest() {
    registry.insert<arith::ArithDialect, func::FuncDialect>();
    context = std::make_unique<MLIRContext>(registry);
  }
  OwningOpRef<ModuleOp> parseFunctions(unsigned count) {
    std::string text;
    for (unsigned i = 0; i < count; ++i)
      text += llvm::formatv(R"(
        func.func @f{0}(%a: i32) -> i32 {{
          %dead = arith.muli %a, %a : i32
          return %a : i32
        })",
                            i);
    return parseSourceString<ModuleOp>(text, context.get(), "prov.mlir");
  }
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
};

TEST_F(ProvenanceTest, OnePerContext) {
  EXPECT_EQ(ErasureProvenance::enable(nullptr), nullptr);
  auto first = ErasureProvenance::enable(context.get());
  ASSERT_TRUE(first);
  EXPECT_EQ(ErasureProvenance::enable(context.get()), nullptr);
  first.reset();
  EXPECT_TRUE(ErasureProvenance::enable(context.get()));
}

TEST(ProvenanceContextTest, NewContextAtADeadContextsAddress) {
  // Whether a context has a recorder is the context's own state: a recorder
  // leaked with its context must not block a new context at the dead one's
  // address. Placement new makes the address reuse certain.
  alignas(MLIRContext) unsigned char storage[sizeof(MLIRContext)];
  auto *first = new (storage) MLIRContext();
  ErasureProvenance *leaked = ErasureProvenance::enable(first).release();
  ASSERT_TRUE(leaked);
#if LLVM_ADDRESS_SANITIZER_BUILD
  __lsan_ignore_object(leaked);
#endif
  first->~MLIRContext();
  auto *second = new (storage) MLIRContext();
  ASSERT_EQ(static_cast<void *>(second), static_cast<void *>(first));
  auto recorder = ErasureProvenance::enable(second);
  EXPECT_TRUE(recorder);
  recorder.reset();
  second->~MLIRContext();
}

TEST_F(ProvenanceTest, ErasedOutsideAnyPass) {
  auto provenance = ErasureProvenance::enable(context.get());
  OwningOpRef<ModuleOp> module = parseFunctions(1);
  Operation *mul = &module->getBody()->front().getRegion(0).front().front();
  WeakOpRef ref(mul);
  EXPECT_FALSE(provenance->lookup(ref));
  mul->erase();
  std::optional<ErasureProvenance::Record> record = provenance->lookup(ref);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->describe(),
            "`arith.muli` at loc(\"prov.mlir\":3:19) erased outside of any "
            "pass");
}

TEST_F(ProvenanceTest, ParallelPipelineAttributesEachErasureToItsPass) {
  auto provenance = ErasureProvenance::enable(context.get());
  ASSERT_TRUE(context->isMultithreadingEnabled());
  OwningOpRef<ModuleOp> module = parseFunctions(64);
  SmallVector<WeakOpRef> muls, funcs;
  module->walk([&](Operation *op) {
    if (isa<arith::MulIOp>(op))
      muls.emplace_back(op);
    if (isa<func::FuncOp>(op))
      funcs.emplace_back(op);
  });
  PassManager pm(context.get());
  provenance->instrument(pm);
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addPass(createSymbolDCEPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  ASSERT_EQ(muls.size(), 64u);
  for (const WeakOpRef &ref : muls) {
    ASSERT_TRUE(ref.isExpired());
    std::optional<ErasureProvenance::Record> record = provenance->lookup(ref);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->opName, "arith.muli");
    EXPECT_EQ(record->pass, "canonicalize");
  }
  // Public functions survive symbol-dce; nothing is recorded for them.
  for (const WeakOpRef &ref : funcs) {
    EXPECT_TRUE(ref);
    EXPECT_FALSE(provenance->lookup(ref));
  }
  // Destroying the module outside the pipeline is recorded as such.
  module = nullptr;
  EXPECT_EQ(provenance->lookup(funcs.front())->pass, "");
}

namespace {
/// Replaces (and so erases) every muli.
struct MulToAdd : OpRewritePattern<arith::MulIOp> {
  MulToAdd(MLIRContext *context) : OpRewritePattern(context) {
    setDebugName("MulToAdd");
  }
  LogicalResult matchAndRewrite(arith::MulIOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::AddIOp>(op, op.getLhs(), op.getRhs());
    return success();
  }
};
} // namespace

TEST_F(ProvenanceTest, PatternListenerNamesThePattern) {
  auto provenance = ErasureProvenance::enable(context.get());
  // The muli is used, so the driver does not erase it as dead on its own.
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f(%a: i32) -> i32 {\n"
                                  "  %m = arith.muli %a, %a : i32\n"
                                  "  return %m : i32\n"
                                  "}\n",
                                  context.get(), "pattern.mlir");
  SmallVector<WeakOpRef> muls;
  module->walk([&](arith::MulIOp op) { muls.emplace_back(op); });
  ASSERT_EQ(muls.size(), 1u);
  RewritePatternSet patterns(context.get());
  patterns.add<MulToAdd>(context.get());
  std::unique_ptr<RewriterBase::Listener> listener =
      ErasureProvenance::createPatternListener();
  ASSERT_TRUE(succeeded(mlir_weakref::applyPatternsGreedilyWithListener(
      module->getOperation(), std::move(patterns), listener.get())));
  for (const WeakOpRef &ref : muls) {
    std::optional<ErasureProvenance::Record> record = provenance->lookup(ref);
    ASSERT_TRUE(record);
    EXPECT_EQ(record->pattern, "MulToAdd");
    EXPECT_EQ(record->describe(), "`arith.muli` at loc(\"pattern.mlir\":2:8) "
                                  "erased outside of any pass by pattern "
                                  "'MulToAdd'");
  }
}

TEST_F(ProvenanceTest, PurgeDropsRecordsNobodyCanAskFor) {
  auto provenance = ErasureProvenance::enable(context.get());
  OwningOpRef<ModuleOp> module = parseFunctions(4);
  SmallVector<WeakOpRef> refs;
  module->walk([&](Operation *op) { refs.emplace_back(op); });
  module = nullptr;
  EXPECT_EQ(provenance->size(), refs.size());
  EXPECT_EQ(provenance->purge(), 0u);
  refs.pop_back();
  EXPECT_EQ(provenance->purge(), 1u);
  // The module and 4 x (func, muli, return): 13 records, 12 left.
  refs.clear();
  EXPECT_EQ(provenance->purge(), 12u);
  EXPECT_EQ(provenance->size(), 0u);
}

TEST_F(ProvenanceTest, DisabledRecordsNothing) {
  OwningOpRef<ModuleOp> module = parseFunctions(1);
  WeakOpRef ref(module->getOperation());
  {
    auto provenance = ErasureProvenance::enable(context.get());
    EXPECT_EQ(provenance->size(), 0u);
  }
  module = nullptr;
  auto later = ErasureProvenance::enable(context.get());
  EXPECT_FALSE(later->lookup(ref));
  EXPECT_EQ(later->size(), 0u);
}

} // namespace
