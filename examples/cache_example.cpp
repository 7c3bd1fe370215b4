// A downstream C++ user: caches a per-op result across a pass run with
// WeakOpMap, which drops the entries of ops the pass erased.
#include "mlir-weakref/WeakOpMap.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

int main() {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f(%a: i32) -> i32 {\n"
                                  "  %c = arith.constant 0 : i32\n"
                                  "  %x = arith.addi %a, %c : i32\n"
                                  "  return %x : i32\n"
                                  "}\n",
                                  &context);
  if (!module)
    return 1;

  // [readme:weakopmap]
  weakref::WeakOpMap<unsigned> numOperands;
  module->walk([&](Operation *op) { numOperands[op] = op->getNumOperands(); });
  size_t before = numOperands.size();

  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(*module)))
    return 1;

  size_t after = numOperands.size(); // entries of erased ops are gone
  // [/readme:weakopmap]
  llvm::outs() << "cached " << before << " ops, " << after
               << " still alive after canonicalize\n";
  // addi %a, 0 folds away, and with it the constant.
  return before == 5 && after == 3 ? 0 : 1;
}
