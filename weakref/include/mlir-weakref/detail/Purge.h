//===- Purge.h - Lazy reclamation of dead entries ---------------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The containers of this project that are keyed by weak references
// (`WeakOpMap`, `ErasureProvenance`'s records, and in Python
// `mlir.weakref.WeakOpKeyDictionary` and `WeakOpSet`) learn of dead entries
// only by looking: operations die without notifying them. They share one
// policy for reclaiming those entries, `PurgeSchedule`, and `eraseIf` to
// erase them from a DenseMap on every supported LLVM release.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_DETAIL_PURGE_H
#define MLIR_WEAKREF_DETAIL_PURGE_H

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace mlir {
namespace weakref {
namespace detail {

/// When a container purges its dead entries as it grows: once it has doubled
/// since the last purge, and never below `kMinSize` entries. Each purge is
/// linear in the size, so insertion stays amortized O(1) and dead entries are
/// at most about half of a container. Python's containers in
/// mlir/weakref.py (`_PURGE_MIN_SIZE`) follow the same policy with the same
/// constant.
class PurgeSchedule {
public:
  static constexpr size_t kMinSize = 64;

  /// Whether a container now holding `size` entries should purge.
  bool isDue(size_t size) const { return size >= threshold; }
  /// Records that a purge left `size` entries.
  void purged(size_t size) { threshold = std::max(kMinSize, 2 * size); }

private:
  size_t threshold = kMinSize;
};

template <typename MapT, typename = void>
struct HasRemoveIf : std::false_type {};
template <typename MapT>
struct HasRemoveIf<MapT,
                   std::void_t<decltype(std::declval<MapT &>().remove_if(
                       std::declval<bool (*)(typename MapT::value_type &)>()))>>
    : std::true_type {};

/// Erases the entries of `map` (a DenseMap) for which `pred` holds. LLVM
/// 23.1.1's DenseMap keeps no tombstones: erasing an entry may move others,
/// which invalidates iterators, so it erases with `remove_if`. LLVM 19.1.7's
/// has no `remove_if`, and `erase(iterator)` leaves a tombstone and keeps the
/// other iterators valid, so it erases while iterating.
template <typename MapT, typename Pred>
void eraseIf(MapT &map, Pred pred) {
  if constexpr (HasRemoveIf<MapT>::value) {
    map.remove_if(pred);
  } else {
    for (auto it = map.begin(), end = map.end(); it != end;) {
      auto current = it++;
      if (pred(*current))
        map.erase(current);
    }
  }
}

} // namespace detail
} // namespace weakref
} // namespace mlir

#endif // MLIR_WEAKREF_DETAIL_PURGE_H
