# RUN: %PYTHON %s 2>&1 | FileCheck %s
# REQUIRES: python-bindings
"""mlir.weakref: references, weak containers, scopes and provenance."""

import ctypes
import gc
import os
import sys

from mlir.ir import Context, Location, Module, Operation, InsertionPoint
from mlir.passmanager import PassManager
from mlir import weakref as wr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from helpers import log, run  # noqa: E402

SOURCE = """
func.func @f(%a: i32) -> i32 {
  %c = arith.constant 0 : i32
  %unused = arith.muli %a, %a : i32
  %r = arith.addi %a, %c : i32
  return %r : i32
}
"""


def address(op):
    """The raw address of an operation, from its C API capsule."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return get(op._CAPIPtr, b"mlir.ir.Operation._CAPIPtr")


# ASan's quarantine never hands a freed address back.
UNDER_ASAN = "libasan" in os.environ.get("LD_PRELOAD", "")


def body_ops(module):
    block = module.body.operations[0].regions[0].blocks[0]
    return [op.operation for op in block.operations]


def canonicalize(module, provenance=None):
    pm = PassManager.parse("builtin.module(canonicalize)")
    if provenance:
        provenance.instrument(pm)
    pm.run(module.operation)


def _errors(ops):
    for op in ops:
        try:
            op.name
        except RuntimeError as e:
            yield e


# CHECK-LABEL: TEST: testRef
@run
def testRef():
    with Context(), Location.unknown():
        module = Module.parse(SOURCE)
        const, mul, add, ret = body_ops(module)
        r = wr.ref(mul)
        # A live reference returns the operation's existing wrapper.
        assert r() == mul and r.alive
        # References to one operation are equal and hash alike; to another,
        # not. OpViews and Modules are accepted for their operation.
        assert r == wr.ref(mul) and hash(r) == hash(wr.ref(mul))
        assert r != wr.ref(add)
        assert wr.ref(module)() == module.operation
        # repr says what a reference refers to, as CPython's weakref.ref does.
        # CHECK: repr: <mlir.weakref.ref at 0x{{[0-9a-f]+}}; to 'arith.muli'>
        log("repr:", repr(r))
        assert repr(r).startswith(f"<mlir.weakref.ref at {id(r):#x}; ")
        refs = [wr.ref(op) for op in (const, mul, add, ret)]
        canonicalize(module)
        # CHECK: alive after canonicalize: [False, False, False, True]
        log("alive after canonicalize:", [x.alive for x in refs])
        assert r() is None and refs[3]() == ret
        # Still equal to itself, with the same hash, once dead.
        assert r == refs[1] and hash(r) == hash(refs[1])
        # CHECK: repr once erased: <mlir.weakref.ref at 0x{{[0-9a-f]+}}; dead>
        log("repr once erased:", repr(r))
        # CHECK: ref to an erased op: RuntimeError: the operation has been erased
        try:
            wr.ref(mul)
        except RuntimeError as e:
            log("ref to an erased op: RuntimeError:", e)
        # CHECK: ref to a non-op: TypeError: expected an MLIR operation, got 42
        try:
            wr.ref(42)
        except TypeError as e:
            log("ref to a non-op: TypeError:", e)


# CHECK-LABEL: TEST: testRefOutlivesContext
@run
def testRefOutlivesContext():
    with Context() as ctx, Location.unknown():
        module = Module.parse(SOURCE)
        r = wr.ref(body_ops(module)[3])
        assert r() is not None
    del ctx, module
    gc.collect()
    # CHECK: after the context: alive=False value=None
    log(f"after the context: alive={r.alive} value={r()}")


# CHECK-LABEL: TEST: testWeakOpKeyDictionary
@run
def testWeakOpKeyDictionary():
    with Context(), Location.unknown():
        module = Module.parse(SOURCE)
        ops = body_ops(module)
        d = wr.WeakOpKeyDictionary({op: op.name for op in ops})
        assert len(d) == 4 and d[ops[1]] == "arith.muli"
        canonicalize(module)
        # CHECK: dict after canonicalize: 1 ['func.return']
        log("dict after canonicalize:", len(d), list(d.values()))
        assert ops[1] not in d and ops[3] in d
        # An erased operation is not a key (KeyError, not a crash).
        for access in (lambda: d[ops[1]], lambda: d.__delitem__(ops[1])):
            try:
                access()
                raise AssertionError("an erased op is a key")
            except KeyError:
                pass
        assert d.get(ops[1], "absent") == "absent"
        assert [op for op in d] == [ops[3]]
        # Overwriting keeps one entry.
        d[ops[3]] = "ret"
        assert len(d) == 1 and d[ops[3]] == "ret"
        del d[ops[3]]
        assert len(d) == 0


# CHECK-LABEL: TEST: testAddressReuse
@run
def testAddressReuse():
    # Ops destroyed behind Python's back, then new ops at (often) the same
    # addresses: the containers never confuse them.
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        d = wr.WeakOpKeyDictionary()
        s = wr.WeakOpSet()
        refs = []
        dead = set()
        for round in range(20):
            module = Module.create()
            with InsertionPoint(module.body):
                ops = [Operation.create("test.op") for _ in range(10)]
            for op in ops:
                d[op] = round
                s.add(op)
                refs.append(wr.ref(op))
                dead.add(address(op))
            del ops, module
            gc.collect()
            assert len(d) == 0 and len(s) == 0
        assert not any(r.alive for r in refs)
        module = Module.create()
        with InsertionPoint(module.body):
            fresh = [Operation.create("test.op") for _ in range(10)]
        # The premise: some new op took a dead op's address.
        reused = sum(address(op) in dead for op in fresh)
        assert reused or UNDER_ASAN, "no new op was allocated at a dead address"
        assert not any(op in d or op in s for op in fresh)
        assert not any(r() is not None for r in refs)
        # CHECK: address reuse: ok
        log("address reuse: ok")


# CHECK-LABEL: TEST: testWeakOpSet
@run
def testWeakOpSet():
    with Context(), Location.unknown():
        module = Module.parse(SOURCE)
        ops = body_ops(module)
        s = wr.WeakOpSet(ops)
        s.add(ops[0])
        assert len(s) == 4
        s.discard(ops[0])
        assert len(s) == 3 and ops[0] not in s
        canonicalize(module)
        # CHECK: set after canonicalize: ['func.return']
        log("set after canonicalize:", [op.name for op in s])
        s.discard(ops[1])  # erased: a no-op, not an error


# CHECK-LABEL: TEST: testPurge
@run
def testPurge():
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        d = wr.WeakOpKeyDictionary()
        for _ in range(1000):
            op = Operation.create("test.op")
            d[op] = object()
            del op  # a detached op owned by its wrapper: destroyed now
        # Dead entries are reclaimed as the dictionary grows, so it stays
        # small although every key died.
        # CHECK: stored after 1000 dead keys: small
        log("stored after 1000 dead keys:", "small" if len(d._data) < 128 else len(d._data))
        assert len(d) == 0


# CHECK-LABEL: TEST: testPurgeDropsDeadEntriesOnly
@run
def testPurgeDropsDeadEntriesOnly():
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        ops = [Operation.create("test.op") for _ in range(10)]
        d = wr.WeakOpKeyDictionary((op, i) for i, op in enumerate(ops))
        s = wr.WeakOpSet(ops)
        assert d.purge() == 0 and s.purge() == 0 and len(d) == 10
        ops[3].erase()
        # CHECK: after one death: purged 1 and 1, 9 and 9 left
        log(f"after one death: purged {d.purge()} and {s.purge()}, {len(d)} and {len(s)} left")
        assert d.purge() == 0 and len(d._data) == 9
        # A death followed by an insert, with no purge in between: the
        # insert does not hide the death from the next purge.
        ops[4].erase()
        extra = Operation.create("test.op")
        d[extra] = 99
        # CHECK: after a death and an insert: 9 live, 9 stored
        log(f"after a death and an insert: {len(d)} live, {len(d._data)} stored")
        # The purges that fall due as it grows drop dead entries, and only
        # those: half of the new keys die right after their insertion.
        more = [Operation.create("test.op") for _ in range(200)]
        for i, op in enumerate(more):
            d[op] = i
            if i % 2:
                op.erase()
        stored = len(d._data)
        # CHECK: after growing: 109 live, purged while growing: True
        log(f"after growing: {len(d)} live, purged while growing: {stored < 209}")
        expected = [i for i in range(10) if i not in (3, 4)] + [99] + list(range(0, 200, 2))
        assert sorted(d.values()) == sorted(expected)


# CHECK-LABEL: TEST: testRefScope
@run
def testRefScope():
    with Context(), Location.unknown():
        module = Module.parse(SOURCE)
        ops = body_ops(module)
        with wr.RefScope() as scope:
            refs = [scope.ref(op) for op in ops]
            assert refs[0]() == ops[0] and refs[0] == wr.ref(ops[0])
            canonicalize(module)
            # CHECK: scope: 4 refs, 1 alive
            log(f"scope: {len(scope)} refs, {scope.count_alive()} alive")
            # CHECK: scoped reprs: <mlir.weakref.ScopedRef at 0x{{[0-9a-f]+}}; dead> <mlir.weakref.ScopedRef at 0x{{[0-9a-f]+}}; to 'func.return'>
            log("scoped reprs:", repr(refs[0]), repr(refs[3]))
            scope.reset()
            # CHECK: after reset: <mlir.weakref.ScopedRef at 0x{{[0-9a-f]+}}; scope closed or reset>
            log("after reset:", repr(refs[3]))
            assert len(scope) == 0 and not scope.closed
            try:
                refs[3]()
            except ReferenceError as e:
                # CHECK: after reset: the reference's scope has been closed or reset
                log("after reset:", e)
            kept = scope.ref(ops[3])
        assert scope.closed
        for access in (lambda: kept(), lambda: scope.ref(ops[3])):
            try:
                access()
                raise AssertionError("a closed scope is usable")
            except (ReferenceError, ValueError) as e:
                # CHECK: after close: the reference's scope has been closed or reset
                # CHECK: after close: the reference scope is closed
                log("after close:", e)


# CHECK-LABEL: TEST: testProvenance
@run
def testProvenance():
    with Context() as ctx, Location.unknown():
        module = Module.parse(SOURCE)
        ops = body_ops(module)
        with wr.ErasureProvenance(ctx) as provenance:
            refs = [wr.ref(op) for op in ops]
            canonicalize(module, provenance)
            # CHECK: describe: `arith.muli` at loc("-":4:13) erased during pass 'canonicalize'
            log("describe:", provenance.describe(refs[1]))
            assert provenance.describe(refs[3]) is None  # alive
            # The wrapper's error says it too.
            try:
                ops[1].name
            except RuntimeError as e:
                # CHECK: wrapper: the operation has been erased: `arith.muli` at loc("-":4:13) erased during pass 'canonicalize'
                log("wrapper:", e)
            # Python's erase() is recorded as well (no pass running).
            add = Operation.create("arith.addi", results=[ops[3].operands[0].type],
                                   operands=[ops[3].operands[0]] * 2)
            r = wr.ref(add)
            add.erase()
            # CHECK: python erase: `arith.addi` at loc(unknown) erased
            log("python erase:", provenance.describe(r))
            try:
                wr.ErasureProvenance(ctx)
            except RuntimeError as e:
                # CHECK: second recorder: erasure provenance is already enabled for this context
                log("second recorder:", e)
            try:
                provenance.describe("not a ref")
            except TypeError as e:
                # CHECK: bad describe: expected an mlir.weakref reference
                log("bad describe:", e)
        assert provenance.closed and ctx.erased_operation_describer is None
        assert provenance.describe(refs[1]) is None
        try:
            ops[1].name
        except RuntimeError as e:
            # CHECK: closed: the operation has been erased{{$}}
            log("closed:", e)
        # A new recorder may be enabled once the old one is closed.
        wr.ErasureProvenance(ctx).close()


# CHECK-LABEL: TEST: testProvenanceMultithreaded
@run
def testProvenanceMultithreaded():
    # Ops erased on pass-manager worker threads are attributed to the pass.
    with Context() as ctx, Location.unknown():
        ctx.enable_multithreading(True)
        module = Module.parse("\n".join(SOURCE.replace("@f", f"@f{i}") for i in range(8)))
        funcs = list(module.body.operations)
        muls = [list(f.regions[0].blocks[0].operations)[1].operation for f in funcs]
        provenance = wr.ErasureProvenance(ctx)
        pm = PassManager.parse("builtin.module(func.func(canonicalize))")
        provenance.instrument(pm)
        pm.run(module.operation)
        notes = [str(e) for e in _errors(muls)]
        suffix = "erased during pass 'canonicalize'"
        # CHECK: threads: 8 erased, 8 attributed
        log(f"threads: {len(notes)} erased, {sum(n.endswith(suffix) for n in notes)} attributed")
        provenance.close()

