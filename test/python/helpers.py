"""What this directory's Python tests share: a test runner that checks no
Context outlives its test, the check that an access raises, and a walk that
finds ops by name. Not a test itself (lit excludes it)."""

import gc
import sys

from mlir.ir import Context, WalkResult


def log(*args):
    print(*args, file=sys.stderr)
    sys.stderr.flush()


def run(f):
    log("\nTEST:", f.__name__)
    f()
    gc.collect()
    assert Context._get_live_count() == 0, Context._get_live_count()
    return f


def expect_erased(what, access):
    """Logs the error `access()` raises; fails if it raises none."""
    try:
        access()
    except (RuntimeError, IndexError, ValueError) as e:
        log(f"{what}: {type(e).__name__}: {e}")
        return
    raise AssertionError(f"{what} is usable after its IR was destroyed")


def find(root, name):
    """The operations named `name` under `root`, in walk order."""
    found = []

    def visit(op):
        if op.name == name:
            found.append(op.operation)
        return WalkResult.ADVANCE

    root.operation.walk(visit)
    return found
