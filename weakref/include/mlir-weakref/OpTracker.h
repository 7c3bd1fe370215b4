//===- OpTracker.h - Track which operations survive a transformation ------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// OpTracker holds a weak reference to every operation under a root, together
// with the operation's name and location captured at tracking time, so that
// after a transformation it can say which operations were destroyed and
// which survived, even though the destroyed ones can no longer be inspected.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_OPTRACKER_H
#define MLIR_WEAKREF_OPTRACKER_H

#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::weakref {

class OpTracker {
public:
  struct Entry {
    WeakOpRef ref;
    /// The op's name and printed location when it was tracked.
    std::string name;
    std::string location;
    /// Position in the pre-order walk of the tracked root.
    unsigned index;
    /// Set once `collectNewlyDead` has returned this entry.
    bool reportedDead = false;
  };

  /// Tracks `root` and every operation nested in it, in pre-order.
  void trackAll(Operation *root);

  ArrayRef<Entry> getEntries() const { return entries; }
  size_t size() const { return entries.size(); }
  /// Returns the number of tracked operations that are still alive.
  size_t countAlive() const;

  /// Returns copies of the entries whose op died since the previous call (or
  /// since tracking started), in walk order. Copies, so that a later
  /// `trackAll` cannot invalidate them.
  std::vector<Entry> collectNewlyDead();

  /// Prints one line per tracked op: "alive" or "dead", its name and location.
  void print(llvm::raw_ostream &os) const;

private:
  SmallVector<Entry> entries;
};

} // namespace mlir::weakref

#endif // MLIR_WEAKREF_OPTRACKER_H
