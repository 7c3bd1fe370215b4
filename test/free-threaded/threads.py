"""Threads of a free-threaded interpreter (the GIL disabled) using one MLIR
context at the same time through the patched bindings and mlir.weakref.

MLIR's rule stays: a piece of IR is read and mutated by one thread at a time.
So each owner thread owns its modules: it parses them, wraps their ops, takes
weak references, reads, erases, runs `func.func(canonicalize)` on them (the
context's multithreading on, so ops die on pass-manager threads too) and drops
them. What the threads share is everything else: the context, its table of
weak references, the pass-manager thread pool, and Python objects. Owners
hand wrappers and references to a collector thread, which compares, hashes
and asks them whether they are alive, then drops them (releasing weak
references from a thread other than the one destroying the ops), while the
owners destroy the IR under them. All threads also share one
`weakref.RefScope` (owners add to it, the collector counts and resets it) and
one `weakref.ErasureProvenance` (owners instrument their pass managers, their
dead wrappers' errors ask it what erased the op; once the owners are done,
the collector closes it while other threads still ask it: opening or closing
it sets the context's destruction hook, which must not race with ops dying).
Before that, threads look names up in one shared `SymbolTable` at the same
time (the table takes its weak references at the first hit, under its lock).

Every access either works or raises; checked against a ground truth:
- a reference that reads dead never reads alive again (collector and owner);
- an owner's wrapper of an op its reference says is alive works and still
  has the name recorded when it was wrapped (never a new op at a reused
  address); one whose reference is dead raises RuntimeError;
- an op the owner erased, or whose module it dropped, reads dead at once;
- a scoped reference reads its op (same name), None, or raises
  ReferenceError once the scope was reset;
- a shared SymbolTable finds every live function by its name and raises
  KeyError for names never defined or erased.

  PYTHON_GIL=0 python3.13t threads.py [--seeds N] [--steps M] [--threads T]
"""

import argparse
import queue
import random
import sys
import threading
import time

from mlir import weakref
from mlir.ir import Context, Location, Module, StringAttr, SymbolTable
from mlir.passmanager import PassManager

PIPELINE = "builtin.module(func.func(canonicalize))"


def make_source(rng, nfuncs, nops):
    """Functions of arith ops, some dead or foldable: canonicalize erases
    part of each."""
    funcs = []
    for f in range(nfuncs):
        lines = [f"func.func @f{f}(%a: i32, %b: i32) -> i32 {{"]
        values = ["%a", "%b"]
        for i in range(nops):
            kind = rng.randrange(4)
            if kind == 0:
                lines.append(f"  %v{i} = arith.constant {rng.randrange(8)} : i32")
            else:
                op = ("arith.addi", "arith.muli", "arith.subi")[kind - 1]
                x, y = rng.choice(values), rng.choice(values)
                lines.append(f"  %v{i} = {op} {x}, {y} : i32")
            values.append(f"%v{i}")
        lines.append(f"  return {values[-1]} : i32")
        lines.append("}")
        funcs.append("\n".join(lines))
    return "\n".join(funcs)


class Failure(Exception):
    pass


class Stats:
    """Counts, one dict per thread (merged at the end): a lock shared by the
    threads would order their accesses and hide races from ThreadSanitizer."""

    def __init__(self):
        self.local = threading.local()
        self.all = []
        self.lock = threading.Lock()

    def add(self, **kw):
        """Adds to this thread's counts; returns the last one's new value."""
        counts = getattr(self.local, "counts", None)
        if counts is None:
            counts = self.local.counts = {}
            with self.lock:
                self.all.append(counts)
        for k, v in kw.items():
            counts[k] = counts.get(k, 0) + v
        return counts[k]

    @property
    def counts(self):
        total = {}
        for counts in self.all:
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
        return total


class Held:
    """A wrapper, a weak reference to its op, the op's name when wrapped."""

    __slots__ = ("op", "ref", "name", "seen_dead")

    def __init__(self, op):
        self.op = op
        self.ref = weakref.ref(op)
        self.name = op.name
        self.seen_dead = False


def check_held(h, stats):
    """Owner-side check of one held wrapper against its reference."""
    alive = h.ref.alive
    if h.seen_dead and alive:
        raise Failure(f"a dead reference to {h.name} reads alive again")
    if alive:
        name = h.op.name  # must work, and be the same op
        if name != h.name:
            raise Failure(f"wrapper of {h.name} now reads {name}")
        if h.ref() != h.op:
            raise Failure(f"reference to {h.name} resolves to another op")
        stats.add(checked_alive=1)
    else:
        h.seen_dead = True
        try:
            h.op.name
        except RuntimeError as e:
            # With provenance, the message goes on to say what erased it.
            if not str(e).startswith("the operation has been erased"):
                raise Failure(f"unexpected error for a dead {h.name}: {e}")
            stats.add(checked_dead=1, described=" erased " in str(e)[30:])
        else:
            raise Failure(f"wrapper of a dead {h.name} still works")


def check_scoped(sref, name, stats):
    """Owner-side check of a reference owned by the shared scope."""
    try:
        op = sref()
    except ReferenceError:
        stats.add(scoped_reset=1)  # the collector reset the scope
        return
    if op is not None and op.name != name:
        raise Failure(f"scoped reference to {name} now reads {op.name}")
    stats.add(scoped_checked=1)


def owner(ctx, seed, steps, shared, stats, errors):
    handoff, scope, provenance = shared
    rng = random.Random(seed)
    modules = []  # list of Module
    held = []  # Held of ops of our modules
    scoped = []  # (ScopedRef of the shared scope, name)
    try:
        with ctx, Location.unknown():
            for _ in range(steps):
                action = rng.randrange(100)
                if action < 10 or not modules:
                    if len(modules) < 3:
                        modules.append(Module.parse(make_source(rng, 4, 12)))
                        stats.add(parsed=1)
                elif action < 40:
                    module = rng.choice(modules)
                    funcs = list(module.body.operations)
                    block = rng.choice(funcs).regions[0].blocks[0]
                    for op in block.operations:
                        h = Held(op.operation)
                        if rng.random() < 0.5:
                            held.append(h)
                        if rng.random() < 0.3:
                            scoped.append((scope.ref(op), h.name))
                        if rng.random() < 0.5:
                            # The collector gets its own wrapper and reference.
                            handoff.put((op.operation, weakref.ref(op), h.name))
                        stats.add(wrapped=1)
                elif action < 60:
                    for h in rng.sample(held, min(len(held), 8)):
                        check_held(h, stats)
                    for sref, name in rng.sample(scoped, min(len(scoped), 4)):
                        check_scoped(sref, name, stats)
                elif action < 70:
                    # Not a terminator: the function would not verify.
                    live = [h for h in held if h.ref.alive and h.name != "func.return"]
                    if live:
                        h = rng.choice(live)
                        try:
                            h.op.erase()
                        except ValueError:
                            stats.add(erase_refused=1)  # its results are used
                        else:
                            if h.ref.alive:
                                raise Failure("an erased op reads alive")
                            check_held(h, stats)
                            stats.add(erased=1)
                elif action < 85:
                    module = rng.choice(modules)
                    pm = PassManager.parse(PIPELINE)
                    provenance.instrument(pm)
                    pm.run(module.operation)
                    stats.add(passes=1)
                elif action < 92:
                    module = modules.pop(rng.randrange(len(modules)))
                    mine = [weakref.ref(op) for op in module.body.operations]
                    del module
                    if any(r.alive for r in mine):
                        raise Failure("an op of a dropped module reads alive")
                    stats.add(modules_dropped=1)
                else:
                    # Drop some of what we hold (the others die later).
                    rng.shuffle(held)
                    del held[: len(held) // 2]
                if len(held) > 400:
                    del held[:200]
                if len(scoped) > 200:
                    del scoped[:100]
                stats.add(steps=1)
            for h in held:
                check_held(h, stats)
            held.clear()
            scoped.clear()
            modules.clear()
    except BaseException as e:  # noqa: B902 - report anything, then stop
        errors.append(f"owner {seed}: {type(e).__name__}: {e}")


def collector(shared, stats, errors, done):
    handoff, scope, provenance = shared
    rng = random.Random(0)
    kept = []
    dead = []
    try:
        while not (done.is_set() and handoff.empty()):
            try:
                op, ref, name = handoff.get(timeout=0.01)
            except queue.Empty:
                continue
            if not (ref == ref) or hash(ref) != hash(ref):
                raise Failure("a reference is not equal to itself")
            if ref.alive:
                kept.append((op, ref))
            else:
                dead.append(ref)
            for r in rng.sample(dead, min(len(dead), 4)):
                if r.alive:
                    raise Failure("a dead reference reads alive again")
            if len(kept) > 64:
                # Drop wrappers and references of ops other threads may be
                # destroying right now; note which are dead first.
                for _, r in kept[:32]:
                    if not r.alive:
                        dead.append(r)
                del kept[:32]
            if len(dead) > 512:
                del dead[:256]
            n = stats.add(collected=1)
            if n % 97 == 0 and scope.count_alive() > len(scope):
                raise Failure("the scope counts more live references than it has")
            if n % 401 == 0:
                scope.reset()
                stats.add(scope_resets=1)
        # The owners are done (`done` is set once they are joined): no thread
        # destroys ops of the context any more, so the recorder may be closed.
        close_while_describing(provenance, dead, [op for op, _ in kept],
                               stats, errors)
        kept.clear()
    except BaseException as e:  # noqa: B902
        errors.append(f"collector: {type(e).__name__}: {e}")


def close_while_describing(provenance, refs, wrappers, stats, errors):
    """Closes `provenance` while two threads ask it what erased the ops of
    dead references `refs`, and use `wrappers`, whose errors ask it too: each
    answer is a whole description or none. Called only while no thread
    destroys ops of its context: closing it sets the context's destruction
    hook, which must not race with ops dying (the threads here only read)."""
    start = threading.Barrier(3)

    def ask():
        try:
            start.wait()
            for _ in range(5):
                for r in refs:
                    note = provenance.describe(r)
                    if note is not None and " erased " not in note:
                        raise Failure(f"a partial description: {note!r}")
                for op in wrappers:
                    try:
                        op.name
                    except RuntimeError as e:
                        if not str(e).startswith("the operation has been erased"):
                            raise Failure(f"unexpected error for a dead op: {e}")
            stats.add(describers=1)
        except BaseException as e:  # noqa: B902
            errors.append(f"describer: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    start.wait()
    provenance.close()
    stats.add(provenance_closed=1)
    for t in threads:
        t.join()


def hammer(ctx, seed, stats):
    """Two threads on one RefScope in tight loops (one adds references, the
    other counts and resets): the random phase above rarely has them inside
    the scope at the same moment, and only an actual overlap lets
    ThreadSanitizer see a missing lock (the shared Python object's atomic
    reference count orders everything else)."""
    with ctx, Location.unknown():
        module = Module.parse(make_source(random.Random(seed), 2, 40))
        ops = [op.operation for f in module.body.operations
               for op in f.regions[0].blocks[0].operations]
        scope = weakref.RefScope()
        start = threading.Barrier(2)

        def add():
            start.wait()
            for _ in range(20):
                for op in ops:
                    scope.ref(op)

        def reset():
            start.wait()
            for i in range(400):
                if scope.count_alive() > len(scope):
                    raise Failure("the scope counts more live references than it has")
                if i % 4 == 0:
                    scope.reset()

        threads = [threading.Thread(target=f) for f in (add, reset)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        scope.close()
        stats.add(hammered=1)


def shared_symbol_table(ctx, seed, stats):
    """Threads looking symbols up in one SymbolTable at the same time (reads
    of IR nobody mutates, which MLIR allows): the first hit takes the table's
    weak references while the other threads hit, miss and test names. Then
    this thread erases some functions behind the table's back and the threads
    look up again: an erased name is a KeyError (the first thread to find its
    reference dead rebuilds the references), every other name its function."""
    rng = random.Random(seed)
    nfuncs = 64
    errors = []
    with ctx, Location.unknown():
        module = Module.parse(make_source(rng, nfuncs, 2))
        table = SymbolTable(module.operation)
        erased = set()

        def look(tseed, start):
            r = random.Random(tseed)
            start.wait()
            for _ in range(300):
                i = r.randrange(nfuncs + nfuncs // 4)
                name = f"f{i}"
                alive = i < nfuncs and i not in erased
                if (name in table) != alive:
                    errors.append(f"'{name}' in table is {not alive}, alive {alive}")
                try:
                    op = table[name]
                except KeyError:
                    stats.add(symbol_misses=1)
                    if alive:
                        errors.append(f"table['{name}'] raised KeyError; the function is alive")
                    continue
                stats.add(symbol_hits=1)
                found = StringAttr(op.attributes["sym_name"]).value
                if not alive or found != name:
                    errors.append(f"table['{name}'] found @{found} (alive {alive})")

        for round in range(2):
            if round:
                for op in list(module.body.operations):
                    i = int(StringAttr(op.attributes["sym_name"]).value[1:])
                    if rng.random() < 0.25:
                        erased.add(i)
                        op.erase()
            start = threading.Barrier(3)
            threads = [threading.Thread(target=look, args=(seed * 10 + round * 3 + t, start))
                       for t in range(3)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        stats.add(symbol_tables=1)
    return errors


def run_seed(seed, steps, nthreads, stats):
    ctx = Context()
    ctx.enable_multithreading(True)
    # Load every dialect the threads will use before any pass manager runs:
    # MLIR forbids loading one while a pass manager is running (it would
    # race with the pass threads).
    with ctx, Location.unknown():
        warm = Module.parse(make_source(random.Random(seed), 1, 8))
        PassManager.parse(PIPELINE).run(warm.operation)
        del warm
    hammer(ctx, seed, stats)
    errors = shared_symbol_table(ctx, seed, stats)
    shared = (queue.Queue(maxsize=256), weakref.RefScope(),
              weakref.ErasureProvenance(ctx))
    done = threading.Event()
    col = threading.Thread(target=collector, args=(shared, stats, errors, done))
    col.start()
    owners = [threading.Thread(target=owner,
                               args=(ctx, seed * 1000 + t, steps, shared, stats, errors))
              for t in range(nthreads)]
    for t in owners:
        t.start()
    for t in owners:
        t.join()
    done.set()
    col.join()
    shared[2].close()
    shared[1].close()
    return errors


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--threads", type=int, default=3)
    args = parser.parse_args()
    gil = sys._is_gil_enabled() if hasattr(sys, "_is_gil_enabled") else True
    print(f"python {sys.version.split()[0]}, GIL enabled: {gil}")
    if gil:
        print("FAIL: this test needs a free-threaded interpreter with the GIL disabled")
        return 1
    stats = Stats()
    start = time.monotonic()
    failed = 0
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        errors = run_seed(seed, args.steps, args.threads, stats)
        for e in errors:
            print(f"FAIL seed {seed}: {e}")
        failed += bool(errors)
    c = stats.counts
    print(f"{args.seeds} seeds x {args.threads} owner threads + 1 collector, "
          f"{c.get('steps', 0)} owner steps in {time.monotonic() - start:.1f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k != "steps"))
    print(f"{failed} seed(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
