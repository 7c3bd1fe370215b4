/* A downstream C user: holds a weak reference across the erasure of its op. */
#include "mlir-c/IR.h"
#include "mlir-weakref-c/WeakRef.h"

#include <stdio.h>

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirOperation module =
      mlirOperationCreateParse(ctx, mlirStringRefCreateFromCString("module {}"),
                               mlirStringRefCreateFromCString("example"));
  /* [readme:c] */
  MlirOperationRef ref = mlirOperationRefCreate(module);
  MlirWeakOpRefScope scope = mlirWeakOpRefScopeCreate();
  mlirWeakOpRefScopeCreateRef(scope, module);
  int aliveBefore = !mlirOperationIsNull(mlirOperationRefDeref(ref));
  mlirOperationDestroy(module);
  int deadAfter = mlirOperationIsNull(mlirOperationRefDeref(ref)); /* 1 */
  /* [/readme:c] */
  size_t scopeAlive = mlirWeakOpRefScopeCountAlive(scope);
  printf("alive before erase: %d, null after: %d, scope alive: %zu\n",
         aliveBefore, deadAfter, scopeAlive);
  mlirWeakOpRefScopeDestroy(scope);
  mlirOperationRefDestroy(ref);
  mlirContextDestroy(ctx);
  return aliveBefore && deadAfter && scopeAlive == 0 ? 0 : 1;
}
