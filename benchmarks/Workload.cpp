//===- Workload.cpp - Workloads for the zero-cost comparison --------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Built identically against the patched and the baseline (unpatched) MLIR,
// and run under callgrind by benchmarks/run.sh, which compares the
// instructions executed inside `weakref_workload`. Nothing here uses weak
// references: this measures what the patch costs code that does not use it.
//
//   weakref-workload create-erase N        create and destroy N generic ops
//   weakref-workload create-erase-arith N  create (OpBuilder) and erase N addi
//   weakref-workload canonicalize N        parse + canonicalize ~N ops
//
//===----------------------------------------------------------------------===//

#include "BenchIR.h"
#include "ReleaseCompat.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace mlir;

extern "C" __attribute__((noinline)) int weakref_workload(const char *kind,
                                                          unsigned n) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  if (!strcmp(kind, "create-erase")) {
    // Operation::create and erase alone: an unregistered op with two operands
    // and a prebuilt (empty) attribute dictionary, so nothing but the op's own
    // allocation, construction and destruction runs per op.
    OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
    OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
    Location loc = UnknownLoc::get(&context);
    Value c = mlir_weakref::createOp<arith::ConstantIntOp>(builder, loc, 1, 32);
    context.allowUnregisteredDialects();
    OperationName name("w.op", &context);
    Type i32 = builder.getI32Type();
    DictionaryAttr noAttrs = builder.getDictionaryAttr({});
    Value operands[] = {c, c};
    for (unsigned i = 0; i < n; ++i)
      Operation::create(loc, name, i32, operands, noAttrs,
                        mlir_weakref::noProperties(), {}, 0)
          ->destroy();
    return 0;
  }
  if (!strcmp(kind, "create-erase-arith")) {
    // The same through arith's builder, which also uniques the op's default
    // properties (an attribute) per op.
    OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
    OpBuilder builder = OpBuilder::atBlockEnd(module->getBody());
    Location loc = UnknownLoc::get(&context);
    Value c = mlir_weakref::createOp<arith::ConstantIntOp>(builder, loc, 1, 32);
    for (unsigned i = 0; i < n; ++i)
      mlir_weakref::createOp<arith::AddIOp>(builder, loc, c, c)->erase();
    return 0;
  }
  if (!strcmp(kind, "canonicalize"))
    return weakref::bench::parseAndCanonicalize(context, n);
  llvm::errs() << "unknown workload '" << kind << "'\n";
  return 2;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: weakref-workload "
                    "create-erase|create-erase-arith|canonicalize N\n";
    return 2;
  }
  return weakref_workload(argv[1], std::strtoul(argv[2], nullptr, 10));
}
