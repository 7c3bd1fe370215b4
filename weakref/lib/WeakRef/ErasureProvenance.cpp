//===- ErasureProvenance.cpp - What erased a referenced op? ---------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/ErasureProvenance.h"
#include "mlir-weakref/detail/OpLabel.h"
#include "mlir-weakref/detail/Purge.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::weakref;

namespace {
/// The passes running on this thread, innermost last. Nested pipelines run on
/// pass-manager worker threads, where their instrumentation runs too.
thread_local SmallVector<Pass *, 4> runningPasses;

class RunningPassTracker : public PassInstrumentation {
  void runBeforePass(Pass *pass, Operation *) override {
    runningPasses.push_back(pass);
  }
  void runAfterPass(Pass *pass, Operation *) override { pop(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { pop(pass); }
  void pop(Pass *pass) {
    assert(!runningPasses.empty() && runningPasses.back() == pass);
    runningPasses.pop_back();
  }
};

/// The patterns being applied on this thread, innermost last.
thread_local SmallVector<const Pattern *, 2> runningPatterns;

class RunningPatternTracker : public RewriterBase::Listener {
  void notifyPatternBegin(const Pattern &pattern, Operation *) override {
    runningPatterns.push_back(&pattern);
  }
  void notifyPatternEnd(const Pattern &pattern, LogicalResult) override {
    assert(!runningPatterns.empty() && runningPatterns.back() == &pattern);
    runningPatterns.pop_back();
  }
};

std::string describePattern(const Pattern &pattern) {
  if (!pattern.getDebugName().empty())
    return pattern.getDebugName().str();
  if (std::optional<OperationName> root = pattern.getRootKind())
    return "pattern rooted at " + root->getStringRef().str();
  return "unnamed pattern";
}

/// Contexts that have a recorder: the destruction hook is a single slot.
/// Serializes enabling and disabling recorders, so that two recorders cannot
/// both find a context without a destruction hook. Which context has a
/// recorder is the context's own state (its hook), never a registry keyed by
/// context address, which would go stale when a context dies. It does not
/// order the hook's calls: MLIR runs the hook with no lock held, and setting
/// it must not race with the destruction of the context's operations (the
/// callers' contract, see ErasureProvenance.h).
std::mutex enableMutex;
} // namespace

std::string ErasureProvenance::Record::describe() const {
  std::string text = "`" + opName + "` at " + location + " erased ";
  text += pass.empty() ? "outside of any pass" : "during pass '" + pass + "'";
  if (!pattern.empty())
    text += " by pattern '" + pattern + "'";
  return text;
}

std::unique_ptr<ErasureProvenance>
ErasureProvenance::enable(MLIRContext *context) {
  if (!context)
    return nullptr;
  std::lock_guard<std::mutex> lock(enableMutex);
  // The context's destruction hook is taken (by another recorder, or by
  // anyone else): refuse rather than replace it.
  if (getWeakOpRefDestructionHook(context).first)
    return nullptr;
  std::unique_ptr<ErasureProvenance> recorder(new ErasureProvenance(context));
  setWeakOpRefDestructionHook(context, onDestroy, recorder.get());
  return recorder;
}

ErasureProvenance::~ErasureProvenance() {
  std::lock_guard<std::mutex> lock(enableMutex);
  // MLIR does not call a hook again once it has been replaced. That no call
  // of onDestroy is still running on another thread, on this recorder about
  // to be freed, is the caller's contract: no op of the context is being
  // destroyed concurrently.
  setWeakOpRefDestructionHook(context, nullptr, nullptr);
}

void ErasureProvenance::instrument(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<RunningPassTracker>());
}

std::unique_ptr<RewriterBase::Listener>
ErasureProvenance::createPatternListener() {
  return std::make_unique<RunningPatternTracker>();
}

void ErasureProvenance::onDestroy(Operation *op, void *userData) {
  // Runs on the thread destroying `op`, perhaps on several at once, with no
  // lock of MLIR's held: taking `mutex` (and creating a reference to `op`,
  // which takes a table lock of the context) cannot deadlock with MLIR. Of the
  // IR it reads only `op`'s name and location, as the hook's contract asks.
  auto *self = static_cast<ErasureProvenance *>(userData);
  Record record;
  detail::OpLabel label = detail::captureOpLabel(op);
  record.opName = std::move(label.name);
  record.location = std::move(label.location);
  // The innermost named pass (pipeline adaptors have no argument).
  for (Pass *pass : llvm::reverse(runningPasses)) {
    if (!pass->getArgument().empty()) {
      record.pass = pass->getArgument().str();
      break;
    }
  }
  if (!runningPatterns.empty())
    record.pattern = describePattern(*runningPatterns.back());
  // The reference keeps the control block, and so the record's key, alive.
  WeakOpRef ref(op);
  std::lock_guard<std::mutex> lock(self->mutex);
  if (self->purgeSchedule.isDue(self->records.size())) {
    self->purgeLocked();
    self->purgeSchedule.purged(self->records.size());
  }
  self->records[std::move(ref)] = std::move(record);
}

std::optional<ErasureProvenance::Record>
ErasureProvenance::lookup(const WeakOpRef &ref) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = records.find(ref);
  if (it == records.end())
    return std::nullopt;
  return it->second;
}

size_t ErasureProvenance::purgeLocked() {
  size_t before = records.size();
  detail::eraseIf(records,
                  [](auto &kv) { return kv.first.getUseCount() == 1; });
  return before - records.size();
}

size_t ErasureProvenance::purge() {
  std::lock_guard<std::mutex> lock(mutex);
  return purgeLocked();
}

size_t ErasureProvenance::size() const {
  std::lock_guard<std::mutex> lock(mutex);
  return records.size();
}
