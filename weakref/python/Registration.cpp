//===- Registration.cpp - C entry points the package's site module needs --===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// func's inliner interface, for the `inline` pass (without it the pass aborts
// the process), behind a C function: its C++ library is not built for
// aggregation into the package's C API library, and a C API library that
// links it is.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"

extern "C" MLIR_CAPI_EXPORTED void
mlirWeakRefRegisterFuncInlinerExtension(MlirDialectRegistry registry) {
  mlir::func::registerInlinerExtension(*unwrap(registry));
}
