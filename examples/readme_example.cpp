// The C++ snippets of README.md, compiled and run by the test suite
// (test/repo/check-readme.py checks that README.md quotes these regions
// verbatim).
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// Compiled, never called: it is the use-after-free the README warns about.
[[maybe_unused]] static void before(PassManager &pm, ModuleOp module,
                                    Operation *op) {
  // [readme:before]
  Operation *mul = op;                  // an op canonicalize will erase
  (void)pm.run(module);
  mul->getName();                       // undefined behaviour; a lookup in a
                                        // DenseMap<Operation *, T> may even
                                        // match a new op at the same address
  // [/readme:before]
}

static bool after(PassManager &pm, ModuleOp module, Operation *op) {
  // [readme:after]
  WeakOpRef mul(op);                    // opt-in: flags op, one table entry
  (void)pm.run(module);
  if (Operation *live = mul.get())      // null: canonicalize erased it
    live->dump();
  // [/readme:after]
  return mul.get() == nullptr;
}

int main() {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>("func.func @f(%a: i32) -> i32 {\n"
                                  "  %unused = arith.muli %a, %a : i32\n"
                                  "  return %a : i32\n"
                                  "}\n",
                                  &context);
  if (!module)
    return 1;
  Operation *mul = &module->getBody()->front().getRegion(0).front().front();
  PassManager pm(&context);
  pm.addPass(createCanonicalizerPass());
  bool erased = after(pm, *module, mul);
  llvm::outs() << "readme example: the reference "
               << (erased ? "reads null" : "is still set") << "\n";
  return erased ? 0 : 1;
}
