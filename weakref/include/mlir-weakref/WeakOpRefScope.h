//===- WeakOpRefScope.h - Scoped weak references ----------------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A WeakOpRefScope owns every reference created through it and drops them all
// when it ends, so that a binding can bound the lifetime and memory of its
// handles to a phase of work (one request, one Python `with` block) without
// tracking each handle. A reference is known by its key, a number never
// reused within a scope (not even after a reset), so a key kept past a reset
// finds nothing instead of another reference.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_WEAKOPREFSCOPE_H
#define MLIR_WEAKREF_WEAKOPREFSCOPE_H

#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/STLExtras.h"

#include <cstdint>
#include <deque>

namespace mlir::weakref {

class WeakOpRefScope {
public:
  WeakOpRefScope() = default;
  WeakOpRefScope(const WeakOpRefScope &) = delete;
  WeakOpRefScope &operator=(const WeakOpRefScope &) = delete;

  /// Identifies a reference within its scope; 0 is never a key.
  using Key = uint64_t;

  /// Creates a reference to `op` owned by this scope and returns its key.
  Key create(Operation *op) {
    refs.emplace_back(op);
    return firstKey + refs.size() - 1;
  }

  /// Returns the reference of `key`, or null if the scope was reset since it
  /// was created or the key is not one of this scope's.
  const WeakOpRef *lookup(Key key) const {
    if (key < firstKey || key - firstKey >= refs.size())
      return nullptr;
    return &refs[key - firstKey];
  }

  /// Returns the number of references the scope owns.
  size_t size() const { return refs.size(); }

  /// Returns the number of owned references whose operation is alive.
  size_t countAlive() const {
    return llvm::count_if(refs, [](const WeakOpRef &ref) { return bool(ref); });
  }

  /// Drops every reference the scope owns. Their keys are never reused.
  void reset() {
    firstKey += refs.size();
    refs.clear();
  }

private:
  // A deque keeps the references at stable addresses as it grows.
  std::deque<WeakOpRef> refs;
  /// The key of refs[0].
  Key firstKey = 1;
};

} // namespace mlir::weakref

#endif // MLIR_WEAKREF_WEAKOPREFSCOPE_H
