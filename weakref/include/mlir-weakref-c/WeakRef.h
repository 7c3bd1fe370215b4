/*===-- mlir-weakref-c/WeakRef.h - Weak reference extension C API -*- C -*-===*\
|*                                                                            *|
|* Part of the mlir-weakref project, under the Apache License v2.0 with LLVM  *|
|* Exceptions.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * C API of the mlir-weakref extension, on top of the MlirOperationRef API of
 * the patched MLIR (mlir-c/IR.h): weak maps and sets keyed by operation, and
 * scopes that own references. Every function accepts null handles and then
 * returns false, 0 or a null value; none of them crashes on one.
 */

#ifndef MLIR_WEAKREF_C_WEAKREF_H
#define MLIR_WEAKREF_C_WEAKREF_H

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

DEFINE_C_API_STRUCT(MlirWeakOpMap, void);
DEFINE_C_API_STRUCT(MlirWeakOpRefScope, void);
DEFINE_C_API_STRUCT(MlirErasureProvenance, void);

#undef DEFINE_C_API_STRUCT

/*===----------------------------------------------------------------------===
 * Weak operation maps: operation -> intptr_t, forgetting destroyed operations.
 * A lookup never matches an operation allocated at a dead operation's address.
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED MlirWeakOpMap mlirWeakOpMapCreate(void);
MLIR_CAPI_EXPORTED void mlirWeakOpMapDestroy(MlirWeakOpMap map);
static inline bool mlirWeakOpMapIsNull(MlirWeakOpMap map) { return !map.ptr; }

/// Maps `op` to `value` unless it already has a value. Returns true if it was
/// inserted; false if `op` already had an entry or an argument is null.
MLIR_CAPI_EXPORTED bool mlirWeakOpMapInsert(MlirWeakOpMap map, MlirOperation op,
                                            intptr_t value);
/// Stores the value for `op` into `*value` and returns true if `op` has one.
MLIR_CAPI_EXPORTED bool mlirWeakOpMapLookup(MlirWeakOpMap map, MlirOperation op,
                                            intptr_t *value);
/// Removes `op`'s entry. Returns true if it had one.
MLIR_CAPI_EXPORTED bool mlirWeakOpMapErase(MlirWeakOpMap map, MlirOperation op);
/// Returns the number of entries whose operation is alive: linear in the
/// number of entries stored, dead ones included.
MLIR_CAPI_EXPORTED size_t mlirWeakOpMapSize(MlirWeakOpMap map);
/// Reclaims the storage of entries whose operation died; returns how many.
MLIR_CAPI_EXPORTED size_t mlirWeakOpMapPurge(MlirWeakOpMap map);

/*===----------------------------------------------------------------------===
 * Reference scopes: own references until destroyed.
 *===----------------------------------------------------------------------===*/

MLIR_CAPI_EXPORTED MlirWeakOpRefScope mlirWeakOpRefScopeCreate(void);
/// Drops every reference the scope owns and frees the scope.
MLIR_CAPI_EXPORTED void mlirWeakOpRefScopeDestroy(MlirWeakOpRefScope scope);
static inline bool mlirWeakOpRefScopeIsNull(MlirWeakOpRefScope scope) {
  return !scope.ptr;
}

/// Creates a reference to `op` owned by `scope` and returns its key, a
/// positive number that no other reference of the scope ever gets, not even
/// after a reset. Returns 0 if an argument is null.
MLIR_CAPI_EXPORTED uint64_t
mlirWeakOpRefScopeCreateRef(MlirWeakOpRefScope scope, MlirOperation op);
/// Returns true if `key` is a reference the scope owns: false once the scope
/// was reset, or for a key it never returned.
MLIR_CAPI_EXPORTED bool mlirWeakOpRefScopeContains(MlirWeakOpRefScope scope,
                                                   uint64_t key);
/// Returns the operation of the reference `key` if it is alive, and a null
/// operation if it died, `mlirWeakOpRefScopeContains` is false, or `scope` is
/// null.
MLIR_CAPI_EXPORTED MlirOperation
mlirWeakOpRefScopeDeref(MlirWeakOpRefScope scope, uint64_t key);
/// Returns a new reference, owned by the caller (destroy it with
/// mlirOperationRefDestroy), to the operation of the reference `key`; a null
/// reference if `mlirWeakOpRefScopeContains` is false.
MLIR_CAPI_EXPORTED MlirOperationRef
mlirWeakOpRefScopeCopyRef(MlirWeakOpRefScope scope, uint64_t key);
/// Returns the number of references owned by the scope.
MLIR_CAPI_EXPORTED size_t mlirWeakOpRefScopeSize(MlirWeakOpRefScope scope);
/// Returns how many of them refer to a live operation.
MLIR_CAPI_EXPORTED size_t
mlirWeakOpRefScopeCountAlive(MlirWeakOpRefScope scope);
/// Drops every reference the scope owns; the scope stays usable.
MLIR_CAPI_EXPORTED void mlirWeakOpRefScopeReset(MlirWeakOpRefScope scope);

/*===----------------------------------------------------------------------===
 * Erasure provenance: what destroyed a referenced operation.
 *===----------------------------------------------------------------------===*/

/// Starts recording, for `ctx`, the name, location and running pass of each
/// weakly referenced operation that is destroyed. Returns a null handle if
/// `ctx` is null or already has a recorder (or another destruction hook).
/// Like mlirErasureProvenanceDestroy, it sets the context's destruction hook,
/// which is not thread-safe: neither may run while operations of `ctx` are
/// being destroyed on other threads (by a pass manager, say). The recorder
/// must be destroyed before `ctx`.
MLIR_CAPI_EXPORTED MlirErasureProvenance
mlirErasureProvenanceEnable(MlirContext ctx);
/// Stops recording and frees the recorder. Must not run while operations of
/// its context are being destroyed on other threads.
MLIR_CAPI_EXPORTED void
mlirErasureProvenanceDestroy(MlirErasureProvenance provenance);
static inline bool
mlirErasureProvenanceIsNull(MlirErasureProvenance provenance) {
  return !provenance.ptr;
}
/// Attributes erasures made by `pm`'s passes to those passes.
MLIR_CAPI_EXPORTED void
mlirErasureProvenanceInstrument(MlirErasureProvenance provenance,
                                MlirPassManager pm);
/// If the operation `ref` refers to was destroyed while recording, calls
/// `callback` with a description such as
/// "`arith.constant` at loc(...) erased during pass 'canonicalize'" and
/// returns true. Returns false otherwise, or if an argument is null.
MLIR_CAPI_EXPORTED bool
mlirErasureProvenanceDescribe(MlirErasureProvenance provenance,
                              MlirOperationRef ref, MlirStringCallback callback,
                              void *userData);

#ifdef __cplusplus
}
#endif

#endif /* MLIR_WEAKREF_C_WEAKREF_H */
