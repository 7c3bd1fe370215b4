//===- analysis-opt.cpp - mlir-opt for the data-flow solver's passes ------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A test tool: MLIR's `MlirOptMain` with the passes whose data-flow solvers
// track the liveness of their anchors (the Arith passes, among them
// `int-range-optimizations`), `canonicalize`, the test passes that print
// dominance and use symbol tables (upstream's, built from the patched tree's
// mlir/test/lib/IR), and the dialects their upstream lit tests use, MLIR's
// Test dialect included. It stands in for mlir-opt when test/analyses/upstream
// runs those lit tests from the patched source tree: all of mlir-opt is not
// built by ./setup.sh.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

namespace test {
void registerTestDialect(mlir::DialectRegistry &);
} // namespace test
namespace mlir {
void registerSymbolTestPasses();
namespace test {
void registerTestDominancePass();
} // namespace test
} // namespace mlir

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect,
                  mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                  mlir::tensor::TensorDialect, mlir::ub::UBDialect,
                  mlir::vector::VectorDialect>();
  ::test::registerTestDialect(registry);
  mlir::arith::registerArithPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerSymbolTestPasses();
  mlir::test::registerTestDominancePass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "mlir-opt for the data-flow solver's passes\n", registry));
}
