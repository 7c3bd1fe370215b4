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
// create/copy/drop/deref and WeakOpMap operations, block and argument
// changes (add, erase, merge, and the unreachable blocks canonicalize erases)
// interleaved with block and value references, and after every step checks
// every reference and map entry against a ground-truth model of which
// operations, blocks and block arguments are alive.
//
// The model identifies operations by an id attribute ("fz.id") that it sets
// on every op it knows, so an op that a pass created at a dead op's address
// is never mistaken for the dead op. Passes only ever see ops the model can
// re-identify this way: they fold arith ops, and do not clone.
//
//   weakref-fuzz [--seed=S] [--seeds=N] [--steps=M] [--verbose]
//
//===----------------------------------------------------------------------===//

#include "ReleaseCompat.h"
#include "mlir-weakref/WeakOpMap.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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

  /// Live blocks and block arguments of fz ops the model knows, by id, and
  /// the ids of the live ones by address.
  llvm::DenseMap<int64_t, Block *> liveBlocks;
  llvm::DenseMap<Block *, int64_t> blockIds;
  llvm::DenseMap<int64_t, void *> liveArgs;
  llvm::DenseMap<void *, int64_t> argIds;
  std::vector<std::pair<WeakBlockRef, int64_t>> blockRefs;
  /// A value reference, with what it was created from: an op result (op id and
  /// result number) or a block argument (argument id, resultNumber -1).
  struct ValueRefEntry {
    WeakValueRef ref;
    int64_t id;
    int resultNumber;
  };
  std::vector<ValueRefEntry> valueRefs;

  int64_t idOf(Operation *op) {
    auto attr = op->getAttrOfType<IntegerAttr>(kIdAttr);
    return attr ? attr.getInt() : -1;
  }
  void tag(Operation *op) {
    op->setAttr(kIdAttr,
                IntegerAttr::get(IntegerType::get(context.get(), 64), nextId));
    live[nextId++] = op;
  }
  void tagBlock(Block *block) {
    liveBlocks[nextId] = block;
    blockIds[block] = nextId++;
    for (BlockArgument arg : block->getArguments())
      tagArg(arg);
  }
  void tagArg(BlockArgument arg) {
    liveArgs[nextId] = arg.getAsOpaquePointer();
    argIds[arg.getAsOpaquePointer()] = nextId++;
  }
  void forgetArg(BlockArgument arg) {
    auto it = argIds.find(arg.getAsOpaquePointer());
    if (it == argIds.end())
      return;
    liveArgs.erase(it->second);
    argIds.erase(it);
  }
  void forgetBlock(Block *block) {
    for (BlockArgument arg : block->getArguments())
      forgetArg(arg);
    auto it = blockIds.find(block);
    if (it == blockIds.end())
      return;
    liveBlocks.erase(it->second);
    blockIds.erase(it);
  }
  /// Records that `root` and everything nested in it are about to die.
  void forget(Operation *root) {
    root->walk([&](Operation *op) { live.erase(idOf(op)); });
    root->walk([&](Block *block) { forgetBlock(block); });
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
    // Known blocks and arguments are alive iff still in the IR under a live
    // known op (passes erase unreachable blocks; they create none in fz ops).
    llvm::DenseSet<Block *> blocksSeen;
    llvm::DenseSet<void *> argsSeen;
    auto collect = [&](Operation *root) {
      root->walk([&](Block *block) {
        if (!blockIds.count(block) || !live.count(idOf(block->getParentOp())))
          return;
        blocksSeen.insert(block);
        for (BlockArgument arg : block->getArguments())
          argsSeen.insert(arg.getAsOpaquePointer());
      });
    };
    collect(module->getOperation());
    for (Operation *op : detached)
      collect(op);
    for (auto [block, id] : llvm::to_vector(blockIds))
      if (!blocksSeen.count(block))
        liveBlocks.erase(id), blockIds.erase(block);
    for (auto [arg, id] : llvm::to_vector(argIds))
      if (!argsSeen.count(arg))
        liveArgs.erase(id), argIds.erase(arg);
  }

  /// Known live blocks of fz ops (not the module body or the arith function).
  std::vector<Block *> knownFzBlocks() {
    std::vector<Block *> blocks;
    for (auto [block, id] : blockIds)
      blocks.push_back(block);
    llvm::sort(blocks,
               [&](Block *a, Block *b) { return blockIds[a] < blockIds[b]; });
    return blocks;
  }

  //===--------------------------------------------------------------------===//
  // Actions
  //===--------------------------------------------------------------------===//

  template <typename T>
  T pick(const std::vector<T> &v) {
    return v[rng() % v.size()];
  }
  unsigned roll(unsigned n) { return rng() % n; }
  /// A random entry of a non-empty model map.
  template <typename Map>
  auto pickEntry(Map &map) {
    return std::next(map.begin(), roll(map.size()));
  }
  /// Removes the element at `i` (order does not matter).
  template <typename T>
  static void removeAt(std::vector<T> &v, unsigned i) {
    std::swap(v[i], v.back());
    v.pop_back();
  }

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
    auto func = mlir_weakref::createOp<func::FuncOp>(
        b, UnknownLoc::get(context.get()), "arith", b.getFunctionType({}, {}));
    tag(func);
    b.setInsertionPointToEnd(func.addEntryBlock());
    tag(mlir_weakref::createOp<func::ReturnOp>(b,
                                               UnknownLoc::get(context.get())));
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
  Operation *createFz(int numResults = -1) {
    OperationState state(UnknownLoc::get(context.get()), "fz.op");
    Block *block = nullptr;
    if (roll(2)) {
      block = new Block;
      state.addRegion()->push_back(block);
    }
    if (numResults < 0)
      numResults = roll(3);
    state.addTypes(
        SmallVector<Type>(numResults, IntegerType::get(context.get(), 32)));
    Operation *op = Operation::create(state);
    tag(op);
    if (block)
      tagBlock(block);
    return op;
  }
  void note(const char *what) {
    if (verbose)
      llvm::errs() << "step " << step << ": " << what << "\n";
  }

  void act() {
    switch (roll(27)) {
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
      auto c1 =
          mlir_weakref::createOp<arith::ConstantIntOp>(b, loc, roll(3), 32);
      auto c2 =
          mlir_weakref::createOp<arith::ConstantIntOp>(b, loc, roll(3), 32);
      tag(c1), tag(c2);
      tag(mlir_weakref::createOp<arith::AddIOp>(b, loc, c1, c2));
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
      clone->walk([&](Block *block) { tagBlock(block); });
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
        Operation *replacement = rewriter.insert(createFz(op->getNumResults()));
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
      // Non-entry blocks of fz ops may be empty (no terminator), which the
      // verifier rejects; the passes themselves do not mind.
      pm.enableVerifier(false);
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
        liveBlocks.clear(), blockIds.clear(), liveArgs.clear(), argIds.clear();
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
      auto it = pickEntry(live);
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
      removeAt(refs, roll(refs.size()));
      break;
    }
    case 18: { // weak map insert
      if (live.empty())
        break;
      note("map insert");
      auto it = pickEntry(live);
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
    case 20: { // add a block (unreachable: canonicalize erases it)
      auto blocks = knownFzBlocks();
      if (blocks.empty())
        break;
      note("add block");
      Block *block = new Block;
      blocks[roll(blocks.size())]->getParent()->push_back(block);
      tagBlock(block);
      break;
    }
    case 21: { // add a block argument
      auto blocks = knownFzBlocks();
      if (blocks.empty())
        break;
      note("add argument");
      Block *block = blocks[roll(blocks.size())];
      tagArg(block->addArgument(IntegerType::get(context.get(), 32),
                                UnknownLoc::get(context.get())));
      break;
    }
    case 22: { // erase a block argument (fz ops never use them)
      auto blocks = knownFzBlocks();
      if (blocks.empty())
        break;
      Block *block = blocks[roll(blocks.size())];
      if (!block->getNumArguments())
        break;
      note("erase argument");
      unsigned index = roll(block->getNumArguments());
      forgetArg(block->getArgument(index));
      block->eraseArgument(index);
      break;
    }
    case 23: { // erase or merge away a non-entry block
      std::vector<Block *> candidates;
      for (Block *block : knownFzBlocks())
        if (!block->isEntryBlock())
          candidates.push_back(block);
      if (candidates.empty())
        break;
      Block *block = candidates[roll(candidates.size())];
      IRRewriter rewriter(context.get());
      if (roll(2) || block->getNumArguments()) {
        note("erase block");
        for (Operation &op : *block)
          forget(&op);
        forgetBlock(block);
        rewriter.eraseBlock(block);
      } else {
        note("merge block");
        Block *entry = &block->getParent()->front();
        forgetBlock(block);
        rewriter.mergeBlocks(block, entry);
      }
      break;
    }
    case 24: { // a block reference
      if (liveBlocks.empty())
        break;
      note("block ref create");
      auto it = pickEntry(liveBlocks);
      blockRefs.emplace_back(WeakBlockRef(it->second), it->first);
      break;
    }
    case 25: { // a value reference: an op result or a block argument
      if (roll(2) && !liveArgs.empty()) {
        note("argument ref create");
        auto it = pickEntry(liveArgs);
        valueRefs.push_back(
            {WeakValueRef(Value::getFromOpaquePointer(it->second)), it->first,
             -1});
        break;
      }
      if (live.empty())
        break;
      auto it = pickEntry(live);
      if (!it->second->getNumResults())
        break;
      note("result ref create");
      int number = roll(it->second->getNumResults());
      valueRefs.push_back(
          {WeakValueRef(it->second->getResult(number)), it->first, number});
      break;
    }
    case 26: { // drop or copy block and value references
      if (!blockRefs.empty() && roll(2)) {
        note("block ref drop/copy");
        unsigned i = roll(blockRefs.size());
        if (roll(2))
          blockRefs.push_back(blockRefs[i]);
        else
          removeAt(blockRefs, i);
      } else if (!valueRefs.empty()) {
        note("value ref drop/copy");
        unsigned i = roll(valueRefs.size());
        if (roll(2))
          valueRefs.push_back(valueRefs[i]);
        else
          removeAt(valueRefs, i);
      }
      break;
    }
    }
  }

  //===--------------------------------------------------------------------===//
  // Checks
  //===--------------------------------------------------------------------===//

  void report(const Twine &what) {
    ++mismatches;
    llvm::errs() << "MISMATCH at step " << step << ": " << what << "\n";
  }

  /// Compares what a reference reads with what the model expects.
  template <typename T>
  void checkRef(T actual, T expected, const Twine &what) {
    ++refChecks;
    deadRefChecks += !expected;
    if (actual != expected)
      report("reference to " + what + " reads " +
             (actual ? "an object" : "null") + ", expected " +
             (expected ? "its object" : "null"));
  }
  template <typename Map>
  static auto lookupOrNull(const Map &map, int64_t id) {
    auto it = map.find(id);
    return it == map.end() ? nullptr : it->second;
  }

  void check() {
    ++checkedSteps;
    for (auto &[ref, id] : refs)
      checkRef(ref.get(), lookupOrNull(live, id), "op #" + Twine(id));
    for (auto &[ref, id] : blockRefs)
      checkRef(ref.get(), lookupOrNull(liveBlocks, id), "block #" + Twine(id));
    for (ValueRefEntry &entry : valueRefs) {
      Value expected;
      if (entry.resultNumber < 0) {
        if (void *arg = lookupOrNull(liveArgs, entry.id))
          expected = Value::getFromOpaquePointer(arg);
      } else if (Operation *op = lookupOrNull(live, entry.id)) {
        expected = op->getResult(entry.resultNumber);
      }
      checkRef(entry.ref.get(), expected,
               "value #" + Twine(entry.id) + "/" + Twine(entry.resultNumber));
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
    blockRefs.clear();
    valueRefs.clear();
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
               << " of dead objects), " << failedSeeds << " seeds failed\n";
  return failedSeeds ? 1 : 0;
}
