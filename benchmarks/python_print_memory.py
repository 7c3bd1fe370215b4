import os, re, resource, sys, tempfile, time
from mlir.ir import *
mode, n = sys.argv[1], int(sys.argv[2])
lines = ["func.func @f(%a: i32) -> i32 {"]
prev = "%a"
for i in range(n):
    lines.append(f"  %v{i} = arith.addi {prev}, %a : i32"); prev = f"%v{i}"
lines.append(f"  return {prev} : i32\n}}")
src = "\n".join(lines)
class Forward:
    def __init__(self, f): self.f = f
    def write(self, s): return self.f.write(s)
with Context(), Location.unknown():
    m = Module.parse(src); del src, lines
    open("/proc/self/clear_refs", "w").write("5")  # resets VmHWM (peak RSS)
    hwm = lambda: int(re.search(r"VmHWM:\s+(\d+)", open("/proc/self/status").read()).group(1))
    rss = lambda: int(re.search(r"VmRSS:\s+(\d+)", open("/proc/self/status").read()).group(1))
    before = rss()
    path = tempfile.mktemp()
    t = time.perf_counter()
    with open(path, "w") as f:
        m.operation.print(file=f if mode == "file" else Forward(f))
    dt = time.perf_counter() - t
    after = hwm()
    size = os.path.getsize(path); os.unlink(path)
    print(f"{mode}: output {size/1e6:.1f} MB, peak RSS +{(after-before)/1024:.1f} MB, {dt:.2f} s")
