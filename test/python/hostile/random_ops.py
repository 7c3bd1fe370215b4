# RUN: %PYTHON %s --seeds 5 --steps 2500 | FileCheck %s
# REQUIRES: python-bindings
# CHECK: {{^[0-9]+}} passed, 0 failed
"""Randomized hostile sequences over every kind of IR handle.

A pool holds Python objects of all kinds (ops, OpViews, results, block
arguments, blocks, regions, OpOperands, use/op/block/region iterators,
operand/result/argument/op/block/region lists, attribute maps, symbol
tables, insertion points, modules); random actions build IR, erase through
a random wrapper, erase parents, erase block arguments, run canonicalize /
cse / symbol-dce / inline / remove-dead-values (and the greedy rewrite
driver when the bindings can make a pattern set), merge blocks (cf.br chains
that canonicalize collapses), set operands, replace uses, detach, drop
modules and contexts with gc.collect(), and touch random pool objects in
random ways. Passes run only on IR that verifies (a pass on invalid IR is
undefined in C++); the inliner, the rewrite driver and Block.erase only
where the build supports them (probed once, as in scenarios.py), the
inliner not on IR with unregistered ops (it asserts on those, upstream);
remove-dead-values not on IR with branches or unregistered ops (upstream
aborts there, on live IR); value.maybe_downcast() is not among the touches
(scenarios.py covers it). An action the build cannot do is replaced by
another and counted as such (e.g. `erase_block->erase_arg[unusable]=22`),
and the last line names what was not exercised. The touches are
scenarios.py's probes, release-agnostic in the same way (19.1.7 and 23.1.1
bindings; see there).

Ground truth: an operation's liveness comes from mlir.weakref.ref (C++ weak
references, independent of the wrappers under test); a block or argument
is known dead once, right after a destructive action, its address is no
longer in the live IR (no block is allocated by those actions, so the
address cannot have been reused yet); ops, blocks and arguments this test
erased itself are dead. Touching a dead object must raise (an Exception);
a live one must work and answer like a fresh object; anything else must at
least not crash. Each seed runs in a subprocess (MALLOC_PERTURB_ set unless
--no-perturb); replay one with `random_ops.py --child --seed S --steps M`
(add --trace to print every action and touch).
"""

import argparse
import gc
import os
import random
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios as S  # noqa: E402 - shared probes and IR sources

# --------------------------------------------------------------------------

TEMPLATES = ["CANON_SRC", "CSE_SRC", "ERASE_SRC", "SDCE_SRC", "INLINE_SRC",
             "RDV_SRC", "EA_SRC", "SET_OPERAND_SRC", "MODULE_SRC"]

PIPELINES = ["builtin.module(canonicalize)", "builtin.module(cse)",
             "builtin.module(symbol-dce)", "builtin.module(inline)",
             "builtin.module(remove-dead-values)",
             "builtin.module(canonicalize,cse)",
             "builtin.module(func.func(canonicalize))"]

# Passes that may allocate blocks/arguments after freeing others (the
# inliner runs canonicalize between inlinings; canonicalize may add block
# arguments when merging identical blocks).
ALLOCATING = {"builtin.module(inline)"}


def chain_src(rng, k):
    """A func whose cf.br chain canonicalize merges, with unused block
    arguments and unreachable blocks."""
    n = rng.randrange(2, 6)
    lines = [f"func.func @chain{k}(%a: i32, %c: i1) -> i32 {{",
             f"  %v0 = arith.addi %a, %a {{tag = \"ch{k}_0\"}} : i32",
             "  cf.br ^bb1(%v0, %a : i32, i32)"]
    for i in range(1, n + 1):
        lines.append(f"^bb{i}(%x{i}: i32, %y{i}: i32):")
        lines.append(f"  %v{i} = arith.muli %x{i}, %x{i} "
                     f"{{tag = \"ch{k}_{i}\"}} : i32")
        if i < n:
            if rng.random() < 0.3:
                lines.append(f"  cf.cond_br %c, ^bb{i + 1}(%v{i}, %y{i} : "
                             f"i32, i32), ^bb{i + 1}(%x{i}, %v{i} : i32, i32)")
            else:
                lines.append(f"  cf.br ^bb{i + 1}(%v{i}, %x{i} : i32, i32)")
        else:
            lines.append(f"  return %v{i} : i32")
    for j in range(rng.randrange(3)):
        lines.append(f"^dead{j}(%d{j}: i32):")
        lines.append(f"  %w{j} = arith.addi %d{j}, %d{j} : i32")
        lines.append(f"  cf.br ^bb{n}(%w{j}, %d{j} : i32, i32)")
    lines.append("}")
    return "module {\n" + "\n".join(lines) + "\n}"


class Entry:
    __slots__ = ("kind", "obj", "anchor", "status", "rec", "block_ptr",
                 "arg_ptr", "fresh", "probes", "fx", "ref_op")

    def __init__(self, kind, obj, anchor):
        self.kind, self.obj, self.anchor = kind, obj, anchor
        self.status = "alive"
        self.rec = {}
        self.block_ptr = self.arg_ptr = None
        self.fresh = None
        self.probes = None
        self.fx = None
        self.ref_op = None

    def effective(self):
        if self.status == "dead":
            return "dead"
        if self.anchor is not None and not self.anchor.alive:
            return "dead"
        if self.ref_op is not None and not self.ref_op.alive:
            # an insertion point before an erased op: insert must raise,
            # the rest may raise too
            return "ip_ref_dead"
        return self.status


class FxShim:
    def __init__(self, symtab_name="none", entry_names=("none", "none")):
        self.symtab_name = symtab_name
        self.entry_names = entry_names


class Stats:
    def __init__(self):
        self.raised = 0
        self.worked = 0
        self.actions = {}
        self.failures = []
        self.dead_checked = 0
        self.alive_checked = 0

    def fail(self, step, msg):
        self.failures.append(f"step {step}: {msg}")
        print(f"FAILURE step {step}: {msg}", flush=True)


class World:
    def __init__(self, seed, stats):
        from mlir import ir
        self.ir = ir
        try:
            from mlir import weakref as wr
            self.wref = wr.ref
        except ImportError:
            self.wref = None
        self.rng = random.Random(seed)
        self.stats = stats
        self.env = S.Env()     # live helpers for mutating probes
        self.new_context()
        self.pool = []
        self.step = 0
        self.frozen = None
        self.frozen_tried = False
        self.nchain = 0
        self.module_refs = []
        self.trace = False

    # ------------------------------------------------------------ basics

    def new_context(self):
        ir = self.ir
        self.ctx = ir.Context()
        self.ctx.allow_unregistered_dialects = True
        self.loc = ir.Location.unknown(self.ctx)
        self.modules = []
        self.detached = []
        self.i32 = ir.IntegerType.get_signless(32, self.ctx)

    def ref(self, op):
        if self.wref is None:
            return None
        return self.wref(op.operation)

    def fail(self, msg):
        self.stats.fail(self.step, msg)

    def roots(self):
        """Every live top-level op: modules, detached roots, and the top
        ancestors of live pool anchors."""
        out = []
        seen = set()

        def add(op):
            op = op.operation
            key = S.capi_ptr(op)
            if key not in seen:
                seen.add(key)
                out.append(op)
        for m in self.modules:
            add(m.operation)
        for d in self.detached:
            if self.alive_op(d):
                add(d)
        for e in self.pool:
            a = e.anchor
            if a is None:
                continue
            op = a()
            if op is None:
                continue
            while True:
                p = parent_of(op)
                if p is None:
                    break
                op = p
            add(op)
        return out

    def alive_op(self, op):
        try:
            r = self.ref(op)
        except Exception:  # noqa: BLE001 - erased
            return False
        return r is None or r.alive

    def live_sets(self):
        blocks, args = set(), set()

        def walk(op):
            for r in op.regions:
                for b in r.blocks:
                    blocks.add(S.capi_ptr(b))
                    for a in b.arguments:
                        args.add(S.capi_ptr(a))
                    for o in b.operations:
                        walk(o.operation)
        for root in self.roots():
            walk(root)
        return blocks, args

    def after_event(self, what):
        """Updates block/argument ground truth right after a destructive
        action (before anything new is allocated)."""
        gc.collect()
        try:
            blocks, args = self.live_sets()
        except Exception as e:  # noqa: BLE001
            self.fail(f"walking the live IR raised {type(e).__name__}: {e}")
            return
        allocating = what in ALLOCATING
        for e in self.pool:
            if e.status == "dead":
                continue
            if e.block_ptr is not None and e.block_ptr not in blocks:
                if e.status == "alive":
                    e.status = "dead"
            elif e.block_ptr is not None and allocating and \
                    e.status == "alive":
                e.status = "unknown"
            if e.arg_ptr is not None and e.status != "dead":
                if e.arg_ptr not in args:
                    if e.status == "alive":
                        e.status = "dead"
                elif what.startswith("builtin.module(canon") or allocating \
                        or "canonicalize" in what or what == "rewrite":
                    e.status = "unknown"
            if e.kind == "use" and e.status == "alive" and (
                    "canonicalize" in what or "remove-dead" in what
                    or what == "rewrite" or allocating):
                e.status = "unknown"

    # ------------------------------------------------------------ navigation

    def random_root(self):
        cands = list(self.modules) + [d for d in self.detached
                                      if self.alive_op(d)]
        if not cands:
            return None
        r = self.rng.choice(cands)
        return r

    def navigate(self, depth=None):
        """(op, block, region, parent_op) at a random place; block/region
        are those containing op (None at the root)."""
        root = self.random_root()
        if root is None:
            return None
        rng = self.rng
        op = root.operation
        block = region = parent = None
        if depth is None:
            depth = rng.randrange(1, 5)
        for _ in range(depth):
            regions = list(op.regions)
            if not regions:
                break
            r = rng.choice(regions)
            blocks = list(r.blocks)
            if not blocks:
                break
            b = rng.choice(blocks)
            ops = list(b.operations)
            if not ops:
                if rng.random() < 0.5:
                    return (None, b, r, op)
                break
            parent, region, block = op, r, b
            op = rng.choice(ops).operation
        return (op, block, region, parent)

    def random_block(self):
        """A random live block (with its parent op)."""
        for _ in range(4):
            nav = self.navigate()
            if nav is None:
                return None
            op, block, region, parent = nav
            if op is not None and len(op.regions) and self.rng.random() < 0.5:
                r = self.rng.choice(list(op.regions))
                bl = list(r.blocks)
                if bl:
                    return self.rng.choice(bl), op
            if block is not None:
                return block, parent
        return None

    # ------------------------------------------------------------ harvest

    def add(self, e, probes=True):
        self.nentries = getattr(self, "nentries", 0) + 1
        e.rec["id"] = self.nentries
        e.rec["step"] = self.step
        e.rec["from"] = getattr(self, "harvest_from", None)
        if self.trace:
            print(f"  harvested #{self.nentries} {e.kind} "
                  f"{type(e.obj).__name__}", flush=True)
        if probes:
            try:
                e.probes = S.probes_for(e.kind, e.obj, self.env,
                                        e.fx or FxShim())
            except Exception as ex:  # noqa: BLE001
                self.fail(f"building probes for a live {e.kind} raised "
                          f"{type(ex).__name__}: {ex}")
                return
        self.pool.append(e)

    def harvest(self):
        rng = self.rng
        nav = self.navigate()
        if nav is None:
            return
        op, block, region, parent = nav
        choices = []
        if op is not None:
            choices += ["op", "opview", "attrs", "operands", "results",
                        "region_list", "region_iter"]
            if len(op.results):
                choices += ["result", "uses"]
                if any(True for _ in op.results[0].uses):
                    choices.append("use")
            if len(op.operands):
                choices += ["use_of_operand", "uses_live"]
            if len(op.successors):
                choices.append("successors")
            if block is not None:
                choices.append("ip")
            if op.name == "builtin.module":
                choices += ["symtab", "symtab"]
            if len(op.regions) and len(op.regions[0].blocks):
                choices += ["inner_block"]
            for m in self.modules:
                if m.operation == op:
                    choices += ["module", "module"]
        if block is not None:
            choices += ["block", "block_args", "op_list", "op_iter",
                        "ip_block"]
            if len(block.arguments):
                choices += ["arg", "arg", "uses_arg"]
        if region is not None:
            choices += ["region", "block_list", "block_iter"]
        if not choices:
            return
        what = rng.choice(choices)
        if self.trace:
            self.harvest_from = (what, S.attempt(lambda: S.op_desc(op)),
                                 S.attempt(lambda: S.op_desc(parent)))
        try:
            self._harvest(what, op, block, region, parent)
        except Exception as ex:  # noqa: BLE001
            self.fail(f"harvesting {what} from live IR raised "
                      f"{type(ex).__name__}: {ex}")

    def _harvest(self, what, op, block, region, parent):
        ir = self.ir
        rng = self.rng
        aref = self.ref
        if what == "inner_block":
            r = rng.choice(list(op.regions))
            bl = list(r.blocks)
            if not bl:
                return
            block, region, parent = rng.choice(bl), r, op
            what = rng.choice(["block", "block_args", "op_list", "op_iter",
                               "ip_block", "arg", "region", "block_list",
                               "block_iter"])
            if what == "arg" and not len(block.arguments):
                what = "block"
        if what in ("op", "opview"):
            e = Entry(what, op if what == "op" else op.opview, aref(op))
            # (an OpView's .name may be an ODS accessor: func.func's is
            # its sym_name)
            e.rec["name"] = S.summary(e.obj.name)
        elif what == "result":
            i = rng.randrange(len(op.results))
            e = Entry("result", op.results[i], aref(op))
            e.rec["type"] = str(op.results[i].type)
        elif what == "uses":
            i = rng.randrange(len(op.results))
            e = Entry("uses", iter(op.results[i].uses), aref(op))
            e.status = "unknown"
        elif what == "use":
            u = next(iter(op.results[0].uses))
            owner = u.owner
            e = Entry("use", u, aref(owner))
            e.rec["owner"] = S.op_desc(owner)
            e.rec["number"] = u.operand_number
        elif what in ("use_of_operand", "uses_live"):
            i = rng.randrange(len(op.operands))
            v = op.operands[i]
            if what == "uses_live":
                it = iter(v.uses)
                for _ in range(rng.randrange(3)):
                    try:
                        next(it)
                    except StopIteration:
                        break
                e = Entry("uses_live", it, None)
                e.status = "unknown"
            else:
                u = None
                for x in v.uses:
                    if x.owner == op and x.operand_number == i:
                        u = x
                if u is None:
                    self.fail(f"operand {i} of {op.name} is not among its "
                              f"value's uses")
                    return
                e = Entry("use", u, aref(op))
                e.rec["owner"] = S.op_desc(op)
                e.rec["number"] = i
        elif what in ("attrs", "operands", "results", "region_list",
                      "region_iter", "successors"):
            obj = {"attrs": lambda: op.attributes,
                   "operands": lambda: op.operands,
                   "results": lambda: op.results,
                   "region_list": lambda: op.regions,
                   "region_iter": lambda: iter(op.regions),
                   "successors": lambda: op.successors}[what]()
            r = aref(op)
            e = Entry(what, obj, r)
            attr = {"attrs": "attributes", "operands": "operands",
                    "results": "results", "region_list": "regions",
                    "successors": "successors"}.get(what)
            if attr and r is not None:
                e.fresh = (lambda r=r, attr=attr: getattr(r(), attr))
            if what == "region_iter":
                e.status = "unknown"
        elif what == "ip":
            e = Entry("ip", ir.InsertionPoint(op), aref(parent)
                      if parent is not None else None)
            e.ref_op = aref(op)
            e.block_ptr = S.capi_ptr(block)
        elif what == "symtab":
            t = ir.SymbolTable(op)
            names = [ir.StringAttr(o.attributes["sym_name"]).value
                     for o in op.regions[0].blocks[0].operations
                     if "sym_name" in o.attributes]
            e = Entry("symtab", t, aref(op))
            e.fx = FxShim(symtab_name=rng.choice(names) if names else "none")
            e.rec["names"] = names
            e.status = "unknown"  # the table is a cache of the IR
        elif what == "module":
            m = [m for m in self.modules if m.operation == op][0]
            e = Entry("module", m, aref(op))
        elif what in ("block", "block_args", "op_list", "op_iter",
                      "ip_block"):
            b = block
            at_begin = rng.random() < 0.5
            obj = {"block": lambda: b,
                   "block_args": lambda: b.arguments,
                   "op_list": lambda: b.operations,
                   "op_iter": lambda: iter(b.operations),
                   "ip_block": lambda: (
                       ir.InsertionPoint.at_block_begin(b) if at_begin else
                       ir.InsertionPoint(b))}[what]()
            if what == "op_iter":
                for _ in range(rng.randrange(3)):
                    try:
                        next(obj)
                    except StopIteration:
                        break
            e = Entry(what, obj, aref(parent))
            e.block_ptr = S.capi_ptr(b)
            if what == "ip_block" and at_begin and len(b.operations):
                e.ref_op = aref(b.operations[0])
            if what == "block_args":
                e.fresh = lambda b=b: b.arguments
            elif what == "op_list":
                e.fresh = lambda b=b: b.operations
            elif what == "op_iter":
                e.status = "unknown"
        elif what in ("arg", "uses_arg"):
            i = rng.randrange(len(block.arguments))
            a = block.arguments[i]
            if what == "arg":
                e = Entry("arg", a, aref(parent))
                e.rec["type"] = str(a.type)
            else:
                e = Entry("uses", iter(a.uses), aref(parent))
                e.status = "unknown"
            e.arg_ptr = S.capi_ptr(a)
            e.block_ptr = S.capi_ptr(block)
        elif what in ("region", "block_list", "block_iter"):
            ri = [r == region for r in parent.regions].index(True)
            r = aref(parent)
            obj = {"region": lambda: region,
                   "block_list": lambda: region.blocks,
                   "block_iter": lambda: iter(region.blocks)}[what]()
            e = Entry(what, obj, r)
            if what == "block_list" and r is not None:
                e.fresh = lambda r=r, ri=ri: r().regions[ri].blocks
            if what == "block_iter":
                e.status = "unknown"
        else:
            return
        self.add(e)

    # ------------------------------------------------------------ touching

    def touch(self, e):
        st = e.effective()
        if st == "dead":
            self.stats.dead_checked += 1
        elif st == "alive":
            self.stats.alive_checked += 1
        if e.kind == "symtab" and st != "dead":
            return self.touch_symtab(e)
        probes = [p for p in e.probes if not p.na and
                  p.label not in SKIP_PROBES]
        if not probes:
            return
        k = self.rng.randrange(1, 4)
        narrow = S.narrow_exceptions()
        for p in self.rng.sample(probes, min(k, len(probes))):
            if p.mode == "m" and not (st == "dead" or
                                      (st == "ip_ref_dead" and
                                       p.label == "insert")):
                continue
            if self.trace:
                print(f"  touch #{e.rec.get('id')} {e.kind}.{p.label} "
                      f"({st})", flush=True)
            try:
                out = S.attempt(p.fn, e.obj)
            except S.BaseExceptionOnly as ex:
                self.fail(f"{e.kind}.{p.label}: BaseException: {ex}")
                continue
            if out.raised is not None:
                self.stats.raised += 1
            else:
                self.stats.worked += 1
            if p.mode == "a":
                continue
            if st == "dead" or (st == "ip_ref_dead" and p.label == "insert"):
                if out.raised is None:
                    v = S.summary(out.value)
                    if p.label == "drain" and v == ():
                        continue
                    if p.label.startswith("contains") and v is False:
                        continue
                    self.fail(f"{e.kind}.{p.label}: the IR is destroyed but "
                              f"it returned {S.short(v)}")
                elif p.mode == "m" and not isinstance(out.raised, narrow):
                    self.fail(f"{e.kind}.{p.label} on destroyed IR: "
                              f"unexpected {type(out.raised).__name__}: "
                              f"{out.raised}")
            elif st == "alive":
                self.check_alive(e, p, out)

    def check_alive(self, e, p, out):
        if out.raised is not None:
            if isinstance(out.raised, S.NA_EXCEPTIONS):
                return
            if isinstance(out.raised, self.ir.MLIRError):
                return  # e.g. verify: this test's edits may break the IR
            self.fail(f"{e.kind}.{p.label}: the IR is alive but {out!r}"
                      + self.describe(e))
            return
        v = S.summary(out.value)
        want = None
        if e.kind in ("op", "opview") and p.label == "name":
            want = e.rec["name"]
        elif e.kind in ("result", "arg") and p.label == "type":
            want = e.rec["type"]
        elif e.kind == "use" and p.label == "owner":
            want = S.summary(e.rec["owner"])
        elif e.kind == "use" and p.label == "operand_number":
            want = e.rec["number"]
        elif e.kind == "module" and p.label == "operation":
            want = "builtin.module"
        elif e.fresh is not None and p.mode == "r":
            try:
                fresh = e.fresh()
            except Exception:  # noqa: BLE001
                return
            fo = S.attempt(p.fn, fresh)
            if fo.raised is not None:
                if isinstance(fo.raised, S.NA_EXCEPTIONS):
                    self.fail(f"{e.kind}.{p.label}: returned {S.short(v)} "
                              f"where a fresh object raises {fo!r} (stale "
                              f"length/contents)")
                return
            want = S.summary(fo.value)
        if want is not None and v != want:
            self.fail(f"{e.kind}.{p.label}: returned {S.short(v)}, the live "
                      f"IR says {S.short(want)}")

    def describe(self, e):
        """Details of an entry for a failure message (trace mode only)."""
        if not self.trace:
            return ""
        a = e.anchor() if e.anchor is not None else None
        d = S.attempt(lambda: S.op_desc(a)) if a is not None else None
        return (f" [entry #{e.rec.get('id')}, harvested at step "
                f"{e.rec.get('step')} from {e.rec.get('from')}, anchor "
                f"{d!r}]")

    def touch_symtab(self, e):
        t = e.obj
        table_op = e.anchor() if e.anchor is not None else None
        if table_op is None:
            return
        ir = self.ir
        try:
            live_names = {ir.StringAttr(o.attributes["sym_name"]).value: o
                          for o in table_op.regions[0].blocks[0].operations
                          if "sym_name" in o.attributes}
        except Exception as ex:  # noqa: BLE001
            self.fail(f"walking a live symbol table raised {ex!r}")
            return
        names = list(set(e.rec["names"]) | set(live_names) | {"nope"})
        name = self.rng.choice(names)
        out = S.attempt(lambda: t[name])
        if out.raised is not None:
            self.stats.raised += 1
            return
        self.stats.worked += 1
        if name not in live_names:
            try:
                d = S.op_desc(out.value)
            except Exception as ex:  # noqa: BLE001
                d = f"<an object that raises {type(ex).__name__}>"
            self.fail(f"symtab[{name!r}]: no such symbol in the live IR, but "
                      f"the table returned {S.short(d)}")
            return
        ok = S.attempt(lambda: out.value == live_names[name])
        if ok.raised is not None or ok.value is not True:
            self.fail(f"symtab[{name!r}] is not the live symbol of that name "
                      f"({ok!r})")

    # ------------------------------------------------------------ actions

    def act_create_module(self):
        if len(self.modules) >= 6:
            return self.act_drop_module()
        rng = self.rng
        if rng.random() < 0.3:
            self.nchain += 1
            src = chain_src(rng, self.nchain)
        else:
            src = getattr(S, rng.choice(TEMPLATES))
        with self.ctx, self.loc:
            m = self.ir.Module.parse(src)
            self.modules.append(m)
            if self.wref is not None:
                self.module_refs.append(self.ref(m.operation))
                self.module_refs = [r for r in self.module_refs if r.alive]

    def act_build(self):
        ir = self.ir
        rng = self.rng
        with self.ctx, self.loc:
            if rng.random() < 0.25 or not self.modules:
                root = ir.Operation.create("t.root", regions=1)
                b = root.regions[0].blocks.append(self.i32, self.i32)
                with ir.InsertionPoint(b):
                    self._make_ops(b, rng.randrange(1, 4))
                self.detached.append(root)
                if len(self.detached) > 4:
                    del self.detached[0]
                    self.after_event("drop detached")
                return
            got = self.random_block()
            if got is None:
                return
            block, parent = got
            ip = ir.InsertionPoint.at_block_begin(block)
            with ip:
                self._make_ops(block, rng.randrange(1, 3))

    def _make_ops(self, block, n):
        ir = self.ir
        rng = self.rng
        vals = [a for a in block.arguments if str(a.type) == "i32"]
        for _ in range(n):
            nreg = rng.choice([0, 0, 1])
            op = ir.Operation.create(
                "t.rand", results=[self.i32] * rng.randrange(0, 3),
                operands=[rng.choice(vals) for _ in
                          range(rng.randrange(0, 3))] if vals else [],
                attributes={"tag": ir.StringAttr.get("rnd")}, regions=nreg)
            for r in op.regions:
                nb = r.blocks.append(*([self.i32] * rng.randrange(0, 3)))
                with ir.InsertionPoint(nb):
                    args = list(nb.arguments)
                    ir.Operation.create(
                        "t.in", results=[self.i32],
                        operands=args[:1],
                        attributes={"tag": ir.StringAttr.get("rin")})
            for res in list(op.results):
                vals.append(res)

    def _pick_op(self):
        """A live op: from the pool (often) or by navigation."""
        rng = self.rng
        ops = [e for e in self.pool if e.kind in ("op", "opview")
               and e.effective() == "alive"]
        if ops and rng.random() < 0.5:
            e = rng.choice(ops)
            return e.obj.operation
        nav = self.navigate()
        if nav is None or nav[0] is None:
            return None
        return nav[0]

    def _inside(self, op, root):
        while op is not None:
            if op == root:
                return True
            op = parent_of(op)
        return False

    def _erasable(self, op):
        """False if a value defined in op (or nested) is used outside."""
        def values(o):
            for r in o.results:
                yield r
            for reg in o.regions:
                for b in reg.blocks:
                    for a in b.arguments:
                        yield a
                    for n in b.operations:
                        yield from values(n.operation)
        for v in values(op):
            for u in v.uses:
                if not self._inside(u.owner.operation, op):
                    return False
        return True

    def _is_module_op(self, op):
        """Is op the operation of a Module (also one no longer in the
        world, kept alive by the pool)?"""
        if any(m.operation == op for m in self.modules):
            return True
        if self.wref is None or op.name != "builtin.module":
            return False
        r = self.ref(op)
        return any(m.alive and m == r for m in self.module_refs)

    def _erase(self, op, how):
        ir = self.ir
        r = self.ref(op)
        # The operation of a Module we hold must not be erasable; one whose
        # Module may be gone (its op kept alive by something else) may be.
        module_op = any(m.operation == op for m in self.modules) or any(
            e.kind == "module" and e.effective() != "dead" and
            e.obj.operation == op for e in self.pool)
        maybe_module_op = (not module_op) and self._is_module_op(op)
        erasable = self._erasable(op)
        expect_ok = (not module_op) and erasable
        desc = S.attempt(lambda: S.op_desc(op))
        in_world = any(m.operation == op for m in self.modules)
        if how == "opview":
            fn = op.opview.erase
        elif how == "owner" and len(op.results):
            fn = op.results[0].owner.erase
        elif how == "list" and parent_of(op) is not None:
            blk = None
            p = parent_of(op)
            for reg in p.regions:
                for b in reg.blocks:
                    for o in b.operations:
                        if o == op:
                            fn = o.erase
                            blk = b
            if blk is None:
                self.fail("an op is not in its parent's blocks")
                return
        elif how in ("symtab", "del") and parent_of(op) is not None and \
                parent_of(op).name == "builtin.module" and \
                "sym_name" in op.attributes:
            t = ir.SymbolTable(parent_of(op))
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if how == "symtab":
                fn = (lambda: t.erase(op))
            else:
                def fn():
                    del t[name]
        else:
            fn = op.erase
        if self.trace:
            print(f"  erase {S.attempt(lambda: S.op_desc(op))!r} via {how} "
                  f"(expect ok: {expect_ok})", flush=True)
        out = S.attempt(fn)
        if self.trace:
            print(f"  -> {out!r}", flush=True)
        del fn
        gc.collect()
        if maybe_module_op:
            pass  # either way
        elif out.raised is None:
            if not expect_ok:
                self.fail(f"erasing {desc!r} via {how} did not raise "
                          f"(the operation of a Module: {module_op}, in the "
                          f"world: {in_world}; values used outside it: "
                          f"{not erasable})")
            elif r is not None and r.alive:
                self.fail(f"erase via {how} returned but the op is alive")
        else:
            if expect_ok and how not in ("symtab", "del"):
                self.fail(f"erasing an erasable op via {how} raised "
                          f"{out!r}")
            elif not isinstance(out.raised, (RuntimeError, ValueError,
                                             KeyError)):
                self.fail(f"erase via {how} raised {out!r}")
        self.after_event("erase")

    def act_erase(self):
        op = self._pick_op()
        if op is None:
            return
        how = self.rng.choice(["op", "op", "opview", "owner", "list",
                               "symtab", "del"])
        self._erase(op, how)

    def act_erase_parent(self):
        live = [e for e in self.pool if e.anchor is not None
                and e.effective() != "dead"]
        if not live:
            return
        e = self.rng.choice(live)
        a = e.anchor()
        if a is None:
            return
        p = parent_of(a)
        if p is None:
            p = a
        self._erase(p, self.rng.choice(["op", "opview"]))

    def act_pass(self):
        if not self.modules:
            return
        pipeline = self.rng.choice(PIPELINES)
        if "inline" in pipeline and S.caps().get("inline", "1") != "1":
            pipeline = PIPELINES[0]
        m = self.rng.choice(self.modules)
        if "inline" in pipeline and '"t.' in str(m):
            # The inliner asserts on unregistered ops with regions (it
            # cannot tell whether they are symbol tables): an upstream
            # limitation on live IR, not a stale-handle bug.
            pipeline = PIPELINES[0]
        if "remove-dead-values" in pipeline:
            text = str(m)
            if "cf." in text or '"t.' in text:
                # On IR with branches it emits an error yet succeeds, and
                # the bindings' ErrorCapture then asserts; on unregistered
                # ops it dereferences an empty optional. Aborts on live IR,
                # upstream, not stale-handle bugs: not on such IR.
                pipeline = PIPELINES[1]
        # Passes assume valid IR (running one on invalid IR is undefined in
        # C++, bindings or not): verify first.
        v = S.attempt(m.operation.verify)
        if v.raised is not None:
            self.stats.actions["pass skipped: invalid IR"] = \
                self.stats.actions.get("pass skipped: invalid IR", 0) + 1
            return
        from mlir.passmanager import PassManager
        if self.trace:
            print(f"  {pipeline} on:\n{m}", flush=True)
        with self.ctx:
            pm = PassManager.parse(pipeline)
        invalidate = self.rng.random() < 0.3

        def run():
            # invalidate_ops only where PassManager.run takes it (19.1.7)
            return S.run_pass_manager(pm, m.operation, invalidate)
        out = S.attempt(run)
        if out.raised is not None and not isinstance(
                out.raised, self.ir.MLIRError):
            self.fail(f"{pipeline} raised {out!r}")
        self.after_event(pipeline)

    def instead(self, action, other, why):
        """Runs act_OTHER in place of ACTION, and says so in the counts
        (an action that did not happen is not counted as done)."""
        acts = self.stats.actions
        acts[action] = acts.get(action, 0) - 1
        if not acts[action]:
            del acts[action]
        key = f"{action}->{other}[{why}]"
        acts[key] = acts.get(key, 0) + 1
        return getattr(self, "act_" + other)()

    def act_rewrite(self):
        if S.caps().get("rewrite", "1") != "1":
            return self.instead("rewrite", "pass", "unusable")
        if not self.modules:
            return
        if not self.frozen_tried:
            self.frozen_tried = True
            with self.ctx, self.loc:
                try:
                    self.frozen = S.make_frozen_empty_patterns(self.ctx)
                except Exception:  # noqa: BLE001
                    self.frozen = None
        if self.frozen is None:
            return self.instead("rewrite", "pass", "no_pattern_set")
        from mlir import rewrite
        m = self.rng.choice(self.modules)
        if m.context != self.frozen_ctx():
            return self.instead("rewrite", "pass",
                                "pattern_set_of_another_context")
        if S.attempt(m.operation.verify).raised is not None:
            return self.instead("rewrite", "pass", "invalid_ir")
        out = S.attempt(rewrite.apply_patterns_and_fold_greedily, m,
                        self.frozen)
        if out.raised is not None and not isinstance(out.raised, ValueError):
            self.fail(f"apply_patterns_and_fold_greedily raised {out!r}")
        self.after_event("rewrite")

    def frozen_ctx(self):
        return S._LEAKED[0].context if S._LEAKED else None

    def act_erase_arg(self):
        got = self.random_block()
        if got is None:
            return
        block, parent = got
        if parent is None or not parent.name.startswith("t.") or \
                not len(block.arguments):
            return
        i = self.rng.randrange(len(block.arguments))
        a = block.arguments[i]
        used = any(True for _ in a.uses)
        n = len(block.arguments)
        same = [e for e in self.pool if e.kind in ("arg", "uses")
                and e.effective() != "dead" and e.arg_ptr is not None
                and e.arg_ptr == S.capi_ptr(a)]
        out = S.attempt(block.erase_argument, i)
        if out.raised is None:
            if used:
                self.fail("erase_argument of a used argument did not raise")
            for e in same:
                e.status = "dead"
            if len(block.arguments) != n - 1:
                self.fail("erase_argument did not remove the argument")
        elif not used:
            self.fail(f"erase_argument of an unused argument raised {out!r}")
        del a
        self.after_event("erase_argument")

    def act_erase_block(self):
        """Block.erase(), where the bindings have it: must raise for a
        block that is still a successor, else destroy it."""
        if S.caps().get("block_erase", "1") != "1":
            return self.instead("erase_block", "erase_arg",
                                "unusable")
        got = self.random_block()
        if got is None:
            return
        block, parent = got
        region = block.region
        preds = any(any(s == block for s in o.successors)
                    for b in region.blocks for o in b.operations)
        if not preds and region.blocks[0] == block and \
                not parent.name.startswith("t."):
            return  # an entry block of a registered op: keep the IR valid
        out = S.attempt(block.erase)
        if out.raised is None and preds:
            self.fail("Block.erase() of a block that is a successor did not "
                      "raise")
        elif out.raised is not None and not preds:
            self.fail(f"Block.erase() of an unused block raised {out!r}")
        del block, region, out
        self.after_event("erase_block")

    def act_drop_module(self):
        if not self.modules:
            return
        m = self.modules.pop(self.rng.randrange(len(self.modules)))
        if self.rng.random() < 0.7:
            self.pool = [e for e in self.pool if not (
                e.kind == "module" and e.obj is m)]
        del m
        self.after_event("drop module")

    def act_detach(self):
        op = self._pick_op()
        if op is None or self._is_module_op(op):
            return
        # Keep the IR valid (passes run on it): no value used outside, no
        # terminator of a registered op's block.
        if op.name in TERMINATORS or not self._erasable(op):
            return
        out = S.attempt(op.detach_from_parent)
        if out.raised is None and self.rng.random() < 0.5:
            self.detached.append(op)
            if len(self.detached) > 4:
                del self.detached[0]
        del op, out
        self.after_event("detach")

    def act_set_operand(self):
        op = self._pick_op()
        if op is None or not len(op.operands):
            return
        nav_block = containing_block(op)
        if nav_block is None:
            return
        cands = [a for a in nav_block.arguments
                 if str(a.type) == str(op.operands[0].type)]
        if not cands:
            return
        i = self.rng.randrange(len(op.operands))
        if str(op.operands[i].type) != str(cands[0].type):
            return
        op.operands[i] = self.rng.choice(cands)
        self.after_event("set_operand")

    def act_rauw(self):
        op = self._pick_op()
        if op is None or not len(op.results):
            return
        r = op.results[0]
        b = containing_block(op)
        if b is None:
            return
        cands = [a for a in b.arguments if str(a.type) == str(r.type)]
        if cands:
            r.replace_all_uses_with(self.rng.choice(cands))
            if self.rng.random() < 0.5:
                self._erase(op, "op")
                return
        self.after_event("rauw")

    def act_move(self):
        a = self._pick_op()
        b = self._pick_op()
        if a is None or b is None or a == b:
            return
        how = self.rng.choice(["move_before", "move_after"])
        S.attempt(getattr(a, how), b)
        self.after_event("move")

    def act_new_context(self):
        self.new_context()
        self.frozen = None
        self.frozen_tried = True
        self.after_event("new context")

    def act_trim(self):
        if len(self.pool) > 200:
            self.rng.shuffle(self.pool)
            del self.pool[:100]
            self.after_event("trim")

    def act_touch(self):
        if not self.pool:
            return
        for _ in range(self.rng.randrange(1, 5)):
            self.touch(self.rng.choice(self.pool))

    def act_gc(self):
        gc.collect()
        self.after_event("gc")


def parent_of(op):
    """op.parent, or None for a detached op (whose .parent raises)."""
    try:
        return op.parent
    except ValueError:
        return None


def containing_block(op):
    """The block of op's parent that lists op, found by navigation (not
    op.block), or None for a detached op."""
    p = parent_of(op)
    if p is None:
        return None
    for reg in p.regions:
        for b in reg.blocks:
            if any(o == op for o in b.operations):
                return b
    return None


def op_name_or(op):
    try:
        return op.name
    except Exception:  # noqa: BLE001
        return "<erased op>"


# Known upstream hazards with scenarios of their own, left out here so that
# they do not mask everything else: value.maybe_downcast() moves the C++
# value out of the Python object (scenarios.py: *.maybe_downcast).
SKIP_PROBES = {"maybe_downcast"}

TERMINATORS = {"func.return", "cf.br", "cf.cond_br", "cf.switch"}

ACTIONS = [
    ("create_module", 6), ("build", 6), ("harvest", 22), ("touch", 26),
    ("erase", 7), ("erase_parent", 3), ("pass", 7), ("rewrite", 2),
    ("erase_arg", 3), ("erase_block", 1), ("drop_module", 2), ("detach", 2),
    ("set_operand", 2),
    ("rauw", 2), ("move", 1), ("gc", 2), ("trim", 2), ("new_context", 0.1),
]


def child(seed, steps, trace=False):
    import faulthandler
    faulthandler.enable()
    stats = Stats()
    world = World(seed, stats)
    world.trace = trace
    names = [a for a, _ in ACTIONS]
    weights = [w for _, w in ACTIONS]
    rng = random.Random(seed * 7919 + 1)
    if world.wref is None:
        print("note: mlir.weakref unavailable: op liveness is unknown, only "
              "crashes and this test's own erasures are checked")
    for step in range(steps):
        world.step = step
        action = rng.choices(names, weights)[0]
        if trace:
            print(f"step {step}: {action}", flush=True)
        stats.actions[action] = stats.actions.get(action, 0) + 1
        try:
            with world.ctx, world.loc:
                getattr(world, "act_" + action)() if action != "harvest" \
                    else world.harvest()
        except S.BaseExceptionOnly as ex:
            world.fail(f"{action}: BaseException: {ex}")
        except Exception as ex:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            world.fail(f"{action} raised unexpectedly: "
                       f"{type(ex).__name__}: {ex}")
        if len(stats.failures) >= 20:
            print("stopping after 20 failures")
            break
    acts = " ".join(f"{k}={v}" for k, v in sorted(stats.actions.items()))
    print(f"seed {seed}: {steps} steps, {stats.raised} raised, "
          f"{stats.worked} worked, {stats.dead_checked} dead and "
          f"{stats.alive_checked} live objects checked, "
          f"{len(stats.failures)} failures ({acts})", flush=True)
    rc = 1 if stats.failures else 0
    sys.stdout.flush()
    sys.stderr.flush()
    if S._LEAKED:
        os._exit(rc)
    sys.exit(rc)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--steps", type=int, default=2500)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--child", action="store_true")
    ap.add_argument("-j", "--jobs", type=int,
                    default=min(4, max(2, os.cpu_count() or 2)))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--no-perturb", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--trace", action="store_true",
                    help="with --child: print each action")
    args = ap.parse_args()
    if args.child:
        child(args.seed if args.seed is not None else args.first_seed,
              args.steps, args.trace)
        return
    env = dict(os.environ)
    if not args.no_perturb:
        env.setdefault("MALLOC_PERTURB_", "165")
    if "HOSTILE_CAPS" not in env:
        c = S.probe_caps(env)
        env["HOSTILE_CAPS"] = S.encode_caps(c)
    unusable = {}
    for item in env["HOSTILE_CAPS"].split(";"):
        k, _, v = item.partition("=")
        if k and v != "1":
            unusable[k] = v
            print(f"note: '{k}' is not usable in this build, not "
                  f"used: {v[:200]}")
    seeds = list(range(args.first_seed, args.first_seed + args.seeds))

    def run(seed):
        cmd = [sys.executable, os.path.abspath(__file__), "--child",
               "--seed", str(seed), "--steps", str(args.steps)]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=args.timeout, env=env)
        except subprocess.TimeoutExpired:
            return seed, None, "", f"timeout after {args.timeout}s"
        return seed, p.returncode, p.stdout, p.stderr

    from concurrent.futures import ThreadPoolExecutor
    passed = failed = 0
    raised = worked = 0
    t0 = time.time()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for seed, rc, out, err in pool.map(run, seeds):
            summary = [l for l in out.splitlines() if l.startswith("seed ")]
            for l in summary:
                parts = l.split()
                try:
                    raised += int(parts[4])
                    worked += int(parts[6])
                except (IndexError, ValueError):
                    pass
            replay = (f"replay: {os.path.basename(__file__)} --child --seed "
                      f"{seed} --steps {args.steps}")
            if rc == 0:
                passed += 1
                text = summary[0][len(f"seed {seed}: "):] if summary else ""
                print(f"PASS seed {seed}: {text}")
            else:
                failed += 1
                if rc is None:
                    how = err
                elif rc < 0:
                    import signal
                    try:
                        how = f"crash: {signal.Signals(-rc).name}"
                    except ValueError:
                        how = f"crash: signal {-rc}"
                    key = [l for l in err.splitlines() if any(
                        k in l for k in ("LLVM ERROR", "Assertion",
                                         "terminate", "Fatal Python"))]
                    if key:
                        how += ": " + key[0].strip()[:200]
                else:
                    fl = [l for l in out.splitlines()
                          if l.startswith("FAILURE")]
                    how = fl[0] if fl else f"exit {rc}"
                print(f"FAIL seed {seed} ({how}); {replay}")
                lines = [l for l in out.splitlines()
                         if l.startswith(("FAILURE", "seed "))]
                for l in lines[:8]:
                    print(f"    | {l}")
            if args.verbose:
                for l in (out + err).splitlines():
                    print(f"    | {l}")
    total = args.seeds * args.steps
    print(f"random_ops: seeds {seeds[0]}..{seeds[-1]}, {total} steps, "
          f"{raised} accesses raised, {worked} worked, "
          f"{time.time() - t0:.1f}s")
    # (Seeds are never skipped; what a build cannot do is left out of every
    # seed, and said here.)
    left_out = "; ".join(f"{k} ({v[:100]})" for k, v in
                         sorted(unusable.items()))
    print(f"{passed} passed, {failed} failed, 0 skipped"
          + (f"; not exercised in this build: {left_out}" if left_out
             else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
