#  Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
#  Exceptions.
"""Weak references to MLIR operations, in the style of the `weakref` module.

`ref(op)` does not keep `op` alive and never resolves to another operation
later allocated at the same address: calling it returns the operation, or
None once C++ (a pass, a rewrite, an erased parent, a freed module) or Python
destroyed it::

    r = ref(op)
    PassManager.parse("builtin.module(canonicalize)").run(module.operation)
    if r() is None:
        print("canonicalize erased it")

`WeakOpKeyDictionary` and `WeakOpSet` forget destroyed operations.
Operations die without notifying Python (possibly on pass-manager threads),
so unlike `weakref.WeakKeyDictionary` an entry's value is released lazily:
dead entries are invisible at once, and reclaimed by `purge()`, by `len()`
and as the container grows. No callbacks run when an operation dies. A purge
(and so `len()`) checks every entry: it takes time linear in the container's
size.

`RefScope` owns many references and drops them all at once. With
`ErasureProvenance(context)` enabled, a dead reference can say what destroyed
its operation, and so do the RuntimeErrors raised by erased operations'
wrappers. Enable and close it while no other thread destroys the context's
operations (see its docstring).
"""

from collections.abc import MutableMapping, MutableSet

from ._mlir_libs._mlirWeakRef import (
    OpRef as ref,
    RefScope,
    ScopedRef,
    ErasureProvenance,
)

__all__ = [
    "ref",
    "RefScope",
    "ScopedRef",
    "WeakOpKeyDictionary",
    "WeakOpSet",
    "ErasureProvenance",
]


# Dead entries are purged once a container has doubled since the last purge,
# and never below this size: the policy (and constant) of the C++ containers,
# mlir-weakref/detail/Purge.h.
_PURGE_MIN_SIZE = 64


def _key(op):
    """The reference used as a key for `op`, or None if `op` is erased."""
    try:
        return ref(op)
    except RuntimeError:
        return None


class _WeakOpContainer:
    """Storage shared by the containers: a dict keyed by references.

    A reference to a live op equals (and hashes like) every other reference
    to it, and never equals one to an op destroyed earlier at that address.
    """

    def __init__(self):
        self._data = {}
        self._purge_at = _PURGE_MIN_SIZE

    def _maybe_purge(self):
        if len(self._data) >= self._purge_at:
            self.purge()
            self._purge_at = max(_PURGE_MIN_SIZE, 2 * len(self._data))

    def purge(self):
        """Reclaims the entries of destroyed operations; returns how many."""
        dead = [k for k in self._data if not k.alive]
        for k in dead:
            del self._data[k]
        return len(dead)

    def __len__(self):
        self.purge()
        return len(self._data)

    def _live_items(self):
        for k, v in list(self._data.items()):
            op = k()
            if op is not None:
                yield op, v

    def __contains__(self, op):
        key = _key(op)
        return key is not None and key in self._data

    def __iter__(self):
        for op, _ in self._live_items():
            yield op


class WeakOpKeyDictionary(_WeakOpContainer, MutableMapping):
    """A mapping from operations to values that forgets destroyed operations.

    An erased operation is never a key: `erased in d` is False and `d[erased]`
    raises KeyError.
    """

    def __init__(self, items=None):
        _WeakOpContainer.__init__(self)
        if items is not None:
            self.update(items)

    def __setitem__(self, op, value):
        self._data[ref(op)] = value
        self._maybe_purge()

    def __getitem__(self, op):
        key = _key(op)
        if key is None or key not in self._data:
            raise KeyError(op)
        return self._data[key]

    def __delitem__(self, op):
        key = _key(op)
        if key is None or key not in self._data:
            raise KeyError(op)
        del self._data[key]

    def items(self):
        return list(self._live_items())

    def __repr__(self):
        return f"<WeakOpKeyDictionary with {len(self)} live entries>"


class WeakOpSet(_WeakOpContainer, MutableSet):
    """A set of operations that forgets destroyed operations."""

    def __init__(self, ops=()):
        _WeakOpContainer.__init__(self)
        for op in ops:
            self.add(op)

    def add(self, op):
        self._data[ref(op)] = None
        self._maybe_purge()

    def discard(self, op):
        key = _key(op)
        if key is not None:
            self._data.pop(key, None)

    def __repr__(self):
        return f"<WeakOpSet with {len(self)} live operations>"
