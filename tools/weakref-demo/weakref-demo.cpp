//===- weakref-demo.cpp - Weak operation references, end to end -----------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parses a module, takes a weak reference to every operation in it, runs a
// real pass pipeline that erases some of them, and prints which references
// died and which survived.
//
//   weakref-demo [file.mlir] [--pass-pipeline=PIPELINE]
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/OpTracker.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

// kDefaultInput: examples/demo.mlir (the Python demo reads the same file).
#include "DemoInput.h"

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("[input.mlir]"),
                                            llvm::cl::init(""));
static llvm::cl::opt<std::string>
    pipeline("pass-pipeline", llvm::cl::desc("Pass pipeline to run"),
             llvm::cl::init("builtin.module(canonicalize,cse)"));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerTransformsPasses();
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "weak operation references demo\n");

  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect>();
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module;
  if (inputFile.empty()) {
    module = parseSourceString<ModuleOp>(kDefaultInput, &context, "demo.mlir");
  } else {
    std::string error;
    auto file = openInputFile(inputFile, &error);
    if (!file) {
      llvm::errs() << "weakref-demo: " << error << "\n";
      return 1;
    }
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;

  weakref::OpTracker tracker;
  tracker.trackAll(module->getOperation());
  llvm::outs() << "holding weak references to " << tracker.size()
               << " operations; running '" << pipeline << "'\n";

  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, llvm::errs());
  if (failed(parsed))
    return 1;
  PassManager pm(&context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = *parsed;
  if (failed(pm.run(*module))) {
    llvm::errs() << "weakref-demo: pass pipeline failed\n";
    return 1;
  }

  tracker.print(llvm::outs());
  size_t alive = tracker.countAlive();
  llvm::outs() << alive << " survived, " << tracker.size() - alive << " died\n";

  // Destroying the module kills every remaining reference.
  module = nullptr;
  llvm::outs() << "after destroying the module: " << tracker.countAlive()
               << " alive\n";
  return 0;
}
