//===- ErasureProvenance.h - What erased a referenced op? -------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// ErasureProvenance records, for each weakly referenced op destroyed while it
// is enabled, the op's name and location and the pass that was running on the
// destroying thread, so that a dead reference can say what happened to it:
//
//   `arith.constant` at loc("in.mlir":3:8) erased during pass 'canonicalize'
//
// It is opt-in per context (through the context's weak reference destruction
// hook), at most one per context, and costs nothing when not enabled. Passes
// are known only for pass managers instrumented with `instrument`, patterns
// only for rewrite drivers given `createPatternListener()`.
//
// Records are keyed by reference identity and hold a reference themselves, so
// a record can never be confused with a later op at the same address. Records
// no reference can ask about any more are dropped by `purge`, which also runs
// as the table grows.
//
// Threads. The hook that records runs on whichever thread destroys an op,
// possibly on several at once, with no lock of MLIR's held; it takes the
// recorder's own mutex, as do `lookup`, `purge` and `size`, which may be called
// from any thread. Enabling and destroying a recorder set the context's
// destruction hook, which is not thread-safe: neither may race with the
// destruction of the context's operations on other threads (a pass manager
// running on the context, say).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_ERASUREPROVENANCE_H
#define MLIR_WEAKREF_ERASUREPROVENANCE_H

#include "mlir-weakref/detail/Purge.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mlir {
class PassManager;

namespace weakref {

class ErasureProvenance {
public:
  struct Record {
    std::string opName;
    std::string location;
    /// The innermost pass running on the destroying thread, or empty.
    std::string pass;
    /// The pattern being applied on the destroying thread, if the rewrite
    /// driver was given `createPatternListener()`, or empty.
    std::string pattern;

    /// "`name` at loc(...) erased during pass 'pass' [by pattern 'p']".
    std::string describe() const;
  };

  /// Starts recording for `context`, through its weak reference destruction
  /// hook. Returns null if `context` is null or its hook is taken (by another
  /// recorder, for instance). The recorder must be destroyed before
  /// `context`. Must not race with the destruction of `context`'s operations
  /// on other threads (setting the hook is not thread-safe); concurrent calls
  /// of `enable` and of the destructor, for any contexts, are serialized.
  static std::unique_ptr<ErasureProvenance> enable(MLIRContext *context);
  /// Stops recording; outstanding records are dropped. Must not race with the
  /// destruction of the context's operations on other threads: the hook it
  /// removes could be running there, on this recorder, with no lock held.
  ~ErasureProvenance();

  /// Attributes erasures made by `pm`'s passes to them.
  void instrument(PassManager &pm);

  /// Returns a listener that attributes erasures to the pattern being
  /// applied, for rewrite drivers that accept one (e.g.
  /// GreedyRewriteConfig::listener). Passes that run their own driver, such
  /// as canonicalize, do not take one: their erasures name the pass only.
  static std::unique_ptr<RewriterBase::Listener> createPatternListener();

  /// Returns what destroyed the op `ref` referred to, if it was destroyed
  /// while recording.
  std::optional<Record> lookup(const WeakOpRef &ref) const;

  /// Drops records that no reference outside this recorder can ask about.
  /// Returns how many were dropped.
  size_t purge();
  size_t size() const;

private:
  explicit ErasureProvenance(MLIRContext *context) : context(context) {}
  /// The destruction hook: runs on the destroying thread, with no lock held
  /// but `mutex`, which it takes.
  static void onDestroy(Operation *op, void *self);
  size_t purgeLocked();

  MLIRContext *context;
  /// Guards `records` and `purgeSchedule`: the hook may run on several
  /// threads at once, and concurrently with `lookup`, `purge` and `size`.
  mutable std::mutex mutex;
  llvm::DenseMap<WeakOpRef, Record> records;
  /// Records no reference can ask about are dropped as the map grows.
  detail::PurgeSchedule purgeSchedule;
};

} // namespace weakref
} // namespace mlir

#endif // MLIR_WEAKREF_ERASUREPROVENANCE_H
