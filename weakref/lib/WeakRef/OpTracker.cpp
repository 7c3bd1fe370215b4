//===- OpTracker.cpp - Track which operations survive a transformation ----===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/OpTracker.h"
#include "mlir-weakref/detail/OpLabel.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::weakref;

void OpTracker::trackAll(Operation *root) {
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    unsigned index = entries.size();
    detail::OpLabel label = detail::captureOpLabel(op);
    entries.push_back({WeakOpRef(op), std::move(label.name),
                       std::move(label.location), index, false});
  });
}

size_t OpTracker::countAlive() const {
  return llvm::count_if(entries, [](const Entry &e) { return bool(e.ref); });
}

std::vector<OpTracker::Entry> OpTracker::collectNewlyDead() {
  std::vector<Entry> dead;
  for (Entry &e : entries) {
    if (e.reportedDead || e.ref)
      continue;
    e.reportedDead = true;
    dead.push_back(e);
  }
  return dead;
}

void OpTracker::print(llvm::raw_ostream &os) const {
  for (const Entry &e : entries)
    os << (e.ref ? "alive " : "dead  ") << e.name << " " << e.location << "\n";
}
