//===- CoreBench.cpp - Costs of weak operation references -----------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Side-by-side costs, in one binary and one run: WeakOpRef operations next to
// std::weak_ptr::lock and a mutex-guarded DenseMap<Operation *, ...> registry
// (what binding-side tracking maps do), and a parallel canonicalize with every
// op referenced vs none. benchmarks/run.sh turns the results into ratios.
// Those that need only MLIRIR are in CoreIRBench.cpp.
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "BenchUtil.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <benchmark/benchmark.h>
#include <chrono>
#include <memory>
#include <mutex>

using namespace mlir;

namespace {
constexpr unsigned kBatch = 4096;

using Fixture = weakref::bench::OpFactory;

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
} // namespace

/// The first reference to an op: sets the bit, allocates the control block
/// and inserts the table entry.
static void BM_RefCreateFirst(benchmark::State &state) {
  Fixture f;
  std::vector<Operation *> ops(kBatch);
  std::vector<WeakOpRef> refs(kBatch);
  for (auto _ : state) {
    for (Operation *&op : ops)
      op = f.createOp();
    auto start = Clock::now();
    for (unsigned i = 0; i < kBatch; ++i)
      refs[i] = WeakOpRef(ops[i]);
    state.SetIterationTime(seconds(start));
    for (Operation *op : ops)
      op->destroy();
    refs.assign(kBatch, WeakOpRef());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_RefCreateFirst)->UseManualTime();

/// An extra reference: copy (and drop) an existing one.
static void BM_RefCopy(benchmark::State &state) {
  Fixture f;
  Operation *op = f.createOp();
  WeakOpRef ref(op);
  for (auto _ : state) {
    WeakOpRef copy = ref;
    benchmark::DoNotOptimize(copy);
  }
  state.SetItemsProcessed(state.iterations());
  op->destroy();
}
BENCHMARK(BM_RefCopy);

/// For scale: one uncontended atomic read-modify-write on a cache-hot word.
/// A reference taken from an op pays two (the table mutex's acquire and
/// release), or three if the op already has a block (its count's increment
/// too): a floor for the WeakOpMap insert rows that no instruction count
/// shows.
static void BM_AtomicIncrement(benchmark::State &state) {
  std::atomic<unsigned> count = 0;
  for (auto _ : state)
    count.fetch_add(1, std::memory_order_relaxed);
  benchmark::DoNotOptimize(count.load());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AtomicIncrement);

static void BM_RefGetLive(benchmark::State &state) {
  Fixture f;
  Operation *op = f.createOp();
  WeakOpRef ref(op);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ref);
    benchmark::DoNotOptimize(ref.get());
  }
  state.SetItemsProcessed(state.iterations());
  op->destroy();
}
BENCHMARK(BM_RefGetLive);

static void BM_RefGetDead(benchmark::State &state) {
  Fixture f;
  Operation *op = f.createOp();
  WeakOpRef ref(op);
  op->destroy();
  for (auto _ : state) {
    benchmark::DoNotOptimize(ref);
    benchmark::DoNotOptimize(ref.get());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RefGetDead);

/// Baseline: promoting a std::weak_ptr to check liveness.
static void BM_WeakPtrLock(benchmark::State &state) {
  auto shared = std::make_shared<int>(42);
  std::weak_ptr<int> weak = shared;
  for (auto _ : state) {
    benchmark::DoNotOptimize(weak);
    benchmark::DoNotOptimize(weak.lock());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WeakPtrLock);

/// Baseline: a binding-side registry, a mutex-guarded map from op address to
/// wrapper, looked up to check liveness.
static void BM_RegistryLookup(benchmark::State &state) {
  Fixture f;
  std::mutex mutex;
  llvm::DenseMap<Operation *, void *> registry;
  std::vector<Operation *> ops(kBatch);
  for (Operation *&op : ops) {
    op = f.createOp();
    registry[op] = op;
  }
  unsigned i = 0;
  for (auto _ : state) {
    std::lock_guard<std::mutex> lock(mutex);
    benchmark::DoNotOptimize(registry.lookup(ops[i++ % kBatch]));
  }
  state.SetItemsProcessed(state.iterations());
  for (Operation *op : ops)
    op->destroy();
}
BENCHMARK(BM_RegistryLookup);

/// Destroying ops, with (Arg 1) and without (Arg 0) a reference to each; the
/// difference is the cost of invalidation.
static void BM_DestroyOp(benchmark::State &state) {
  Fixture f;
  bool referenced = state.range(0);
  std::vector<Operation *> ops(kBatch);
  std::vector<WeakOpRef> refs(kBatch);
  for (auto _ : state) {
    for (unsigned i = 0; i < kBatch; ++i) {
      ops[i] = f.createOp();
      if (referenced)
        refs[i] = WeakOpRef(ops[i]);
    }
    auto start = Clock::now();
    for (Operation *op : ops)
      op->destroy();
    state.SetIterationTime(seconds(start));
    refs.assign(kBatch, WeakOpRef());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_DestroyOp)->Arg(0)->Arg(1)->UseManualTime();

/// Times canonicalize nested on `numFuncs` functions of foldableChains, on a
/// pool of `threads` threads, every op referenced first if `referenced`;
/// `configure` sets up the context before the runs.
template <typename ConfigureFn>
static void timeNestedCanonicalize(benchmark::State &state, unsigned numFuncs,
                                   unsigned threads, bool referenced,
                                   ConfigureFn configure) {
  std::string text = weakref::bench::foldableChains(numFuncs);
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
  if (threads > 1)
    context.setThreadPool(pool);
  context.loadAllAvailableDialects();
  configure(context);
  for (auto _ : state)
    weakref::bench::timePipeline(
        state, context, text, referenced, [](PassManager &pm) {
          pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
        });
}

/// canonicalize over 128 functions, with every op referenced (Arg 1) or none
/// (Arg 0), on `threads` threads.
static void BM_ParallelCanonicalize(benchmark::State &state) {
  timeNestedCanonicalize(state, 128, state.range(1), state.range(0),
                         [](MLIRContext &) {});
}
BENCHMARK(BM_ParallelCanonicalize)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond);

#if LLVM_VERSION_MAJOR >= 23
/// Canonicalize nested on 256 functions, on `threads` threads, with the
/// context's erasure checks (23.1.1 series, patch 25) off (Arg 0) or on (Arg
/// 1): each thread that canonicalizes a function references its ops (the
/// greedy driver's worklist) and destroys those it folds away, so the checks'
/// references are taken and invalidated on the pool's threads.
static void BM_NestedCanonicalizeErasureChecks(benchmark::State &state) {
  bool checks = state.range(0);
  timeNestedCanonicalize(
      state, 256, state.range(1), /*referenced=*/false,
      [&](MLIRContext &context) { context.enableErasureChecks(checks); });
}
BENCHMARK(BM_NestedCanonicalizeErasureChecks)
    ->ArgsProduct({{0, 1}, {1, 2}})
    ->Unit(benchmark::kMillisecond);
#endif

BENCHMARK_MAIN();
