//===- ErasureCheckWorkload.cpp - Cost of the greedy driver's checks ------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parse + canonicalize of about N ops with the greedy driver's erasure checks
// off or on (23.1.1, patch 26). benchmarks/CMakeLists.txt builds it three
// times, each with the greedy driver compiled with it, identically: as
// patched; as it was before patch 26 (the cost of the patch when off); and
// with MLIR_ENABLE_EXPENSIVE_PATTERN_API_CHECKS (the existing compile-time
// checks). benchmarks/erasure_checks.sh counts the instructions inside
// `weakref_workload` under callgrind.
//
//   weakref-erasure-workload[-before|-expensive] off|on N
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;

extern "C" __attribute__((noinline)) int weakref_workload(bool checks,
                                                          unsigned n) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
#ifndef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  context.enableErasureChecks(checks);
#endif
  return weakref::bench::parseAndCanonicalize(context, n);
}

int main(int argc, char **argv) {
  bool on = argc == 3 && !std::strcmp(argv[1], "on");
  if (argc != 3 || (!on && std::strcmp(argv[1], "off"))) {
    llvm::errs() << "usage: " << argv[0] << " off|on N\n";
    return 2;
  }
#ifdef MLIR_WEAKREF_DRIVER_BEFORE_PATCH
  if (on) {
    llvm::errs() << argv[0] << ": error: this build has no erasure checks\n";
    return 2;
  }
#endif
  return weakref_workload(on, std::strtoul(argv[2], nullptr, 10));
}
