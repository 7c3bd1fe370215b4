//===- weakref-capi.c - Test of the mlir-weakref extension C API ----------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

// RUN: weakref-capi-test 2>&1 | FileCheck %s

#include "mlir-c/Dialect/Arith.h"
#include "mlir-c/Dialect/Func.h"
#include "mlir-c/IR.h"
#include "mlir-c/Transforms.h"
#include "mlir-weakref-c/WeakRef.h"
#include "llvm/Config/llvm-config.h"

#include <stdio.h>
#include <stdlib.h>

// LLVM 23.1.1 names the generated pass constructors ...Pass (19.1.7 did not;
// the releases in between are not built here).
#if LLVM_VERSION_MAJOR >= 23
#define createCanonicalizerPass mlirCreateTransformsCanonicalizerPass
#else
#define createCanonicalizerPass mlirCreateTransformsCanonicalizer
#endif

static MlirOperation createOp(MlirContext ctx) {
  MlirOperationState state = mlirOperationStateGet(
      mlirStringRefCreateFromCString("t.op"), mlirLocationUnknownGet(ctx));
  return mlirOperationCreate(&state);
}

static void testNullHandles(void) {
  // CHECK-LABEL: @testNullHandles
  fprintf(stderr, "@testNullHandles\n");
  MlirWeakOpMap map = {NULL};
  MlirWeakOpRefScope scope = {NULL};
  MlirOperation op = {NULL};
  intptr_t value = -1;
  // CHECK: map: 0 0 0 0 0 value -1
  fprintf(stderr, "map: %d %d %d %zu %zu value %ld\n",
          mlirWeakOpMapInsert(map, op, 1), mlirWeakOpMapLookup(map, op, &value),
          mlirWeakOpMapErase(map, op), mlirWeakOpMapSize(map),
          mlirWeakOpMapPurge(map), (long)value);
  mlirWeakOpMapDestroy(map);
  // CHECK: scope: 0 0 1 1 0 0
  fprintf(stderr, "scope: %d %d %d %d %zu %zu\n",
          (int)mlirWeakOpRefScopeCreateRef(scope, op),
          mlirWeakOpRefScopeContains(scope, 1),
          mlirOperationIsNull(mlirWeakOpRefScopeDeref(scope, 1)),
          mlirOperationRefIsNull(mlirWeakOpRefScopeCopyRef(scope, 1)),
          mlirWeakOpRefScopeSize(scope), mlirWeakOpRefScopeCountAlive(scope));
  mlirWeakOpRefScopeReset(scope);
  mlirWeakOpRefScopeDestroy(scope);

  // A real map given a null op.
  map = mlirWeakOpMapCreate();
  // CHECK: null op: 0 0
  fprintf(stderr, "null op: %d %d\n", mlirWeakOpMapInsert(map, op, 1),
          mlirWeakOpMapLookup(map, op, NULL));
  mlirWeakOpMapDestroy(map);
}

static void testMapAcrossAddressReuse(void) {
  // CHECK-LABEL: @testMapAcrossAddressReuse
  fprintf(stderr, "@testMapAcrossAddressReuse\n");
  MlirContext ctx = mlirContextCreate();
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  MlirWeakOpMap map = mlirWeakOpMapCreate();
  MlirOperation op = createOp(ctx);
  intptr_t value = 0;
  // CHECK: insert 1 again 0 lookup 1 -> 42 size 1
  int inserted = mlirWeakOpMapInsert(map, op, 42);
  int again = mlirWeakOpMapInsert(map, op, 43);
  int found = mlirWeakOpMapLookup(map, op, &value);
  fprintf(stderr, "insert %d again %d lookup %d -> %ld size %zu\n", inserted,
          again, found, (long)value, mlirWeakOpMapSize(map));

  void *address = op.ptr;
  mlirOperationDestroy(op);
  int stale = 0, reused = 0;
  for (int i = 0; i < 1000 && !reused; ++i) {
    MlirOperation fresh = createOp(ctx);
    if (fresh.ptr == address) {
      reused = 1;
      stale |= mlirWeakOpMapLookup(map, fresh, &value);
    }
    mlirOperationDestroy(fresh);
  }
  // The premise: a new op took the destroyed op's address.
#if defined(__SANITIZE_ADDRESS__)
  // CHECK: reuse {{observed|skipped \(ASan quarantine\)}}
  fprintf(stderr, "reuse skipped (ASan quarantine)\n");
#else
  fprintf(stderr, "reuse %s\n", reused ? "observed" : "NOT observed");
#endif
  // CHECK: after destroy: size 0, stale match 0, purged 1
  fprintf(stderr, "after destroy: size %zu, stale match %d, purged %zu\n",
          mlirWeakOpMapSize(map), stale, mlirWeakOpMapPurge(map));
  mlirWeakOpMapDestroy(map);
  mlirContextDestroy(ctx);
}

static void testScope(void) {
  // CHECK-LABEL: @testScope
  fprintf(stderr, "@testScope\n");
  MlirContext ctx = mlirContextCreate();
  mlirContextSetAllowUnregisteredDialects(ctx, true);
  MlirOperation a = createOp(ctx), b = createOp(ctx);
  MlirWeakOpRefScope scope = mlirWeakOpRefScopeCreate();
  uint64_t ka = mlirWeakOpRefScopeCreateRef(scope, a);
  uint64_t kb = mlirWeakOpRefScopeCreateRef(scope, b);
  // A copy is owned by the caller and outlives the scope's reference.
  MlirOperationRef kept = mlirWeakOpRefScopeCopyRef(scope, kb);
  mlirOperationDestroy(b);
  // CHECK: keys 1 2 size 2 alive 1 a live 1 b dead 1
  fprintf(stderr, "keys %d %d size %zu alive %zu a live %d b dead %d\n",
          (int)ka, (int)kb, mlirWeakOpRefScopeSize(scope),
          mlirWeakOpRefScopeCountAlive(scope),
          mlirOperationEqual(mlirWeakOpRefScopeDeref(scope, ka), a),
          mlirOperationIsNull(mlirWeakOpRefScopeDeref(scope, kb)));
  // After a reset, old keys find nothing, and new keys are never old ones.
  mlirWeakOpRefScopeReset(scope);
  uint64_t kc = mlirWeakOpRefScopeCreateRef(scope, a);
  // CHECK: after reset: contains a 0 deref a null 1 new key 3 live 1
  fprintf(stderr,
          "after reset: contains a %d deref a null %d new key %d live %d\n",
          mlirWeakOpRefScopeContains(scope, ka),
          mlirOperationIsNull(mlirWeakOpRefScopeDeref(scope, ka)), (int)kc,
          mlirOperationEqual(mlirWeakOpRefScopeDeref(scope, kc), a));
  mlirWeakOpRefScopeDestroy(scope);
  // CHECK: kept copy expired 1
  fprintf(stderr, "kept copy expired %d\n", mlirOperationRefIsExpired(kept));
  mlirOperationRefDestroy(kept);
  mlirOperationDestroy(a);
  mlirContextDestroy(ctx);
}

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static void testProvenance(void) {
  // CHECK-LABEL: @testProvenance
  fprintf(stderr, "@testProvenance\n");
  MlirContext ctx = mlirContextCreate();
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__func__(), ctx);
  mlirDialectHandleRegisterDialect(mlirGetDialectHandle__arith__(), ctx);
  MlirErasureProvenance provenance = mlirErasureProvenanceEnable(ctx);
  // CHECK: enabled 1, second 0, null context 0
  fprintf(stderr, "enabled %d, second %d, null context %d\n",
          !mlirErasureProvenanceIsNull(provenance),
          !mlirErasureProvenanceIsNull(mlirErasureProvenanceEnable(ctx)),
          !mlirErasureProvenanceIsNull(
              mlirErasureProvenanceEnable((MlirContext){NULL})));

  MlirOperation module = mlirOperationCreateParse(
      ctx,
      mlirStringRefCreateFromCString("module {\n"
                                     "  func.func @f(%a: i32) -> i32 {\n"
                                     "    %dead = arith.muli %a, %a : i32\n"
                                     "    return %a : i32\n"
                                     "  }\n"
                                     "}\n"),
      mlirStringRefCreateFromCString("prov.mlir"));
  MlirOperation func = mlirBlockGetFirstOperation(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)));
  MlirOperation mul = mlirBlockGetFirstOperation(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(func, 0)));
  MlirOperationRef ref = mlirOperationRefCreate(mul);
  // CHECK: alive: described 0
  fprintf(stderr, "alive: described %d\n",
          mlirErasureProvenanceDescribe(provenance, ref, printToStderr, NULL));

  MlirPassManager pm = mlirPassManagerCreate(ctx);
  mlirErasureProvenanceInstrument(provenance, pm);
  MlirOpPassManager funcPm = mlirPassManagerGetNestedUnder(
      pm, mlirStringRefCreateFromCString("func.func"));
  mlirOpPassManagerAddOwnedPass(funcPm, createCanonicalizerPass());
  mlirPassManagerRunOnOp(pm, module);
  // CHECK: dead: `arith.muli` at loc("prov.mlir":3:13)
  // CHECK-SAME: erased during pass 'canonicalize'
  fprintf(stderr, "dead: ");
  mlirErasureProvenanceDescribe(provenance, ref, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: null ref: 0
  fprintf(stderr, "null ref: %d\n",
          mlirErasureProvenanceDescribe(provenance, (MlirOperationRef){NULL},
                                        printToStderr, NULL));
  mlirPassManagerDestroy(pm);
  mlirOperationRefDestroy(ref);
  mlirOperationDestroy(module);
  mlirErasureProvenanceDestroy(provenance);
  mlirContextDestroy(ctx);
}

int main(void) {
  testNullHandles();
  testMapAcrossAddressReuse();
  testScope();
  testProvenance();
  return EXIT_SUCCESS;
}
