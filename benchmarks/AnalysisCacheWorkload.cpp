//===- AnalysisCacheWorkload.cpp - Dominance and symbol table cache cost --===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Built identically against the patched and the baseline 23.1.1, and run under
// callgrind by benchmarks/analysis_caches.sh, which compares the instructions
// executed inside `weakref_workload`. The patched DominanceInfo and
// SymbolTableCollection take a weak reference to the operation of each cache
// entry, and SymbolUserMap one to each symbol and user; nothing here asks for
// it.
//
//   weakref-analysis-cache-workload dominance N  N functions of a diamond CFG;
//       every operand of every op checked to dominate its user through one
//       DominanceInfo (the verifier's pattern), twice; parsing is outside
//   weakref-analysis-cache-workload symbols N    N functions each calling the
//       next; every callee looked up through one SymbolTableCollection, twice;
//       parsing is outside
//   weakref-analysis-cache-workload users N      the symbols module; a
//       SymbolUserMap built over it, then the users of every function asked
//       for, twice; parsing is outside
//   weakref-analysis-cache-workload verify N     N functions of one block
//       (9 ops) each, verified twice (a DominanceInfo per function, asked
//       whether each operand dominates its user); parsing is outside
//   weakref-analysis-cache-workload pipeline N   parse the dominance module,
//       then cse, canonicalize, cse with the verifier after each pass (a new
//       DominanceInfo per verification, and one per CSE run)
//   weakref-analysis-cache-workload graph N      N unregistered ops in the
//       module's block, a graph region, each using the result of the op
//       before it and of the op after it (a use before its definition); every
//       operand checked to dominate its user through one DominanceInfo, twice;
//       parsing is outside
//   weakref-analysis-cache-workload graph-verify N   the graph module,
//       verified twice; parsing is outside
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <string>

using namespace mlir;

/// N functions: a diamond CFG each ("dominance", "pipeline"), a call to the
/// next function each ("symbols", "users"), or straight-line code ("verify");
/// or N ops of a graph region, each using its neighbours' results ("graph").
static std::string makeModule(const char *kind, unsigned n) {
  std::string ir;
  if (!strncmp(kind, "graph", 5)) {
    for (unsigned i = 0; i < n; ++i)
      ir += "%v" + std::to_string(i) + " = \"wr.node\"(%v" +
            std::to_string((i + n - 1) % n) + ", %v" +
            std::to_string((i + 1) % n) + ") : (i32, i32) -> i32\n";
    return ir;
  }
  bool calls = !strcmp(kind, "symbols") || !strcmp(kind, "users");
  bool straight = !strcmp(kind, "verify");
  for (unsigned i = 0; i < n; ++i) {
    std::string f = "@f" + std::to_string(i);
    if (straight) {
      ir += "func.func " + f + "(%x: i32) -> i32 {\n"
            "  %a = arith.addi %x, %x : i32\n"
            "  %b = arith.muli %a, %x : i32\n"
            "  %c = arith.subi %b, %a : i32\n"
            "  %d = arith.addi %c, %b : i32\n"
            "  %e = arith.muli %d, %c : i32\n"
            "  %f = arith.subi %e, %d : i32\n"
            "  %g = arith.addi %f, %e : i32\n"
            "  %h = arith.muli %g, %f : i32\n"
            "  return %h : i32\n}\n";
      continue;
    }
    if (calls) {
      std::string next = "@f" + std::to_string((i + 1) % n);
      ir += "func.func " + f + "(%x: i32) -> i32 {\n"
            "  %r = func.call " + next + "(%x) : (i32) -> i32\n"
            "  return %r : i32\n}\n";
      continue;
    }
    ir += "func.func " + f + "(%c: i1, %x: i32) -> i32 {\n"
          "  %a = arith.addi %x, %x : i32\n"
          "  %b = arith.addi %x, %x : i32\n"
          "  cf.cond_br %c, ^l(%a : i32), ^r(%b : i32)\n"
          "^l(%p: i32):\n"
          "  %m = arith.muli %p, %a : i32\n"
          "  cf.br ^j(%m : i32)\n"
          "^r(%q: i32):\n"
          "  %s = arith.subi %q, %b : i32\n"
          "  cf.br ^j(%s : i32)\n"
          "^j(%y: i32):\n"
          "  %z = arith.addi %y, %a : i32\n"
          "  return %z : i32\n}\n";
  }
  return ir;
}

extern "C" __attribute__((noinline)) int
weakref_workload(const char *kind, MLIRContext *context, ModuleOp module,
                 const std::string &ir) {
  unsigned count = 0;
  if (!strcmp(kind, "dominance") || !strcmp(kind, "graph")) {
    DominanceInfo dominance;
    for (int round = 0; round < 2; ++round)
      module->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          count += dominance.properlyDominates(operand, op);
      });
  } else if (!strcmp(kind, "verify") || !strcmp(kind, "graph-verify")) {
    for (int round = 0; round < 2; ++round)
      count += succeeded(verify(module));
  } else if (!strcmp(kind, "symbols")) {
    SymbolTableCollection symbols;
    for (int round = 0; round < 2; ++round)
      module->walk([&](func::CallOp call) {
        count += symbols.lookupNearestSymbolFrom(
                     call, call.getCalleeAttr()) != nullptr;
      });
  } else if (!strcmp(kind, "users")) {
    SymbolTableCollection symbols;
    SymbolUserMap users(symbols, module);
    for (int round = 0; round < 2; ++round)
      for (auto func : module.getOps<func::FuncOp>())
        count += users.getUsers(func).size();
  } else {
    OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(ir, context);
    PassManager pm(context);
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    count += parsed && succeeded(pm.run(*parsed));
  }
  return count ? 0 : 1;
}

int main(int argc, char **argv) {
  bool dominance = argc == 3 && !strcmp(argv[1], "dominance");
  bool symbols = argc == 3 && (!strcmp(argv[1], "symbols") ||
                               !strcmp(argv[1], "users"));
  bool verifyOnly = argc == 3 && !strcmp(argv[1], "verify");
  bool pipeline = argc == 3 && !strcmp(argv[1], "pipeline");
  bool graph = argc == 3 && (!strcmp(argv[1], "graph") ||
                             !strcmp(argv[1], "graph-verify"));
  if (!dominance && !symbols && !verifyOnly && !pipeline && !graph) {
    llvm::errs() << "usage: weakref-analysis-cache-workload dominance|symbols|"
                    "users|verify|pipeline|graph|graph-verify N\n";
    return 2;
  }
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect>();
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.allowUnregisteredDialects(graph);
  std::string ir = makeModule(argv[1], std::strtoul(argv[2], nullptr, 10));
  OwningOpRef<ModuleOp> module =
      pipeline ? ModuleOp::create(UnknownLoc::get(&context))
               : parseSourceString<ModuleOp>(ir, &context);
  if (!module)
    return 1;
  return weakref_workload(argv[1], &context, *module, ir);
}
