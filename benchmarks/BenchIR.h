//===- BenchIR.h - IR generated for the benchmarks --------------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_BENCHMARKS_BENCHIR_H
#define MLIR_WEAKREF_BENCHMARKS_BENCHIR_H

#include "BenchOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Operation.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::weakref::bench {

/// `numFuncs` functions of 99 ops each (plus the function itself):
/// x - x on constants that canonicalize folds to 0, and a chain of adds of
/// those zeros that folds away, so canonicalize erases most ops.
inline std::string foldableChains(unsigned numFuncs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (unsigned f = 0; f < numFuncs; ++f) {
    os << "func.func @f" << f << "(%a: i32) -> i32 {\n";
    os << "  %v0 = arith.addi %a, %a : i32\n";
    for (unsigned i = 1; i < 33; ++i) {
      os << "  %c" << i << " = arith.constant " << i << " : i32\n";
      os << "  %z" << i << " = arith.subi %c" << i << ", %c" << i << " : i32\n";
      os << "  %v" << i << " = arith.addi %v" << i - 1 << ", %z" << i
         << " : i32\n";
    }
    os << "  return %v32 : i32\n}\n";
  }
  return text;
}

/// Parses foldableChains of about `numOps` ops into `context` and
/// canonicalizes them: returns 0, or 1 if parsing or the pass failed.
inline int parseAndCanonicalize(MLIRContext &context, unsigned numOps) {
  std::string text = foldableChains((numOps + 99) / 100);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  if (!module)
    return 1;
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  return failed(pm.run(*module)) ? 1 : 0;
}

} // namespace mlir::weakref::bench

#endif // MLIR_WEAKREF_BENCHMARKS_BENCHIR_H
