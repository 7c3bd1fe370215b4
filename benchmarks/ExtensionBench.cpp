//===- ExtensionBench.cpp - Costs of the weakref/ extension ---------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// WeakOpMap next to llvm::DenseMap<Operation *, T> (lookup of a present key;
// insert of fresh ops, first reference included), and canonicalize with
// erasure provenance on vs off. benchmarks/report.py prints the ratios.
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "BenchUtil.h"
#include "mlir-weakref/ErasureProvenance.h"
#include "mlir-weakref/WeakOpMap.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>
#include <chrono>
#include <optional>
#ifdef __GLIBC__
#include <malloc.h>
#endif

using namespace mlir;

#ifdef __GLIBC__
/// glibc maps each allocation of at least its mmap threshold (128 KiB at
/// first) afresh from the system, and raises the threshold the first time
/// such a block is freed. So whether the new-map insert rows below paid a
/// page fault per 4 KiB of each batch's bucket arrays depended on whether a
/// benchmark that ran before them (in random order) had freed a large block:
/// the same row measured 120-170 us or 820-870 us per batch. Fixed here to the
/// state a long-running process reaches (glibc's largest dynamic threshold,
/// and twice that for trimming the heap), so that every row, DenseMap's too,
/// allocates from the heap.
static const bool mallocTuned = [] {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  return true;
}();
#endif

namespace {
constexpr unsigned kOps = 4096;

/// kOps bare ops, destroyed with the struct.
struct Ops : weakref::bench::OpFactory {
  Ops() {
    for (Operation *&op : ops)
      op = createOp();
  }
  ~Ops() {
    for (Operation *op : ops)
      op->destroy();
  }
  std::vector<Operation *> ops = std::vector<Operation *>(kOps);
};

/// Not inlined, so that callgrind can count a batch's inserts alone
/// (`--toggle-collect='*fill<*'`, see docs/MEASUREMENTS.md).
template <typename MapT>
LLVM_ATTRIBUTE_NOINLINE void fill(MapT &map, Ops &ops) {
  for (unsigned i = 0; i < kOps; ++i)
    map[ops.ops[i]] = i;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

/// Looking up present keys, round robin.
template <typename MapT>
static void lookups(benchmark::State &state) {
  Ops ops;
  MapT map;
  fill(map, ops);
  unsigned i = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(map.lookup(ops.ops[i++ % kOps]));
  state.SetItemsProcessed(state.iterations());
}
static void BM_LookupDenseMap(benchmark::State &state) {
  lookups<llvm::DenseMap<Operation *, unsigned>>(state);
}
BENCHMARK(BM_LookupDenseMap);
static void BM_LookupWeakOpMap(benchmark::State &state) {
  lookups<weakref::WeakOpMap<unsigned>>(state);
}
BENCHMARK(BM_LookupWeakOpMap);

/// Inserting every op of a batch into an empty map; for WeakOpMap this
/// includes creating each op's first weak reference (clearing the map drops
/// them, so every batch takes first references again). Arg 0 = 0: a new map per
/// batch, so its growth is timed too, as when a map is built once. Arg 0 = 1:
/// one map, filled and cleared once before the clock starts, so that it keeps
/// a batch's capacity: only the inserts are timed, not the growth.
template <typename MapT>
static void insertBatches(benchmark::State &state, Ops &ops) {
  const bool keepCapacity = state.range(0);
  std::optional<MapT> map;
  map.emplace();
  if (keepCapacity) {
    fill(*map, ops);
    map->clear();
  }
  for (auto _ : state) {
    if (!keepCapacity)
      map.emplace();
    auto start = std::chrono::steady_clock::now();
    fill(*map, ops);
    state.SetIterationTime(seconds(start));
    map->clear();
  }
  state.SetItemsProcessed(state.iterations() * kOps);
}
static void BM_InsertDenseMap(benchmark::State &state) {
  Ops ops;
  insertBatches<llvm::DenseMap<Operation *, unsigned>>(state, ops);
}
BENCHMARK(BM_InsertDenseMap)->Arg(0)->Arg(1)->UseManualTime();
static void BM_InsertWeakOpMap(benchmark::State &state) {
  Ops ops;
  insertBatches<weakref::WeakOpMap<unsigned>>(state, ops);
}
BENCHMARK(BM_InsertWeakOpMap)->Arg(0)->Arg(1)->UseManualTime();
/// The same when the ops already have a weak reference (as a binding's
/// handles do): the map only adds one to each op's count.
static void BM_InsertWeakOpMapReferenced(benchmark::State &state) {
  Ops ops;
  std::vector<WeakOpRef> held;
  for (Operation *op : ops.ops)
    held.emplace_back(op);
  insertBatches<weakref::WeakOpMap<unsigned>>(state, ops);
}
BENCHMARK(BM_InsertWeakOpMapReferenced)->Arg(0)->Arg(1)->UseManualTime();

/// canonicalize over 64 functions with every op referenced, provenance off
/// (Arg 0) or on (Arg 1).
static void BM_CanonicalizeProvenance(benchmark::State &state) {
  std::string text = weakref::bench::foldableChains(64);
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::unique_ptr<weakref::ErasureProvenance> provenance;
  if (state.range(0))
    provenance = weakref::ErasureProvenance::enable(&context);
  for (auto _ : state) {
    weakref::bench::timePipeline(state, context, text, /*referenced=*/true,
                                 [&](PassManager &pm) {
                                   if (provenance)
                                     provenance->instrument(pm);
                                   pm.addPass(createCanonicalizerPass());
                                 });
    if (provenance) {
      state.PauseTiming();
      provenance->purge();
      state.ResumeTiming();
    }
  }
}
BENCHMARK(BM_CanonicalizeProvenance)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
