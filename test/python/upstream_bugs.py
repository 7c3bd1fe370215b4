# RUN: %PYTHON %s | FileCheck %s
# REQUIRES: python-bindings
# Every scenario's premise is that a new operation takes a destroyed one's
# address, which ASan's allocator does not do (not even with its quarantine
# off); the address-reuse unit tests skip under ASan for the same reason.
# UNSUPPORTED: asan
# Upstream bug reports about Python wrappers of destroyed operations, as
# regression tests. Each scenario runs in a child process, so that a crash
# (what unpatched MLIR does on several of them) is observed, not suffered;
# the parent prints one verdict per scenario:
#   raised: <message>   the stale wrapper raised RuntimeError (patched MLIR)
#   CRASHED (signal N)  the child died
#   MISBEHAVED: <what>  the stale wrapper answered (freed memory or a new op)
#   PREMISE NOT MET     address reuse did not happen (the scenario proves
#                       nothing; counted as a failure)
# Run by hand against an unpatched package to see what upstream does:
#   PYTHONPATH=build-baseline/python_packages/mlir_core python3 upstream_bugs.py

import ctypes
import gc
import subprocess
import sys

SCENARIOS = {}


def scenario(name):
    def register(fn):
        SCENARIOS[name] = fn
        return fn

    return register


def address(op):
    """The address of a live operation (its C API pointer)."""
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get_pointer(op.operation._CAPIPtr, b"mlir.ir.Operation._CAPIPtr")


def verdict_of_stale_use(use):
    """Runs `use` (which touches a stale wrapper) and prints the verdict."""
    try:
        result = use()
    except RuntimeError as e:
        print("raised:", e)
        return
    print("MISBEHAVED:", result)


@scenario("llvm-63916")
def print_op_canonicalize_erased():
    # llvm/llvm-project#63916: printing an operation that canonicalize erased.
    from mlir import ir
    from mlir.passmanager import PassManager

    with ir.Context():
        module = ir.Module.parse("%0 = arith.constant 10 : i32")
        const_op = module.body.operations[0]
        PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        assert len(module.body.operations) == 0, "canonicalize kept the op"
        verdict_of_stale_use(lambda: "printed " + str(const_op).strip())


@scenario("llvm-63920")
def child_after_module_collected():
    # llvm/llvm-project#63920: a child op used after its module was
    # garbage-collected (the module owns and frees the IR).
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse("func.func @foo() { return }")
        func_op = module.body.operations[0]
        ret_op = func_op.regions[0].blocks[0].operations[0]
        del module
        gc.collect()
        verdict_of_stale_use(lambda: "printed " + str(func_op).strip())
        verdict_of_stale_use(lambda: "name " + ret_op.name)


def erase_by_pass_then_reuse(make_new):
    """An arith.constant erased by canonicalize, then new ops made by
    `make_new` until one takes its address; returns (module, stale wrapper,
    new op), the new op None if no address was reused."""
    from mlir import ir
    from mlir.passmanager import PassManager

    module = ir.Module.parse("func.func @f() { %0 = arith.constant 7 : i32\n return }")
    block = module.body.operations[0].regions[0].blocks[0]
    stale = block.operations[0]
    old_address = address(stale)
    PassManager.parse("builtin.module(canonicalize)").run(module.operation)
    keep = []
    for _ in range(1000):
        new = make_new(block)
        if address(new) == old_address:
            return module, stale, new
        keep.append(new)
    return module, stale, None


@scenario("llvm-69730")
def stale_wrapper_answers_for_new_op():
    # llvm/llvm-project#69730: a stale wrapper of an erased op answering for a
    # new op of another type allocated at the same address.
    from mlir import ir

    def new_op(block):
        with ir.InsertionPoint.at_block_begin(block):
            return ir.Operation.create("arith.addi", results=[ir.IntegerType.get_signless(32)])

    with ir.Context() as ctx, ir.Location.unknown():
        ctx.allow_unregistered_dialects = True
        module, stale, new = erase_by_pass_then_reuse(new_op)
        if new is None:
            print("PREMISE NOT MET")
            return
        print("address reused by", new.name)
        verdict_of_stale_use(lambda: "answered name " + stale.name)
        print("stale == new:", stale == new)


@scenario("circt-3660")
def detached_op_at_reused_address():
    # llvm/circt#3660: a detached operation created at the address of an op
    # C++ erased while Python still held it.
    from mlir import ir

    def new_op(block):
        return ir.Operation.create("arith.constant", results=[ir.IntegerType.get_signless(32)],
                                   attributes={"value": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 3)})

    with ir.Context(), ir.Location.unknown():
        module, stale, new = erase_by_pass_then_reuse(new_op)
        if new is None:
            print("PREMISE NOT MET")
            return
        try:
            attached = new.parent is not None
        except ValueError:  # "Detached operations have no parent"
            attached = False
        print("detached op created at the reused address:", new.name, "attached:", attached)
        verdict_of_stale_use(lambda: "answered " + str(stale).strip())
        print("stale == new:", stale == new)


def run_child(name):
    proc = subprocess.run([sys.executable, __file__, "--scenario", name],
                          capture_output=True, text=True, timeout=120)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode < 0:
        lines.append(f"CRASHED (signal {-proc.returncode})")
    elif proc.returncode:
        lines.append(f"FAILED (exit {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
    return lines


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--scenario":
        SCENARIOS[sys.argv[2]]()
        return 0
    failed = False
    for name in SCENARIOS:
        lines = run_child(name)
        for line in lines:
            print(f"{name}: {line}")
            failed |= line.startswith(("CRASHED", "MISBEHAVED", "PREMISE", "FAILED"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

# CHECK: llvm-63916: raised: the operation has been erased
# CHECK: llvm-63920: raised: the operation has been erased
# CHECK-NEXT: llvm-63920: raised: the operation has been erased
# CHECK: llvm-69730: address reused by arith.addi
# CHECK-NEXT: llvm-69730: raised: the operation has been erased
# CHECK-NEXT: llvm-69730: stale == new: False
# CHECK: circt-3660: detached op created at the reused address: arith.constant attached: False
# CHECK-NEXT: circt-3660: raised: the operation has been erased
# CHECK-NEXT: circt-3660: stale == new: False
