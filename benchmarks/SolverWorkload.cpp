//===- SolverWorkload.cpp - The data-flow solver's liveness tracking cost -===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Built identically against the patched and the baseline (unpatched) 23.1.1,
// and run under callgrind by benchmarks/solver_liveness.sh, which compares
// the instructions executed inside `weakref_workload` (parsing is outside).
//
//   weakref-solver-workload off|on N   a function of about N ops in N/6
//       blocks, each branching on an integer comparison to the next with one
//       of two values: the integer range solver (dead code, constant
//       propagation, integer ranges) run over it with anchor liveness tracking
//       off or on (`on`: patched builds only), then every value's range
//       looked up, as a pass rewriting from the solver's results does
//   weakref-solver-workload pass N     int-range-optimizations over the same
//       function, as the build has it (patched: folding and region
//       simplification on, the solver tracking; unpatched: both off)
//
//===----------------------------------------------------------------------===//

#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlow/Utils.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace mlir;

/// A function of `blocks` blocks of six ops each.
static std::string makeFunction(unsigned blocks) {
  std::string ir = "func.func @f(%a: i32, %b: i32) -> i32 {\n"
                   "  %c1 = arith.constant 1 : i32\n"
                   "  %c100 = arith.constant 100 : i32\n"
                   "  %c255 = arith.constant 255 : i32\n"
                   "  cf.br ^bb1(%a : i32)\n";
  for (unsigned i = 1; i <= blocks; ++i) {
    std::string n = std::to_string(i), next = std::to_string(i + 1);
    ir += "^bb" + n + "(%x" + n + ": i32):\n" +          //
          "  %s" + n + " = arith.addi %x" + n + ", %c1 : i32\n" +
          "  %m" + n + " = arith.muli %s" + n + ", %b : i32\n" +
          "  %k" + n + " = arith.andi %m" + n + ", %c255 : i32\n" +
          "  %r" + n + " = arith.remui %k" + n + ", %c100 : i32\n" +
          "  %p" + n + " = arith.cmpi ult, %r" + n + ", %s" + n + " : i32\n" +
          "  cf.cond_br %p" + n + ", ^bb" + next + "(%r" + n +
          " : i32), ^bb" + next + "(%k" + n + " : i32)\n";
  }
  std::string last = std::to_string(blocks + 1);
  ir += "^bb" + last + "(%x" + last + ": i32):\n  return %x" + last +
        " : i32\n}\n";
  return ir;
}

extern "C" __attribute__((noinline)) int
weakref_workload(const char *mode, ModuleOp module) {
  if (!strcmp(mode, "pass")) {
    PassManager pm(module->getContext(), ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    pm.addNestedPass<func::FuncOp>(arith::createIntRangeOptimizationsPass());
    return failed(pm.run(module)) ? 1 : 0;
  }
  DataFlowConfig config;
#ifdef MLIR_WEAKREF_SOLVER_TRACKING
  config.setTrackAnchorLiveness(!strcmp(mode, "on"));
#endif
  DataFlowSolver solver(config);
  dataflow::loadBaselineAnalyses(solver);
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(module)))
    return 1;
  unsigned known = 0;
  module->walk([&](Operation *op) {
    for (Value result : op->getResults())
      known += solver.lookupState<dataflow::IntegerValueRangeLattice>(result) !=
               nullptr;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          known +=
              solver.lookupState<dataflow::IntegerValueRangeLattice>(arg) !=
              nullptr;
  });
  return known ? 0 : 1;
}

int main(int argc, char **argv) {
  bool on = argc == 3 && !strcmp(argv[1], "on");
  if (argc != 3 || (strcmp(argv[1], "off") && !on && strcmp(argv[1], "pass"))) {
    llvm::errs() << "usage: weakref-solver-workload off|on|pass N\n";
    return 2;
  }
#ifndef MLIR_WEAKREF_SOLVER_TRACKING
  if (on) {
    llvm::errs() << "weakref-solver-workload: 'on' needs the data-flow "
                    "solver's liveness tracking (the patched 23.1.1 tree)\n";
    return 2;
  }
#endif
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  unsigned n = std::strtoul(argv[2], nullptr, 10);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(makeFunction(n / 6 + 1), &context);
  if (!module)
    return 1;
  return weakref_workload(argv[1], *module);
}
