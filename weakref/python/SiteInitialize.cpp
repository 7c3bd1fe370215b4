//===- SiteInitialize.cpp - Dialects and passes of the mlir package -------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `mlir._mlir_libs._site_initialize_0`: registers the dialects this package is
// built with (builtin, func, arith, cf) in every Context, with func's inliner
// interface (without it the `inline` pass aborts the process), and the
// transform passes (canonicalize, cse, ...) on import, instead of upstream's
// `_mlirRegisterEverything`, which links every dialect.
//
//===----------------------------------------------------------------------===//

#include "BindingLibrary.h"
#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/ControlFlow.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/Transforms.h"

// weakref/python/Registration.cpp
extern "C" void
mlirWeakRefRegisterFuncInlinerExtension(MlirDialectRegistry registry);

MLIR_WEAKREF_PYTHON_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the builtin, func, arith and cf dialects (with func's "
            "inliner interface) and the transform passes";
  m.def("register_dialects", [](MlirDialectRegistry registry) {
    mlirDialectHandleInsertDialect(mlirGetDialectHandle__func__(), registry);
    mlirDialectHandleInsertDialect(mlirGetDialectHandle__arith__(), registry);
    mlirDialectHandleInsertDialect(mlirGetDialectHandle__cf__(), registry);
    mlirWeakRefRegisterFuncInlinerExtension(registry);
  });
  mlirRegisterTransformsPasses();
}
