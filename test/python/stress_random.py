# RUN: %PYTHON %s --seeds 4 --steps 2500 | FileCheck %s
# REQUIRES: python-bindings
"""Randomized stress test of the Python bindings on weak references.

Each seed runs in a subprocess: random actions (build, clone, erase, detach,
canonicalize/cse, drop references, gc.collect(), access) on wrappers that C++
may have destroyed. Touching an erased op must raise RuntimeError; the process
must never die from a signal. Replay one seed with
`stress_random.py --child --seed S --steps N`.
"""

import argparse
import gc
import random
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--seeds", type=int, default=4)
parser.add_argument("--first-seed", type=int, default=1)
parser.add_argument("--steps", type=int, default=2500)
parser.add_argument("--seed", type=int)
parser.add_argument("--child", action="store_true")
args = parser.parse_args()


def child(seed, steps):
    from mlir.ir import Context, InsertionPoint, Location, Module, Operation
    from mlir.passmanager import PassManager

    rng = random.Random(seed)
    stats = dict(raised=0, accessed=0)
    with Context() as ctx, Location.unknown():
        ctx.allow_unregistered_dialects = True
        module = Module.parse(
            "func.func @f(%a: i32) -> i32 {\n"
            "  %c = arith.constant 0 : i32\n"
            "  %r = arith.addi %a, %c : i32\n"
            "  return %r : i32\n}"
        )
        held = []

        def body_ops():
            return list(module.body.operations)

        for step in range(steps):
            action = rng.randrange(10)
            try:
                if action == 0:  # build
                    with InsertionPoint(module.body):
                        op = Operation.create("t.op", regions=rng.randrange(2))
                    held.append(op)
                elif action == 1 and held:  # clone
                    held.append(rng.choice(held).clone())
                elif action == 2 and held:  # erase
                    rng.choice(held).erase()
                elif action == 3 and held:  # detach
                    rng.choice(held).detach_from_parent()
                elif action == 4:  # a pass that erases ops behind our back
                    pipeline = rng.choice(["canonicalize", "cse"])
                    pm = PassManager.parse(f"builtin.module({pipeline})")
                    invalidate = rng.random() < 0.5
                    try:  # 19.1.7's run() has invalidate_ops, 23.1.1's not
                        pm.run(module.operation, invalidate_ops=invalidate)
                    except TypeError:
                        pm.run(module.operation)
                elif action == 5 and held:  # drop references
                    del held[rng.randrange(len(held))]
                elif action == 6:
                    gc.collect()
                elif action == 7:  # fetch wrappers of what is in the module
                    held.extend(body_ops()[: rng.randrange(4)])
                elif action == 8 and rng.random() < 0.05:  # a new module
                    module = Module.parse("module {}")
                elif held:  # access
                    op = rng.choice(held)
                    stats["accessed"] += 1
                    str(op)
                    op.name
            except RuntimeError as e:
                stats["raised"] += 1
                assert (
                    "erased" in str(e)
                    or "invalidated" in str(e)
                    or "detach" in str(e)
                    or "attached" in str(e)
                ), e
            except ValueError:
                pass  # e.g. detaching an op that has no parent
            if len(held) > 200:
                del held[:100]
    print(f"seed {seed}: {steps} steps, {stats['accessed']} accesses, "
          f"{stats['raised']} raised")


if args.child:
    child(args.seed, args.steps)
    sys.exit(0)

failed = 0
for seed in range(args.first_seed, args.first_seed + args.seeds):
    result = subprocess.run(
        [sys.executable, __file__, "--child", "--seed", str(seed),
         "--steps", str(args.steps)],
        capture_output=True, text=True, timeout=600,
    )
    if result.returncode != 0:
        failed += 1
        how = (f"signal {-result.returncode}" if result.returncode < 0
               else f"exit {result.returncode}")
        print(f"seed {seed}: FAILED ({how}); replay: {sys.argv[0]} --child "
              f"--seed {seed} --steps {args.steps}")
        print(result.stdout[-2000:], result.stderr[-2000:])
    else:
        print(result.stdout.strip())
total = args.seeds * args.steps
print(f"stress: {args.seeds} seeds, {total} actions, {failed} failed")
# CHECK: stress: 4 seeds, 10000 actions, 0 failed
sys.exit(1 if failed else 0)
