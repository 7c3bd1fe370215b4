#!/usr/bin/env python3
"""benchmarks/alloc_layout.cpp and report.py --grown-sizes, the heap layout
control of benchmarks/run.sh: the preload counts operator new's request
sizes, grows the listed sizes by 8 bytes (and no others), and the sizes
picked from two histograms are those whose requests moved by 8 bytes.

It also checks that listing sizes to grow costs no instructions per request
(the control compares counts of runs that grow sizes and runs that do not).

  check-alloc-layout.py WORK_DIR"""
import os
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
work = Path(sys.argv[1])
work.mkdir(parents=True, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


lib = work / "alloc_layout.so"
subprocess.run(["c++", "-O2", "-shared", "-fPIC", "-o", lib, root / "benchmarks" / "alloc_layout.cpp"],
               check=True)
# A program that allocates 1,000 objects of 40 bytes and 10 of 72, and
# prints the usable sizes malloc gave a 40- and a 72-byte object.
program = work / "allocs"
source = work / "allocs.cpp"
source.write_text(r"""
#include <cstdio>
#include <malloc.h>
struct A { char bytes[40]; };
struct B { char bytes[72]; };
int main() {
  A *a[1000];
  for (A *&p : a) p = new A;
  B *b[10];
  for (B *&p : b) p = new B;
  std::printf("%zu %zu\n", malloc_usable_size(a[0]), malloc_usable_size(b[0]));
  for (A *p : a) delete p;
  for (B *p : b) delete p;
}
""")
subprocess.run(["c++", "-O0", "-o", program, source], check=True)


def run(**env):
    e = dict(os.environ, LD_PRELOAD=str(lib), **env)
    return [int(x) for x in subprocess.run([program], env=e, capture_output=True, text=True,
                                           check=True).stdout.split()]


plain = run()
grown = run(ALLOC_GROW="40")
check(grown[0] > plain[0] and grown[0] >= 48, f"ALLOC_GROW=40 did not grow a 40-byte request: {plain} -> {grown}")
check(grown[1] == plain[1], f"ALLOC_GROW=40 changed a 72-byte request: {plain} -> {grown}")
both = run(ALLOC_GROW="40,72")
check(both[1] > plain[1], f"ALLOC_GROW=40,72 did not grow a 72-byte request: {plain} -> {both}")

# Every counted run must pay the same instructions per request, whatever it
# grows: with an unrelated size listed, main() executes exactly as many
# instructions as with none (callgrind; valgrind is a set-up dependency).
def instructions_in_main(grow):
    e = dict(os.environ, LD_PRELOAD=str(lib), ALLOC_GROW=grow)
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                          "--toggle-collect=main", program], env=e, capture_output=True,
                         text=True, check=True)
    return int(out.stderr.split("Collected :")[1].split()[0])


none, unrelated = instructions_in_main(""), instructions_in_main("999,3000")
check(none > 0 and none == unrelated,
      f"listing sizes that are never requested changed main()'s instructions: {none} -> {unrelated}")

histogram = work / "histogram.txt"
run(ALLOC_HISTOGRAM=str(histogram), ALLOC_GROW="40")
counts = dict(tuple(map(int, line.split())) for line in histogram.read_text().splitlines())
check(counts.get(40) == 1000 and counts.get(72) == 10,
      f"histogram counts requested sizes (1,000 of 40, 10 of 72): {counts.get(40)}, {counts.get(72)}")

# grown_sizes: 40 -> 48 (1,000 requests) and 72 -> 80 move; 100 -> 108 moves
# for too few requests; 200 loses requests that do not reappear 8 bytes up.
base = work / "base.txt"
patched = work / "patched.txt"
base.write_text("40 1001\n48 39\n72 1002\n100 50\n200 500\n")
patched.write_text("40 1\n48 1039\n72 2\n80 1000\n100 0\n108 50\n200 100\n")
picked = subprocess.run([sys.executable, root / "benchmarks" / "report.py", "--grown-sizes", base, patched],
                        capture_output=True, text=True, check=True).stdout.strip()
check(picked == "40,72", f"--grown-sizes picked {picked!r}, expected '40,72'")

if failures:
    print("FAIL:\n  " + "\n  ".join(failures))
    sys.exit(1)
print(f"alloc layout: sizes grown only as listed ({plain} -> {both}), same instructions "
      f"with or without sizes listed ({none}), histogram counted, sizes picked {picked}")
