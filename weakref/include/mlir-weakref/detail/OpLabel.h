//===- OpLabel.h - An operation's name and location as text -----*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// What this project's reports say about an operation after it is gone
// (`OpTracker`'s entries, `ErasureProvenance`'s records): its name and printed
// location, captured while it is alive.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_DETAIL_OPLABEL_H
#define MLIR_WEAKREF_DETAIL_OPLABEL_H

#include <string>

namespace mlir {
class Operation;
namespace weakref {
namespace detail {

struct OpLabel {
  /// The operation's name, e.g. "arith.addi".
  std::string name;
  /// Its location as printed, e.g. `loc("in.mlir":3:8)`.
  std::string location;
};

/// The label of `op`, which must be alive.
OpLabel captureOpLabel(Operation *op);

} // namespace detail
} // namespace weakref
} // namespace mlir

#endif // MLIR_WEAKREF_DETAIL_OPLABEL_H
