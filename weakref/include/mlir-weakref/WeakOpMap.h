//===- WeakOpMap.h - Weak maps and sets of operations -----------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// WeakOpMap<T> and WeakOpSet are keyed by operation, hold only a weak
// reference to each key, and forget an entry once its operation has been
// destroyed. They fix the classic stale-cache bug of
// `DenseMap<Operation *, T>`: after an op is erased, a new op allocated at the
// same address would find the old op's entry. Here a lookup compares the
// stored reference, not just the address, so it never matches a new op.
//
// Entries are indexed by address. An entry whose op has died is invisible to
// lookups and iteration at once, and its storage is reclaimed lazily: when a
// new op takes its address, on `purge()`, or when the map would grow.
//
// Not thread-safe: like DenseMap, a map must not be mutated concurrently with
// any other access. Keys may be destroyed on any thread.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_WEAKOPMAP_H
#define MLIR_WEAKREF_WEAKOPMAP_H

#include "mlir-weakref/detail/Purge.h"
#include "mlir/IR/WeakOpRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <utility>

namespace mlir::weakref {

template <typename T>
class WeakOpMap {
  struct Entry {
    Entry(T &&value) : value(std::move(value)) {}
    WeakOpRef ref;
    T value;
  };
  using Storage = llvm::DenseMap<Operation *, Entry>;

  /// Returns the entry for `op` if it belongs to `op` itself, not to a dead op
  /// that had the same address.
  Entry *findLive(Operation *op) const {
    auto it = storage.find(op);
    if (it == storage.end() || it->second.ref.get() != op)
      return nullptr;
    return const_cast<Entry *>(&it->second);
  }

public:
  WeakOpMap() = default;
  WeakOpMap(const WeakOpMap &) = default;
  WeakOpMap &operator=(const WeakOpMap &) = default;
  /// A moved-from map is empty (its live count included).
  WeakOpMap(WeakOpMap &&other) noexcept { *this = std::move(other); }
  WeakOpMap &operator=(WeakOpMap &&other) noexcept {
    if (this != &other) {
      storage = std::move(other.storage);
      purgeSchedule = other.purgeSchedule;
      liveCount = other.liveCount;
      liveCountEpoch = other.liveCountEpoch;
      other.clear();
    }
    return *this;
  }

  /// Inserts `value` for `op` unless `op` already has an entry. Returns the
  /// entry's value and whether it was inserted. One hash lookup.
  std::pair<T *, bool> insert(Operation *op, T value) {
    assert(op && "cannot insert a null operation");
    if (purgeSchedule.isDue(storage.size()))
      purgeDue();
    auto [it, inserted] = storage.try_emplace(op, std::move(value));
    Entry &entry = it->second;
    if (!inserted) {
      if (entry.ref.get() == op)
        return {&entry.value, false};
      // A dead op's entry at the same address: reuse its slot.
      entry.value = std::move(value);
    }
    entry.ref = WeakOpRef(op);
    ++liveCount;
    return {&entry.value, true};
  }

  /// Returns the value for `op`, default-constructing it if absent.
  T &operator[](Operation *op) { return *insert(op, T()).first; }

  /// Returns a pointer to the value for `op`, or null if it has none.
  T *lookup(Operation *op) {
    Entry *entry = findLive(op);
    return entry ? &entry->value : nullptr;
  }
  const T *lookup(Operation *op) const {
    return const_cast<WeakOpMap *>(this)->lookup(op);
  }
  bool contains(Operation *op) const { return findLive(op) != nullptr; }

  /// Removes the entry for `op`. Returns true if there was one.
  bool erase(Operation *op) {
    if (!findLive(op))
      return false;
    storage.erase(op);
    --liveCount;
    return true;
  }

  /// Drops the entries of destroyed operations. Returns how many were dropped.
  size_t purge() {
    size_t before = storage.size();
    detail::eraseIf(storage, [](auto &kv) { return !kv.second.ref; });
    return before - storage.size();
  }

  /// Returns the number of entries whose operation is alive. Constant time
  /// while no weakly referenced operation has died since the last count
  /// (mlir::getWeakRefInvalidationEpoch, which any weakly referenced object's
  /// death in the process moves); otherwise the entries are counted again.
  size_t size() const {
    uint64_t epoch = getWeakRefInvalidationEpoch();
    if (epoch != liveCountEpoch) {
      liveCount =
          llvm::count_if(storage, [](auto &kv) { return bool(kv.second.ref); });
      liveCountEpoch = epoch;
    }
    return liveCount;
  }
  bool empty() const { return size() == 0; }
  void clear() {
    storage.clear();
    liveCount = 0;
    liveCountEpoch = getWeakRefInvalidationEpoch();
  }

  /// Calls `fn(Operation *, T &)` for every entry whose operation is alive.
  template <typename Fn>
  void forEach(Fn &&fn) {
    for (auto &kv : storage)
      if (kv.second.ref.get() == kv.first)
        fn(kv.first, kv.second.value);
  }

  /// The number of entries held, dead ones included (for tests and tuning).
  size_t getNumStoredEntries() const { return storage.size(); }

private:
  /// A purge the schedule calls for. Skipped when it cannot drop anything:
  /// the live count is exact while the invalidation epoch has not moved since
  /// it was taken (every insert and erase keeps it so), and if it counts every
  /// stored entry, none is dead. So a map does not walk its storage as it
  /// grows while no weakly referenced object in the process dies (the epoch
  /// is process-wide).
  void purgeDue() {
    uint64_t epoch = getWeakRefInvalidationEpoch();
    if (epoch != liveCountEpoch || liveCount != storage.size()) {
      purge();
      // Exact for `epoch`: an operation that died after it was read and
      // still has an entry moved the epoch past it.
      liveCount = storage.size();
      liveCountEpoch = epoch;
    }
    purgeSchedule.purged(storage.size());
  }

  Storage storage;
  /// Dead entries are dropped as the map grows (see detail/Purge.h).
  detail::PurgeSchedule purgeSchedule;
  /// The number of live entries, exact while the invalidation epoch reads
  /// `liveCountEpoch` (every insert and erase keeps it so); recounted by
  /// size() once the epoch has moved.
  mutable size_t liveCount = 0;
  mutable uint64_t liveCountEpoch = getWeakRefInvalidationEpoch();
};

/// A set of operations that forgets an operation once it is destroyed.
class WeakOpSet {
public:
  bool insert(Operation *op) { return map.insert(op, {}).second; }
  bool contains(Operation *op) const { return map.contains(op); }
  bool erase(Operation *op) { return map.erase(op); }
  size_t purge() { return map.purge(); }
  size_t size() const { return map.size(); }
  bool empty() const { return map.empty(); }
  void clear() { map.clear(); }
  template <typename Fn>
  void forEach(Fn &&fn) {
    map.forEach([&](Operation *op, Empty &) { fn(op); });
  }
  size_t getNumStoredEntries() const { return map.getNumStoredEntries(); }

private:
  struct Empty {};
  WeakOpMap<Empty> map;
};

} // namespace mlir::weakref

#endif // MLIR_WEAKREF_WEAKOPMAP_H
