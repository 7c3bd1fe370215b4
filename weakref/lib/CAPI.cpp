//===- CAPI.cpp - C API of the mlir-weakref extension ---------------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref-c/WeakRef.h"
#include "mlir-weakref/WeakOpMap.h"
#include "mlir-weakref/WeakOpRefScope.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Wrap.h"

using namespace mlir;
using namespace mlir::weakref;

using WeakIntMap = WeakOpMap<intptr_t>;
DEFINE_C_API_PTR_METHODS(MlirWeakOpMap, WeakIntMap)
DEFINE_C_API_PTR_METHODS(MlirWeakOpRefScope, WeakOpRefScope)

//===----------------------------------------------------------------------===//
// Weak operation maps
//===----------------------------------------------------------------------===//

MlirWeakOpMap mlirWeakOpMapCreate(void) { return wrap(new WeakIntMap()); }

void mlirWeakOpMapDestroy(MlirWeakOpMap map) { delete unwrap(map); }

bool mlirWeakOpMapInsert(MlirWeakOpMap map, MlirOperation op, intptr_t value) {
  if (mlirWeakOpMapIsNull(map) || mlirOperationIsNull(op))
    return false;
  return unwrap(map)->insert(unwrap(op), value).second;
}

bool mlirWeakOpMapLookup(MlirWeakOpMap map, MlirOperation op,
                         intptr_t *value) {
  if (mlirWeakOpMapIsNull(map) || mlirOperationIsNull(op))
    return false;
  const intptr_t *found = unwrap(map)->lookup(unwrap(op));
  if (found && value)
    *value = *found;
  return found != nullptr;
}

bool mlirWeakOpMapErase(MlirWeakOpMap map, MlirOperation op) {
  if (mlirWeakOpMapIsNull(map) || mlirOperationIsNull(op))
    return false;
  return unwrap(map)->erase(unwrap(op));
}

size_t mlirWeakOpMapSize(MlirWeakOpMap map) {
  return mlirWeakOpMapIsNull(map) ? 0 : unwrap(map)->size();
}

size_t mlirWeakOpMapPurge(MlirWeakOpMap map) {
  return mlirWeakOpMapIsNull(map) ? 0 : unwrap(map)->purge();
}

//===----------------------------------------------------------------------===//
// Reference scopes
//===----------------------------------------------------------------------===//

MlirWeakOpRefScope mlirWeakOpRefScopeCreate(void) {
  return wrap(new WeakOpRefScope());
}

void mlirWeakOpRefScopeDestroy(MlirWeakOpRefScope scope) {
  delete unwrap(scope);
}

MlirOperationRef mlirWeakOpRefScopeCreateRef(MlirWeakOpRefScope scope,
                                             MlirOperation op) {
  if (mlirWeakOpRefScopeIsNull(scope) || mlirOperationIsNull(op))
    return {nullptr};
  // Borrowed: the scope keeps the ownership.
  const void *control = unwrap(scope)->create(unwrap(op)).getOpaqueIdentity();
  return {const_cast<void *>(control)};
}

size_t mlirWeakOpRefScopeSize(MlirWeakOpRefScope scope) {
  return mlirWeakOpRefScopeIsNull(scope) ? 0 : unwrap(scope)->size();
}

size_t mlirWeakOpRefScopeCountAlive(MlirWeakOpRefScope scope) {
  return mlirWeakOpRefScopeIsNull(scope) ? 0 : unwrap(scope)->countAlive();
}

void mlirWeakOpRefScopeReset(MlirWeakOpRefScope scope) {
  if (!mlirWeakOpRefScopeIsNull(scope))
    unwrap(scope)->reset();
}
