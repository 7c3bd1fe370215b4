//===- BenchUtil.h - Helpers shared by the benchmark binaries ---*- C++ -*-===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_BENCHMARKS_BENCHUTIL_H
#define MLIR_WEAKREF_BENCHMARKS_BENCHUTIL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/WeakOpRef.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <benchmark/benchmark.h>
#include <vector>

namespace mlir::weakref::bench {

/// One benchmark iteration: parses `text` and, if `referenced`, takes a weak
/// reference to every op (untimed), then times running the pipeline that
/// `populate` builds.
template <typename PopulateFn>
void timePipeline(benchmark::State &state, MLIRContext &context, StringRef text,
                  bool referenced, PopulateFn populate) {
  state.PauseTiming();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
  std::vector<WeakOpRef> refs;
  if (referenced)
    module->walk([&](Operation *op) { refs.emplace_back(op); });
  PassManager pm(&context);
  populate(pm);
  state.ResumeTiming();
  if (failed(pm.run(*module)))
    state.SkipWithError("pass pipeline failed");
  state.PauseTiming();
  module = nullptr;
  refs.clear();
  state.ResumeTiming();
}

} // namespace mlir::weakref::bench

#endif // MLIR_WEAKREF_BENCHMARKS_BENCHUTIL_H
