"""Peak memory and time of printing a large module: streamed to a path
(`print(file=path)`, written by C++ while printing) or given to a file
object (`print(file=f)`, one write() after printing).

  PYTHONPATH=build/python_packages/mlir_core /usr/bin/python3 \
      benchmarks/python_print_memory.py path|file [N]

N (default 200000) `arith.addi` in one function. Prints the output size,
the growth of the peak RSS (VmHWM, reset before printing) and the time.
"""
import os, re, sys, tempfile, time
from mlir.ir import *
mode = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
assert mode in ("path", "file"), mode
lines = ["func.func @f(%a: i32) -> i32 {"]
prev = "%a"
for i in range(n):
    lines.append(f"  %v{i} = arith.addi {prev}, %a : i32"); prev = f"%v{i}"
lines.append(f"  return {prev} : i32\n}}")
src = "\n".join(lines)
with Context(), Location.unknown():
    m = Module.parse(src); del src, lines
    open("/proc/self/clear_refs", "w").write("5")  # resets VmHWM (peak RSS)
    status_kb = lambda field: int(re.search(
        field + r":\s+(\d+)", open("/proc/self/status").read()).group(1))
    before = status_kb("VmRSS")
    path = tempfile.mktemp()
    t = time.perf_counter()
    if mode == "path":
        m.operation.print(file=path)
    else:
        with open(path, "w") as f:
            m.operation.print(file=f)
    dt = time.perf_counter() - t
    after = status_kb("VmHWM")
    size = os.path.getsize(path); os.unlink(path)
    print(f"{mode}: output {size/1e6:.1f} MB, peak RSS +{(after-before)/1024:.1f} MB, {dt:.2f} s")
