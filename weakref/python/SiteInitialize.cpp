//===- SiteInitialize.cpp - Dialects and passes of the mlir package -------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// `mlir._mlir_libs._site_initialize_0`: registers the dialects this package is
// built with in every Context (Registration.cpp says which, with their
// extensions and interface models), and their passes and the transform
// passes (canonicalize, cse, ...) on import, instead of upstream's
// `_mlirRegisterEverything`, which links every dialect.
//
//===----------------------------------------------------------------------===//

#include "BindingLibrary.h"
#include "mlir-c/IR.h"
#include "mlir-c/Transforms.h"

// weakref/python/Registration.cpp
extern "C" void mlirWeakRefRegisterDialects(MlirDialectRegistry registry);
extern "C" void mlirWeakRefRegisterDialectPasses();

MLIR_WEAKREF_PYTHON_MODULE(_site_initialize_0, m) {
  m.doc() = "Registers the package's dialects, their extensions and passes, "
            "and the transform passes";
  m.def("register_dialects", [](MlirDialectRegistry registry) {
    mlirWeakRefRegisterDialects(registry);
  });
  mlirRegisterTransformsPasses();
  mlirWeakRefRegisterDialectPasses();
}
