# RUN: %PYTHON %s | FileCheck %s
# REQUIRES: python-bindings
# CHECK: {{^[0-9]+}} passed, 0 failed
"""Hostile scenarios for the Python bindings: every kind of IR handle x every
way the IR behind it can be destroyed.

The promise under test: no Python object that refers to IR (Operation,
OpView, OpResult, BlockArgument, Block, Region, OpOperand, use iterators,
operation/block/region iterators and lists, operand/result/argument lists,
OpAttributeMap, SymbolTable, InsertionPoint, Module, successors) ever reads
freed memory or stands for a new object at a reused address. Once what it
refers to is gone (by a pass, a rewrite, an erase through any wrapper, a
parent's erase, a block merge, an erased block argument, a collected Module
or detached parent, a context teardown) every access that needs the IR raises
an Exception; every object whose IR lives keeps working, with correct
answers.

Each scenario `KIND.PATH` (optionally `.reuse`) builds IR, obtains a KIND
object, validates its probes on an identical twin while the IR is alive,
destroys the IR by PATH, then touches the object in every way the kind
supports (str, name, type, owner, parent, len, indexing, slicing,
iteration, attributes, get_name, uses, verify, print, walk, capsule
round trip, ==, hash, and mutations: erase, move, insert, set operand,
replace uses, add/erase argument, ...):
  - 'dead': every probe that needs the IR must raise an Exception (mutating
    probes: RuntimeError, ValueError, IndexError, KeyError, StopIteration or
    MLIRError; anything else is more likely a broken probe); probes that need
    no IR (hash, ==, repr) must just not crash;
  - 'alive': the IR is alive: every probe returns what it returned before;
  - 'live_changed': the IR is alive but changed: every probe works;
  - 'fresh': the container is alive but changed: each probe raises or
    returns what the same probe returns on a freshly obtained object (e.g.
    list(block.arguments) after an argument was erased), except that a
    list's len may stay the one it had when it was made (as upstream);
  - 'next_live': an iterator positioned at a destroyed element: `next`
    raises, stops, or yields a live element of the container;
  - custom checks (symbol table entries, modules' own operations).
On the reference-counting paths (module_gc, detach_gc, ctx_teardown) an
object may keep its IR alive; mlir.weakref (C++ weak references, not the
wrappers under test) then says whether the IR died, and the object must
raise or work accordingly. Survivors (IR the path keeps) are checked too.
`.reuse` scenarios then allocate new IR until some object lands at the
destroyed object's address (else they print SKIP: reuse not observed) and
check that the stale object still raises and never compares equal to the
new one.

Each scenario runs in its own subprocess, with MALLOC_PERTURB_ set (freed
memory is scribbled over, so stale reads show; --no-perturb to not); a crash
(signal, abort, LLVM ERROR) fails it with the scenario's name. Paths that
cannot run at all in a build (the inliner without func's inliner interface,
the greedy rewrite driver without a way to build a pattern set, Block.erase
where the bindings lack it) are detected once in a subprocess and skipped;
every skip says why, and the last line counts them.

The same probes run against the bindings of LLVM 19.1.7 (pybind11) and
23.1.1 (nanobind). Where their APIs differ the probes detect the feature,
not the version, and each variant still needs the IR: a value's kind is
asked through the casting constructors OpResult(Value(v)) (both releases;
19.1.7's OpResult.isinstance(v) too where it exists; 23.1.1's
isinstance(v, OpResult) is a Python type check that needs no IR), an
attribute map is iterated for NamedAttributes (19.1.7) or names (23.1.1),
PassManager.run gets invalidate_ops only where it takes it, and entry points
only one release has (23.1.1: Operation.block, op_operands,
is_before_in_block, replace_uses_of_with, InsertionPoint.after,
Value.location, replace_all_uses_except, BlockArgument.set_location,
Block.predecessors/successors, OpAttributeMap.keys/values/items/get) are
probed where present. Identity is never assumed (23.1.1 has no
live-operation map: two wrappers of one op are == but not `is`).
Usage:
  scenarios.py [-j N] [-v] [--only GLOB[,GLOB...]] [--list] [--no-perturb]
  scenarios.py --child NAME        (one scenario, in process)
"""

import argparse
import ctypes
import fnmatch
import gc
import io
import os
import signal
import subprocess
import sys
import time

# --------------------------------------------------------------------------
# The matrix: PATHS[path] = {kind: expectation}. Static, so that --list works
# without the bindings.
# --------------------------------------------------------------------------

D, A, F, NL, SE, DYN = ("dead", "alive", "fresh", "next_live", "symtab_entry",
                        "dyn")
LV = "live_changed"  # alive but changed: every probe must work

KINDS = [
    "op", "opview", "result", "arg", "block", "region", "use", "uses",
    "uses_live", "op_iter", "op_iter_dead", "op_list", "op_list_live",
    "block_iter", "block_list", "region_list", "region_iter", "operands",
    "results", "block_args", "attrs", "successors", "ip", "ip_block",
    "symtab", "symtab_entry", "module",
]

KIND_DOC = {
    "op": "Operation",
    "opview": "OpView (generated class where registered)",
    "result": "OpResult",
    "arg": "BlockArgument",
    "block": "Block",
    "region": "Region",
    "use": "OpOperand (from value.uses)",
    "uses": "value.uses iterator, value destroyed",
    "uses_live": "value.uses iterator, value alive, next use destroyed",
    "op_iter": "iter(block.operations), block alive, next op destroyed",
    "op_iter_dead": "iter(block.operations), block destroyed",
    "op_list": "block.operations, block destroyed",
    "op_list_live": "block.operations, block alive, an op destroyed",
    "block_iter": "iter(region.blocks) positioned at a destroyed block",
    "block_list": "region.blocks",
    "region_list": "op.regions",
    "region_iter": "iter(op.regions)",
    "operands": "op.operands",
    "results": "op.results",
    "block_args": "block.arguments",
    "attrs": "op.attributes (OpAttributeMap)",
    "successors": "op.successors",
    "ip": "InsertionPoint(op)",
    "ip_block": "InsertionPoint(block)",
    "symtab": "SymbolTable, its operation destroyed",
    "symtab_entry": "SymbolTable, a symbol in it destroyed",
    "module": "Module",
}

_ERASE_ALL = {
    "op": D, "opview": D, "result": D, "arg": D, "block": D, "region": D,
    "use": D, "uses": D, "uses_live": NL, "op_iter": NL, "op_iter_dead": D,
    "op_list": D, "op_list_live": F, "block_iter": D, "block_list": D,
    "region_list": D, "region_iter": D, "operands": D, "results": D,
    "block_args": D, "attrs": D, "successors": D, "ip": D, "ip_block": D,
    "symtab": D, "symtab_entry": SE,
}
_PARENT_GONE = dict(_ERASE_ALL, uses_live=D, op_iter=D, op_list_live=D,
                    symtab_entry=D)

PATHS = {
    # op.erase() through the object's own wrappers.
    "erase": dict(_ERASE_ALL),
    # erase through another wrapper: a fresh OpView from block.operations,
    # and SymbolTable.erase on a second table.
    "erase_other": {k: _ERASE_ALL[k] for k in (
        "op", "opview", "result", "arg", "block", "region", "use", "uses",
        "uses_live", "op_iter", "op_list", "block_args", "attrs", "ip",
        "symtab", "symtab_entry")},
    # erase the parent op (everything is nested in it).
    "erase_parent": dict(_PARENT_GONE),
    # drop every Python reference to the Module, gc.collect().
    "module_gc": dict(_PARENT_GONE),
    # detach the parent from the module, drop it (owned by Python), gc.
    # An object that holds the parent alive must then work (decided with
    # mlir.weakref after the gc; see GC_PATHS).
    "detach_gc": {k: _PARENT_GONE[k] for k in (
        "op", "result", "arg", "block", "region", "use", "uses",
        "uses_live", "op_iter", "op_list", "op_list_live", "block_list",
        "operands", "attrs", "ip", "ip_block", "symtab", "symtab_entry")},
    # IR built in a context of its own; module and context dropped, gc.
    # (OpOperands and use iterators need not keep the context alive.)
    "ctx_teardown": {k: _PARENT_GONE[k] for k in (
        "op", "opview", "result", "arg", "block", "region", "use", "uses",
        "uses_live", "op_iter", "op_list", "block_list", "attrs", "ip_block",
        "symtab", "region_iter")},
    # Block.erase(), if the bindings have it (a block without predecessors).
    "block_erase": {
        "block": D, "arg": D, "block_args": D, "op_list": D,
        "op_iter_dead": D, "ip_block": D, "op": D, "opview": D, "result": D,
        "use": D, "uses": D, "block_iter": NL, "block_list": F, "attrs": D,
        "operands": D, "results": D, "ip": D,
    },
    # Block.erase() of a block that is still a successor: must raise.
    "block_erase_used": {"block": DYN, "arg": DYN, "op_list": DYN},
    # op.erase() of an op whose result is still used: must raise, all lives.
    "erase_with_uses": {
        "op": A, "opview": A, "result": A, "use": A, "uses": A,
        "operands": A, "results": A, "attrs": A, "ip": A,
    },
    # detach an op whose result is still used, drop its wrapper, gc (the
    # bindings must not destroy it: ~Operation with uses aborts).
    "detach_with_uses": {"op": LV, "result": LV, "use": A, "uses": A},
    # nothing destroyed: value.maybe_downcast() was called on the object;
    # it must go on working (upstream moves the C++ value out of it).
    "maybe_downcast": {"result": A, "arg": A},
    # a rewrite by hand: result.replace_all_uses_with(other); op.erase().
    "rauw_erase": {
        "op": D, "opview": D, "result": D, "use": A, "uses": D,
        "operands": D, "results": D, "attrs": D, "ip": D,
    },
    # op.operands[i] = other: the old use is gone.
    # (the OpOperand slot lives on: in C++ it is the same OpOperand)
    "set_operand": {"use": A, "uses_live": NL, "operands": F},
    # erase a later sibling / the parent from inside op.walk's callback.
    "walk_erase": {"op": DYN, "result": DYN, "attrs": DYN},
    "walk_erase_parent": {"op": DYN, "block": DYN, "op_list": DYN},
    # canonicalize: dead op erased, op folded away (its result had uses).
    "canonicalize": {
        "op": D, "opview": D, "result": D, "use": D, "uses": D,
        "uses_live": NL, "op_iter": NL, "op_list_live": F, "operands": D,
        "results": D, "attrs": D, "ip": D,
    },
    # canonicalize merging a single-predecessor block into its predecessor.
    "canon_merge": {
        "block": D, "arg": D, "uses": D, "block_args": D, "op_list": D,
        "op_iter_dead": D, "block_iter": NL, "block_list": F,
        "successors": D, "ip_block": D,
    },
    # canonicalize erasing an unreachable block.
    "canon_unreachable": {
        "block": D, "arg": D, "op": D, "opview": D, "result": D, "use": D,
        "uses": D, "block_args": D, "op_list": D, "op_iter_dead": D,
        "block_iter": NL, "block_list": F, "operands": D, "results": D,
        "attrs": D, "ip": D, "ip_block": D,
    },
    # canonicalize erasing an unused block argument (and branch operands).
    "canon_dce_arg": {"arg": D, "block_args": F, "operands": F, "use": D},
    "cse": {
        "op": D, "opview": D, "result": D, "use": D, "uses": D,
        "uses_live": NL, "op_iter": NL, "op_list_live": F, "operands": D,
        "results": D, "attrs": D, "ip": D,
    },
    # mlir.rewrite.apply_patterns_and_fold_greedily (empty pattern set:
    # folding, dead code and region simplification).
    "rewrite": {
        "op": D, "opview": D, "result": D, "use": D, "uses": D,
        "uses_live": NL, "op_iter": NL, "op_list_live": F, "operands": D,
        "results": D, "attrs": D, "ip": D, "block": D, "arg": D,
        "block_args": D, "op_list": D, "block_list": F, "ip_block": D,
    },
    "symbol_dce": {
        "op": D, "opview": D, "region": D, "region_list": D,
        "region_iter": D, "block": D, "arg": D, "block_args": D,
        "op_list": D, "op_iter_dead": D, "block_iter": D, "block_list": D,
        "result": D, "use": D, "uses": D, "operands": D, "results": D,
        "attrs": D, "successors": D, "ip": D, "ip_block": D,
        "symtab_entry": SE, "op_list_live": F, "op_iter": NL,
    },
    "inline": {
        "op": D, "opview": D, "result": D, "use": D, "uses": D,
        "uses_live": NL, "op_iter": NL, "op_list_live": F, "operands": D,
        "results": D, "attrs": D, "ip": D, "region": D, "block": D,
        "arg": D, "symtab_entry": SE,
    },
    "remove_dead_values": {
        "arg": D, "block_args": F, "use": D, "operands": D, "op": D,
        "result": D,
    },
    # Block.erase_argument(i) of an unused argument.
    "erase_argument": {"arg": D, "block_args": F, "use": A},
    # Block.erase_argument(i) of a used argument: must raise, all lives.
    "erase_arg_with_uses": {"arg": A, "block_args": A, "use": A, "uses": A},
    # SymbolTable.erase(op) / del table[name] on a second table.
    "symtab_erase": {
        "op": D, "opview": D, "region": D, "block": D, "arg": D,
        "result": D, "use": D, "attrs": D, "symtab_entry": SE,
        "op_list_live": F,
    },
    "symtab_del": {"op": D, "block": D, "symtab_entry": SE},
    # Module's own operation: erase through module.operation / body.owner,
    # move into another module that is then collected, PDLModule taking it,
    # the Module surviving its context's other references.
    "module_op_erase": {"module": DYN, "op": DYN, "block": DYN,
                        "symtab": DYN, "ip_block": DYN, "op_list": DYN},
    "module_erase_other": {"module": DYN, "op": DYN, "block": DYN},
    "module_moved": {"module": DYN, "op": DYN, "block": DYN,
                     "op_list": DYN},
    "module_pdl": {"module": DYN, "op": DYN, "block": DYN},
    "module_ctx": {"module": A, "op": A, "block": A, "symtab": A,
                   "ip_block": A, "region": A, "op_list": A},
}

# Paths where what dies is decided by reference counting: an object may
# legitimately keep its IR alive (then it must work).
GC_PATHS = {"module_gc", "detach_gc", "ctx_teardown"}

# Reuse variants: these kinds x these paths (where the path supports the
# kind).
REUSE_KINDS = {"op", "result", "arg", "block", "use", "op_iter", "uses_live",
               "block_iter", "symtab_entry", "ip", "ip_block", "block_args",
               "op_list_live"}
REUSE_PATHS = {"erase", "module_gc", "ctx_teardown", "canonicalize",
               "canon_merge", "canon_unreachable", "cse", "symbol_dce",
               "erase_argument", "block_erase", "canon_dce_arg",
               "remove_dead_values", "inline"}


def has_reuse_variant(kind, path):
    exp = PATHS[path].get(kind)
    if path not in REUSE_PATHS or kind not in REUSE_KINDS:
        return False
    return exp in (D, NL, SE) or (
        exp == F and kind in ("block_args", "op_list_live", "block_list"))


def all_scenarios():
    names = []
    for path, kinds in PATHS.items():
        for kind in KINDS:
            if kind in kinds:
                names.append(f"{kind}.{path}")
    for path, kinds in PATHS.items():
        for kind in KINDS:
            if kind in kinds and has_reuse_variant(kind, path):
                names.append(f"{kind}.{path}.reuse")
    return names


# --------------------------------------------------------------------------
# IR sources.
# --------------------------------------------------------------------------

LIVE_SRC = r"""
module {
  "t.live"() ({
  ^bb0(%l: i32):
    %lo = "t.lop"(%l) {tag = "lop"} : (i32) -> i32
    "t.lbr"(%lo)[^bb1] {tag = "lbr"} : (i32) -> ()
  ^bb1:
    "t.lend"() {tag = "lend"} : () -> ()
  }) {tag = "live"} : () -> ()
  "t.pool"() ({
  ^bb0(%p0: i32, %p1: i32):
    "t.pend"() : () -> ()
  }, {
  ^bb0:
    "t.pend2"() : () -> ()
  }) {tag = "pool"} : () -> ()
  func.func private @live_fn() attributes {tag = "live_fn"} {
    return
  }
}
"""

ERASE_SRC = r"""
module {
  func.func @keep(%k: i32) -> i32 {
    %kk = arith.addi %k, %k {tag = "kk"} : i32
    return {tag = "kret"} %kk : i32
  }
  "t.parent"() ({
  ^bb0(%a: i32, %b: i32):
    %pre = "t.pre"(%a) {tag = "pre"} : (i32) -> i32
    %v = "t.victim"(%a, %b) ({
    ^bb0(%x: i32):
      %n = "t.inner"(%x) {tag = "n"} : (i32) -> i32
      cf.br ^bb1(%n : i32) {tag = "br"}
    ^bb1(%w: i32):
      "t.term"(%w) {tag = "term"} : (i32) -> ()
    ^bb2(%z: i32):
      %zz = "t.z"(%z) {tag = "z"} : (i32) -> i32
      "t.zend"(%zz) {tag = "zend"} : (i32) -> ()
    }) {tag = "v"} : (i32, i32) -> i32
    %post = "t.post"(%a) {tag = "post"} : (i32) -> i32
    builtin.module @inner attributes {t.tag = "inner"} {
      func.func private @s() {
        return
      }
    }
    builtin.module @inner2 attributes {t.tag = "inner2"} {
      func.func private @s2() attributes {tag = "s2"} {
        return
      }
      func.func private @k2() attributes {tag = "k2"} {
        return
      }
    }
    "t.end"() {tag = "end"} : () -> ()
  }) {tag = "parent"} : () -> ()
}
"""

CANON_SRC = r"""
module {
  func.func @keep(%k: i32) -> i32 {
    %kk = arith.addi %k, %k {tag = "kk"} : i32
    return {tag = "kret"} %kk : i32
  }
  func.func @f(%a: i32, %b: i32) -> i32 {
    %c0 = arith.constant {tag = "c0"} 0 : i32
    %m = arith.muli %a, %b {tag = "m"} : i32
    %x = arith.addi %a, %c0 {tag = "x"} : i32
    %y = arith.addi %x, %b {tag = "y"} : i32
    cf.br ^bb1(%y, %a : i32, i32) {tag = "br"}
  ^bb1(%p: i32, %q: i32):
    %s = arith.addi %p, %q {tag = "s"} : i32
    return {tag = "ret"} %s : i32
  ^bb9(%u: i32):
    %e = arith.muli %u, %u {tag = "e"} : i32
    return {tag = "ret9"} %e : i32
  }
  func.func @g(%a: i32, %b: i32, %c: i1) -> i32 {
    cf.br ^bb1(%b, %a : i32, i32) {tag = "gbr0"}
  ^bb1(%d: i32, %v: i32):
    %n = arith.addi %v, %v {tag = "gn"} : i32
    cf.cond_br %c, ^bb1(%n, %n : i32, i32), ^bb2 {tag = "gbr"}
  ^bb2:
    return {tag = "gret"} %v : i32
  }
}
"""

CSE_SRC = r"""
module {
  func.func @keep(%k: i32) -> i32 {
    %kk = arith.addi %k, %k {tag = "kk"} : i32
    return {tag = "kret"} %kk : i32
  }
  func.func @h(%a: i32, %b: i32) -> i32 {
    %y = arith.addi %a, %b {tag = "y"} : i32
    %z = arith.addi %a, %b {tag = "y"} : i32
    %r = arith.muli %y, %z {tag = "r"} : i32
    return {tag = "ret"} %r : i32
  }
}
"""

SDCE_SRC = r"""
module {
  func.func @keep(%k: i32) -> i32 attributes {tag = "keep"} {
    %kk = arith.addi %k, %k {tag = "kk"} : i32
    return {tag = "kret"} %kk : i32
  }
  func.func private @dead_fn(%a: i32) -> i32 attributes {tag = "fn"} {
    %t = arith.addi %a, %a {tag = "t"} : i32
    cf.br ^bb1(%t : i32) {tag = "br"}
  ^bb1(%w: i32):
    return {tag = "ret"} %w : i32
  }
  func.func @keep2() attributes {tag = "keep2"} {
    return {tag = "k2ret"}
  }
}
"""

INLINE_SRC = r"""
module {
  func.func private @callee(%a: i32) -> i32 attributes {tag = "callee"} {
    %t = arith.addi %a, %a {tag = "t"} : i32
    return {tag = "cret"} %t : i32
  }
  func.func @caller(%x: i32) -> i32 attributes {tag = "caller"} {
    %r = func.call @callee(%x) {tag = "call"} : (i32) -> i32
    %q = arith.muli %r, %r {tag = "q"} : i32
    return {tag = "ret"} %q : i32
  }
}
"""

RDV_SRC = r"""
module {
  func.func private @p(%a: i32, %unused: i32) -> i32 attributes {tag = "p"} {
    %dead = arith.muli %a, %a {tag = "dead"} : i32
    return {tag = "pret"} %a : i32
  }
  func.func @main(%x: i32, %y: i32) -> i32 attributes {tag = "main"} {
    %r = func.call @p(%x, %y) {tag = "call"} : (i32, i32) -> i32
    return {tag = "ret"} %r : i32
  }
}
"""

EA_SRC = r"""
module {
  "t.holder"() ({
  ^bb0(%a: i32, %b: i64, %c: f32):
    "t.use"(%a, %c) {tag = "use"} : (i32, f32) -> ()
  }) {tag = "holder"} : () -> ()
}
"""

SET_OPERAND_SRC = r"""
module {
  "t.holder"() ({
  ^bb0(%a: i32, %b: i32, %c: i32):
    "t.user"(%a, %b) {tag = "user"} : (i32, i32) -> ()
    "t.other"(%a) {tag = "other"} : (i32) -> ()
  }) {tag = "holder"} : () -> ()
}
"""

MODULE_SRC = r"""
module {
  func.func @mf(%a: i32) -> i32 attributes {tag = "mf"} {
    return {tag = "mret"} %a : i32
  }
}
"""

# --------------------------------------------------------------------------
# Child side.
# --------------------------------------------------------------------------


class SkipScenario(Exception):
    pass


class ScenarioBug(Exception):
    """The fixture itself is wrong (not a finding about the bindings)."""


_capsule_get_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = [ctypes.py_object]
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def capi_ptr(obj):
    """The raw C pointer behind an object's _CAPIPtr capsule (live objects
    only)."""
    cap = obj._CAPIPtr
    return _capsule_get_pointer(cap, _capsule_get_name(cap))


def short(x, n=160):
    s = repr(x)
    return s if len(s) <= n else s[:n] + "..."


# Exceptions a mutating probe on dead IR may raise. Anything else (TypeError,
# AttributeError, ...) is more likely a broken probe than a natural error.
def narrow_exceptions():
    from mlir.ir import MLIRError
    return (RuntimeError, ValueError, IndexError, KeyError, StopIteration,
            MLIRError)


# Exceptions that mean "not applicable" when a probe runs on live IR.
NA_EXCEPTIONS = (IndexError, ValueError, KeyError, StopIteration)


class Probe:
    """mode: 'r' reads IR (must raise on dead IR), 'a' needs no IR (anything
    but a crash), 'm' mutates (dead IR only; must raise)."""

    def __init__(self, label, fn, mode="r"):
        self.label, self.fn, self.mode = label, fn, mode
        self.na = False


class Outcome:
    def __init__(self, raised=None, value=None):
        self.raised, self.value = raised, value

    def __repr__(self):
        if self.raised is not None:
            return f"raised {type(self.raised).__name__}: {self.raised}"
        return f"returned {short(self.value)}"


class BaseExceptionOnly(Exception):
    pass


def attempt(fn, *args):
    try:
        return Outcome(value=fn(*args))
    except Exception as e:  # noqa: BLE001 - that is the point
        return Outcome(raised=e)
    except BaseException as e:  # not an Exception: a failure of its own
        raise BaseExceptionOnly(f"{type(e).__name__}: {e}") from None


class Result:
    def __init__(self):
        self.failures = []
        self.notes = []
        self.skip_reuse = None
        self.checked = 0

    def fail(self, msg):
        self.failures.append(msg)
        print("FAILURE:", msg, flush=True)

    def note(self, msg):
        self.notes.append(msg)
        print("note:", msg, flush=True)


def op_tag(op):
    from mlir.ir import StringAttr
    attrs = op.operation.attributes
    for key in ("tag", "t.tag"):
        if key in attrs:
            return StringAttr(attrs[key]).value
    return None


def op_desc(op):
    op = op.operation
    return (op.name, op_tag(op))


def use_desc(u):
    return (op_desc(u.owner), u.operand_number)


def block_desc(b):
    return (len(b.arguments), tuple(op_desc(o) for o in b.operations))


def owner_desc(v):
    from mlir.ir import Block
    o = v.owner
    if isinstance(o, Block):
        return ("block", block_desc(o))
    return ("op", op_desc(o))


def tagged_ops(root):
    """tag -> Operation for every op under root (inclusive) with a tag."""
    out = {}

    def rec(op):
        op = op.operation
        t = op_tag(op)
        if t is not None and t not in out:
            out[t] = op
        for r in op.regions:
            for b in r.blocks:
                for o in b.operations:
                    rec(o)

    rec(root)
    return out


class Env:
    """The always-live side: a module in the main context with ops, blocks
    and values for mutating probes to use, and a pool where reuse scenarios
    allocate."""

    def __init__(self):
        from mlir.ir import (Context, Location, Module, IntegerType, F64Type,
                             F32Type)
        import mlir.dialects.func  # noqa: F401 - registers the OpViews
        import mlir.dialects.arith  # noqa: F401
        import mlir.dialects.cf  # noqa: F401 - registers the OpViews
        self.ctx = Context()
        self.ctx.allow_unregistered_dialects = True
        self.loc = Location.unknown(self.ctx)
        with self.ctx, self.loc:
            self.module = Module.parse(LIVE_SRC)
            t = tagged_ops(self.module.operation)
            self.live_op = t["lop"]
            self.live_br = t["lbr"]
            self.live_holder = t["live"]
            self.live_block = t["live"].regions[0].blocks[0]
            self.live_block2 = t["live"].regions[0].blocks[1]
            self.live_value = self.live_block.arguments[0]
            self.pool = t["pool"]
            self.pool_block = t["pool"].regions[0].blocks[0]
            self.pool_region = t["pool"].regions[1]
            self.live_fn = t["live_fn"]
            self.i32 = IntegerType.get_signless(32)
            self.i64 = IntegerType.get_signless(64)
            self.f64 = F64Type.get()
            self.f32 = F32Type.get()
            self.live_str = str(self.module)
        self.keep_new = []

    def survivors(self):
        """(label, thunk, expected) for the live module."""
        return [
            ("live module str", lambda: str(self.module), self.live_str),
            ("live op name", lambda: self.live_op.name, "t.lop"),
            ("live value type", lambda: str(self.live_value.type), "i32"),
            ("live block ops",
             lambda: [o.operation.name for o in self.live_block.operations],
             ["t.lop", "t.lbr"]),
        ]


def run_pass(pipeline, op, invalidate_ops=False):
    from mlir.passmanager import PassManager
    pm = PassManager.parse(pipeline)
    run_pass_manager(pm, op, invalidate_ops)


def pass_destroyer(fx, pipeline):
    """A fixture's destroy step: run `pipeline` on the module it holds."""
    return lambda: run_pass(pipeline, fx.hold["module"].operation)


def make_frozen_empty_patterns(ctx):
    """An empty FrozenRewritePatternSet (through an empty PDL module), or
    None if the bindings cannot make one. The PDL module's source Module is
    leaked on purpose (PDLModule takes ownership of it)."""
    try:
        from mlir import rewrite
        from mlir.ir import Module
    except ImportError:
        return None
    if not hasattr(rewrite, "PDLModule") or not hasattr(
            rewrite, "apply_patterns_and_fold_greedily"):
        return None
    src = Module.create()
    _LEAKED.append(src)
    pdl = rewrite.PDLModule(src)
    _LEAKED.append(pdl)
    frozen = pdl.freeze()
    _LEAKED.append(frozen)
    return frozen


_LEAKED = []

# Operations of the package that abort the process on *live* IR in some
# builds (not stale-handle bugs, but they would kill every scenario using
# them): probed once in a subprocess, passed to children in HOSTILE_CAPS.
CAP_PROBES = {
    # the func dialect's inliner interface must be registered
    "inline": (
        "from mlir.ir import Context, Module\n"
        "from mlir.passmanager import PassManager\n"
        "with Context():\n"
        "    m = Module.parse('func.func private @c(%a: i32) -> i32 {\\n'\n"
        "        '  return %a : i32\\n}\\nfunc.func @d(%a: i32) -> i32 {\\n'\n"
        "        '  %r = func.call @c(%a) : (i32) -> i32\\n'\n"
        "        '  return %r : i32\\n}')\n"
        "    PassManager.parse('builtin.module(inline)').run(m.operation)\n"
        "print('ok')\n"),
    # Block.erase: neither upstream 19.1.7 nor 23.1.1 has it (nor do this
    # project's patched bindings add it); a build that has it runs the
    # block_erase scenarios. (A probe says why not on a line
    # 'unsupported: ...'.)
    "block_erase": (
        "from mlir.ir import Block\n"
        "if not callable(getattr(Block, 'erase', None)):\n"
        "    print('unsupported: these bindings have no Block.erase()')\n"
        "else:\n"
        "    print('ok')\n"),
    # an empty PDL module -> FrozenRewritePatternSet
    "rewrite": (
        "import os, sys\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "sys.dont_write_bytecode = True\n"
        "import scenarios as S\n"
        "from mlir.ir import Context, Location\n"
        "with Context() as c, Location.unknown():\n"
        "    assert S.make_frozen_empty_patterns(c) is not None\n"
        "print('ok')\n"
        "sys.stdout.flush()\n"
        "os._exit(0)\n"),
}


PATH_CAPS = {"rewrite": "rewrite", "inline": "inline",
             "block_erase": "block_erase", "block_erase_used": "block_erase"}


def probe_caps(env=None):
    caps = {}
    here = os.path.dirname(os.path.abspath(__file__))
    for name, code in CAP_PROBES.items():
        try:
            p = subprocess.run([sys.executable, "-c", code, here],
                               capture_output=True, text=True, timeout=60,
                               env=env)
            ok = p.returncode == 0 and "ok" in p.stdout.split()
            unsupported = [l[len("unsupported:"):].strip()
                           for l in p.stdout.splitlines()
                           if l.startswith("unsupported:")]
            if ok:
                why = ""
            elif unsupported and p.returncode == 0:
                why = unsupported[0]
            else:
                why = describe_crash(p.returncode, p.stderr)
        except subprocess.TimeoutExpired:
            ok, why = False, "timeout"
        caps[name] = "1" if ok else why
    return caps


def caps():
    """{name: '1' or why not}, from HOSTILE_CAPS or probed now."""
    raw = os.environ.get("HOSTILE_CAPS")
    if raw is None:
        c = probe_caps()
        os.environ["HOSTILE_CAPS"] = encode_caps(c)
        return c
    out = {}
    for item in raw.split(";"):
        if "=" in item:
            k, v = item.split("=", 1)
            out[k] = v
    return out


def encode_caps(c):
    return ";".join(f"{k}={v.replace(';', ',')}" for k, v in c.items())


def require(cap):
    v = caps().get(cap, "1")
    if v != "1":
        raise SkipScenario(f"'{cap}' is not usable in this build "
                           f"({v[:160]})")


class Fx:
    """A fixture: IR built, roles for deriving objects, how to destroy it."""

    def __init__(self):
        self.R = {}
        self.hold = {}          # what destroy() drops (module, parent, ...)
        self.gc_path = False    # roles are dropped before destroy()
        self.survivors = []     # (label, thunk, expected) after destroy()
        self.sanity = []        # (label, thunk, expected) fixture checks
        self.dyn = {}           # expectation decided by destroy()
        self.destroy = None
        self.entry_names = None  # symtab_entry: (dead, live)
        self.symtab_name = "s"   # a symbol in the symtab kind's table
        self.ctx = None          # context the IR lives in
        self.destroy_obj = None  # called with the object after destroy()
        self.shapes_from = []    # ops whose shapes reuse scenarios allocate
        self.blocks_from = []    # blocks whose argument counts likewise


# ---------------------------------------------------------------- fixtures


def _fx_common(env, src, ctx=None):
    from mlir.ir import Module, Location
    fx = Fx()
    fx.ctx = ctx or env.ctx
    with fx.ctx, Location.unknown(fx.ctx):
        m = Module.parse(src)
    fx.hold["module"] = m
    fx.T = tagged_ops(m.operation)
    return fx, m


def fx_erase_family(env, path):
    from mlir.ir import Context, SymbolTable, WalkResult
    ctx = None
    if path == "ctx_teardown":
        ctx = Context()
        ctx.allow_unregistered_dialects = True
    fx, m = _fx_common(env, ERASE_SRC, ctx)
    fx.ctx = None  # not held: ctx_teardown drops it
    del ctx
    T = fx.T
    V = T["v"]
    PB = T["parent"].regions[0].blocks[0]
    vr = V.regions[0]
    bb0, bb1, bb2 = vr.blocks[0], vr.blocks[1], vr.blocks[2]
    R = fx.R
    R.update(
        op=V, result_op=V, arg=(bb0, 0), block=bb0, region_op=V,
        iter_block=PB, iter_target=V, use=(V, 0), dead_value=T["n"],
        uses_live=(PB, 0, V, 0), br=T["br"], ip_op=V, ip_block=bb1,
        symtab_op=T["inner"], entry_table=T["inner2"], block_list=(V, 0),
        block_iter=(V, 0, bb1), args_block=bb0, op_list=bb0,
    )
    fx.entry_names = ("s2", "k2")
    R["entry_dead_op"] = T["s2"]
    fx.shapes_from = [V, T["inner"], T["s2"], T["n"], T["br"], T["z"],
                      T["parent"]]
    fx.blocks_from = [bb0, bb1, bb2]
    keep_fn = m.body.operations[0]
    keep_str = str(keep_fn)
    if path in ("erase", "erase_other", "block_erase", "block_erase_used",
                "erase_with_uses", "rauw_erase", "walk_erase",
                "walk_erase_parent"):
        fx.survivors += [
            ("@keep unchanged", lambda: str(keep_fn), keep_str),
            ("t.pre name", lambda: T["pre"].name, "t.pre"),
            ("t.pre operand", lambda: str(T["pre"].operands[0].type), "i32"),
            ("t.end name", lambda: T["end"].name, "t.end"),
        ]
    if path in ("erase", "erase_other"):
        R["ip_block_of_op"] = PB
    if path == "rauw_erase":
        R["ip_block_of_op"] = bb0
    if path == "erase":
        def destroy():
            fx.hold["V"].erase()
            fx.hold["inner"].erase()
            fx.hold["s2"].erase()
        fx.hold.update(V=V, inner=T["inner"], s2=T["s2"])
        fx.survivors.append(
            ("parent ops", lambda: [op_desc(o) for o in PB.operations],
             [("t.pre", "pre"), ("t.post", "post"),
              ("builtin.module", "inner2"), ("t.end", "end")]))
    elif path == "erase_other":
        def destroy():
            pb = fx.hold["parent"].regions[0].blocks[0]
            for o in list(pb.operations):
                if op_tag(o) in ("v", "inner"):
                    o.opview.erase()
            inner2 = [o for o in pb.operations if op_tag(o) == "inner2"][0]
            s2 = [o for o in inner2.regions[0].blocks[0].operations
                  if op_tag(o) == "s2"][0]
            SymbolTable(inner2.operation).erase(s2)
        fx.hold.update(parent=T["parent"])
        fx.survivors.append(
            ("parent ops", lambda: [op_desc(o) for o in PB.operations],
             [("t.pre", "pre"), ("t.post", "post"),
              ("builtin.module", "inner2"), ("t.end", "end")]))
    elif path == "erase_parent":
        def destroy():
            fx.hold.pop("parent").erase()
        fx.hold.update(parent=T["parent"])
        fx.survivors.append(
            ("module ops",
             lambda: [o.operation.name for o in m.body.operations],
             ["func.func"]))
    elif path == "module_gc" or path == "ctx_teardown":
        fx.gc_path = True
        fx.survivors = []
        del keep_fn

        def destroy():
            fx.hold.clear()
            gc.collect()
    elif path == "detach_gc":
        fx.gc_path = True
        fx.hold.update(parent=T["parent"])

        def destroy():
            p = fx.hold.pop("parent")
            p.detach_from_parent()
            del p
            gc.collect()
        fx.survivors = [
            ("@keep unchanged", lambda: str(keep_fn), keep_str),
            ("module ops",
             lambda: [o.operation.name for o in m.body.operations],
             ["func.func"]),
        ]
    elif path == "block_erase" or path == "block_erase_used":
        require("block_erase")
        if path == "block_erase":
            R.update(
                block=bb2, arg=(bb2, 0), args_block=bb2, op_list=bb2,
                ip_block=bb2, op=T["z"], result_op=T["z"], use=(T["z"], 0),
                dead_value=T["z"], block_iter=(V, 0, bb2), block_list=(V, 0),
                ip_op=T["z"],
            )

            def destroy():
                fx.hold.pop("b").erase()
            fx.hold.update(b=bb2)
        else:
            R.update(block=bb1, arg=(bb1, 0), op_list=bb1)

            def destroy():
                b = fx.hold.pop("b")
                out = attempt(b.erase)
                if out.raised is None:
                    fx.dyn_all = D
                    fx.note = "Block.erase of a successor block did not raise"
                else:
                    fx.dyn_all = A
            fx.hold.update(b=bb1)
    elif path == "erase_with_uses":
        R.update(op=T["n"], result_op=T["n"], use=("uses_of", T["n"], 0),
                 dead_value=T["n"], ip_op=T["n"])

        def destroy():
            out = attempt(fx.hold["n"].erase)
            if out.raised is None:
                fx.bug = ("op.erase() of an op whose result has uses did not "
                          "raise")
            elif not isinstance(out.raised, (RuntimeError, ValueError)):
                fx.bug = f"op.erase() with uses raised {out!r}"
        fx.hold.update(n=T["n"])
    elif path == "detach_with_uses":
        R.update(op=T["n"], result_op=T["n"], use=("uses_of", T["n"], 0),
                 dead_value=T["n"])

        def destroy():
            n = fx.hold.pop("n")
            out = attempt(n.detach_from_parent)
            fx.note = f"detach_from_parent of a used op: {out!r}"
            del n, out
            gc.collect()
        fx.hold.update(n=T["n"])
    elif path == "maybe_downcast":
        def destroy():
            pass
        fx.destroy_obj = lambda obj: obj.maybe_downcast()
    elif path == "rauw_erase":
        R.update(op=T["n"], result_op=T["n"], use=("uses_of", T["n"], 0),
                 dead_value=T["n"], ip_op=T["n"])

        def destroy():
            n = fx.hold.pop("n")
            n.results[0].replace_all_uses_with(fx.hold["pre"].results[0])
            n.erase()
        fx.hold.update(n=T["n"], pre=T["pre"])
    elif path in ("walk_erase", "walk_erase_parent"):
        # Walk `parent` and, from the callback on `trigger`, erase `victim`.
        if path == "walk_erase":
            R.update(op=T["post"], result_op=T["post"])
            key, victim, trigger = "post", T["post"], "t.pre"
        else:
            R.update(op=V, block=bb0, op_list=bb0)
            key, victim, trigger = "V", V, "t.inner"

        def destroy():
            target = fx.hold.pop(key)
            outs = []

            def cb(op):
                if op.name == trigger and not outs:
                    outs.append(attempt(target.erase))
                return WalkResult.ADVANCE
            walk_out = attempt(fx.hold["parent"].walk, cb)
            erased = bool(outs) and outs[0].raised is None
            fx.dyn_all = D if erased else A
            fx.note = f"erase in walk: {outs}, walk: {walk_out}"
            del target
        fx.hold.update({key: victim, "parent": T["parent"]})
    else:
        raise ScenarioBug(f"unknown erase-family path {path}")
    if path in ("erase_with_uses",):
        fx.survivors.append(("n still used", lambda: len(list(
            T["br"].operands)), 1))
    fx.destroy = destroy
    return fx


def fx_canon_family(env, path):
    fx, m = _fx_common(env, CANON_SRC)
    T = fx.T
    R = fx.R
    f_op = m.body.operations[1].operation
    g_op = m.body.operations[2].operation
    entry = f_op.regions[0].blocks[0]
    bb1 = f_op.regions[0].blocks[1]
    bb9 = f_op.regions[0].blocks[2]
    g_bb1 = g_op.regions[0].blocks[1]
    a = entry.arguments[0]
    del a
    fx.keep = [f_op, g_op]
    keep_fn = m.body.operations[0]
    keep_str = str(keep_fn)
    fx.survivors += [
        ("@keep unchanged", lambda: str(keep_fn), keep_str),
        ("@f still a func", lambda: f_op.name, "func.func"),
        ("%y survives", lambda: op_desc(T["y"]), ("arith.addi", "y")),
    ]
    fx.shapes_from = [T["m"], T["x"], T["c0"], T["e"], T["br"], T["y"]]
    fx.blocks_from = [bb1, bb9]
    if path in ("canonicalize", "rewrite"):
        R.update(op=T["m"], opview=T["x"], result_op=T["x"], use=(T["m"], 0),
                 dead_value=T["x"], uses_live=(entry, 0, T["m"], 0),
                 iter_block=entry, iter_target=T["m"], operands_op=T["m"],
                 results_op=T["x"], attrs_op=T["m"], ip_op=T["m"],
                 ip_block_of_op=entry)
    if path == "canon_merge":
        R.update(block=bb1, arg=(bb1, 0), dead_value=("arg", bb1, 0),
                 args_block=bb1, op_list=bb1, block_iter=(f_op, 0, bb1),
                 block_list=(f_op, 0), br=T["br"], ip_block=bb1)
        fx.survivors += [
            ("%s moved, alive", lambda: op_desc(T["s"]), ("arith.addi", "s")),
            ("%s parent", lambda: T["s"].parent.name, "func.func"),
            ("%s operand 0 is %y",
             lambda: T["s"].operands[0] == T["y"].results[0], True),
            ("return moved, alive", lambda: op_desc(T["ret"]),
             ("func.return", "ret")),
        ]
    if path in ("canon_unreachable", "rewrite"):
        R.update(block=bb9, arg=(bb9, 0), args_block=bb9, op_list=bb9,
                 block_iter=(f_op, 0, bb9), block_list=(f_op, 0),
                 ip_block=bb9)
        if path == "canon_unreachable":
            R.update(op=T["e"], opview=T["e"], result_op=T["e"],
                     use=(T["e"], 0), dead_value=("arg", bb9, 0),
                     operands_op=T["e"], results_op=T["e"], attrs_op=T["e"],
                     ip_op=T["e"])
    if path == "canon_dce_arg":
        R.update(arg=(g_bb1, 0), args_block=g_bb1, operands_op=T["gbr0"],
                 use=(T["gbr0"], 0))
        fx.survivors += [
            ("%v survives as arg 0", lambda: [
                str(t) for t in g_bb1.arguments.types], ["i32"]),
        ]
    if path == "rewrite":
        require("rewrite")
        frozen = make_frozen_empty_patterns(fx.ctx)
        if frozen is None:
            raise SkipScenario("no way to build a FrozenRewritePatternSet")

        def destroy():
            from mlir import rewrite
            rewrite.apply_patterns_and_fold_greedily(fx.hold["module"], frozen)
        fx.sanity += [
            ("@f blocks after rewrite", lambda: len(f_op.regions[0].blocks),
             2),
        ]
    else:
        destroy = pass_destroyer(fx, "builtin.module(canonicalize)")
        fx.sanity += [
            ("@f body after canonicalize",
             lambda: [block_desc(b) for b in f_op.regions[0].blocks],
             [(2, (("arith.addi", "y"), ("arith.addi", "s"),
                   ("func.return", "ret")))]),
            ("@g ^bb1 args after canonicalize",
             lambda: len(g_op.regions[0].blocks[1].arguments), 1),
        ]
    fx.destroy = destroy
    return fx


def fx_cse(env, path):
    fx, m = _fx_common(env, CSE_SRC)
    h = m.body.operations[1].operation
    entry = h.regions[0].blocks[0]
    z = entry.operations[1].operation
    y = entry.operations[0].operation
    fx.R.update(op=z, result_op=z, use=(z, 0), dead_value=z,
                uses_live=(entry, 0, z, 0), iter_block=entry, iter_target=z,
                ip_op=z, ip_block_of_op=entry)
    fx.keep = [h]
    fx.shapes_from = [z]
    fx.blocks_from = []
    keep_fn = m.body.operations[0]
    keep_str = str(keep_fn)
    fx.survivors += [
        ("@keep unchanged", lambda: str(keep_fn), keep_str),
        ("%y survives", lambda: op_desc(y), ("arith.addi", "y")),
        ("%r uses %y twice", lambda: [v == y.results[0] for v in
                                      fx.T["r"].operands], [True, True]),
    ]
    fx.sanity += [("@h ops after cse",
                   lambda: [op_desc(o) for o in entry.operations],
                   [("arith.addi", "y"), ("arith.muli", "r"),
                    ("func.return", "ret")])]

    destroy = pass_destroyer(fx, "builtin.module(cse)")
    fx.destroy = destroy
    return fx


def fx_symbol_dce(env, path):
    from mlir.ir import SymbolTable
    fx, m = _fx_common(env, SDCE_SRC)
    T = fx.T
    fn = T["fn"]
    fentry = fn.regions[0].blocks[0]
    fbb1 = fn.regions[0].blocks[1]
    body = m.body
    fx.R.update(
        op=fn, opview=fn, region_op=fn, block=fentry, arg=(fentry, 0),
        args_block=fentry, op_list=fentry, block_iter=(fn, 0, fentry),
        block_list=(fn, 0), result_op=T["t"], use=(T["t"], 0),
        dead_value=T["t"], operands_op=T["t"], results_op=T["t"],
        attrs_op=fn, br=T["br"], ip_op=T["t"], ip_block=fbb1,
        entry_table=("module_op",), iter_block=body, iter_target=fn,
    )
    fx.entry_names = ("dead_fn", "keep")
    fx.R["entry_dead_op"] = fn
    fx.shapes_from = [fn, T["t"], T["br"], T["ret"]]
    fx.blocks_from = [fentry, fbb1]
    keep_fn = T["keep"]
    keep_str = str(keep_fn)
    fx.survivors += [
        ("@keep unchanged", lambda: str(keep_fn), keep_str),
        ("module body", lambda: [op_desc(o) for o in body.operations],
         [("func.func", "keep"), ("func.func", "keep2")]),
    ]
    if path == "symbol_dce":
        destroy = pass_destroyer(fx, "builtin.module(symbol-dce)")
    elif path == "symtab_erase":
        def destroy():
            mod = fx.hold["module"]
            t2 = SymbolTable(mod.operation)
            t2.erase(t2["dead_fn"])
    elif path == "symtab_del":
        def destroy():
            mod = fx.hold["module"]
            t2 = SymbolTable(mod.operation)
            del t2["dead_fn"]
    else:
        raise ScenarioBug(path)
    fx.destroy = destroy
    return fx


def fx_inline(env, path):
    require("inline")
    fx, m = _fx_common(env, INLINE_SRC)
    T = fx.T
    callee = T["callee"]
    caller = T["caller"]
    centry = callee.regions[0].blocks[0]
    entry = caller.regions[0].blocks[0]
    call = T["call"]
    fx.R.update(
        op=call, result_op=call, use=(call, 0), dead_value=call,
        uses_live=(entry, 0, call, 0), iter_block=entry, iter_target=call,
        ip_op=call, ip_block_of_op=entry, region_op=callee, block=centry,
        arg=(centry, 0),
        entry_table=("module_op",),
    )
    fx.entry_names = ("callee", "caller")
    fx.R["entry_dead_op"] = callee
    fx.keep = [caller]
    fx.shapes_from = [call, callee, T["t"]]
    fx.blocks_from = [centry]
    fx.survivors += [
        ("%q survives", lambda: op_desc(T["q"]), ("arith.muli", "q")),
    ]
    fx.sanity += [
        ("module after inline", lambda: [op_desc(o) for o in
                                         m.body.operations],
         [("func.func", "caller")]),
        ("caller after inline",
         lambda: [o.operation.name for o in entry.operations],
         ["arith.addi", "arith.muli", "func.return"]),
    ]

    destroy = pass_destroyer(fx, "builtin.module(inline)")
    fx.destroy = destroy
    return fx


def fx_rdv(env, path):
    fx, m = _fx_common(env, RDV_SRC)
    T = fx.T
    p = T["p"]
    pentry = p.regions[0].blocks[0]
    call = T["call"]
    main_entry = T["main"].regions[0].blocks[0]
    # (remove-dead-values replaces the call: a new op with one operand)
    fx.R.update(arg=(pentry, 1), args_block=pentry, use=(call, 1),
                operands_op=call, op=T["dead"], result_op=T["dead"])
    fx.keep = [p, T["main"]]
    fx.shapes_from = [T["dead"], call]
    fx.blocks_from = []
    fx.survivors += [
        ("@p arg 0", lambda: str(pentry.arguments[0].type), "i32"),
    ]
    fx.sanity += [
        ("@p args after remove-dead-values", lambda: len(pentry.arguments),
         1),
        ("call operands after remove-dead-values",
         lambda: [len(o.operands) for o in main_entry.operations
                  if o.operation.name == "func.call"], [1]),
    ]

    destroy = pass_destroyer(fx, "builtin.module(remove-dead-values)")
    fx.destroy = destroy
    return fx


def fx_erase_argument(env, path):
    fx, m = _fx_common(env, EA_SRC)
    T = fx.T
    blk = T["holder"].regions[0].blocks[0]
    fx.keep = [T["holder"]]
    fx.shapes_from = []
    fx.blocks_from = []
    if path == "erase_argument":
        fx.R.update(arg=(blk, 1), args_block=blk, use=("uses_of_arg", blk, 2))
        c = blk.arguments[2]
        fx.survivors += [
            ("%c is now argument 1", lambda: c.arg_number, 1),
            ("%c type", lambda: str(c.type), "f32"),
            ("use op operands", lambda: [str(v.type) for v in
                                         T["use"].operands], ["i32", "f32"]),
        ]
        fx.args_from = [(blk, 1)]

        def destroy():
            blk.erase_argument(1)
        fx.sanity += [("args after erase_argument",
                       lambda: [str(t) for t in blk.arguments.types],
                       ["i32", "f32"])]
    else:
        fx.R.update(arg=(blk, 0), args_block=blk, use=("uses_of_arg", blk, 0),
                    dead_value=("arg", blk, 0))

        def destroy():
            out = attempt(blk.erase_argument, 0)
            if out.raised is None:
                fx.bug = ("erase_argument of a used argument did not raise")
        fx.sanity += [("args after failed erase_argument",
                       lambda: [str(t) for t in blk.arguments.types],
                       ["i32", "i64", "f32"])]
    fx.destroy = destroy
    return fx


def fx_set_operand(env, path):
    fx, m = _fx_common(env, SET_OPERAND_SRC)
    T = fx.T
    blk = T["holder"].regions[0].blocks[0]
    user = T["user"]
    fx.keep = [T["holder"]]
    fx.shapes_from = []
    fx.blocks_from = []
    # The use of %a by user (operand 0); then user.operands[0] = %c.
    fx.R.update(use=(user, 0), uses_live=(blk, 0, user, 0),
                operands_op=user)
    fx.survivors += [
        ("user operand 0 is %c",
         lambda: user.operands[0] == blk.arguments[2], True),
        ("%a uses", lambda: [use_desc(u) for u in blk.arguments[0].uses],
         [(("t.other", "other"), 0)]),
    ]

    def destroy():
        user.operands[0] = blk.arguments[2]
    fx.destroy = destroy
    return fx


def fx_module(env, path):
    from mlir.ir import Module, Context, Location
    fx = Fx()
    fx.ctx = env.ctx
    if path == "module_ctx":
        def build():
            c = Context()
            with c, Location.unknown(c):
                return Module.parse(MODULE_SRC)
        mod = build()
        gc.collect()
    else:
        with env.ctx, env.loc:
            mod = Module.parse(MODULE_SRC)
    fx.R.update(module=mod, op=("module_op", mod), block=("module_body", mod),
                symtab_op=("module_op", mod), ip_block=("module_body", mod),
                region_op=("module_op", mod), op_list=("module_body", mod))
    fx.shapes_from = []
    fx.blocks_from = []
    fx.hold["module"] = mod
    fx.symtab_name = "mf"
    fx.gc_path = True
    if path == "module_ctx":
        def destroy():
            fx.hold.clear()
            gc.collect()
    elif path in ("module_op_erase", "module_erase_other"):
        def destroy():
            mod = fx.hold.pop("module")
            if path == "module_op_erase":
                out = attempt(lambda: mod.operation.erase())
            else:
                out = attempt(lambda: mod.body.owner.erase())
            fx.dyn_all = A if out.raised is not None else D
            fx.note = f"erasing the module's operation: {out}"
            del mod
            gc.collect()
    elif path == "module_moved":
        def destroy():
            mod = fx.hold.pop("module")
            other = Module.create(env.loc)
            out = attempt(lambda: other.body.append(mod.operation))
            fx.dyn_all = A if out.raised is not None else D
            fx.note = f"moving the module's operation into another: {out}"
            del other, mod
            gc.collect()
    elif path == "module_pdl":
        def destroy():
            mod = fx.hold.pop("module")
            try:
                from mlir import rewrite
            except ImportError:
                raise SkipScenario("no mlir.rewrite")
            if not hasattr(rewrite, "PDLModule"):
                raise SkipScenario("no PDLModule in these bindings")
            out = attempt(lambda: rewrite.PDLModule(mod))
            fx.note = f"PDLModule(module): {out}"
            fx.dyn_all = "unknown"
            del out, mod
            gc.collect()
    else:
        raise ScenarioBug(path)
    fx.destroy = destroy
    return fx


FIXTURES = {
    "erase": fx_erase_family, "erase_other": fx_erase_family,
    "erase_parent": fx_erase_family, "module_gc": fx_erase_family,
    "detach_gc": fx_erase_family, "ctx_teardown": fx_erase_family,
    "block_erase": fx_erase_family, "block_erase_used": fx_erase_family,
    "erase_with_uses": fx_erase_family, "rauw_erase": fx_erase_family,
    "detach_with_uses": fx_erase_family, "maybe_downcast": fx_erase_family,
    "walk_erase": fx_erase_family, "walk_erase_parent": fx_erase_family,
    "canonicalize": fx_canon_family, "canon_merge": fx_canon_family,
    "canon_unreachable": fx_canon_family, "canon_dce_arg": fx_canon_family,
    "rewrite": fx_canon_family, "cse": fx_cse, "symbol_dce": fx_symbol_dce,
    "symtab_erase": fx_symbol_dce, "symtab_del": fx_symbol_dce,
    "inline": fx_inline, "remove_dead_values": fx_rdv,
    "erase_argument": fx_erase_argument,
    "erase_arg_with_uses": fx_erase_argument, "set_operand": fx_set_operand,
    "module_op_erase": fx_module, "module_erase_other": fx_module,
    "module_moved": fx_module, "module_pdl": fx_module,
    "module_ctx": fx_module,
}


# ------------------------------------------------------------ derivation


def _resolve_op(x):
    if isinstance(x, tuple) and x and x[0] == "module_op":
        return x[1].operation
    return x.operation


def _resolve_block(x):
    if isinstance(x, tuple) and x and x[0] == "module_body":
        return x[1].body
    return x


def _advance(it, n):
    for _ in range(n):
        next(it)
    return it


def _find_use_index(value, owner, number):
    for i, u in enumerate(value.uses):
        if u.owner == owner and u.operand_number == number:
            return i
    raise ScenarioBug(f"no use of {value} by {owner.name} at {number}")


def _find_use(value, owner, number):
    for u in value.uses:
        if u.owner == owner and u.operand_number == number:
            return u
    raise ScenarioBug(f"no use by {owner.name} at {number}")


def derive(kind, R, env):
    """Makes a fresh KIND object from the roles (callable many times)."""
    from mlir.ir import InsertionPoint, SymbolTable
    if kind == "op":
        return _resolve_op(R["op"])
    if kind == "opview":
        return _resolve_op(R.get("opview", R["op"])).opview
    if kind == "result":
        return R.get("result_op", R["op"]).results[0]
    if kind == "arg":
        b, i = R["arg"]
        return b.arguments[i]
    if kind == "block":
        return _resolve_block(R["block"])
    if kind == "region":
        return _resolve_op(R["region_op"]).regions[0]
    if kind == "region_list":
        return _resolve_op(R["region_op"]).regions
    if kind == "region_iter":
        return iter(_resolve_op(R["region_op"]).regions)
    if kind == "use":
        u = R["use"]
        if u[0] == "uses_of":   # the first use of an op's result
            return next(iter(u[1].results[u[2]].uses))
        if u[0] == "uses_of_arg":
            return next(iter(u[1].arguments[u[2]].uses))
        owner, number = u
        return _find_use(owner.operands[number], owner, number)
    if kind == "uses":
        dv = R["dead_value"]
        if isinstance(dv, tuple) and dv[0] == "arg":
            return iter(dv[1].arguments[dv[2]].uses)
        return iter(dv.results[0].uses)
    if kind == "uses_live":
        blk, argi, owner, number = R["uses_live"]
        value = owner.operands[number]
        idx = _find_use_index(value, owner, number)
        return _advance(iter(value.uses), idx)
    if kind == "op_iter":
        blk, target = R["iter_block"], R["iter_target"]
        idx = [o == target for o in blk.operations].index(True)
        return _advance(iter(blk.operations), idx)
    if kind == "op_iter_dead":
        b = _resolve_block(R["op_list"])
        return _advance(iter(b.operations), 1)
    if kind == "op_list":
        return _resolve_block(R["op_list"]).operations
    if kind == "op_list_live":
        return R["iter_block"].operations
    if kind == "block_iter":
        op, ri, target = R["block_iter"]
        blocks = op.regions[ri].blocks
        idx = [b == target for b in blocks].index(True)
        return _advance(iter(blocks), idx)
    if kind == "block_list":
        op, ri = R["block_list"]
        return op.regions[ri].blocks
    if kind == "operands":
        return R.get("operands_op", R.get("op")).operands
    if kind == "results":
        return R.get("results_op", R["op"]).results
    if kind == "block_args":
        return R["args_block"].arguments
    if kind == "attrs":
        return R.get("attrs_op", R["op"]).attributes
    if kind == "successors":
        return R["br"].successors
    if kind == "ip":
        return InsertionPoint(R.get("ip_op", R["op"]))
    if kind == "ip_block":
        return InsertionPoint(_resolve_block(R["ip_block"]))
    if kind == "symtab":
        return SymbolTable(_resolve_op(R["symtab_op"]))
    if kind == "symtab_entry":
        t = R["entry_table"]
        if isinstance(t, tuple) and t[0] == "module_op":
            # The table of the top-level module: roles do not hold the
            # Module, the table does (through the module's op).
            return SymbolTable(R["_module_op"])
        return SymbolTable(t)
    if kind == "module":
        return R["module"]
    raise ScenarioBug(f"cannot derive {kind}")


def anchor(kind, R):
    """(category, live object whose address identifies the IR) or None."""
    try:
        if kind == "symtab_entry":
            return ("op", R["entry_dead_op"].operation)
        if kind == "op_list_live":
            return ("op", R["iter_target"].operation)
        if kind == "block_args" and "arg" in R and R["arg"][0] == R[
                "args_block"]:
            b, i = R["arg"]
            return ("arg", b.arguments[i])
        if kind == "block_list" and "block" in R:
            return ("block", _resolve_block(R["block"]))
        if kind in ("op", "opview", "attrs", "operands", "results", "ip",
                    "region", "region_list", "region_iter", "block_list"):
            key = {"opview": "opview", "attrs": "attrs_op",
                   "operands": "operands_op", "results": "results_op",
                   "ip": "ip_op", "region": "region_op",
                   "region_list": "region_op", "region_iter": "region_op",
                   }.get(kind, "op")
            if kind == "block_list":
                return ("op", R["block_list"][0].operation)
            return ("op", _resolve_op(R.get(key, R.get("op"))))
        if kind == "result":
            return ("op", R.get("result_op", R["op"]).operation)
        if kind == "use":
            u = R["use"]
            if u[0] in ("uses_of", "uses_of_arg"):
                return None
            return ("op", u[0].operation)
        if kind == "uses_live":
            return ("op", R["uses_live"][2].operation)
        if kind == "op_iter":
            return ("op", R["iter_target"].operation)
        if kind == "uses":
            dv = R["dead_value"]
            if isinstance(dv, tuple):
                return ("arg", dv[1].arguments[dv[2]])
            return ("op", dv.operation)
        if kind == "successors":
            return ("op", R["br"].operation)
        if kind == "symtab":
            return ("op", _resolve_op(R["symtab_op"]))
        if kind == "arg":
            b, i = R["arg"]
            return ("arg", b.arguments[i])
        if kind in ("block", "op_list", "op_iter_dead", "ip_block",
                    "block_args"):
            key = {"block": "block", "op_list": "op_list",
                   "op_iter_dead": "op_list", "ip_block": "ip_block",
                   "block_args": "args_block"}[kind]
            return ("block", _resolve_block(R[key]))
        if kind == "block_iter":
            return ("block", R["block_iter"][2])
    except KeyError:
        return None
    return None


# ---------------------------------------------------------------- probes


def _walk_names(o):
    from mlir.ir import WalkResult
    names = []

    def cb(op):
        names.append(op.name)
        return WalkResult.ADVANCE
    o.walk(cb)
    return names


def _print_to_str(o):
    s = io.StringIO()
    o.print(file=s)
    return s.getvalue()


def _new_op(name="t.new"):
    from mlir.ir import Operation
    return Operation.create(name)


def _new_func(name):
    from mlir.ir import Operation
    return Operation.parse(f"func.func private @{name}()")


def _create_in(ip, loc):
    """Creates an op at `ip` pushed as the current insertion point. The
    location is explicit: after ctx_teardown the (dead) IR is of another
    context than the test's location, and without it the creation raised
    for the missing location before it ever reached the insertion point."""
    from mlir.ir import Operation
    with ip:
        return Operation.create("t.new", loc=loc)


# ------------------------------------------------ release differences
#
# The probes run against more than one release of the bindings (19.1.7 on
# pybind11, 23.1.1 on nanobind). Where the API differs they detect the
# feature, never the version, and every variant still needs the IR (a probe
# that needs no IR would pass on destroyed IR without checking anything).


def value_cast_kind(v):
    """(is an OpResult, is a BlockArgument), asked of the IR through the
    casting constructors OpResult(Value) / BlockArgument(Value), which both
    releases have (mlirValueIsAOpResult / mlirValueIsABlockArgument). Not
    isinstance(v, OpResult): that is a Python type check that needs no IR.
    Only the constructors' own "Cannot cast value to ..." ValueError means
    False; any other exception propagates."""
    from mlir.ir import OpResult, BlockArgument, Value
    out = []
    for cls in (OpResult, BlockArgument):
        try:
            cls(Value(v))
            out.append(True)
        except ValueError as e:
            if not str(e).startswith("Cannot cast value to "):
                raise
            out.append(False)
    return tuple(out)


def value_static_isinstance(v):
    """19.1.7's OpResult.isinstance(v) / BlockArgument.isinstance(v) (C API
    kind checks on the IR). Only where the bindings have them (23.1.1 does
    not: value_cast_kind asks the same question there)."""
    from mlir.ir import OpResult, BlockArgument
    return (OpResult.isinstance(v), BlockArgument.isinstance(v))


def has_static_isinstance():
    from mlir.ir import OpResult, BlockArgument
    return (callable(getattr(OpResult, "isinstance", None)) and
            callable(getattr(BlockArgument, "isinstance", None)))


def attr_map_names(a):
    """The attribute names, by iterating the OpAttributeMap: 19.1.7 yields
    NamedAttribute, 23.1.1 yields the names (str). Either needs the IR."""
    names = []
    for x in a:
        if isinstance(x, str):
            names.append(x)
        else:
            names.append(x.name)
    return sorted(names)


def pass_manager_has_invalidate_ops():
    """Does PassManager.run take invalidate_ops (19.1.7: yes; 23.1.1: no,
    there is no live-operation map to invalidate)? From the signature in
    the docstring, which pybind11 and nanobind both write."""
    from mlir.passmanager import PassManager
    doc = getattr(PassManager.run, "__doc__", None) or ""
    return "invalidate_ops" in doc


def run_pass_manager(pm, op, invalidate_ops=False):
    """pm.run(op), with invalidate_ops where the bindings take it."""
    if pass_manager_has_invalidate_ops():
        return pm.run(op, invalidate_ops=invalidate_ops)
    return pm.run(op)


def probes_for(kind, obj, env, fx):
    from mlir.ir import (InsertionPoint, Operation, Value, AsmState,
                         SymbolTable, UnitAttr, Block)
    P = Probe
    ps = []
    if kind in ("op", "opview"):
        ps += [
            P("str", lambda o: str(o)),
            P("name", lambda o: o.name),
            P("location", lambda o: str(o.location)),
            P("attributes.len", lambda o: len(o.attributes)),
            P("attributes[tag]", lambda o: str(o.attributes["tag"])),
            P("operands.len", lambda o: len(o.operands)),
            P("operands[0].type", lambda o: str(o.operands[0].type)),
            P("results.len", lambda o: len(o.results)),
            P("results[0].type", lambda o: str(o.results[0].type)),
            P("result.type", lambda o: str(o.result.type)),
            P("regions.len", lambda o: len(o.regions)),
            P("regions[0].blocks.len", lambda o: len(o.regions[0].blocks)),
            P("successors.len", lambda o: len(o.successors)),
            P("parent", lambda o: (lambda p: None if p is None else
                                   op_desc(p))(o.parent)),
            P("verify", lambda o: o.verify()),
            P("get_asm", lambda o: o.get_asm(print_generic_op_form=True)),
            P("print(file)", _print_to_str),
            P("walk", _walk_names),
            # (no write_bytecode: on a live op that uses values defined
            # outside it, the bytecode writer asserts: a crash on live IR)
            P("AsmState(op)", lambda o: AsmState(o) is not None),
            P("capsule roundtrip",
              lambda o: Operation._CAPICreate(o._CAPIPtr).name),
            P("context", lambda o: o.context is not None, "a"),
            P("hash", lambda o: hash(o), "a"),
            P("eq self", lambda o: o == o, "a"),
            P("opview class", lambda o: type(o.opview).__name__, "a"),
            P("operation class", lambda o: type(o.operation).__name__, "a"),
            P("repr", lambda o: repr(o), "a"),
            P("clone", lambda o: o.clone(), "m"),
            P("erase", lambda o: o.erase(), "m"),
            P("detach_from_parent", lambda o: o.detach_from_parent(), "m"),
            P("move_before(live)", lambda o: o.move_before(env.live_op), "m"),
            P("move_after(live)", lambda o: o.move_after(env.live_op), "m"),
            P("live.move_after(dead)",
              lambda o: env.live_op.move_after(o), "m"),
            P("attributes[new]=",
              lambda o: o.attributes.__setitem__("new", UnitAttr.get()), "m"),
            P("del attributes[tag]",
              lambda o: o.attributes.__delitem__("tag"), "m"),
            P("live_block.append(dead)",
              lambda o: env.live_block.append(o), "m"),
            P("InsertionPoint(dead).insert",
              lambda o: InsertionPoint(o).insert(_new_op()), "m"),
            P("InsertionPoint(live).insert(dead)",
              lambda o: InsertionPoint(env.live_block).insert(o), "m"),
            P("operands[0]=live",
              lambda o: o.operands.__setitem__(0, env.live_value), "m"),
            P("SymbolTable(dead)", lambda o: SymbolTable(o), "m"),
            P("get_symbol_name(dead)",
              lambda o: SymbolTable.get_symbol_name(o), "m"),
        ]
        # Entry points only some releases have (23.1.1, not 19.1.7): probed
        # where the bindings have them (feature detection).
        opcls = type(obj.operation)
        if hasattr(opcls, "block"):
            ps.append(P("operation.block",
                        lambda o: block_desc(o.operation.block)))
        if hasattr(opcls, "op_operands"):
            ps.append(P("op_operands", lambda o: [
                u.operand_number for u in o.operation.op_operands]))
        if hasattr(opcls, "is_before_in_block"):
            ps.append(P("is_before_in_block(self)",
                        lambda o: o.is_before_in_block(o)))
            ps.append(P("live.is_before_in_block(dead)",
                        lambda o: env.live_op.is_before_in_block(o), "m"))
        if hasattr(opcls, "replace_uses_of_with"):
            ps.append(P("replace_uses_of_with(live, live)",
                        lambda o: o.operation.replace_uses_of_with(
                            env.live_value, env.live_value), "m"))
        if hasattr(InsertionPoint, "after"):
            ps.append(P("InsertionPoint.after(dead).insert",
                        lambda o: InsertionPoint.after(o).insert(_new_op()),
                        "m"))
        opname = getattr(type(obj), "OPERATION_NAME", None)
        if kind == "opview" and opname == "func.func":
            ps += [
                P("fn.type", lambda o: str(o.type)),
                P("fn.sym_name", lambda o: o.sym_name.value),
                P("fn.body.blocks", lambda o: len(o.body.blocks)),
                P("fn.entry_block", lambda o: str(o.entry_block)),
                P("fn.arguments", lambda o: len(o.arguments)),
                P("fn.visibility", lambda o: str(o.visibility)),
            ]
        elif kind == "opview" and opname in ("arith.addi", "arith.muli"):
            ps += [
                P("lhs", lambda o: str(o.lhs.type)),
                P("rhs", lambda o: str(o.rhs.type)),
                P("result getter", lambda o: str(o.result.type)),
            ]
        elif kind == "opview" and opname == "func.call":
            ps += [P("callee", lambda o: str(o.callee))]
    elif kind in ("result", "arg"):
        ps += [
            P("str", lambda v: str(v)),
            P("type", lambda v: str(v.type)),
            P("owner", lambda v: owner_desc(v)),
            P("get_name", lambda v: v.get_name()),
            P("uses", lambda v: [use_desc(u) for u in v.uses]),
            P("Value(v).type", lambda v: str(Value(v).type)),
            P("cast kind", value_cast_kind),
            P("AsmState(value)", lambda v: AsmState(v) is not None),
            P("capsule roundtrip",
              lambda v: str(Value._CAPICreate(v._CAPIPtr).type)),
            P("hash", lambda v: hash(v), "a"),
            P("eq self", lambda v: v == v, "a"),
            P("context", lambda v: v.context is not None, "a"),
            P("repr", lambda v: repr(v), "a"),
            P("set_type", lambda v: v.set_type(env.f64), "m"),
            P("rauw(live)",
              lambda v: v.replace_all_uses_with(env.live_value), "m"),
            P("live.rauw(dead)",
              lambda v: env.live_value.replace_all_uses_with(v), "m"),
            P("create(operands=[dead])",
              lambda v: Operation.create("t.new", operands=[v]), "m"),
            P("live_op.operands[0]=dead",
              lambda v: env.live_op.operands.__setitem__(0, v), "m"),
            P("dump", lambda v: v.dump(), "m"),
        ]
        if has_static_isinstance():
            ps.append(P("isinstance", value_static_isinstance))
        # Entry points only some releases have (23.1.1, not 19.1.7).
        if hasattr(type(obj), "location"):
            ps.append(P("location", lambda v: str(v.location)))
        if hasattr(type(obj), "replace_all_uses_except"):
            ps.append(P("rauw_except(live, live_op)",
                        lambda v: v.replace_all_uses_except(
                            env.live_value, env.live_op), "m"))
        if hasattr(type(obj), "set_location"):
            ps.append(P("set_location", lambda v: v.set_location(env.loc),
                        "m"))
        if hasattr(Operation, "replace_uses_of_with"):
            ps.append(P("live_op.replace_uses_of_with(dead, live)",
                        lambda v: env.live_op.replace_uses_of_with(
                            v, env.live_value), "m"))
            ps.append(P("live_op.replace_uses_of_with(live, dead)",
                        lambda v: env.live_op.replace_uses_of_with(
                            env.live_value, v), "m"))
        # Last: upstream's maybe_downcast moves from the object.
        tail = [P("maybe_downcast",
                  lambda v: type(v.maybe_downcast()).__name__, "a")]
        if kind == "result":
            ps.append(P("result_number", lambda v: v.result_number))
            ps.append(P("owner is op",
                        lambda v: v.owner.operation.name))
        else:
            ps.append(P("arg_number", lambda v: v.arg_number))
            ps.append(P("owner.arguments",
                        lambda v: len(v.owner.arguments)))
        ps = [p for p in ps if p.mode != "m"] + \
            [p for p in ps if p.mode == "m"] + tail
    elif kind == "block":
        ps += [
            P("str", lambda b: str(b)),
            P("owner", lambda b: op_desc(b.owner)),
            P("region.blocks.len", lambda b: len(b.region.blocks)),
            P("arguments.len", lambda b: len(b.arguments)),
            P("arguments.types",
              lambda b: [str(t) for t in b.arguments.types]),
            P("operations.len", lambda b: len(b.operations)),
            P("operations", lambda b: [op_desc(o) for o in b.operations]),
            P("iter.first", lambda b: op_desc(next(iter(b)))),
            P("hash", lambda b: hash(b), "a"),
            P("eq self", lambda b: b == b, "a"),
            P("repr", lambda b: repr(b), "a"),
            P("add_argument",
              lambda b: b.add_argument(env.i32, env.loc), "m"),
            P("erase_argument(0)", lambda b: b.erase_argument(0), "m"),
            P("create_before", lambda b: b.create_before(), "m"),
            P("create_after", lambda b: b.create_after(env.i32), "m"),
            P("append(new op)", lambda b: b.append(_new_op()), "m"),
            P("append_to(live region)",
              lambda b: b.append_to(env.pool_region), "m"),
            P("InsertionPoint(dead).insert",
              lambda b: InsertionPoint(b).insert(_new_op()), "m"),
            P("at_block_begin.insert",
              lambda b: InsertionPoint.at_block_begin(b).insert(_new_op()),
              "m"),
            P("at_block_terminator",
              lambda b: InsertionPoint.at_block_terminator(b), "m"),
            P("live_br.successors[0]=dead",
              lambda b: env.live_br.successors.__setitem__(0, b), "m"),
            P("Operation.create(successors=[dead])",
              lambda b: Operation.create("t.new", successors=[b]), "m"),
        ]
        if hasattr(Block, "erase"):
            ps.append(P("erase", lambda b: b.erase(), "m"))
        # Entry points only some releases have (23.1.1, not 19.1.7).
        if hasattr(Block, "predecessors"):
            ps.append(P("predecessors",
                        lambda b: [block_desc(x) for x in b.predecessors]))
        if hasattr(Block, "successors"):
            ps.append(P("successors",
                        lambda b: [block_desc(x) for x in b.successors]))
    elif kind == "region":
        ps += [
            P("blocks.len", lambda r: len(r.blocks)),
            P("owner", lambda r: op_desc(r.owner)),
            P("iter.first", lambda r: block_desc(next(iter(r)))),
            P("blocks[0]", lambda r: block_desc(r.blocks[0])),
            P("eq self", lambda r: r == r, "a"),
            P("blocks.append", lambda r: r.blocks.append(env.i32), "m"),
            P("Block.create_at_start",
              lambda r: Block.create_at_start(r, [env.i32]), "m"),
        ]
    elif kind == "use":
        ps += [
            P("owner", lambda u: op_desc(u.owner)),
            P("operand_number", lambda u: u.operand_number),
            P("owner.operands.len", lambda u: len(u.owner.operands)),
            P("repr", lambda u: repr(u), "a"),
        ]
    elif kind in ("uses", "uses_live"):
        ps += [P("next", lambda it: use_desc(next(it))),
               P("drain", lambda it: [use_desc(u) for u in it])]
    elif kind in ("op_iter", "op_iter_dead"):
        ps += [P("next", lambda it: op_desc(next(it))),
               P("drain", lambda it: [op_desc(o) for o in it])]
    elif kind == "block_iter":
        ps += [P("next", lambda it: block_desc(next(it))),
               P("drain", lambda it: [block_desc(b) for b in it])]
    elif kind == "region_iter":
        ps += [P("next", lambda it: len(next(it).blocks)),
               P("drain", lambda it: [len(r.blocks) for r in it])]
    elif kind in ("op_list", "op_list_live"):
        ps += [
            P("len", lambda l: len(l)),
            P("list", lambda l: [op_desc(o) for o in l]),
            P("[0]", lambda l: op_desc(l[0])),
            P("[1]", lambda l: op_desc(l[1])),
            P("iter.next", lambda l: op_desc(next(iter(l)))),
        ]
    elif kind == "block_list":
        ps += [
            P("len", lambda l: len(l)),
            P("[0]", lambda l: block_desc(l[0])),
            P("[1]", lambda l: block_desc(l[1])),
            P("iter.next", lambda l: block_desc(next(iter(l)))),
            P("list", lambda l: [block_desc(b) for b in l]),
            P("append", lambda l: l.append(env.i32), "m"),
        ]
    elif kind == "region_list":
        ps += [
            P("len", lambda l: len(l)),
            P("[0].blocks.len", lambda l: len(l[0].blocks)),
            P("iter.next", lambda l: len(next(iter(l)).blocks)),
            P("list", lambda l: [len(r.blocks) for r in l]),
        ]
    elif kind in ("operands", "results", "block_args"):
        ps += [
            P("len", lambda l: len(l)),
            P("[0].type", lambda l: str(l[0].type)),
            P("[1].type", lambda l: str(l[1].type)),
            P("[-1].type", lambda l: str(l[-1].type)),
            P("list", lambda l: [str(v.type) for v in l]),
            P("slice", lambda l: [str(v.type) for v in l[0:2]]),
            P("[0] eq fresh", lambda l: l[0] == l[0]),
        ]
        if kind != "operands":
            ps.append(P("types", lambda l: [str(t) for t in l.types]))
        else:
            ps.append(P("[0]=live",
                        lambda l: l.__setitem__(0, env.live_value), "m"))
        if kind == "results":
            ps.append(P("owner", lambda l: op_desc(l.owner)))
    elif kind == "attrs":
        ps += [
            P("len", lambda a: len(a)),
            P("[tag]", lambda a: str(a["tag"])),
            P("contains", lambda a: "tag" in a),
            P("[0].name", lambda a: a[0].name),
            P("list", attr_map_names),
            P("[new]=", lambda a: a.__setitem__("new", UnitAttr.get()), "m"),
            P("del [tag]", lambda a: a.__delitem__("tag"), "m"),
        ]
        # Mapping methods only some releases have (23.1.1, not 19.1.7).
        amap = type(obj)
        if hasattr(amap, "keys"):
            ps.append(P("keys", lambda a: sorted(a.keys())))
        if hasattr(amap, "values"):
            ps.append(P("values", lambda a: sorted(str(x) for x in
                                                   a.values())))
        if hasattr(amap, "items"):
            ps.append(P("items", lambda a: sorted(
                (k, str(v)) for k, v in a.items())))
        if hasattr(amap, "get"):
            ps.append(P("get(tag)", lambda a: str(a.get("tag"))))
    elif kind == "successors":
        ps += [
            P("len", lambda s: len(s)),
            P("[0]", lambda s: block_desc(s[0])),
            P("list", lambda s: [block_desc(b) for b in s]),
            P("[0]=live", lambda s: s.__setitem__(0, env.live_block2), "m"),
        ]
    elif kind in ("ip", "ip_block"):
        ps += [
            P("block", lambda ip: block_desc(ip.block)),
            P("insert", lambda ip: ip.insert(_new_op()), "m"),
            P("with ip: create", lambda ip: _create_in(ip, env.loc), "m"),
        ]
        if kind == "ip":
            ps.append(P("ref_operation",
                        lambda ip: op_desc(ip.ref_operation)))
    elif kind in ("symtab", "symtab_entry"):
        sym = fx.symtab_name if kind == "symtab" else fx.entry_names[1]
        ps += [
            P("[sym]", lambda t: op_desc(t[sym])),
            P("contains sym", lambda t: sym in t),
            P("insert", lambda t: t.insert(_new_func("ins")), "m"),
            P("del [sym]", lambda t: t.__delitem__(sym), "m"),
            P("erase(live)", lambda t: t.erase(env.live_fn), "m"),
        ]
    elif kind == "module":
        ps += [
            P("str", lambda m: str(m)),
            P("operation", lambda m: m.operation.name),
            P("body.len", lambda m: len(m.body.operations)),
            P("body.str", lambda m: str(m.body)),
            P("context", lambda m: m.context is not None, "a"),
            P("dump", lambda m: m.dump(), "m"),
        ]
    else:
        raise ScenarioBug(f"no probes for {kind}")
    return ps


def summary(x):
    if x is None or isinstance(x, (bool, int, float, str, bytes)):
        return x
    if isinstance(x, (list, tuple)):
        return tuple(summary(y) for y in x)
    return type(x).__name__


# ---------------------------------------------------------------- checking


def check_dead(res, kind, obj, probes, before, extra="", live_ok=None):
    """live_ok: {label: thunk}: for these probes the answer may also be the
    (live) value thunk() returns, e.g. InsertionPoint.block once only the
    reference operation is gone."""
    narrow = narrow_exceptions()
    live_ok = live_ok or {}
    ran = 0
    for p in probes:
        if p.na:
            continue
        try:
            out = attempt(p.fn, obj)
        except BaseExceptionOnly as e:
            res.fail(f"{kind}.{p.label}{extra}: raised a BaseException "
                     f"that is not an Exception: {e}")
            continue
        ran += 1
        if p.mode == "a":
            continue
        if out.raised is None:
            v = summary(out.value)
            if p.label == "drain" and v == ():
                continue
            if p.label.startswith("contains") and v is False:
                continue
            if p.label in live_ok:
                want = summary(live_ok[p.label]())
                if v == want:
                    continue
                res.fail(f"{kind}.{p.label}{extra}: returned {short(v)}, "
                         f"the live IR says {short(want)}")
                continue
            stale = ""
            if p.label in before and before[p.label] == v:
                stale = " (the same as before the destruction)"
            res.fail(f"{kind}.{p.label}{extra}: no exception on destroyed "
                     f"IR, returned {short(v)}{stale}")
        elif p.mode == "m" and not isinstance(out.raised, narrow):
            res.fail(f"{kind}.{p.label}{extra}: unexpected "
                     f"{type(out.raised).__name__}: {out.raised}")
    if ran == 0:
        raise ScenarioBug(f"no applicable probe for {kind}")


def check_alive(res, kind, obj, probes, before, extra=""):
    ran = 0
    for p in probes:
        if p.na or p.mode != "r":
            continue
        try:
            out = attempt(p.fn, obj)
        except BaseExceptionOnly as e:
            res.fail(f"{kind}.{p.label}{extra}: BaseException: {e}")
            continue
        ran += 1
        if out.raised is not None:
            if before is None and isinstance(out.raised, NA_EXCEPTIONS):
                continue  # e.g. .parent of a now detached op
            res.fail(f"{kind}.{p.label}{extra}: live IR, but {out!r}")
        elif before is not None and summary(out.value) != before.get(p.label):
            res.fail(f"{kind}.{p.label}{extra}: live IR, returned "
                     f"{short(summary(out.value))}, expected "
                     f"{short(before.get(p.label))}")
        if kind.endswith("iter") or kind in ("uses", "uses_live",
                                             "op_iter_dead"):
            break  # iterators: the first probe consumed it
    if ran == 0:
        raise ScenarioBug(f"no applicable probe for {kind}")


def check_unknown(res, kind, obj, probes, extra=""):
    for p in probes:
        if p.na or p.mode == "m":
            continue
        try:
            attempt(p.fn, obj)
        except BaseExceptionOnly as e:
            res.fail(f"{kind}.{p.label}{extra}: BaseException: {e}")


def check_fresh(res, kind, obj, probes, mk, extra="", before=None):
    """before: the probes' answers on a twin made before the change: a
    list's len may be that one (a list keeps the length it had when it was
    made, as upstream's bindings do; its elements past the live end raise)."""
    ran = 0
    for p in probes:
        if p.na or p.mode != "r":
            continue
        try:
            out = attempt(p.fn, obj)
        except BaseExceptionOnly as e:
            res.fail(f"{kind}.{p.label}{extra}: BaseException: {e}")
            continue
        ran += 1
        fresh = attempt(p.fn, mk())
        if out.raised is not None:
            continue
        if fresh.raised is not None:
            if p.label in ("[1].type", "[1]", "[-1].type") or isinstance(
                    fresh.raised, NA_EXCEPTIONS):
                res.fail(f"{kind}.{p.label}{extra}: returned "
                         f"{short(summary(out.value))} where a fresh object "
                         f"{fresh!r} (stale length/contents)")
            else:
                res.fail(f"{kind}.{p.label}{extra}: fresh object {fresh!r}")
            continue
        if (p.label == "len" and before is not None and "len" in before
                and summary(out.value) == before["len"]):
            continue
        if summary(out.value) != summary(fresh.value):
            res.fail(f"{kind}.{p.label}{extra}: returned "
                     f"{short(summary(out.value))}, the live IR says "
                     f"{short(summary(fresh.value))}")
    if ran == 0:
        raise ScenarioBug(f"no applicable probe for {kind}")


def allowed_next(kind, R):
    if kind == "op_iter":
        return {op_desc(o) for o in R["iter_block"].operations}
    if kind == "uses_live":
        blk, argi, owner, number = R["uses_live"]
        value = R["_uses_live_value"]
        return {use_desc(u) for u in value.uses}
    if kind == "block_iter":
        op, ri, _ = R["block_iter"]
        return {block_desc(b) for b in op.regions[ri].blocks}
    raise ScenarioBug(kind)


def check_next_live(res, kind, obj, R, extra=""):
    allowed = allowed_next(kind, R)
    try:
        out = attempt(lambda it: next(it), obj)
    except BaseExceptionOnly as e:
        res.fail(f"{kind}.next{extra}: BaseException: {e}")
        return
    if out.raised is not None:
        return
    try:
        d = (use_desc if kind == "uses_live" else
             op_desc if kind == "op_iter" else block_desc)(out.value)
    except Exception as e:  # noqa: BLE001
        res.fail(f"{kind}.next{extra}: yielded an object that raises on "
                 f"use ({type(e).__name__}: {e}) instead of raising itself")
        return
    if d not in allowed:
        res.fail(f"{kind}.next{extra}: yielded {short(d)}, not a live "
                 f"element of the container {short(sorted(allowed))}")
    # The rest must also be live elements (or raise).
    out2 = attempt(lambda it: [(use_desc if kind == "uses_live" else
                                op_desc if kind == "op_iter" else
                                block_desc)(x) for x in it], obj)
    if out2.raised is None:
        for d in out2.value:
            if d not in allowed:
                res.fail(f"{kind}.drain{extra}: yielded {short(d)}, not a "
                         f"live element")


def check_symtab_entry(res, t, fx, env, extra=""):
    dead, live = fx.entry_names
    out = attempt(lambda: t[dead])
    if out.raised is None:
        try:
            d = op_desc(out.value)
        except Exception as e:  # noqa: BLE001
            d = f"<an object that raises: {type(e).__name__}>"
        res.fail(f"symtab_entry[{dead!r}]{extra}: the symbol was erased but "
                 f"the table returned {short(d)}")
    out = attempt(lambda: dead in t)
    if out.raised is None and out.value:
        res.fail(f"symtab_entry: {dead!r} in table{extra} is True after "
                 f"the symbol was erased")
    out = attempt(lambda: op_desc(t[live]))
    if out.raised is not None:
        res.fail(f"symtab_entry[{live!r}]{extra}: live symbol, but {out!r}")
    elif out.value[0] != "func.func":
        res.fail(f"symtab_entry[{live!r}]{extra}: returned {out.value}")
    if extra:
        return
    # Insert a new symbol with the erased one's name: it must keep its name
    # (the erased one does not exist) and be what the table returns.
    from mlir.ir import SymbolTable, StringAttr
    new = _new_func(dead)
    out = attempt(t.insert, new)
    if out.raised is not None:
        res.note(f"insert after erase raised: {out!r}")
        return
    name = StringAttr(SymbolTable.get_symbol_name(new)).value
    if name != dead:
        res.fail(f"symtab_entry: inserting a new @{dead} renamed it to "
                 f"@{name}: the table still holds the erased symbol")
    out = attempt(lambda: t[dead] == new)
    if out.raised is None and out.value is not True:
        res.fail(f"symtab_entry[{dead!r}] after insert is not the new op")
    # Take it out again (survivor checks compare the IR with what it was).
    out = attempt(t.erase, new)
    if out.raised is not None:
        res.fail(f"symtab_entry: erasing the inserted symbol: {out!r}")


# ---------------------------------------------------------------- reuse


SIBLING = {"arith.muli": "arith.addi", "arith.addi": "arith.muli",
           "t.victim": "t.reused", "t.inner": "t.reused1", "t.z": "t.reused2",
           "t.post": "t.reused3", "t.parent": "t.reused4"}


def op_shape(op):
    op = op.operation
    return (op.name, len(op.results), len(op.operands), len(op.regions),
            len(op.successors))


def allocate_reuse(env, victim, shapes, nblocks_args, limit=4000):
    """Allocates new IR in a detached container until some new object (an
    op, one of its results, a block or a block argument) lands at the
    victim's address, or `limit` objects were made. Sizes are mixed on
    purpose: freed neighbours coalesce, and only a mix of allocation sizes
    walks over every offset. Returns ((category, new object) or None, how
    many were made)."""
    from mlir.ir import Operation, InsertionPoint
    cat, ptr = victim
    made = 0
    with env.ctx, env.loc:
        # A detached container, never printed (the new ops are not valid).
        root = Operation.create("t.reuse_root", regions=2)
        env.keep_new.append(root)
        blk = root.regions[0].blocks.append(env.i32, env.i32)
        succ = [root.regions[0].blocks.append()]
        p0, p1 = blk.arguments[0], blk.arguments[1]
        # The container is new IR too (its argument may well be the hit).
        for c, o in [("op", root), ("block", blk), ("arg", p0), ("arg", p1),
                     ("block", succ[0])]:
            made += 1
            if capi_ptr(o) == ptr:
                return (c, o), made
        shapes = shapes or [("t.x", 1, 2, 1, 0)]
        nblocks_args = sorted(set(nblocks_args or []) | {1})
        argblock = blk
        # The victim's own category first and most often.
        order = {"op": ["op", "op", "op", "block", "arg"],
                 "block": ["block", "block", "op", "arg"],
                 "arg": ["arg", "arg", "block", "op"]}[cat]
        i = 0
        while made < limit:
            what = order[i % len(order)]
            i += 1
            found = []
            if what == "op":
                name, nres, nopd, nreg, nsucc = shapes[made % len(shapes)]
                new = Operation.create(
                    SIBLING.get(name, name), results=[env.i32] * nres,
                    operands=[p0 if j % 2 == 0 else p1 for j in range(nopd)],
                    regions=nreg, successors=succ * nsucc,
                    ip=InsertionPoint.at_block_begin(blk))
                found.append(("op", new))
                found += [("result", r) for r in new.results]
            elif what == "block":
                nargs = nblocks_args[made % len(nblocks_args)]
                new = root.regions[1].blocks.append(*([env.f64] * nargs))
                found.append(("block", new))
                found += [("arg", a) for a in new.arguments]
            else:
                if made % 64 == 0:
                    argblock = root.regions[1].blocks.append()
                found.append(("arg", argblock.add_argument(env.f64,
                                                           env.loc)))
            made += 1
            for c, o in found:
                if capi_ptr(o) == ptr:
                    return (c, o), made
    return None, made


# ---------------------------------------------------------------- runner


def run_scenario(name, res):
    parts = name.split(".")
    kind, path = parts[0], parts[1]
    reuse = len(parts) > 2 and parts[2] == "reuse"
    if path not in PATHS or kind not in PATHS[path]:
        raise ScenarioBug(f"unknown scenario {name}")
    expectation = PATHS[path][kind]
    env = Env()
    with env.ctx, env.loc:
        fx = FIXTURES[path](env, path)
        R = fx.R
        if kind == "symtab_entry" and R.get("entry_table") == ("module_op",):
            R["_module_op"] = fx.hold["module"].operation
        if kind == "uses_live":
            blk, argi, owner, number = R["uses_live"]
            R["_uses_live_value"] = owner.operands[number]

        def mk():
            return derive(kind, R, env)
        obj = mk()
        probes = probes_for(kind, obj, env, fx)
        before = {}
        for p in probes:
            if p.mode == "m":
                continue
            twin = mk()
            try:
                before[p.label] = summary(p.fn(twin))
            except NA_EXCEPTIONS:
                p.na = True
            except Exception as e:  # noqa: BLE001
                if p.mode == "a":
                    p.na = True
                else:
                    raise ScenarioBug(f"probe {kind}.{p.label} fails on live "
                                      f"IR: {type(e).__name__}: {e}")
            del twin
        na = [p.label for p in probes if p.na]
        if na:
            res.note(f"probes not applicable to the live twin (not run): "
                     f"{', '.join(na)}")
        # What the object's IR is (for reuse detection).
        anc = anchor(kind, R)
        victim = None
        if anc is not None:
            victim = (anc[0], capi_ptr(anc[1]))
        shapes = sorted({op_shape(o) for o in fx.shapes_from})
        nblocks_args = sorted({len(b.arguments) for b in fx.blocks_from})
        # On reference-counting paths, whether the IR dies depends on what
        # the object holds: ask mlir.weakref (C++ weak references) after.
        watch = None
        if path in GC_PATHS and expectation in (D, A) and anc is not None:
            try:
                from mlir import weakref as wr
                w = anc[1]
                if anc[0] == "block":
                    w = w.owner
                elif anc[0] == "arg":
                    w = w.owner.owner
                watch = wr.ref(w.operation)
                del w
            except ImportError:
                watch = None
        del anc
        fx.shapes_from = fx.blocks_from = fx.keep_roles = None
        if fx.gc_path:
            R.clear()
            fx.T = None
            mk = None
        gc.collect()
        fx.destroy()
        if getattr(fx, "destroy_obj", None):
            out = attempt(fx.destroy_obj, obj)
            res.note(f"destroy_obj: {out!r}")
        gc.collect()
        if getattr(fx, "note", None):
            res.note(fx.note)
        if path == "ctx_teardown":
            from mlir.ir import Context
            n = Context._get_live_count()
            res.note(f"contexts alive after the teardown: {n} (1 = only the "
                     f"test's own: the IR's context was destroyed)")
        if getattr(fx, "bug", None):
            res.fail(fx.bug)
        for label, thunk, expected in fx.sanity:
            out = attempt(thunk)
            if out.raised is not None or out.value != expected:
                raise ScenarioBug(f"fixture sanity '{label}': {out!r}, "
                                  f"expected {short(expected)}")
        if watch is not None:
            decided = A if watch.alive else D
            if decided != expectation:
                res.note("the object kept its IR alive" if decided == A else
                         "the object did not keep its IR alive")
            expectation = decided
            watch = None
        if expectation == DYN:
            expectation = getattr(fx, "dyn_all", None)
            if expectation is None:
                raise ScenarioBug("destroy() did not decide the expectation")
            res.note(f"expectation decided by the path: {expectation}")

        def check(extra=""):
            if kind == "symtab_entry" and expectation == SE:
                check_symtab_entry(res, obj, fx, env, extra)
            elif expectation == D:
                live_ok = {}
                if kind == "ip" and "ip_block_of_op" in R:
                    blk = R["ip_block_of_op"]
                    live_ok["block"] = lambda: block_desc(blk)
                check_dead(res, kind, obj, probes, before, extra, live_ok)
            elif expectation == A:
                check_alive(res, kind, obj, probes, before, extra)
            elif expectation == LV:
                check_alive(res, kind, obj, probes, None, extra)
            elif expectation == F:
                check_fresh(res, kind, obj, probes, mk, extra, before)
            elif expectation == NL:
                check_next_live(res, kind, obj, R, extra)
            elif expectation == "unknown":
                check_unknown(res, kind, obj, probes, extra)
            else:
                raise ScenarioBug(f"bad expectation {expectation}")

        # Reuse scenarios first allocate, so that the stale object meets
        # the new ones; the plain ones check right after the destruction.
        if not reuse:
            check()
        else:
            if victim is None:
                raise ScenarioBug(f"no address to watch for {kind}")
            hit, made = allocate_reuse(env, victim, shapes, nblocks_args)
            if hit is None:
                res.skip_reuse = (f"address reuse not observed: {victim[0]} "
                                  f"at {victim[1]:#x} not among "
                                  f"{made} new objects")
            else:
                res.note(f"address reuse observed: new {hit[0]} at "
                         f"{victim[1]:#x} after {made} allocations")
            check(" (after reuse)" if hit else "")
            if hit is not None:
                new = hit[1]
                cmp = None
                if kind in ("op", "opview") and hit[0] == "op":
                    cmp = new
                elif kind == "result" and hit[0] == "op" and len(new.results):
                    cmp = new.results[0]
                elif kind == "result" and hit[0] == "result":
                    cmp = new
                elif kind in ("arg",) and hit[0] == "arg":
                    cmp = new
                elif kind == "block" and hit[0] == "block":
                    cmp = new
                if cmp is not None:
                    out = attempt(lambda: obj == cmp)
                    if out.raised is None and out.value is True:
                        res.fail(f"{kind}: the stale object == the new object "
                                 f"at its reused address")
                    out = attempt(lambda: cmp == obj)
                    if out.raised is None and out.value is True:
                        res.fail(f"{kind}: the new object == the stale object "
                                 f"at its address")
        for label, thunk, expected in fx.survivors + env.survivors():
            out = attempt(thunk)
            if out.raised is not None:
                res.fail(f"survivor '{label}': {out!r}")
            elif out.value != expected:
                res.fail(f"survivor '{label}': returned {short(out.value)}, "
                         f"expected {short(expected)}")
        obj = probes = None
        fx = None
        R = None
        gc.collect()


def child(name):
    import faulthandler
    faulthandler.enable()
    res = Result()
    status = "PASS"
    reason = ""
    try:
        run_scenario(name, res)
    except SkipScenario as e:
        print(f"RESULT SKIP {e}", flush=True)
        sys.stdout.flush()
        os._exit(0) if _LEAKED else sys.exit(0)
    except ScenarioBug as e:
        res.fail(f"scenario bug: {e}")
    except BaseExceptionOnly as e:
        res.fail(f"BaseException that is not an Exception: {e}")
    except Exception as e:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        res.fail(f"unexpected {type(e).__name__}: {e}")
    gc.collect()
    if res.failures:
        status = "FAIL"
        reason = res.failures[0]
        if len(res.failures) > 1:
            reason += f" [+{len(res.failures) - 1} more]"
    elif res.skip_reuse:
        status = "SKIP"
        reason = res.skip_reuse
    print(f"RESULT {status} {reason}".rstrip(), flush=True)
    rc = 1 if status == "FAIL" else 0
    if _LEAKED:
        # PDLModule took ownership of a Module: leave without destroying.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(rc)
    sys.exit(rc)


# --------------------------------------------------------------------------
# Parent side.
# --------------------------------------------------------------------------


def describe_crash(rc, stderr):
    if rc < 0:
        try:
            sig = signal.Signals(-rc).name
        except ValueError:
            sig = f"signal {-rc}"
        how = f"crash: {sig}"
    else:
        how = f"exit {rc} without a result"
    lines = [l for l in stderr.splitlines() if l.strip()]
    key = [l for l in lines if any(k in l for k in (
        "LLVM ERROR", "Assertion", "terminate", "Fatal Python error",
        "AddressSanitizer", "Error", "error", "abort"))]
    detail = (key or lines[-1:] or [""])[0].strip()
    if detail:
        how += f": {detail[:220]}"
    return how


def run_child(name, timeout, env):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return name, "FAIL", f"timeout after {timeout}s", "", ""
    result_line = None
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            result_line = line
    if result_line is None or p.returncode < 0:
        return (name, "FAIL", describe_crash(p.returncode, p.stderr),
                p.stdout, p.stderr)
    status, _, reason = result_line[len("RESULT "):].partition(" ")
    if status == "PASS" and p.returncode != 0:
        return (name, "FAIL", f"exit {p.returncode} after PASS: "
                + describe_crash(p.returncode, p.stderr), p.stdout, p.stderr)
    return name, status, reason, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--only", help="comma-separated names or globs")
    ap.add_argument("--child", metavar="NAME")
    ap.add_argument("-j", "--jobs", type=int,
                    default=min(4, max(2, os.cpu_count() or 2)))
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--no-perturb", action="store_true",
                    help="do not set MALLOC_PERTURB_ in the children (by "
                    "default freed memory is scribbled over, so that stale "
                    "reads show)")
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    names = all_scenarios()
    if args.only:
        pats = [p.strip() for p in args.only.split(",") if p.strip()]
        names = [n for n in names
                 if any(fnmatch.fnmatchcase(n, p) or n == p for p in pats)]
        if not names:
            print(f"no scenario matches {args.only}")
            sys.exit(2)
    if args.list:
        for n in names:
            print(n)
        return
    env = dict(os.environ)
    if not args.no_perturb:
        env.setdefault("MALLOC_PERTURB_", "165")
    if "HOSTILE_CAPS" not in env:
        c = probe_caps(env)
        env["HOSTILE_CAPS"] = encode_caps(c)
        for k, v in c.items():
            if v != "1":
                print(f"note: '{k}' is not usable in this build, its "
                      f"scenarios are skipped: {v[:200]}")
    from concurrent.futures import ThreadPoolExecutor
    passed = failed = skipped = 0
    skip_reasons = {}
    t0 = time.time()
    known = {}
    for k, v in (item.split("=", 1) for item in
                 env["HOSTILE_CAPS"].split(";") if "=" in item):
        known[k] = v

    def submit(pool, n):
        cap = PATH_CAPS.get(n.split(".")[1])
        if cap and known.get(cap, "1") != "1":
            # Known not to run here: no need for a subprocess to say so.
            return None, (n, "SKIP", f"'{cap}' is not usable in this "
                          f"build: {known[cap][:160]}", "", "")
        return pool.submit(run_child, n, args.timeout, env), None

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [submit(pool, n) for n in names]
        for fut, done in futures:
            name, status, reason, out, err = done or fut.result()
            if status == "PASS":
                passed += 1
                print(f"PASS {name}", flush=True)
            elif status == "SKIP":
                skipped += 1
                print(f"SKIP {name} ({reason})", flush=True)
                key = ("address reuse not observed"
                       if reason.startswith("address reuse not observed")
                       else reason)
                skip_reasons[key] = skip_reasons.get(key, 0) + 1
            else:
                failed += 1
                print(f"FAIL {name} ({reason})", flush=True)
            if args.verbose or (status == "FAIL" and len(names) == 1):
                for line in (out + err).splitlines():
                    print(f"    | {line}")
    print(f"{len(names)} scenarios in {time.time() - t0:.1f}s")
    for why, n in sorted(skip_reasons.items(), key=lambda kv: -kv[1]):
        print(f"  skipped {n}: {why}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
