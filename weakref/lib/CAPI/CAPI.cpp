//===- CAPI.cpp - C API of the mlir-weakref extension ---------------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref-c/WeakRef.h"
#include "mlir-weakref/ErasureProvenance.h"
#include "mlir-weakref/WeakOpMap.h"
#include "mlir-weakref/WeakOpRefScope.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Wrap.h"

using namespace mlir;
using namespace mlir::weakref;

using WeakIntMap = WeakOpMap<intptr_t>;
DEFINE_C_API_PTR_METHODS(MlirWeakOpMap, WeakIntMap)
DEFINE_C_API_PTR_METHODS(MlirWeakOpRefScope, WeakOpRefScope)
DEFINE_C_API_PTR_METHODS(MlirErasureProvenance, ErasureProvenance)

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

bool mlirWeakOpMapLookup(MlirWeakOpMap map, MlirOperation op, intptr_t *value) {
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

uint64_t mlirWeakOpRefScopeCreateRef(MlirWeakOpRefScope scope,
                                     MlirOperation op) {
  if (mlirWeakOpRefScopeIsNull(scope) || mlirOperationIsNull(op))
    return 0;
  return unwrap(scope)->create(unwrap(op));
}

bool mlirWeakOpRefScopeContains(MlirWeakOpRefScope scope, uint64_t key) {
  return !mlirWeakOpRefScopeIsNull(scope) && unwrap(scope)->lookup(key);
}

MlirOperation mlirWeakOpRefScopeDeref(MlirWeakOpRefScope scope, uint64_t key) {
  const WeakOpRef *ref =
      mlirWeakOpRefScopeIsNull(scope) ? nullptr : unwrap(scope)->lookup(key);
  return wrap(ref ? ref->get() : nullptr);
}

MlirOperationRef mlirWeakOpRefScopeCopyRef(MlirWeakOpRefScope scope,
                                           uint64_t key) {
  const WeakOpRef *ref =
      mlirWeakOpRefScopeIsNull(scope) ? nullptr : unwrap(scope)->lookup(key);
  return wrap(ref ? *ref : WeakOpRef());
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

//===----------------------------------------------------------------------===//
// Erasure provenance
//===----------------------------------------------------------------------===//

MlirErasureProvenance mlirErasureProvenanceEnable(MlirContext ctx) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  return wrap(ErasureProvenance::enable(unwrap(ctx)).release());
}

void mlirErasureProvenanceDestroy(MlirErasureProvenance provenance) {
  delete unwrap(provenance);
}

void mlirErasureProvenanceInstrument(MlirErasureProvenance provenance,
                                     MlirPassManager pm) {
  if (!mlirErasureProvenanceIsNull(provenance) && !mlirPassManagerIsNull(pm))
    unwrap(provenance)->instrument(*unwrap(pm));
}

bool mlirErasureProvenanceDescribe(MlirErasureProvenance provenance,
                                   MlirOperationRef ref,
                                   MlirStringCallback callback,
                                   void *userData) {
  if (mlirErasureProvenanceIsNull(provenance) || mlirOperationRefIsNull(ref))
    return false;
  // Look the borrowed handle up without taking its ownership.
  using mlir::detail::WeakRefOpaqueAccess;
  WeakOpRef weak = WeakRefOpaqueAccess::adopt<WeakOpRef>(ref.ptr);
  std::optional<ErasureProvenance::Record> record =
      unwrap(provenance)->lookup(weak);
  (void)WeakRefOpaqueAccess::release(weak);
  if (!record)
    return false;
  std::string text = record->describe();
  if (callback)
    callback(mlirStringRefCreate(text.data(), text.size()), userData);
  return true;
}
