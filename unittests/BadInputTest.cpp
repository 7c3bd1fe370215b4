//===- BadInputTest.cpp - Misuse of references, C API included -------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The documented results of misuse: references created while ops are being
// destroyed, ops of another context, and releasing a reference twice (a use
// after free, reported by AddressSanitizer builds). Null handles and refs
// outliving their context are covered by test/CAPI/weakref-capi.c and
// mlir/test/CAPI/opref.c.
//
//===----------------------------------------------------------------------===//

#include "TestIR.h"
#include "mlir-c/IR.h"
#include "mlir-weakref-c/WeakRef.h"
#include "mlir-weakref/ErasureProvenance.h"
#include "mlir-weakref/WeakOpMap.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Compiler.h"
#include "gtest/gtest.h"

#include <vector>

using namespace mlir;

namespace {

using weakref::test::makeArithFuncContext;
using weakref::test::opsNamed;

// While a module is torn down, the destruction hook sees each referenced op
// and may reference it, and any op not being destroyed: the former read null
// once their op is gone, nothing is left in the table, and new ops at the same
// addresses are not resurrected.
TEST(BadInputTest, ReferencesCreatedDuringTeardown) {
  auto context = makeArithFuncContext();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      weakref::test::foldableFunctions(4), context.get());
  OwningOpRef<ModuleOp> other = parseSourceString<ModuleOp>(
      weakref::test::foldableFunctions(1), context.get());
  ASSERT_TRUE(module && other);
  std::vector<WeakOpRef> held;
  for (Operation *op : opsNamed(*module, "arith.addi"))
    held.emplace_back(op);
  struct State {
    Operation *survivor;
    std::vector<WeakOpRef> dying, surviving;
  } state{other->getOperation(), {}, {}};
  setWeakOpRefDestructionHook(
      context.get(),
      [](Operation *op, void *userData) {
        auto *s = static_cast<State *>(userData);
        s->dying.emplace_back(op);
        s->surviving.emplace_back(s->survivor);
      },
      &state);
  module = nullptr;
  setWeakOpRefDestructionHook(context.get(), nullptr, nullptr);
  ASSERT_EQ(state.dying.size(), held.size());
  for (const WeakOpRef &ref : state.dying)
    EXPECT_EQ(ref.get(), nullptr);
  for (const WeakOpRef &ref : held)
    EXPECT_EQ(ref.get(), nullptr);
  for (const WeakOpRef &ref : state.surviving)
    EXPECT_EQ(ref.get(), other->getOperation());
  OwningOpRef<ModuleOp> again = parseSourceString<ModuleOp>(
      weakref::test::foldableFunctions(4), context.get());
  for (Operation *op : opsNamed(*again, "arith.addi"))
    EXPECT_EQ(WeakOpRef(op).getUseCount(), 1u);
}

// Ops of two contexts in one map and one scope: each context's ops die with
// their module or context, independently; a provenance recorder knows only
// about its own context.
TEST(BadInputTest, OpsOfAnotherContext) {
  auto contextA = makeArithFuncContext();
  auto contextB = makeArithFuncContext();
  OwningOpRef<ModuleOp> a = parseSourceString<ModuleOp>(
      weakref::test::foldableFunctions(1), contextA.get());
  OwningOpRef<ModuleOp> b = parseSourceString<ModuleOp>(
      weakref::test::foldableFunctions(1), contextB.get());
  ASSERT_TRUE(a && b);
  auto provenance = weakref::ErasureProvenance::enable(contextA.get());
  weakref::WeakOpMap<int> map;
  Operation *opA = opsNamed(*a, "arith.muli").front();
  Operation *opB = opsNamed(*b, "arith.muli").front();
  map[opA] = 1;
  map[opB] = 2;
  WeakOpRef refB(opB);
  opB->erase();
  EXPECT_EQ(map.size(), 1u);
  ASSERT_NE(map.lookup(opA), nullptr);
  EXPECT_EQ(*map.lookup(opA), 1);
  EXPECT_FALSE(provenance->lookup(refB).has_value());
  // The other context goes entirely, with a module leaked into it.
  WeakOpRef leakedB(b->getOperation());
  weakref::test::leakOnPurpose(b.release());
  contextB.reset();
  EXPECT_TRUE(leakedB.isExpired());
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(WeakOpRef(opA).get(), opA);
}

// The C API's view of the same: an MlirWeakOpMap across contexts, and a
// context destroyed under a scope that still owns references into it.
TEST(BadInputTest, CAPIScopeOutlivesContext) {
  MlirContext ctx = mlirContextCreate();
  MlirOperation module = mlirOperationCreateParse(
      ctx, mlirStringRefCreateFromCString("module {}"),
      mlirStringRefCreateFromCString("bad-input"));
  MlirWeakOpRefScope scope = mlirWeakOpRefScopeCreate();
  uint64_t key = mlirWeakOpRefScopeCreateRef(scope, module);
  MlirOperationRef copy = mlirWeakOpRefScopeCopyRef(scope, key);
  MlirWeakOpMap map = mlirWeakOpMapCreate();
  EXPECT_TRUE(mlirWeakOpMapInsert(map, module, 7));
  // The module is leaked into the context, which is destroyed first.
  weakref::test::leakOnPurpose(unwrap(module));
  mlirContextDestroy(ctx);
  EXPECT_TRUE(mlirOperationRefIsExpired(copy));
  EXPECT_TRUE(mlirWeakOpRefScopeContains(scope, key));
  EXPECT_TRUE(mlirOperationIsNull(mlirWeakOpRefScopeDeref(scope, key)));
  mlirOperationRefDestroy(copy);
  EXPECT_EQ(mlirWeakOpRefScopeCountAlive(scope), 0u);
  EXPECT_EQ(mlirWeakOpMapSize(map), 0u);
  EXPECT_EQ(mlirWeakOpMapPurge(map), 1u);
  mlirWeakOpMapDestroy(map);
  // A key kept past a reset finds nothing, never a later reference.
  mlirWeakOpRefScopeReset(scope);
  EXPECT_FALSE(mlirWeakOpRefScopeContains(scope, key));
  EXPECT_TRUE(mlirOperationRefIsNull(mlirWeakOpRefScopeCopyRef(scope, key)));
  mlirWeakOpRefScopeDestroy(scope);
}

#if GTEST_HAS_DEATH_TEST && LLVM_ADDRESS_SANITIZER_BUILD
// Releasing the last reference twice is undefined behaviour, like a double
// `free`: the first release frees the control block, and the second touches
// it. AddressSanitizer builds report that use after free (use-after-poison
// while the 19.1.7 series still pools its control blocks); other builds do
// not detect it. Releasing a reference twice while others remain cannot be
// told apart from releasing two references, and is not detectable.
TEST(BadInputDeathTest, ReleasingTwiceIsAUseAfterFree) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto context = makeArithFuncContext();
        OwningOpRef<ModuleOp> module =
            parseSourceString<ModuleOp>("module {}", context.get());
        MlirOperationRef ref = mlirOperationRefCreate(wrap(module->getOperation()));
        mlirOperationRefDestroy(ref);
        mlirOperationRefDestroy(ref);
      },
      "heap-use-after-free|use-after-poison");
}
#endif

} // namespace
