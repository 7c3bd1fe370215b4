//===- ExtensionTest.cpp - Weak containers and reference scopes -----------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/WeakOpMap.h"
#include "mlir-weakref/WeakOpRefScope.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Compiler.h"
#include "gtest/gtest.h"

#include <string>

using namespace mlir;
using namespace mlir::weakref;

namespace {
class ExtensionTest : public ::testing::Test {
protected:
  ExtensionTest() { context.allowUnregisteredDialects(); }
  Operation *createOp() {
    return Operation::create(OperationState(UnknownLoc::get(&context), "t.op"));
  }
  /// Destroys `op` and allocates same-shaped ops until one lands at its
  /// address. Returns that op (owned by the caller), or null if the allocator
  /// never reused the address; `others` receives the ops allocated meanwhile.
  Operation *eraseAndReuseAddress(Operation *op,
                                  SmallVectorImpl<Operation *> &others) {
    void *address = op;
    op->destroy();
    for (int i = 0; i < 1000; ++i) {
      Operation *fresh = createOp();
      if (fresh == address)
        return fresh;
      others.push_back(fresh);
    }
    return nullptr;
  }
  MLIRContext context;
};

TEST_F(ExtensionTest, MapForgetsDestroyedOps) {
  WeakOpMap<std::string> map;
  Operation *a = createOp(), *b = createOp();
  EXPECT_TRUE(map.insert(a, "a").second);
  EXPECT_FALSE(map.insert(a, "again").second);
  map[b] = "b";
  EXPECT_EQ(*map.lookup(a), "a");
  EXPECT_EQ(map.size(), 2u);

  a->destroy();
  EXPECT_EQ(map.size(), 1u);
  EXPECT_EQ(map.getNumStoredEntries(), 2u);
  std::vector<std::string> seen;
  map.forEach([&](Operation *op, std::string &value) {
    EXPECT_EQ(op, b);
    seen.push_back(value);
  });
  EXPECT_EQ(seen, std::vector<std::string>{"b"});
  EXPECT_EQ(map.purge(), 1u);
  EXPECT_EQ(map.getNumStoredEntries(), 1u);
  EXPECT_TRUE(map.erase(b));
  EXPECT_FALSE(map.contains(b));
  b->destroy();
}

// The stale-cache bug: a DenseMap<Operation *, T> finds a dead op's entry for
// a new op at the same address; a WeakOpMap does not.
TEST_F(ExtensionTest, MapLookupNeverMatchesReusedAddress) {
  WeakOpMap<int> map;
  llvm::DenseMap<Operation *, int> plain;
  Operation *op = createOp();
  map[op] = 42;
  plain[op] = 42;
  SmallVector<Operation *> others;
  Operation *fresh = eraseAndReuseAddress(op, others);
  if (!fresh) {
    for (Operation *o : others)
      o->destroy();
#if LLVM_ADDRESS_SANITIZER_BUILD
    GTEST_SKIP() << "ASan's quarantine never hands a freed address back";
#endif
    FAIL() << "the premise of this test: the allocator reuses the address";
  }
  EXPECT_TRUE(plain.count(fresh)) << "the bug this container fixes";
  EXPECT_FALSE(map.contains(fresh));
  EXPECT_EQ(map.lookup(fresh), nullptr);
  EXPECT_EQ(map.size(), 0u);
  // Inserting the new op reuses the dead entry's slot.
  EXPECT_TRUE(map.insert(fresh, 7).second);
  EXPECT_EQ(*map.lookup(fresh), 7);
  EXPECT_EQ(map.getNumStoredEntries(), 1u);
  fresh->destroy();
  for (Operation *o : others)
    o->destroy();
}

TEST_F(ExtensionTest, MapPurgesWhenGrowing) {
  WeakOpMap<int> map;
  for (int i = 0; i < 1000; ++i) {
    Operation *op = createOp();
    map[op] = i;
    op->destroy();
  }
  // Dead entries are reclaimed as the map grows, so storage stays bounded.
  EXPECT_EQ(map.size(), 0u);
  EXPECT_LT(map.getNumStoredEntries(), 64u);
}

// Purges fall due as the map doubles (detail/Purge.h): ops that die between
// two due points are dropped at the second, and the schedule then follows the
// size the purge left.
TEST_F(ExtensionTest, MapPurgesOpsThatDiedSinceTheLastDuePurge) {
  // All created first, so that no op is created at a dead one's address.
  SmallVector<Operation *> ops;
  for (int i = 0; i < 200; ++i)
    ops.push_back(createOp());
  WeakOpMap<int> map;
  // Due at 64 entries, with every op alive.
  for (int i = 0; i < 100; ++i)
    map[ops[i]] = i;
  EXPECT_EQ(map.getNumStoredEntries(), 100u);
  for (int i = 0; i < 10; ++i)
    ops[i]->destroy();
  // Due again at 128 entries: the 10 dead entries go.
  for (int i = 100; i < 200; ++i)
    map[ops[i]] = i;
  EXPECT_EQ(map.getNumStoredEntries(), 190u);
  EXPECT_EQ(map.size(), 190u);
  // That purge left 118 entries: the next is due at 236. Deaths until then
  // stay stored (invisible to size()) until an explicit purge.
  for (int i = 10; i < 20; ++i)
    ops[i]->destroy();
  EXPECT_EQ(map.size(), 180u);
  EXPECT_EQ(map.getNumStoredEntries(), 190u);
  EXPECT_TRUE(map.erase(ops[150]));
  EXPECT_EQ(map.size(), 179u);
  EXPECT_EQ(map.purge(), 10u);
  EXPECT_EQ(map.getNumStoredEntries(), 179u);
  EXPECT_EQ(map.size(), 179u);
  for (int i = 20; i < 200; ++i)
    ops[i]->destroy();
}

TEST_F(ExtensionTest, MovedFromMapIsEmpty) {
  Operation *a = createOp(), *b = createOp();
  WeakOpMap<int> map;
  map[a] = 1;
  map[b] = 2;
  EXPECT_EQ(map.size(), 2u);
  WeakOpMap<int> moved(std::move(map));
  EXPECT_EQ(moved.size(), 2u);
  EXPECT_EQ(map.size(), 0u);
  EXPECT_EQ(map.getNumStoredEntries(), 0u);
  WeakOpMap<int> assigned;
  assigned[a] = 3;
  assigned = std::move(moved);
  EXPECT_EQ(*assigned.lookup(b), 2);
  EXPECT_EQ(moved.size(), 0u);
  // Both maps still work.
  map[a] = 4;
  EXPECT_EQ(map.size(), 1u);
  a->destroy();
  b->destroy();
  EXPECT_EQ(assigned.size(), 0u);
  EXPECT_EQ(map.size(), 0u);
}

TEST_F(ExtensionTest, SetForgetsDestroyedOps) {
  WeakOpSet set;
  Operation *op = createOp();
  EXPECT_TRUE(set.insert(op));
  EXPECT_FALSE(set.insert(op));
  EXPECT_TRUE(set.contains(op));
  SmallVector<Operation *> others;
  Operation *fresh = eraseAndReuseAddress(op, others);
  EXPECT_TRUE(set.empty());
  for (Operation *o : others)
    o->destroy();
#if LLVM_ADDRESS_SANITIZER_BUILD
  if (!fresh)
    GTEST_SKIP() << "ASan's quarantine never hands a freed address back";
#endif
  ASSERT_NE(fresh, nullptr) << "the allocator did not reuse the address";
  EXPECT_FALSE(set.contains(fresh));
  fresh->destroy();
}

TEST_F(ExtensionTest, ScopeOwnsAndReleasesReferences) {
  Operation *a = createOp(), *b = createOp();
  {
    WeakOpRef outside(a);
    WeakOpRefScope scope;
    WeakOpRefScope::Key ka = scope.create(a);
    WeakOpRefScope::Key kb = scope.create(b);
    for (int i = 0; i < 100; ++i)
      scope.create(a);
    EXPECT_EQ(scope.size(), 102u);
    EXPECT_EQ(outside.getUseCount(), 102u);
    EXPECT_EQ(scope.lookup(ka)->get(), a);
    EXPECT_EQ(scope.lookup(kb)->get(), b);
    EXPECT_EQ(scope.lookup(0), nullptr);
    EXPECT_EQ(scope.lookup(1000), nullptr);
    b->destroy();
    EXPECT_EQ(scope.countAlive(), 101u);
    EXPECT_TRUE(scope.lookup(kb)->isExpired());
    scope.reset();
    EXPECT_EQ(scope.size(), 0u);
    EXPECT_EQ(outside.getUseCount(), 1u);
    // Keys from before the reset find nothing, not the new references.
    WeakOpRefScope::Key kc = scope.create(a);
    EXPECT_GT(kc, kb);
    EXPECT_EQ(scope.lookup(ka), nullptr);
    EXPECT_EQ(scope.lookup(kb), nullptr);
    EXPECT_EQ(scope.lookup(kc)->get(), a);
    EXPECT_EQ(outside.getUseCount(), 2u);
  }
  // The scope's end dropped its references; the op itself is untouched.
  WeakOpRef after(a);
  EXPECT_EQ(after.getUseCount(), 1u);
  a->destroy();
}

// size() counts the entries whose op is alive, whatever happened since the
// last purge: deaths of keys (not of other ops), erases, inserts, reinserts.
// It does not purge.
TEST_F(ExtensionTest, MapSizeCountsLiveEntries) {
  WeakOpMap<int> map;
  EXPECT_TRUE(map.empty());
  SmallVector<Operation *> ops;
  for (int i = 0; i < 10; ++i) {
    ops.push_back(createOp());
    map[ops.back()] = i;
  }
  EXPECT_EQ(map.size(), 10u);
  EXPECT_FALSE(map.empty());
  // An op that is not a key, referenced or not, does not count.
  createOp()->destroy();
  Operation *other = createOp();
  WeakOpRef otherRef(other);
  other->destroy();
  EXPECT_EQ(map.size(), 10u);
  ops[3]->destroy();
  EXPECT_EQ(map.size(), 9u);
  // Counting does not purge.
  EXPECT_EQ(map.getNumStoredEntries(), 10u);
  EXPECT_TRUE(map.erase(ops[4]));
  EXPECT_FALSE(map.erase(ops[4]));
  EXPECT_EQ(map.size(), 8u);
  EXPECT_FALSE(map.insert(ops[5], 0).second);
  EXPECT_EQ(map.size(), 8u);
  EXPECT_TRUE(map.insert(ops[4], 4).second);
  EXPECT_EQ(map.size(), 9u);
  EXPECT_EQ(map.purge(), 1u);
  EXPECT_EQ(map.size(), 9u);
  for (Operation *op : ops)
    if (op != ops[3])
      op->destroy();
  EXPECT_EQ(map.size(), 0u);
  EXPECT_TRUE(map.empty());
  EXPECT_EQ(map.getNumStoredEntries(), 9u);
  map.clear();
  EXPECT_EQ(map.getNumStoredEntries(), 0u);
}

} // namespace
