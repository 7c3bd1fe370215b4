//===- weakref-opt.cpp - Which ops does each pass destroy? ----------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Parses an .mlir file, takes a weak reference to every operation, runs a pass
// pipeline, and reports after each top-level pass which of the original
// operations it destroyed, then which survived the whole pipeline.
//
//   weakref-opt input.mlir --pass-pipeline='builtin.module(...)' [--json]
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/OpTracker.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using weakref::OpTracker;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input.mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    pipeline("pass-pipeline",
             llvm::cl::desc("Pass pipeline, e.g. 'builtin.module(cse)'"),
             llvm::cl::Required);
static llvm::cl::opt<bool> emitJson("json", llvm::cl::desc("Report as JSON"));
static llvm::cl::opt<bool>
    disableThreading("mlir-disable-threading",
                     llvm::cl::desc("Run the passes on a single thread"));

namespace {
struct PassReport {
  std::string pass;
  std::vector<OpTracker::Entry> died;
};

/// After each pass run on the root operation (a top-level pass, or the
/// adaptor running a nested pipeline), records the tracked ops that died.
class DeathRecorder : public PassInstrumentation {
public:
  DeathRecorder(Operation *root, OpTracker &tracker,
                std::vector<PassReport> &reports)
      : root(root), tracker(tracker), reports(reports) {}

  void runAfterPass(Pass *pass, Operation *op) override { record(pass, op); }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    record(pass, op);
  }

private:
  void record(Pass *pass, Operation *op) {
    // Nested passes run on other threads; their deaths are reported with the
    // top-level pass (the adaptor) that ran them.
    if (op != root)
      return;
    // A pass's argument ("cse"), or for a nested pipeline its textual form.
    std::string name = pass->getArgument().str();
    if (name.empty()) {
      llvm::raw_string_ostream os(name);
      pass->printAsTextualPipeline(os);
    }
    reports.push_back({name, tracker.collectNewlyDead()});
  }

  Operation *root;
  OpTracker &tracker;
  std::vector<PassReport> &reports;
};
} // namespace

static void printText(const OpTracker &tracker, ArrayRef<PassReport> reports) {
  llvm::outs() << "tracking " << tracker.size() << " operations\n";
  for (const PassReport &report : reports) {
    llvm::outs() << "pass " << report.pass << ": " << report.died.size()
                 << " died\n";
    for (const OpTracker::Entry &e : report.died)
      llvm::outs() << "  died: " << e.name << " " << e.location << "\n";
  }
  llvm::outs() << "survived: " << tracker.countAlive() << " of "
               << tracker.size() << "\n";
  for (const OpTracker::Entry &e : tracker.getEntries())
    if (e.ref)
      llvm::outs() << "  alive: " << e.name << " " << e.location << "\n";
}

static void printJson(const OpTracker &tracker, ArrayRef<PassReport> reports) {
  llvm::json::OStream json(llvm::outs(), /*IndentSize=*/2);
  auto entry = [&](const OpTracker::Entry &e) {
    json.object([&] {
      json.attribute("index", e.index);
      json.attribute("name", e.name);
      json.attribute("location", e.location);
    });
  };
  json.object([&] {
    json.attribute("input", inputFile);
    json.attribute("pipeline", pipeline);
    json.attribute("tracked", tracker.size());
    json.attributeArray("passes", [&] {
      for (const PassReport &report : reports)
        json.object([&] {
          json.attribute("pass", report.pass);
          json.attributeArray("died", [&] {
            for (const OpTracker::Entry &e : report.died)
              entry(e);
          });
        });
    });
    json.attributeArray("survived", [&] {
      for (const OpTracker::Entry &e : tracker.getEntries())
        if (e.ref)
          entry(e);
    });
  });
  llvm::outs() << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerTransformsPasses();
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "report which operations each pass destroys\n");

  DialectRegistry registry;
  registry
      .insert<arith::ArithDialect, cf::ControlFlowDialect, func::FuncDialect>();
  MLIRContext context(registry);
  if (disableThreading)
    context.disableMultithreading();

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << "weakref-opt: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, llvm::errs());
  if (failed(parsed))
    return 1;
  PassManager pm(&context, parsed->getOpAnchorName());
  static_cast<OpPassManager &>(pm) = *parsed;

  OpTracker tracker;
  tracker.trackAll(module->getOperation());
  std::vector<PassReport> reports;
  pm.addInstrumentation(std::make_unique<DeathRecorder>(module->getOperation(),
                                                        tracker, reports));
  bool ok = succeeded(pm.run(*module));

  if (emitJson)
    printJson(tracker, reports);
  else
    printText(tracker, reports);
  if (!ok) {
    llvm::errs() << "weakref-opt: pass pipeline failed\n";
    return 1;
  }
  return 0;
}
