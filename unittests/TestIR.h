//===- TestIR.h - IR shared by the unit tests -------------------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_UNITTESTS_TESTIR_H
#define MLIR_WEAKREF_UNITTESTS_TESTIR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/FormatVariadic.h"

#if LLVM_ADDRESS_SANITIZER_BUILD
#include <sanitizer/lsan_interface.h>
#endif

#include <memory>
#include <string>

namespace mlir::weakref::test {

/// `numFuncs` functions @f0..., each with two constants that canonicalize
/// folds into a new one (erasing them and their addi), a dead muli, and an
/// addi and a return that survive: 8 ops of which 4 die, per function.
inline std::string foldableFunctions(unsigned numFuncs) {
  std::string text;
  for (unsigned i = 0; i < numFuncs; ++i)
    text += llvm::formatv(R"(
      func.func @f{0}(%arg0: i32) -> i32 {{
        %c1 = arith.constant 1 : i32
        %c2 = arith.constant 2 : i32
        %s = arith.addi %c1, %c2 : i32
        %dead = arith.muli %arg0, %s : i32
        %r = arith.addi %arg0, %s : i32
        return %r : i32
      })",
                          i);
  return text;
}

/// A context with the arith and func dialects loaded.
inline std::unique_ptr<MLIRContext> makeArithFuncContext() {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

/// Returns the ops of `module` with the given name, in walk order.
inline SmallVector<Operation *> opsNamed(ModuleOp module, StringRef name) {
  SmallVector<Operation *> ops;
  module->walk([&](Operation *op) {
    if (op->getName().getStringRef() == name)
      ops.push_back(op);
  });
  return ops;
}

/// Tests of contexts destroyed under live ops leak those ops on purpose (they
/// cannot be destroyed without their context): tells LeakSanitizer so.
inline void leakOnPurpose(Operation *op) {
#if LLVM_ADDRESS_SANITIZER_BUILD
  __lsan_ignore_object(op);
#else
  (void)op;
#endif
}

} // namespace mlir::weakref::test

#endif // MLIR_WEAKREF_UNITTESTS_TESTIR_H
