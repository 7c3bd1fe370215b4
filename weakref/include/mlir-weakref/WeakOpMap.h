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
// new op takes its address, on `purge()`, or when the map would grow (see
// detail/Purge.h). Since the map learns of deaths only by looking, `size()`
// and `empty()` look at every stored entry: they take linear time.
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

  /// Whether a stored entry's operation is alive.
  static bool isLive(const typename Storage::value_type &kv) {
    return bool(kv.second.ref);
  }

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
  /// A moved-from map is empty.
  WeakOpMap(WeakOpMap &&other) noexcept { *this = std::move(other); }
  WeakOpMap &operator=(WeakOpMap &&other) noexcept {
    if (this != &other) {
      storage = std::move(other.storage);
      purgeSchedule = other.purgeSchedule;
      other.clear();
    }
    return *this;
  }

  /// Inserts `value` for `op` unless `op` already has an entry. Returns the
  /// entry's value and whether it was inserted. One hash lookup.
  std::pair<T *, bool> insert(Operation *op, T value) {
    assert(op && "cannot insert a null operation");
    if (purgeSchedule.isDue(storage.size())) {
      purge();
      purgeSchedule.purged(storage.size());
    }
    auto [it, inserted] = storage.try_emplace(op, std::move(value));
    Entry &entry = it->second;
    if (!inserted) {
      if (entry.ref.get() == op)
        return {&entry.value, false};
      // A dead op's entry at the same address: reuse its slot.
      entry.value = std::move(value);
    }
    entry.ref = WeakOpRef(op);
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
    return true;
  }

  /// Drops the entries of destroyed operations. Returns how many were dropped.
  size_t purge() {
    size_t before = storage.size();
    detail::eraseIf(storage, [](auto &kv) { return !isLive(kv); });
    return before - storage.size();
  }

  /// Returns the number of entries whose operation is alive. Linear in the
  /// number of stored entries (dead ones included): operations die without
  /// notifying the map, so it counts them. Does not purge.
  size_t size() const { return llvm::count_if(storage, isLive); }
  /// Returns true if no entry's operation is alive. Linear, like size().
  bool empty() const { return llvm::none_of(storage, isLive); }
  void clear() { storage.clear(); }

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
  Storage storage;
  /// Dead entries are dropped as the map grows (see detail/Purge.h).
  detail::PurgeSchedule purgeSchedule;
};

/// A set of operations that forgets an operation once it is destroyed.
class WeakOpSet {
public:
  bool insert(Operation *op) { return map.insert(op, {}).second; }
  bool contains(Operation *op) const { return map.contains(op); }
  bool erase(Operation *op) { return map.erase(op); }
  size_t purge() { return map.purge(); }
  /// Linear in the number of stored entries, as WeakOpMap::size().
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
