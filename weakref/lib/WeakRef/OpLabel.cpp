//===- OpLabel.cpp - An operation's name and location as text -------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "mlir-weakref/detail/OpLabel.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

weakref::detail::OpLabel weakref::detail::captureOpLabel(Operation *op) {
  OpLabel label;
  label.name = op->getName().getStringRef().str();
  llvm::raw_string_ostream os(label.location);
  op->getLoc().print(os);
  os.flush();
  return label;
}
