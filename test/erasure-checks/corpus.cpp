//===- corpus.cpp - Erasure checks on upstream's canonicalization tests ---===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The false-positive oracle of the greedy driver's erasure checks (23.1.1,
// patch 25): runs MLIR's own patterns, with the checks on, over upstream's
// test inputs. Each file is split at `// -----` as mlir-opt
// --split-input-file does; each chunk that parses and verifies (with the
// `mlir` Python package's dialects) is canonicalized, then run through
// `func.func(canonicalize),cse` (a driver per function, on the pass
// manager's threads). Upstream's patterns erase through the rewriter, so any
// erasure report is a false positive of the check (or a bug upstream): it is
// printed and the exit status is 1.
//
//   erasure-check-corpus [--pipeline=PIPELINE]... FILE.mlir...
//
// With --pipeline, each chunk runs through the given pipelines instead (on
// the module), e.g. a dialect conversion (dialect conversion's and the walk
// driver's checks) or a pass built on walkAndApplyPatterns.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

using namespace mlir;

// The `mlir` package's dialects and passes (weakref/python/Registration.cpp).
extern "C" void mlirWeakRefRegisterDialects(MlirDialectRegistry registry);
extern "C" void mlirWeakRefRegisterDialectPasses();

int main(int argc, char **argv) {
  std::vector<std::string> pipelines;
  int first = 1;
  for (; first < argc && StringRef(argv[first]).starts_with("--pipeline=");
       ++first)
    pipelines.push_back(
        StringRef(argv[first]).drop_front(strlen("--pipeline=")).str());
  if (pipelines.empty())
    pipelines = {"canonicalize", "func.func(canonicalize),cse"};
  if (first == argc) {
    llvm::errs() << "usage: erasure-check-corpus [--pipeline=PIPELINE]... "
                    "FILE.mlir...\n";
    return 2;
  }
  DialectRegistry registry;
  mlirWeakRefRegisterDialects(wrap(&registry));
  mlirWeakRefRegisterDialectPasses();
  registerCanonicalizerPass();
  registerCSEPass();
  unsigned files = 0, chunks = 0, run = 0;
  uint64_t reports = 0;
  // Ops before and after: the patterns did run.
  size_t opsBefore = 0, opsAfter = 0;
  auto countOps = [](Operation *root) {
    size_t n = 0;
    root->walk([&](Operation *) { ++n; });
    return n;
  };
  for (int i = first; i < argc; ++i) {
    auto buffer = llvm::MemoryBuffer::getFile(argv[i]);
    if (!buffer) {
      llvm::errs() << "erasure-check-corpus: error: cannot read '" << argv[i]
                   << "'\n";
      return 2;
    }
    ++files;
    StringRef rest = (*buffer)->getBuffer();
    while (!rest.empty()) {
      auto [chunk, tail] = rest.split("// -----");
      rest = tail;
      ++chunks;
      MLIRContext context(registry);
      context.allowUnregisteredDialects();
      context.enableErasureChecks();
      std::vector<std::string> errors;
      ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Error)
          errors.push_back(diag.str());
        return success();
      });
      OwningOpRef<ModuleOp> module =
          parseSourceString<ModuleOp>(chunk, &context);
      if (!module)
        continue; // Inputs of expected-error tests, or of dialects not built.
      ++run;
      errors.clear();
      opsBefore += countOps(*module);
      for (StringRef pipeline : pipelines) {
        // The pipeline of the PassManager on the module.
        PassManager pm(&context);
        if (failed(parsePassPipeline(pipeline, pm))) {
          llvm::errs() << "erasure-check-corpus: error: cannot parse pipeline '"
                       << pipeline << "'\n";
          return 2;
        }
        (void)pm.run(*module);
      }
      opsAfter += countOps(*module);
      // Every check's report is counted on the context.
      if (uint64_t failures = context.getNumErasureCheckFailures()) {
        reports += failures;
        for (const std::string &error : errors)
          llvm::outs() << argv[i] << ": chunk " << chunks << ": " << error
                       << "\n";
      }
    }
  }
  llvm::outs() << "erasure-check-corpus: " << files << " files, " << chunks
               << " chunks, " << run << " rewritten (" << opsBefore
               << " ops before, " << opsAfter << " after), " << reports
               << " erasure reports\n";
  return reports ? 1 : 0;
}
