//===- ircore_compat.cpp - upstream constructors of IRCore.h --------------===//
//
// The installed mlir/Bindings/Python/IRCore.h keeps the constructors that
// upstream 23.1.1 gives the classes the liveness patches changed, so that
// Python extensions written against upstream still compile (patch 19,
// "Check iterators, lists and operands through weak references"). Compiled
// only (-fsyntax-only) by the ctest test ircore-upstream-signatures.
//
//===----------------------------------------------------------------------===//

#include "mlir/Bindings/Python/IRCore.h"

using namespace mlir::python::MLIR_BINDINGS_PYTHON_DOMAIN;

// Upstream 23.1.1's signatures, one call each.
void constructWithUpstreamSignatures(PyOperationRef op, MlirBlock block,
                                     MlirOperation firstOp,
                                     MlirOpOperand firstUse) {
  PyOperationList operations(op, block);
  PyBlockIterator blocks(op, block);
  PyOperationIterator opIterator(op, firstOp);
  PyOpOperand operand(firstUse);
  PyOpOperandIterator uses(firstUse);
  PyBlockArgumentList arguments(op, block);
  PyBlockArgumentList argumentSlice(op, block, /*startIndex=*/0,
                                    /*length=*/1, /*step=*/1);
}
