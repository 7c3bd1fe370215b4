"""circt #9008's scenario: a PyCDE `System` built and compiled while Python
holds operations that the passes erase.

PyCDE used to invalidate every Python operation after each pass
(`_clear_live_operations`); since MLIR dropped its map of live operations
(#155114), an operation held across a pass is undefined behaviour there. On
the patched MLIR every wrapper holds a weak reference: an erased operation
raises RuntimeError ("... has been erased ..."), a live one still works.

Held across `System.compile()`:
  - ops the lowering replaces: `hwarith.add` (lower-hwarith-to-hw) and
    `seq.compreg` (lower-seq-to-sv), kept as OpViews in a user's dict;
  - a Signal whose defining op is replaced (its `value`);
  - every op of the top-level block (one `hw.module`) and every op of that
    module's body (compile() rebuilds the module: all of them are erased).

With PyCDE's per-pass check (patches/circt-firtool-1.154.0/0002), the
passes that erase the held ops say so on stderr.

Run by scripts/downstream-circt.py with PyCDE on PYTHONPATH,
PYCDE_VARIANT=patched|unpatched and PYCDE_PER_PASS_CHECK=1 when PyCDE's
patch is applied. Patched, it asserts; unpatched, touching an erased op is
undefined behaviour, so it only prints what happened (the script's
--valgrind run says whether freed memory was read).
"""
import contextlib
import io
import os
import re
import sys
import tempfile

from pycde import Clock, Input, Module, Output, System, generator
from pycde.circt import ir
from pycde.types import Bits, UInt

PATCHED = os.environ.get("PYCDE_VARIANT", "patched") == "patched"
PER_PASS_CHECK = os.environ.get("PYCDE_PER_PASS_CHECK") == "1"
held = {}  # a user's dict of OpViews and Signals


class Accumulate(Module):
  clk = Clock()
  rst = Input(Bits(1))
  a = Input(UInt(8))
  b = Input(UInt(8))
  out = Output(UInt(9))

  @generator
  def build(ports):
    total = ports.a + ports.b
    held["hwarith.add"] = total.value.owner
    held["signal"] = total
    with ports.clk:
      acc = total.reg(rst=ports.rst, name="acc")
    held["seq.compreg"] = acc.value.owner
    ports.out = acc


def touch(obj):
  """Reads what a user would read; returns a short description."""
  if isinstance(obj, ir.OpView) or isinstance(obj, ir.Operation):
    op = obj.operation
    return f"{op.name} with {len(op.attributes)} attributes, {len(op.results)} results"
  return f"signal of type {obj.value.type}"


def outcome(obj):
  try:
    return "alive", touch(obj)
  except RuntimeError as e:
    return "raised", str(e).splitlines()[0]


def main():
  with tempfile.TemporaryDirectory() as out:
    system = System([Accumulate], name="Accumulate", output_directory=out)
    system.generate()
    body = list(system.mod.body.operations)
    modules = [op for op in body if op.operation.name == "hw.module"]
    assert len(modules) == 1, [op.operation.name for op in body]
    inner = list(modules[0].operation.regions[0].blocks[0].operations)
    inner_names = [op.operation.name for op in inner]
    assert "hwarith.add" in inner_names and "seq.compreg" in inner_names, inner_names
    before = {name: touch(obj) for name, obj in held.items()}
    names = [op.operation.name for op in body]
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
      system.compile()
    warnings = re.findall(r"^Warning: pass (.*) erased (\d+) MLIR ops",
                          stderr.getvalue(), re.M)
    print(f"per-pass check: {warnings}")
    objects = dict(held)
    objects.update({f"body[{i}] {name}": op
                    for i, (name, op) in enumerate(zip(names, body))})
    objects.update({f"module[{i}] {name}": op
                    for i, (name, op) in enumerate(zip(inner_names, inner))})
    results = {name: outcome(obj) for name, obj in objects.items()}
    for name, (kind, what) in results.items():
      print(f"{name}: {kind}: {what}")
    if not PATCHED:
      return 0
    for name in ("hwarith.add", "seq.compreg", "signal"):
      kind, what = results[name]
      assert kind == "raised" and "erased" in what, (name, kind, what, before[name])
    for name, (kind, what) in results.items():
      assert kind == "alive" or "erased" in what, (name, what)
    # Inside the module, the ops the lowering replaces are gone.
    for i, name in enumerate(inner_names):
      if name in ("hwarith.add", "seq.compreg"):
        assert results[f"module[{i}] {name}"][0] == "raised", (i, name)
    if PER_PASS_CHECK:
      # The passes report the held OpViews they erased. compile() also
      # changes the IR outside its pass lists (export_split_verilog's
      # preparation), which the per-pass check does not see: the reports
      # are a lower bound of the erased OpViews held here.
      erased = {id(objects[name]) for name, (kind, _) in results.items()
                if kind == "raised" and isinstance(objects[name], ir.OpView)}
      reported = sum(int(n) for _, n in warnings)
      print(f"reported {reported} of {len(erased)} erased OpViews held here")
      assert 0 < reported <= len(erased), (warnings, len(erased))
      passes = " ".join(p for p, _ in warnings)
      assert "lower-hwarith-to-hw" in passes, passes
    # The IR compile() left is whole: a new walk reads it (compile() rebuilds
    # the hw.module itself, so the one held above is erased too).
    after = [op for op in system.mod.body.operations
             if op.operation.name == "hw.module"]
    assert [str(op.operation.attributes["sym_name"]) for op in after] == ['"Accumulate"'], after
    print("ok")
  return 0


if __name__ == "__main__":
  sys.exit(main())
