//===- ReleaseCompat.h - One spelling for LLVM 19 and 23 --------*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tests, the fuzzer and the benchmarks build against LLVM 19.1.7 and 23.1.1. The
// few MLIR APIs they use whose spelling changed in between are wrapped here
// (the library itself, weakref/, needs none of them).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_TOOLS_RELEASECOMPAT_H
#define MLIR_WEAKREF_TOOLS_RELEASECOMPAT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Config/llvm-config.h"

#include <utility>

namespace mlir_weakref {

/// Creates an `OpTy` at `builder`'s insertion point: `OpTy::create` since
/// LLVM 21 (`OpBuilder::create` is deprecated there), `OpBuilder::create`
/// before.
template <typename OpTy, typename... Args>
OpTy createOp(mlir::OpBuilder &builder, mlir::Location loc, Args &&...args) {
#if LLVM_VERSION_MAJOR >= 21
  return OpTy::create(builder, loc, std::forward<Args>(args)...);
#else
  return builder.create<OpTy>(loc, std::forward<Args>(args)...);
#endif
}

/// The "no properties" argument of Operation::create (PropertyRef since LLVM
/// 23.1.1, OpaqueProperties in 19.1.7).
inline auto noProperties() {
#if LLVM_VERSION_MAJOR >= 23
  return mlir::PropertyRef();
#else
  return mlir::OpaqueProperties(nullptr);
#endif
}

/// Applies `patterns` greedily to `op`, notifying `listener` (the function
/// and the config's setter were renamed by LLVM 21).
inline mlir::LogicalResult
applyPatternsGreedilyWithListener(mlir::Operation *op,
                                  mlir::RewritePatternSet &&patterns,
                                  mlir::RewriterBase::Listener *listener) {
  mlir::GreedyRewriteConfig config;
#if LLVM_VERSION_MAJOR >= 21
  config.setListener(listener);
  return mlir::applyPatternsGreedily(op, std::move(patterns), config);
#else
  config.listener = listener;
  return mlir::applyPatternsAndFoldGreedily(op, std::move(patterns), config);
#endif
}

} // namespace mlir_weakref

#endif // MLIR_WEAKREF_TOOLS_RELEASECOMPAT_H
