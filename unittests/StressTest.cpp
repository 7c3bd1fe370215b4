//===- StressTest.cpp - Weak references under concurrent load -------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// One shared context. The parallel pass manager repeatedly canonicalizes a
// module of 64 functions (erasing referenced ops and creating new ones on its
// worker threads) while other threads each own a function of a second module
// and create, copy, dereference, drop and erase references and ops in it.
// Every reference's final state is checked against what happened to its op.
//
//===----------------------------------------------------------------------===//

#include "ReleaseCompat.h"
#include "TestIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "gtest/gtest.h"

#include <random>
#include <thread>

using namespace mlir;

namespace {
using weakref::test::foldableFunctions;

TEST(StressTest, PassManagerAndReferenceThreadsShareAContext) {
  constexpr unsigned kRounds = 50, kWorkers = 6, kWorkerSteps = 3000;
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ASSERT_TRUE(context.isMultithreadingEnabled());

  OwningOpRef<ModuleOp> passModule =
      parseSourceString<ModuleOp>(foldableFunctions(64), &context);
  OwningOpRef<ModuleOp> workModule =
      parseSourceString<ModuleOp>(foldableFunctions(kWorkers), &context);
  ASSERT_TRUE(passModule && workModule);
  SmallVector<func::FuncOp> workFuncs;
  workModule->walk([&](func::FuncOp f) { workFuncs.push_back(f); });

  std::atomic<bool> passesDone = false;
  std::atomic<unsigned> failures = 0;
  // Ops of the pass module erased in a round, checked after the round.
  unsigned passDeaths = 0;

  std::thread passThread([&] {
    for (unsigned round = 0; round < kRounds; ++round) {
      // Fresh foldable ops in every function, each referenced.
      std::vector<WeakOpRef> muls, rets;
      passModule->walk([&](Operation *op) {
        if (isa<arith::MulIOp>(op))
          muls.emplace_back(op);
        if (isa<func::ReturnOp>(op))
          rets.emplace_back(op);
      });
      PassManager pm(&context);
      pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
      if (failed(pm.run(*passModule)))
        failures.fetch_add(1);
      for (WeakOpRef &ref : muls)
        passDeaths += ref.isExpired();
      for (WeakOpRef &ref : rets)
        failures.fetch_add(!ref);
      // Put a dead muli back in each function for the next round.
      passModule->walk([&](func::FuncOp f) {
        OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
        Value arg = f.getArgument(0);
        mlir_weakref::createOp<arith::MulIOp>(b, f.getLoc(), arg, arg);
      });
    }
    passesDone = true;
  });

  std::vector<std::thread> workers;
  for (unsigned t = 0; t < kWorkers; ++t)
    workers.emplace_back([&, t] {
      std::mt19937 rng(t);
      Block &body = workFuncs[t].getBody().front();
      OpBuilder builder(&context);
      Location loc = workFuncs[t].getLoc();
      std::vector<std::pair<WeakOpRef, Operation *>> live, dead;
      for (unsigned step = 0; step < kWorkerSteps || !passesDone; ++step) {
        switch (rng() % 4) {
        case 0: { // create an op and a reference
          builder.setInsertionPointToStart(&body);
          Operation *op = mlir_weakref::createOp<arith::ConstantIntOp>(
              builder, loc, step % 7, 32);
          live.emplace_back(WeakOpRef(op), op);
          break;
        }
        case 1: // erase a referenced op
          if (!live.empty()) {
            size_t i = rng() % live.size();
            live[i].second->erase();
            dead.push_back(live[i]);
            live[i] = live.back();
            live.pop_back();
          }
          break;
        case 2: // copy and dereference
          if (!live.empty()) {
            auto &[ref, op] = live[rng() % live.size()];
            WeakOpRef copy = ref;
            failures.fetch_add(copy.get() != op);
          }
          if (!dead.empty())
            failures.fetch_add(dead[rng() % dead.size()].first.get() !=
                               nullptr);
          break;
        case 3: // drop references
          if (dead.size() > 64)
            dead.erase(dead.begin(), dead.begin() + 32);
          break;
        }
        if (step > 100 * kWorkerSteps)
          break;
      }
      for (auto &[ref, op] : live)
        failures.fetch_add(ref.get() != op);
      for (auto &[ref, op] : dead)
        failures.fetch_add(ref.get() != nullptr);
    });

  passThread.join();
  for (std::thread &worker : workers)
    worker.join();
  EXPECT_EQ(failures.load(), 0u);
  // Every round's muli, in each of the 64 functions, died in canonicalize.
  EXPECT_EQ(passDeaths, kRounds * 64);
}
} // namespace

TEST(StressTest, TablesFreedWhileOtherContextsRelease) {
  // A control block points at its context's table, which outlives the context
  // until its last block is freed. One thread creates and destroys contexts
  // (with references into them, some outliving them) as fast as it can, while
  // two others keep making and dropping the first and last references to ops
  // of a context that lives throughout: tables are created, detached and
  // freed (with their last block) while other tables take and drop entries.
  // Run under ThreadSanitizer (build-thread) this checks that a table is
  // freed only after its last access; in any build, that every release finds
  // its own table intact.
  MLIRContext stable;
  stable.allowUnregisteredDialects();
  std::vector<Operation *> ops;
  for (int i = 0; i < 64; ++i)
    ops.push_back(Operation::create(
        OperationState(UnknownLoc::get(&stable), "test.stable")));
  std::atomic<bool> done = false;
  std::atomic<unsigned> wrong = 0;
  std::thread churn([&] {
    for (int round = 0; round < 300; ++round) {
      WeakOpRef outliving;
      {
        MLIRContext context;
        context.allowUnregisteredDialects();
        Operation *op = Operation::create(
            OperationState(UnknownLoc::get(&context), "test.churn"));
        WeakOpRef ref(op);
        if (round % 2)
          outliving = ref;
        else
          ref.reset(); // the last release of a live op's reference
        op->destroy();
      }
      // `outliving`, dead, is released at the end of this round, after its
      // context is gone: the last block of its table, it frees the table.
      EXPECT_TRUE(outliving.isNull() || outliving.isExpired());
    }
    done = true;
  });
  auto releaser = [&](unsigned offset) {
    while (!done.load()) {
      for (unsigned i = offset; i < ops.size(); i += 2) {
        WeakOpRef ref(ops[i]);
        if (ref.get() != ops[i] || ref.getUseCount() != 1)
          ++wrong;
      }
    }
  };
  std::thread a(releaser, 0), b(releaser, 1);
  churn.join();
  a.join();
  b.join();
  EXPECT_EQ(wrong.load(), 0u);
  // Every op's table is intact: a reference is still a first one, and
  // destruction invalidates it.
  for (Operation *op : ops) {
    WeakOpRef ref(op);
    EXPECT_EQ(ref.getUseCount(), 1u);
    op->destroy();
    EXPECT_TRUE(ref.isExpired());
  }
}
