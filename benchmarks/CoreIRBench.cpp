//===- CoreIRBench.cpp - Weak reference costs that need only MLIRIR ------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The core's benchmarks that link MLIRIR alone, so that a core-only tree
// (./setup.sh --core-tests-only, with or without LLVM's assertions) can run
// them: heap bytes per referenced op and per context, and first references on
// one and two threads. benchmarks/run.sh reads their results with
// CoreBench.cpp's.
//
//===----------------------------------------------------------------------===//

#include "BenchOps.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/DenseSet.h"

#include <algorithm>
#include <atomic>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

using namespace mlir;

namespace {
using Fixture = weakref::bench::OpFactory;
using Clock = std::chrono::steady_clock;
} // namespace

/// Heap bytes per referenced op (control block + table entry), from malloc's
/// own accounting, reported as a counter. Measured in a fresh context so
/// that the table's growth is included.
static size_t heapInUse() {
  struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
}
static void BM_MemoryPerReferencedOp(benchmark::State &state) {
  // The table's load factor, and so its bytes per entry, depends on the count.
  const unsigned kOps = state.range(0);
  double bytes = 0;
  for (auto _ : state) {
    Fixture f;
    std::vector<Operation *> ops(kOps);
    for (Operation *&op : ops)
      op = f.createOp();
    std::vector<WeakOpRef> refs;
    refs.reserve(kOps);
    size_t before = heapInUse();
    for (Operation *op : ops)
      refs.emplace_back(op);
    bytes = std::max(bytes, double(heapInUse() - before) / kOps);
    refs.clear();
    for (Operation *op : ops)
      op->destroy();
  }
  state.counters["bytes_per_ref_op"] = bytes;
}
/// The curve: 1,000 * 2^(k/2) references up to 1,000,000, a power of two and
/// the round 100,000 the reports quote.
static void memorySizes(benchmark::internal::Benchmark *b) {
  for (unsigned k = 0; k < 20; ++k)
    b->Arg(int64_t(1000 * std::pow(2.0, k / 2.0) + 0.5));
  b->Arg(100000);
  b->Arg(1 << 17);
  b->Arg(1000000);
}
BENCHMARK(BM_MemoryPerReferencedOp)->Apply(memorySizes)->Iterations(1);

/// Heap bytes per context that creates and destroys an operation with a
/// block and a block argument: 0, without taking a reference; 1, after
/// taking (and dropping) a reference to each, so the context holds a table of
/// each kind. The difference is what the tables cost a context.
static void BM_MemoryPerContext(benchmark::State &state) {
  const bool referenced = state.range(0);
  constexpr unsigned kContexts = 1000;
  double bytes = 0;
  for (auto _ : state) {
    std::vector<std::unique_ptr<MLIRContext>> contexts;
    contexts.reserve(kContexts);
    size_t before = heapInUse();
    for (unsigned i = 0; i < kContexts; ++i) {
      contexts.push_back(
          std::make_unique<MLIRContext>(MLIRContext::Threading::DISABLED));
      MLIRContext &context = *contexts.back();
      context.allowUnregisteredDialects();
      OperationState opState(UnknownLoc::get(&context), "bench.holder");
      opState.addRegion()->push_back(new Block);
      Operation *op = Operation::create(opState);
      Block &block = op->getRegion(0).front();
      BlockArgument arg =
          block.addArgument(IndexType::get(&context), UnknownLoc::get(&context));
      if (referenced)
        (void)WeakOpRef(op), (void)WeakBlockRef(&block),
            (void)WeakValueRef(arg);
      op->destroy();
    }
    bytes = double(heapInUse() - before) / kContexts;
  }
  state.counters["bytes_per_context"] = bytes;
}
BENCHMARK(BM_MemoryPerContext)->Arg(0)->Arg(1)->Iterations(1);

/// A thread's set and lock in the PrivateTraffic controls, on cache lines of
/// their own.
struct alignas(64) PrivateSet {
  llvm::DenseSet<Operation *> set;
  std::mutex mutex;
};

/// How the two-thread benchmark's threads spend their timed loop.
enum class ThreadsMode {
  /// Take a first reference to each op: the row.
  Reference = 0,
  /// Store each op's location, eight times over: it writes each op's cache
  /// line, as the flag store does, and nothing shared. How well this machine
  /// scales a loop over per-thread memory at all.
  StoreLoc = 1,
  /// A reference's memory traffic with nothing shared and no lock: per op, the
  /// store to the op, a 16-byte block written from a per-thread array and an
  /// insert into a per-thread DenseSet that keeps its buckets between runs, as
  /// the table's map does. If this scales no better than the row, what limits
  /// the row is this machine (caches, memory), not state the threads share.
  PrivateTraffic = 2,
  /// The same, each op's stores made under a mutex of the thread's own (never
  /// contended), as a reference's are under the table's mutex: what the lock's
  /// two atomic read-modify-writes (full barriers on x86) cost the scaling.
  PrivateTrafficLocked = 3,
  /// The row's code on data that stays in the thread's caches: first
  /// references to the thread's first kHotOps ops, all dropped again (which
  /// clears the flags), kOpsPerThread / kHotOps times over: as many first
  /// references as the row, each with the table lock, map insert and flag
  /// store, and a release with its erase. If this scales where the row does
  /// not, what the threads share in the design (the table's mutex and map)
  /// is not what limits the row; the misses on cold data are.
  ReferenceHot = 4,
  /// The row, after each thread has taken a first reference to each of its
  /// ops and dropped it again before the clock starts, as in a thread that
  /// references and releases ops over and over: the table has grown to its
  /// size and malloc hands back the blocks the thread freed.
  ReferenceWarm = 5,
};

/// Ops referenced again and again by ThreadsMode::ReferenceHot.
static constexpr unsigned kHotOps = 1024;

/// Threads of the oversubscribed benchmark, and the rounds each makes.
static constexpr unsigned kOversubscribed = 8, kOversubscribedRounds = 16;

/// Ops each thread of the threads benchmark references.
static constexpr unsigned kOpsPerThread = 1 << 15;

/// Blocks threads until `count` have arrived. It does not spin: with more
/// threads than cores, a spinning thread would take a core from one that has
/// not finished yet.
class Barrier {
public:
  explicit Barrier(unsigned count) : remaining(count) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex);
    if (--remaining == 0)
      allArrived.notify_all();
    else
      allArrived.wait(lock, [&] { return remaining == 0; });
  }

private:
  std::mutex mutex;
  std::condition_variable allArrived;
  unsigned remaining;
};

/// One run of `threads` threads: each creates `opsPerThread` ops of its own
/// (from its own malloc arena, as threads building IR do) before the clock
/// starts, waits for the others, then runs `mode`'s loop over them (the
/// Reference and StoreLoc loops `rounds` times, releasing the references
/// between rounds). Returns the time from the first
/// thread's start to the last one's end, in seconds.
static double runFirstReferenceThreads(MLIRContext &context, unsigned threads,
                                       ThreadsMode mode,
                                       std::vector<PrivateSet> &privateSets,
                                       unsigned opsPerThread = kOpsPerThread,
                                       unsigned rounds = 1) {
  const bool privateTraffic = mode == ThreadsMode::PrivateTraffic ||
                              mode == ThreadsMode::PrivateTrafficLocked;
  struct alignas(16) Block16 {
    void *object;
    uint64_t count;
  };
  std::atomic<unsigned> arrived = 0;
  Barrier finished(threads);
  std::vector<Clock::time_point> starts(threads), ends(threads);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      std::vector<Operation *> ops(opsPerThread);
      for (Operation *&op : ops)
        op = Operation::create(
            OperationState(UnknownLoc::get(&context), "b.op"));
      std::vector<WeakOpRef> refs(opsPerThread);
      std::vector<Block16> blocks(privateTraffic ? opsPerThread : 0);
      Location loc = UnknownLoc::get(&context);
      // First references to the thread's first `n` ops, and their release.
      auto reference = [&](unsigned n) {
        for (unsigned i = 0; i < n; ++i)
          refs[i] = WeakOpRef(ops[i]);
      };
      auto release = [&](unsigned n) {
        for (unsigned i = 0; i < n; ++i)
          refs[i] = WeakOpRef();
      };
      if (mode == ThreadsMode::ReferenceWarm) {
        reference(opsPerThread);
        release(opsPerThread);
      }
      // Spin, yielding, so that the threads start at once.
      arrived.fetch_add(1);
      while (arrived.load() != threads)
        std::this_thread::yield();
      starts[t] = Clock::now();
      switch (mode) {
      case ThreadsMode::Reference:
      case ThreadsMode::ReferenceWarm:
        for (unsigned round = 0; round < rounds; ++round) {
          if (round)
            release(opsPerThread);
          reference(opsPerThread);
        }
        break;
      case ThreadsMode::ReferenceHot:
        for (unsigned pass = 0; pass < opsPerThread / kHotOps; ++pass) {
          reference(kHotOps);
          release(kHotOps);
        }
        break;
      case ThreadsMode::StoreLoc:
        // Eight passes: long enough that the threads' start skew does not
        // count.
        for (unsigned pass = 0; pass < 8 * rounds; ++pass)
          for (unsigned i = 0; i < opsPerThread; ++i)
            ops[i]->setLoc(loc);
        break;
      case ThreadsMode::PrivateTraffic:
      case ThreadsMode::PrivateTrafficLocked: {
        PrivateSet &own = privateSets[t];
        auto traffic = [&](unsigned i) {
          ops[i]->setLoc(loc);
          blocks[i] = {ops[i], 1};
          own.set.insert(ops[i]);
        };
        if (mode == ThreadsMode::PrivateTrafficLocked) {
          for (unsigned i = 0; i < opsPerThread; ++i) {
            std::lock_guard<std::mutex> lock(own.mutex);
            traffic(i);
          }
        } else {
          for (unsigned i = 0; i < opsPerThread; ++i)
            traffic(i);
        }
        benchmark::DoNotOptimize(blocks.data());
        break;
      }
      }
      ends[t] = Clock::now();
      // Destroy only once every thread has stopped its clock.
      finished.arriveAndWait();
      for (Operation *op : ops) {
        privateSets[t].set.erase(op);
        op->destroy();
      }
    });
  for (std::thread &worker : workers)
    worker.join();
  return std::chrono::duration<double>(
             *std::max_element(ends.begin(), ends.end()) -
             *std::min_element(starts.begin(), starts.end()))
      .count();
}

/// The median of `values`.
static double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2,
                   values.end());
  return values[values.size() / 2];
}

/// Throughput on two threads over that on one, for first references to
/// disjoint ops of one context (Arg 0) and for the five controls above (Args
/// 1 to 5). Each iteration times a one-thread run and a two-thread run back to
/// back, in alternating order, so that both see the same state of the host
/// (on a shared VM, the speed of the same loop moves by several times over
/// seconds); the `scaling` counter is the median of the iterations' ratios.
/// Contention on the tables, measured.
static void BM_FirstReferenceThreads(benchmark::State &state) {
  const auto mode = static_cast<ThreadsMode>(state.range(0));
  MLIRContext context;
  context.allowUnregisteredDialects();
  std::vector<PrivateSet> privateSets(2);
  std::vector<double> ratios;
  double oneThread = 0, twoThreads = 0;
  for (auto _ : state) {
    bool twoFirst = ratios.size() % 2;
    double two =
        twoFirst ? runFirstReferenceThreads(context, 2, mode, privateSets) : 0;
    double one = runFirstReferenceThreads(context, 1, mode, privateSets);
    if (!twoFirst)
      two = runFirstReferenceThreads(context, 2, mode, privateSets);
    ratios.push_back(2 * one / two);
    oneThread += one;
    twoThreads += two;
    state.SetIterationTime(one + two);
  }
  state.counters["scaling"] = median(ratios);
  state.counters["one_thread_s"] = oneThread / state.iterations();
  state.counters["two_threads_s"] = twoThreads / state.iterations();
  state.counters["ops_per_thread"] = kOpsPerThread;
  state.counters["hot_ops"] = kHotOps;
}
BENCHMARK(BM_FirstReferenceThreads)
    ->Arg(int(ThreadsMode::Reference))
    ->Arg(int(ThreadsMode::StoreLoc))
    ->Arg(int(ThreadsMode::PrivateTraffic))
    ->Arg(int(ThreadsMode::PrivateTrafficLocked))
    ->Arg(int(ThreadsMode::ReferenceHot))
    ->Arg(int(ThreadsMode::ReferenceWarm))
    ->UseManualTime();

/// Throughput of kOversubscribed threads on the machine's cores over that of
/// two threads, for first references and releases to disjoint ops of one
/// context (Arg 0) and for the location-store control (Arg 1): the two
/// threads' ops are shared among the kOversubscribed threads, and each thread
/// goes over its ops kOversubscribedRounds times, so that a run lasts many
/// scheduler time slices. A lock convoy (a thread preempted while it holds a
/// lock stalls every thread that needs it) reads well below the control.
static void BM_FirstReferenceOversubscribed(benchmark::State &state) {
  const auto mode = static_cast<ThreadsMode>(state.range(0));
  MLIRContext context;
  context.allowUnregisteredDialects();
  std::vector<PrivateSet> privateSets(kOversubscribed);
  std::vector<double> ratios;
  for (auto _ : state) {
    double two = runFirstReferenceThreads(context, 2, mode, privateSets,
                                          kOpsPerThread, kOversubscribedRounds);
    double many = runFirstReferenceThreads(
        context, kOversubscribed, mode, privateSets,
        2 * kOpsPerThread / kOversubscribed, kOversubscribedRounds);
    ratios.push_back(two / many);
    state.SetIterationTime(two + many);
  }
  state.counters["oversubscribed"] = median(ratios);
  state.counters["threads"] = kOversubscribed;
}
BENCHMARK(BM_FirstReferenceOversubscribed)
    ->Arg(int(ThreadsMode::Reference))
    ->Arg(int(ThreadsMode::StoreLoc))
    ->UseManualTime();

BENCHMARK_MAIN();
