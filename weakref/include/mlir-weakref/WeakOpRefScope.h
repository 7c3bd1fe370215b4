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
// tracking each handle. References handed out are borrowed: valid until the
// scope ends or is reset.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_WEAKOPREFSCOPE_H
#define MLIR_WEAKREF_WEAKOPREFSCOPE_H

#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/STLExtras.h"

#include <deque>

namespace mlir::weakref {

class WeakOpRefScope {
public:
  WeakOpRefScope() = default;
  WeakOpRefScope(const WeakOpRefScope &) = delete;
  WeakOpRefScope &operator=(const WeakOpRefScope &) = delete;

  /// Creates a reference to `op` owned by this scope. The returned reference
  /// stays at the same address until the scope ends or is reset.
  const WeakOpRef &create(Operation *op) { return refs.emplace_back(op); }

  /// Returns the number of references the scope owns.
  size_t size() const { return refs.size(); }

  /// Returns the number of owned references whose operation is alive.
  size_t countAlive() const {
    return llvm::count_if(refs, [](const WeakOpRef &ref) { return bool(ref); });
  }

  /// Drops every reference the scope owns.
  void reset() { refs.clear(); }

private:
  // A deque keeps the references at stable addresses as it grows.
  std::deque<WeakOpRef> refs;
};

} // namespace mlir::weakref

#endif // MLIR_WEAKREF_WEAKOPREFSCOPE_H
