//===- WeakOpRefCoreTest.cpp - WeakOpRef against real MLIR ----------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The behaviours of the upstream WeakOpRefTest, plus heavier ones that need
// real dialects and passes: greedy canonicalization, the multi-threaded pass
// manager over many functions, and many threads sharing one context.
//
//===----------------------------------------------------------------------===//

#include "ReleaseCompat.h"
#include "TestIR.h"
#include "mlir-weakref/OpTracker.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "gtest/gtest.h"

#include <random>
#include <thread>

using namespace mlir;

static_assert(sizeof(void *) != 8 || sizeof(Operation) == 64,
              "weak references must not grow Operation");

namespace {

using weakref::test::opsNamed;

class CoreTest : public ::testing::Test {
protected:
  CoreTest() : context(weakref::test::makeArithFuncContext()) {}

  OwningOpRef<ModuleOp> parse(StringRef source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, context.get());
    EXPECT_TRUE(module);
    return module;
  }

  std::unique_ptr<MLIRContext> context;
};

TEST_F(CoreTest, CanonicalizeKillsFoldedOpsAndKeepsTheRest) {
  OwningOpRef<ModuleOp> module = parse(weakref::test::foldableFunctions(1));
  weakref::OpTracker tracker;
  tracker.trackAll(module->getOperation());
  WeakOpRef func(opsNamed(*module, "func.func").front());
  WeakOpRef ret(opsNamed(*module, "func.return").front());
  SmallVector<WeakOpRef> constants;
  for (Operation *op : opsNamed(*module, "arith.constant"))
    constants.emplace_back(op);
  WeakOpRef deadMul(opsNamed(*module, "arith.muli").front());

  PassManager pm(context.get());
  pm.addPass(createCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));

  EXPECT_TRUE(func);
  EXPECT_TRUE(ret);
  EXPECT_FALSE(deadMul) << "canonicalize removes the unused muli";
  // Folding 1 + 2 materializes a new constant and erases the old ones.
  for (WeakOpRef &c : constants)
    EXPECT_FALSE(c);
  EXPECT_EQ(opsNamed(*module, "arith.constant").size(), 1u);

  // Every surviving op in the module is still tracked as alive, and every
  // tracked op that is no longer in the module is dead.
  llvm::DenseSet<Operation *> inModule;
  module->walk([&](Operation *op) { inModule.insert(op); });
  for (const weakref::OpTracker::Entry &e : tracker.getEntries()) {
    if (Operation *op = e.ref.get()) {
      EXPECT_TRUE(inModule.contains(op)) << e.name;
    }
  }
  // module, func, c3 (new), addi, return survive; 2 constants, addi, muli die.
  EXPECT_EQ(tracker.countAlive(), 4u);
  EXPECT_EQ(tracker.size(), 8u);
}

TEST_F(CoreTest, TrackerReportsSurviveLaterTracking) {
  // collectNewlyDead's results must stay usable after trackAll grows the
  // tracker (they once pointed into its storage; ASan reported the reads).
  OwningOpRef<ModuleOp> module = parse(weakref::test::foldableFunctions(1));
  weakref::OpTracker tracker;
  tracker.trackAll(module->getOperation());
  opsNamed(*module, "arith.muli").front()->erase();
  std::vector<weakref::OpTracker::Entry> dead = tracker.collectNewlyDead();
  OwningOpRef<ModuleOp> big = parse(weakref::test::foldableFunctions(200));
  tracker.trackAll(big->getOperation());
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].name, "arith.muli");
  EXPECT_TRUE(dead[0].ref.isExpired());
  EXPECT_TRUE(tracker.collectNewlyDead().empty());
}

TEST_F(CoreTest, ParallelPassManagerOverManyFunctions) {
  constexpr unsigned kFuncs = 96;
  OwningOpRef<ModuleOp> module =
      parse(weakref::test::foldableFunctions(kFuncs));
  ASSERT_TRUE(context->isMultithreadingEnabled());
  SmallVector<WeakOpRef> funcs, muls, rets;
  for (Operation *op : opsNamed(*module, "func.func"))
    funcs.emplace_back(op);
  for (Operation *op : opsNamed(*module, "arith.muli"))
    muls.emplace_back(op);
  for (Operation *op : opsNamed(*module, "func.return"))
    rets.emplace_back(op);
  ASSERT_EQ(muls.size(), kFuncs);

  // canonicalize runs on each function in parallel, erasing referenced ops of
  // one context on many threads.
  PassManager pm(context.get());
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  for (unsigned i = 0; i < kFuncs; ++i) {
    EXPECT_TRUE(funcs[i]);
    EXPECT_TRUE(rets[i]);
    EXPECT_FALSE(muls[i]);
  }
}

TEST_F(CoreTest, ThreadsCreateAndDestroyInTheirOwnFunctions) {
  constexpr unsigned kThreads = 8, kRounds = 300;
  OwningOpRef<ModuleOp> module =
      parse(weakref::test::foldableFunctions(kThreads));
  SmallVector<func::FuncOp> funcs;
  module->walk([&](func::FuncOp f) { funcs.push_back(f); });
  std::atomic<unsigned> failures = 0;

  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      Block &body = funcs[t].getBody().front();
      OpBuilder builder(context.get());
      SmallVector<std::pair<WeakOpRef, Operation *>> live, dead;
      for (unsigned round = 0; round < kRounds; ++round) {
        builder.setInsertionPointToStart(&body);
        Operation *op = mlir_weakref::createOp<arith::ConstantIntOp>(
            builder, UnknownLoc::get(context.get()), round, 32);
        live.emplace_back(WeakOpRef(op), op);
        if (rng() % 2 && !live.empty()) {
          auto victim = live[rng() % live.size()];
          victim.second->erase();
          dead.push_back(victim);
          llvm::erase(live, victim);
        }
        for (auto &[ref, op] : live)
          if (WeakOpRef(ref).get() != op)
            failures.fetch_add(1);
        for (auto &[ref, op] : dead)
          if (ref.get())
            failures.fetch_add(1);
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0u);
}

TEST_F(CoreTest, ReferencesCopiedAndDroppedAcrossThreads) {
  OwningOpRef<ModuleOp> module = parse(weakref::test::foldableFunctions(4));
  SmallVector<WeakOpRef> refs;
  module->walk([&](Operation *op) { refs.emplace_back(op); });
  std::vector<std::thread> threads;
  std::vector<SmallVector<WeakOpRef>> perThread(8);
  for (unsigned t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        perThread[t].append(refs.begin(), refs.end());
        if (i % 3 == 0)
          perThread[t].clear();
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  size_t held = 0;
  for (auto &v : perThread)
    held += v.size() / refs.size();
  for (const WeakOpRef &ref : refs)
    EXPECT_EQ(ref.getUseCount(), 1u + held);
  perThread.clear();
  module = nullptr;
  for (const WeakOpRef &ref : refs) {
    EXPECT_TRUE(ref.isExpired());
    EXPECT_EQ(ref.getUseCount(), 1u);
  }
}

TEST_F(CoreTest, AddressReuseAcrossManyCycles) {
  // Repeatedly erase referenced ops and allocate same-shaped ones: whenever
  // the allocator hands back an address, the old reference must stay dead.
  OwningOpRef<ModuleOp> module = parse("func.func @f() { return }");
  Block &body = opsNamed(*module, "func.func").front()->getRegion(0).front();
  OpBuilder builder = OpBuilder::atBlockBegin(&body);
  Location loc = UnknownLoc::get(context.get());
  SmallVector<std::pair<WeakOpRef, void *>> dead;
  unsigned reused = 0;
  for (int i = 0; i < 2000; ++i) {
    Operation *op =
        mlir_weakref::createOp<arith::ConstantIntOp>(builder, loc, i, 32);
    for (auto &[ref, address] : dead)
      if (address == op) {
        ++reused;
        EXPECT_EQ(ref.get(), nullptr);
        EXPECT_NE(WeakOpRef(op), ref);
      }
    WeakOpRef ref(op);
    EXPECT_EQ(ref.get(), op);
    op->erase();
    EXPECT_EQ(ref.get(), nullptr);
    dead.emplace_back(std::move(ref), op);
  }
  // glibc's allocator reuses freed blocks of the same size immediately; ASan's
  // quarantine never does (and would report any access to a freed op).
#if !LLVM_ADDRESS_SANITIZER_BUILD
  EXPECT_GT(reused, 0u);
#endif
}

TEST_F(CoreTest, ContextDestroyedWithReferencesOutstanding) {
  WeakOpRef moduleRef, funcRef;
  {
    OwningOpRef<ModuleOp> module = parse(weakref::test::foldableFunctions(2));
    moduleRef = WeakOpRef(module->getOperation());
    funcRef = WeakOpRef(opsNamed(*module, "func.func").front());
    // Leak the module: its ops are never destroyed, only the context is.
    weakref::test::leakOnPurpose(module.release());
  }
  context.reset();
  EXPECT_TRUE(moduleRef.isExpired());
  EXPECT_TRUE(funcRef.isExpired());
  WeakOpRef copy = funcRef;
  EXPECT_EQ(copy.getUseCount(), 2u);
}

TEST_F(CoreTest, RewriterReplaceOpAndEraseOp) {
  OwningOpRef<ModuleOp> module = parse(weakref::test::foldableFunctions(1));
  Operation *mul = opsNamed(*module, "arith.muli").front();
  Operation *add = opsNamed(*module, "arith.addi").back();
  WeakOpRef mulRef(mul), addRef(add);
  IRRewriter rewriter(context.get());
  rewriter.setInsertionPoint(add);
  Operation *sub = mlir_weakref::createOp<arith::SubIOp>(
      rewriter, add->getLoc(), add->getOperand(0), add->getOperand(1));
  rewriter.replaceOp(add, sub->getResults());
  rewriter.eraseOp(mul);
  EXPECT_FALSE(addRef);
  EXPECT_FALSE(mulRef);
  EXPECT_EQ(WeakOpRef(sub).get(), sub);
}

} // namespace
