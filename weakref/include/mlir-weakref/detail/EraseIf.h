//===- EraseIf.h - Erase matching entries of a DenseMap ---------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_DETAIL_ERASEIF_H
#define MLIR_WEAKREF_DETAIL_ERASEIF_H

#include <type_traits>
#include <utility>

namespace mlir {
namespace weakref {
namespace detail {

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

#endif // MLIR_WEAKREF_DETAIL_ERASEIF_H
