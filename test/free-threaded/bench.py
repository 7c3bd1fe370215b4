"""Free-threaded wrapper throughput: T threads (1, then 2) each wrap every op
of its own function of one shared context and read its name, patched vs
unpatched LLVM 23.1.1 bindings built for the same free-threaded interpreter,
in alternating fresh processes; prints medians and ratios.

  PYTHON_GIL=0 python3.13t bench.py PATCHED_PACKAGE BASELINE_PACKAGE [--reps N]
"""
import os
import statistics
import subprocess
import sys

CHILD = r"""
import sys, threading, time
from mlir.ir import Context, Location, Module
threads, ops, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
weak = sys.argv[4] == "weak"
if weak:
    from mlir import weakref
src = "".join(
    f"func.func @f{t}(%a: i32) -> i32 {{\n"
    + "".join(f"  %v{i} = arith.addi %a, %a : i32\n" for i in range(ops))
    + "  return %a : i32\n}\n" for t in range(threads))
with Context() as ctx, Location.unknown():
    module = Module.parse(src)
    funcs = list(module.body.operations)
    barrier = threading.Barrier(threads + 1)

    def work(f):
        with ctx, Location.unknown():
            block = f.regions[0].blocks[0]
            barrier.wait()
            for _ in range(rounds):
                for op in block.operations:
                    op.name
                    if weak:
                        weakref.ref(op)

    ts = [threading.Thread(target=work, args=(f,)) for f in funcs]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in ts:
        t.join()
    print(threads * ops * rounds / (time.perf_counter() - t0))
"""


def run(package, threads, weak, ops=20000, rounds=5):
    env = dict(os.environ, PYTHONPATH=package, PYTHON_GIL="0")
    out = subprocess.run([sys.executable, "-c", CHILD, str(threads), str(ops), str(rounds),
                          "weak" if weak else "plain"],
                         env=env, capture_output=True, text=True, check=True)
    return float(out.stdout)


def main():
    patched, baseline = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[sys.argv.index("--reps") + 1]) if "--reps" in sys.argv else 5
    assert not sys._is_gil_enabled(), "needs the GIL disabled"
    cases = [("baseline", baseline, False), ("patched", patched, False),
             ("patched + weakref.ref", patched, True)]
    rates = {}
    for _ in range(reps):  # alternate, so that drift hits every case
        for name, package, weak in cases:
            for threads in (1, 2):
                rates.setdefault((name, threads), []).append(run(package, threads, weak))
    med = {k: statistics.median(v) for k, v in rates.items()}
    print(f"ops wrapped + .name per second, median of {reps} (2 cores):")
    for name, _, _ in cases:
        one, two = med[(name, 1)], med[(name, 2)]
        print(f"  {name:22s} 1 thread {one:12,.0f}  2 threads {two:12,.0f}  "
              f"scaling {two / one:.2f}x")
    for threads in (1, 2):
        print(f"  patched / baseline, {threads} thread(s): "
              f"{med[('patched', threads)] / med[('baseline', threads)]:.3f}x throughput")


if __name__ == "__main__":
    main()
