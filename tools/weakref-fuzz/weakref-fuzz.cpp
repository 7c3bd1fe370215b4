//===- weakref-fuzz.cpp - Differential fuzzer for weak op references ------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// A seeded random driver: it mutates IR (create, clone, erase, detach, move
// between blocks, block clear, rewriter replaceOp/eraseOp, canonicalize/cse,
// module destruction, context destruction) interleaved with reference
// create/copy/drop/deref and WeakOpMap operations, and after every step
// checks every reference and map entry against a ground-truth model of which
// operations are alive.
//
// The model identifies operations by an id attribute ("fz.id") that it sets
// on every op it knows, so an op that a pass created at a dead op's address
// is never mistaken for the dead op. Passes only ever see ops the model can
// re-identify this way: they fold arith ops, and do not clone.
//
//   weakref-fuzz [--seed=S] [--seeds=N] [--steps=M] [--verbose]
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/WeakOpMap.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace mlir;

static llvm::cl::opt<uint64_t> firstSeed("seed", llvm::cl::desc("First seed"),
                                         llvm::cl::init(1));
static llvm::cl::opt<unsigned>
    numSeeds("seeds", llvm::cl::desc("Number of seeds"), llvm::cl::init(10));
static llvm::cl::opt<unsigned>
    numSteps("steps", llvm::cl::desc("Steps per seed"), llvm::cl::init(10000));
static llvm::cl::opt<bool> verbose("verbose",
                                   llvm::cl::desc("Print every action"));

namespace {
constexpr llvm::StringLiteral kIdAttr = "fz.id";

class Fuzzer {
public:
  explicit Fuzzer(uint64_t seed) : rng(seed) { newContext(); }
  ~Fuzzer() { dropAll(); }

  /// Runs `steps` random steps; returns the number of mismatches.
  unsigned run(unsigned steps) {
    for (step = 0; step < steps && !mismatches; ++step) {
      act();
      check();
    }
    return mismatches;
  }

private:
  //===--------------------------------------------------------------------===//
  // The model
  //===--------------------------------------------------------------------===//

  /// Live ops the model knows, by id. An id never comes back once dead.
  llvm::DenseMap<int64_t, Operation *> live;
  /// References and the id they were created from.
  std::vector<std::pair<WeakOpRef, int64_t>> refs;
  /// A weak map whose value for each key is the key's id.
  weakref::WeakOpMap<int64_t> map;
  /// Ids inserted into `map`.
  std::vector<int64_t> mapped;
  /// Ops owned by the fuzzer outside the module (detached).
  std::vector<Operation *> detached;

  int64_t idOf(Operation *op) {
    auto attr = op->getAttrOfType<IntegerAttr>(kIdAttr);
    return attr ? attr.getInt() : -1;
  }
  void tag(Operation *op) {
    op->setAttr(kIdAttr,
                IntegerAttr::get(IntegerType::get(context.get(), 64), nextId));
    live[nextId++] = op;
  }
  /// Records that `root` and everything nested in it are about to die.
  void forget(Operation *root) {
    root->walk([&](Operation *op) { live.erase(idOf(op)); });
  }
  /// Re-derives the live set after a pass: a known op is alive iff it is
  /// still in the IR, at its address, with its id; untagged (new) ops get
  /// fresh ids.
  void resync() {
    llvm::DenseMap<int64_t, Operation *> seen;
    module->walk([&](Operation *op) {
      int64_t id = idOf(op);
      if (id < 0)
        tag(op), id = nextId - 1;
      seen[id] = op;
    });
    for (Operation *op : detached)
      op->walk([&](Operation *nested) { seen[idOf(nested)] = nested; });
    llvm::DenseMap<int64_t, Operation *> next;
    for (auto [id, op] : live) {
      auto it = seen.find(id);
      if (it != seen.end() && it->second == op)
        next[id] = op;
    }
    live = std::move(next);
  }

  //===--------------------------------------------------------------------===//
  // Actions
  //===--------------------------------------------------------------------===//

  template <typename T>
  T pick(const std::vector<T> &v) {
    return v[rng() % v.size()];
  }
  unsigned roll(unsigned n) { return rng() % n; }

  void newContext() {
    DialectRegistry registry;
    registry.insert<arith::ArithDialect, func::FuncDialect>();
    context = std::make_unique<MLIRContext>(registry);
    context->allowUnregisteredDialects();
    context->loadAllAvailableDialects();
    newModule();
  }
  void newModule() {
    module = ModuleOp::create(UnknownLoc::get(context.get()));
    tag(module->getOperation());
    OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
    auto func = b.create<func::FuncOp>(UnknownLoc::get(context.get()), "arith",
                                       b.getFunctionType({}, {}));
    tag(func);
    b.setInsertionPointToEnd(func.addEntryBlock());
    tag(b.create<func::ReturnOp>(UnknownLoc::get(context.get())));
    arithBlock = &func.getBody().front();
  }

  /// Blocks of fz ops: the module body and the blocks of fz ops with regions.
  std::vector<Block *> fzBlocks() {
    std::vector<Block *> blocks = {module->getBody()};
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == "fz.op" && op->getNumRegions())
        blocks.push_back(&op->getRegion(0).front());
    });
    return blocks;
  }
  std::vector<Operation *> fzOps() {
    std::vector<Operation *> ops;
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == "fz.op")
        ops.push_back(op);
    });
    return ops;
  }
  Operation *createFz() {
    OperationState state(UnknownLoc::get(context.get()), "fz.op");
    if (roll(2))
      state.addRegion()->push_back(new Block);
    Operation *op = Operation::create(state);
    tag(op);
    return op;
  }
  void note(const char *what) {
    if (verbose)
      llvm::errs() << "step " << step << ": " << what << "\n";
  }

  void act() {
    switch (roll(20)) {
    case 0:
    case 1: { // create an fz op in a random block
      note("create");
      Block *block = pick(fzBlocks());
      block->push_back(createFz());
      break;
    }
    case 2: { // arith ops for the passes to fold
      note("create arith");
      OpBuilder b(context.get());
      b.setInsertionPoint(arithBlock->getTerminator());
      Location loc = UnknownLoc::get(context.get());
      auto c1 = b.create<arith::ConstantIntOp>(loc, roll(3), 32);
      auto c2 = b.create<arith::ConstantIntOp>(loc, roll(3), 32);
      tag(c1), tag(c2);
      tag(b.create<arith::AddIOp>(loc, c1, c2));
      break;
    }
    case 3: { // clone (deep; the clone's ops get fresh ids)
      auto ops = fzOps();
      if (ops.empty())
        break;
      note("clone");
      Operation *op = pick(ops);
      Operation *clone = op->clone();
      clone->walk([&](Operation *nested) { tag(nested); });
      op->getBlock()->push_back(clone);
      break;
    }
    case 4:
    case 5: { // erase (and everything nested)
      auto ops = fzOps();
      if (ops.empty())
        break;
      note("erase");
      Operation *op = pick(ops);
      forget(op);
      op->erase();
      break;
    }
    case 6: { // detach / reattach / destroy detached
      if (!detached.empty() && roll(2)) {
        Operation *op = detached.back();
        detached.pop_back();
        if (roll(2)) {
          note("reattach");
          pick(fzBlocks())->push_back(op);
        } else {
          note("destroy detached");
          forget(op);
          op->destroy();
        }
        break;
      }
      auto ops = fzOps();
      if (ops.empty())
        break;
      note("detach");
      Operation *op = pick(ops);
      op->remove();
      detached.push_back(op);
      break;
    }
    case 7: { // move between blocks (never into its own subtree)
      auto ops = fzOps();
      if (ops.empty())
        break;
      Operation *op = pick(ops);
      Block *dest = pick(fzBlocks());
      if (op->isAncestor(dest->getParentOp()))
        break;
      note("move");
      op->moveBefore(dest, dest->end());
      break;
    }
    case 8: { // clear a nested block
      auto blocks = fzBlocks();
      if (blocks.size() < 2)
        break;
      note("clear block");
      Block *block = blocks[1 + roll(blocks.size() - 1)];
      for (Operation &op : *block)
        forget(&op);
      block->clear();
      break;
    }
    case 9: { // rewriter replaceOp / eraseOp
      auto ops = fzOps();
      if (ops.empty())
        break;
      Operation *op = pick(ops);
      IRRewriter rewriter(context.get());
      forget(op);
      if (roll(2)) {
        note("rewriter.replaceOp");
        rewriter.setInsertionPoint(op);
        Operation *replacement = rewriter.insert(createFz());
        rewriter.replaceOp(op, replacement);
      } else {
        note("rewriter.eraseOp");
        rewriter.eraseOp(op);
      }
      break;
    }
    case 10: { // a real pass pipeline
      note("pass");
      PassManager pm(context.get());
      if (roll(2))
        pm.addPass(createCanonicalizerPass());
      else
        pm.addPass(createCSEPass());
      if (failed(pm.run(*module)))
        report("pass pipeline failed");
      resync();
      break;
    }
    case 11: { // module or context destruction
      if (roll(8))
        break;
      if (roll(2)) {
        note("destroy module");
        forget(module->getOperation());
        module = nullptr;
        newModule();
      } else {
        note("destroy context");
        live.clear();
        for (Operation *op : detached)
          op->destroy();
        detached.clear();
        module = nullptr;
        newContext();
      }
      break;
    }
    case 12:
    case 13:
    case 14: { // create a reference to a random live op
      if (live.empty())
        break;
      note("ref create");
      auto it = std::next(live.begin(), roll(live.size()));
      refs.emplace_back(WeakOpRef(it->second), it->first);
      break;
    }
    case 15: { // copy a reference
      if (refs.empty())
        break;
      note("ref copy");
      auto copy = refs[roll(refs.size())];
      refs.push_back(copy);
      break;
    }
    case 16:
    case 17: { // drop a reference
      if (refs.empty())
        break;
      note("ref drop");
      std::swap(refs[roll(refs.size())], refs.back());
      refs.pop_back();
      break;
    }
    case 18: { // weak map insert
      if (live.empty())
        break;
      note("map insert");
      auto it = std::next(live.begin(), roll(live.size()));
      if (map.insert(it->second, it->first).second)
        mapped.push_back(it->first);
      break;
    }
    case 19:
      if (roll(4) == 0) {
        note("map purge");
        map.purge();
      }
      break;
    }
  }

  //===--------------------------------------------------------------------===//
  // Checks
  //===--------------------------------------------------------------------===//

  void report(const Twine &what) {
    ++mismatches;
    llvm::errs() << "MISMATCH at step " << step << ": " << what << "\n";
  }

  void check() {
    ++checkedSteps;
    for (auto &[ref, id] : refs) {
      auto it = live.find(id);
      Operation *expected = it == live.end() ? nullptr : it->second;
      ++refChecks;
      deadRefChecks += !expected;
      if (ref.get() != expected)
        report("reference to op #" + Twine(id) + " reads " +
               (ref.get() ? "an op" : "null") + ", expected " +
               (expected ? "its op" : "null"));
    }
    size_t mappedAlive = 0;
    for (int64_t id : mapped) {
      auto it = live.find(id);
      if (it == live.end())
        continue;
      ++mappedAlive;
      const int64_t *value = map.lookup(it->second);
      if (!value || *value != id)
        report("weak map lost live op #" + Twine(id));
    }
    if (map.size() != mappedAlive)
      report("weak map has " + Twine(map.size()) + " live entries, expected " +
             Twine(mappedAlive));
    // No live op's address may match a dead op's map entry.
    for (auto [id, op] : live) {
      const int64_t *value = map.lookup(op);
      if (value && *value != id)
        report("weak map matched op #" + Twine(id) + " to dead op #" +
               Twine(*value));
    }
  }

  void dropAll() {
    refs.clear();
    map.clear();
    for (Operation *op : detached)
      op->destroy();
    detached.clear();
    module = nullptr;
  }

  std::mt19937_64 rng;
  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  Block *arithBlock = nullptr;
  int64_t nextId = 0;
  unsigned step = 0, mismatches = 0;

public:
  uint64_t checkedSteps = 0, refChecks = 0, deadRefChecks = 0;
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "weak reference fuzzer\n");
  uint64_t totalSteps = 0, refChecks = 0, deadRefChecks = 0;
  unsigned failedSeeds = 0;
  for (uint64_t seed = firstSeed; seed < firstSeed + numSeeds; ++seed) {
    Fuzzer fuzzer(seed);
    unsigned mismatches = fuzzer.run(numSteps);
    totalSteps += fuzzer.checkedSteps;
    refChecks += fuzzer.refChecks;
    deadRefChecks += fuzzer.deadRefChecks;
    if (mismatches) {
      ++failedSeeds;
      llvm::errs() << "seed " << seed << ": FAILED (replay with --seed=" << seed
                   << " --seeds=1 --steps=" << numSteps << " --verbose)\n";
    }
  }
  llvm::outs() << "weakref-fuzz: seeds " << firstSeed << ".."
               << firstSeed + numSeeds - 1 << ", " << totalSteps << " steps, "
               << refChecks << " reference checks (" << deadRefChecks
               << " of dead ops), " << failedSeeds << " seeds failed\n";
  return failedSeeds ? 1 : 0;
}
