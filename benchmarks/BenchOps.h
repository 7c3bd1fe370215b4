//===- BenchOps.h - Unregistered ops for the benchmarks ---------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Ops of an unregistered dialect, made without anything but MLIRIR.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_BENCHMARKS_BENCHOPS_H
#define MLIR_WEAKREF_BENCHMARKS_BENCHOPS_H

#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"

namespace mlir::weakref::bench {

/// A single-threaded context in which to create bare, unregistered ops.
struct OpFactory {
  OpFactory() : context(MLIRContext::Threading::DISABLED) {
    context.allowUnregisteredDialects();
  }
  Operation *createOp() {
    return Operation::create(OperationState(UnknownLoc::get(&context), "b.op"));
  }
  MLIRContext context;
};

} // namespace mlir::weakref::bench

#endif // MLIR_WEAKREF_BENCHMARKS_BENCHOPS_H
