# A downstream's own bindings: upstream's mlir/examples/standalone, whose
# `mlir_standalone` package rebuilds MLIR's Python core (`_mlir`, its own
# nanobind domain) from the patched tree's sources, as CIRCT's PyCDE does.
# Its wrappers of an op erased through another wrapper, or erased by C++
# (the greedy driver folding dead ops away), raise instead of reading freed
# memory or standing for a new op at the same address.
#
#   PYTHONPATH=<standalone build>/python_packages/standalone python3 standalone_weakref.py

import gc
import sys

import mlir_standalone.ir as ir
from mlir_standalone.dialects import standalone_nanobind as standalone_d
from mlir_standalone.rewrite import RewritePatternSet, apply_patterns_and_fold_greedily

failures = []


def expect_raises(what, fn):
    try:
        value = fn()
    except RuntimeError as e:
        print(f"ok: {what} raises: {e}")
        return
    failures.append(f"{what} returned {value!r} instead of raising RuntimeError")
    print(f"FAIL: {failures[-1]}")


def expect_equal(what, got, want):
    if got == want:
        print(f"ok: {what} == {want!r}")
    else:
        failures.append(f"{what}: got {got!r}, want {want!r}")
        print(f"FAIL: {failures[-1]}")


SOURCE = """
%0 = arith.constant 2 : i32
%1 = standalone.foo %0 : i32
"""

with ir.Context() as ctx, ir.Location.unknown():
    standalone_d.register_dialects()

    # 1. Erased through another wrapper of the same op.
    module = ir.Module.parse(SOURCE)
    held = module.body.operations[1]
    other = module.body.operations[1]
    expect_equal("held wrapper's name", held.operation.name, "standalone.foo")
    other.operation.erase()
    expect_raises("name of an op erased through another wrapper",
                  lambda: held.operation.name)
    expect_raises("str() of an op erased through another wrapper",
                  lambda: str(held))
    expect_raises("operands of an op erased through another wrapper",
                  lambda: len(held.operation.operands))
    # New ops, many of them at freed addresses: the dead wrapper stands for
    # none of them.
    for _ in range(200):
        module.body.append(ir.Operation.parse("%c = arith.constant 3 : i32"))
    expect_raises("name of the erased op after 200 new ops",
                  lambda: held.operation.name)
    expect_equal("ops left in the module", len(module.body.operations), 201)

    # 2. Erased by C++: the greedy driver erases both (unused, Pure) ops.
    module = ir.Module.parse(SOURCE)
    constant = module.body.operations[0]
    foo = module.body.operations[1]
    value = constant.result
    apply_patterns_and_fold_greedily(module, RewritePatternSet().freeze())
    expect_equal("ops left after folding", len(module.body.operations), 0)
    expect_raises("name of an op the greedy driver erased",
                  lambda: foo.operation.name)
    expect_raises("attributes of an op the greedy driver erased",
                  lambda: constant.operation.attributes["value"])
    expect_raises("type of a result whose op the greedy driver erased",
                  lambda: value.type)
    # Drop the wrappers (rebound, not del: the lambdas above name them).
    constant = foo = value = None
    gc.collect()

    # 3. A module freed while its ops' wrappers live.
    module = ir.Module.parse(SOURCE)
    foo = module.body.operations[1]
    del module
    gc.collect()
    expect_raises("name of an op of a freed module", lambda: foo.operation.name)

if failures:
    print(f"standalone_weakref: {len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("standalone_weakref: all checks passed")
