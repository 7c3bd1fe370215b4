//===- WeakRefModule.cpp - mlir._mlir_libs._mlirWeakRef -------------------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The compiled half of `mlir.weakref`: weak operation references, reference
// scopes and erasure provenance for Python, on the C API alone (MLIR's
// MlirOperationRef and this project's mlir-weakref-c/WeakRef.h). The Python
// half (mlir/weakref.py) builds the containers on top.
//
// Calls may come from several threads at once: free-threaded Python (3.13t)
// runs them without a GIL (the module is built FREE_THREADED), and operations
// are destroyed on pass-manager threads meanwhile, which the references
// observe safely. A reference (`OpRef`, `ScopedRef`) never changes after it is
// made; a `RefScope` and an `ErasureProvenance` can be used and closed from
// several threads, so each guards its handle with a mutex of its own, never
// held while Python code runs. Opening or closing an `ErasureProvenance` sets
// its context's destruction hook, which is not thread-safe: it must not race
// with the destruction of the context's operations on other threads (a pass
// manager running, another thread erasing ops or dropping a module); the
// caller sees to that, as the class's docstring says. Nothing here keeps a
// context alive except `ErasureProvenance`, whose recorder must not outlive
// its context.
//
//===----------------------------------------------------------------------===//

#include "BindingLibrary.h"
#include "mlir-c/IR.h"
#include "mlir-weakref-c/WeakRef.h"

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

using namespace mlir_weakref::python;

namespace {

/// The operation of an Operation, or of anything with one (OpView, Module).
/// An erased operation raises its wrapper's RuntimeError.
MlirOperation toOperation(const py::handle &obj) {
  py::object op = borrow(obj);
  if (!PyCapsule_CheckExact(op.ptr())) {
    if (py::hasattr(op, "operation"))
      op = op.attr("operation");
    if (!typeHasAttr(op, MLIR_PYTHON_CAPI_PTR_ATTR))
      throw py::type_error(
          ("expected an MLIR operation, got " + reprString(obj)).c_str());
    // Not py::hasattr on the object: it would swallow an erased operation's
    // RuntimeError.
    op = op.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  }
  MlirOperation result = mlirPythonCapsuleToOperation(op.ptr());
  if (mlirOperationIsNull(result))
    throwPythonError();
  return result;
}

/// The Python object for a live operation: its existing wrapper if it has
/// one (so `ref(op)() is op`), a new one otherwise.
py::object toPython(MlirOperation op) {
  if (mlirOperationIsNull(op))
    return py::none();
  return py::cast(op);
}

/// An MlirOperationRef owned for the duration of one call.
class OwnedRef {
public:
  explicit OwnedRef(MlirOperationRef ref) : ref(ref) {}
  OwnedRef(OwnedRef &&other) noexcept : ref(other.ref) {
    other.ref = {nullptr};
  }
  OwnedRef(const OwnedRef &) = delete;
  OwnedRef &operator=(const OwnedRef &) = delete;
  OwnedRef &operator=(OwnedRef &&) = delete;
  ~OwnedRef() { mlirOperationRefDestroy(ref); }
  MlirOperationRef get() const { return ref; }

private:
  MlirOperationRef ref;
};

/// A weak reference owned by Python (`mlir.weakref.ref`).
class PyOpRef {
public:
  explicit PyOpRef(py::handle op)
      : ref(mlirOperationRefCreate(toOperation(op))) {}
  PyOpRef(const PyOpRef &) = delete;
  PyOpRef &operator=(const PyOpRef &) = delete;
  ~PyOpRef() { mlirOperationRefDestroy(ref); }

  OwnedRef get() const { return OwnedRef(mlirOperationRefCopy(ref)); }
  /// Same as get(): an OpRef is never detached from its operation.
  OwnedRef peek() const { return get(); }

private:
  MlirOperationRef ref;
};

/// Owns a reference scope; the ScopedRefs it hands out raise ReferenceError
/// once it is closed or reset.
class PyRefScope {
public:
  PyRefScope() : scope(mlirWeakOpRefScopeCreate()) {}
  PyRefScope(const PyRefScope &) = delete;
  PyRefScope &operator=(const PyRefScope &) = delete;
  ~PyRefScope() { close(); }

  bool isOpen() const {
    std::lock_guard<std::mutex> lock(mutex);
    return !mlirWeakOpRefScopeIsNull(scope);
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex);
    mlirWeakOpRefScopeDestroy(scope);
    scope = {nullptr};
  }
  void reset() {
    std::lock_guard<std::mutex> lock(mutex);
    checkOpenLocked();
    mlirWeakOpRefScopeReset(scope);
  }
  uint64_t createRef(MlirOperation op) {
    std::lock_guard<std::mutex> lock(mutex);
    checkOpenLocked();
    return mlirWeakOpRefScopeCreateRef(scope, op);
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex);
    return mlirWeakOpRefScopeIsNull(scope) ? 0 : mlirWeakOpRefScopeSize(scope);
  }
  size_t countAlive() const {
    std::lock_guard<std::mutex> lock(mutex);
    return mlirWeakOpRefScopeIsNull(scope)
               ? 0
               : mlirWeakOpRefScopeCountAlive(scope);
  }
  /// A new reference to the one `key` names; null if the scope is closed or
  /// no longer holds it.
  MlirOperationRef copyRef(uint64_t key) const {
    std::lock_guard<std::mutex> lock(mutex);
    if (mlirWeakOpRefScopeIsNull(scope) ||
        !mlirWeakOpRefScopeContains(scope, key))
      return {nullptr};
    return mlirWeakOpRefScopeCopyRef(scope, key);
  }

private:
  void checkOpenLocked() const {
    if (mlirWeakOpRefScopeIsNull(scope))
      throw py::value_error("the reference scope is closed");
  }

  mutable std::mutex mutex;
  MlirWeakOpRefScope scope;
};

/// A reference owned by a PyRefScope, known by its key there.
class PyScopedRef {
public:
  PyScopedRef(py::object scopeObj, uint64_t key)
      : scopeObj(std::move(scopeObj)), key(key) {}

  /// A new reference to the scope's reference; ReferenceError once the scope
  /// has been closed or reset.
  OwnedRef get() const {
    MlirOperationRef ref =
        py::cast<const PyRefScope &>(scopeObj).copyRef(key);
    if (mlirOperationRefIsNull(ref)) {
      PyErr_SetString(PyExc_ReferenceError,
                      "the reference's scope has been closed or reset");
      throwPythonError();
    }
    return OwnedRef(ref);
  }
  /// Same as get(), but null instead of raising once the scope is closed or
  /// reset.
  OwnedRef peek() const {
    return OwnedRef(py::cast<const PyRefScope &>(scopeObj).copyRef(key));
  }

private:
  py::object scopeObj;
  uint64_t key;
};

OwnedRef toRef(const py::handle &obj);

/// An erasure provenance recorder. It keeps its context's Python object
/// alive, since the recorder must be destroyed before the context. While
/// open, it is the context's `erased_operation_describer`, so that the
/// RuntimeError of an erased operation's wrapper says what erased it: the
/// describer it installs shares only `Recorder` with it, so the context does
/// not keep this object alive (no reference cycle), and a describer left
/// behind after `close()` answers None.
class PyProvenance {
  struct Recorder {
    std::mutex mutex;
    MlirErasureProvenance provenance = {nullptr};
  };

public:
  PyProvenance(py::object context)
      : contextObj(context.is_none()
                       ? importModule("mlir.ir").attr("Context").attr("current")
                       : std::move(context)),
        recorder(std::make_shared<Recorder>()) {
    recorder->provenance =
        mlirErasureProvenanceEnable(py::cast<MlirContext>(contextObj));
    if (mlirErasureProvenanceIsNull(recorder->provenance))
      throw std::runtime_error(
          "erasure provenance is already enabled for this context");
    std::shared_ptr<Recorder> shared = recorder;
    describer = py::cpp_function([shared](const py::handle &ref) {
      return describe(*shared, toRef(ref).get());
    });
    contextObj.attr("erased_operation_describer") = describer;
  }
  PyProvenance(const PyProvenance &) = delete;
  PyProvenance &operator=(const PyProvenance &) = delete;
  ~PyProvenance() {
    // At interpreter exit the context may be half torn down: whatever
    // uninstalling the describer raises is dropped.
    try {
      close();
    } catch (...) {
      PyErr_Clear();
    }
  }

  bool isOpen() const {
    std::lock_guard<std::mutex> lock(recorder->mutex);
    return !mlirErasureProvenanceIsNull(recorder->provenance);
  }
  /// Stops recording and drops the records; uninstalls the describer unless
  /// another one replaced it.
  void close() {
    {
      // Under the lock: a describe() running on another thread finishes
      // first, and none starts on the destroyed recorder.
      std::lock_guard<std::mutex> lock(recorder->mutex);
      if (mlirErasureProvenanceIsNull(recorder->provenance))
        return;
      mlirErasureProvenanceDestroy(recorder->provenance);
      recorder->provenance = {nullptr};
    }
    py::object installed = contextObj.attr("erased_operation_describer");
    if (installed.is(describer))
      contextObj.attr("erased_operation_describer") = py::none();
  }
  void instrument(MlirPassManager pm) {
    std::lock_guard<std::mutex> lock(recorder->mutex);
    if (mlirErasureProvenanceIsNull(recorder->provenance))
      throw py::value_error("erasure provenance has been closed");
    mlirErasureProvenanceInstrument(recorder->provenance, pm);
  }

  py::object describe(MlirOperationRef ref) const {
    return describe(*recorder, ref);
  }

  py::object contextObj;

private:
  static py::object describe(Recorder &recorder, MlirOperationRef ref) {
    std::string text;
    bool found = false;
    {
      std::lock_guard<std::mutex> lock(recorder.mutex);
      if (!mlirErasureProvenanceIsNull(recorder.provenance) &&
          !mlirOperationRefIsNull(ref))
        found = mlirErasureProvenanceDescribe(
            recorder.provenance, ref,
            [](MlirStringRef part, void *userData) {
              static_cast<std::string *>(userData)->append(part.data,
                                                           part.length);
            },
            &text);
    }
    return found ? py::object(toStr(text)) : py::none();
  }

  std::shared_ptr<Recorder> recorder;
  py::object describer;
};

/// A new MlirOperationRef to what any of the reference kinds Python may hold
/// refers to.
OwnedRef toRef(const py::handle &obj) {
  if (py::isinstance<PyOpRef>(obj))
    return py::cast<const PyOpRef &>(obj).get();
  if (py::isinstance<PyScopedRef>(obj))
    return py::cast<const PyScopedRef &>(obj).get();
  if (PyCapsule_CheckExact(obj.ptr())) {
    MlirOperationRef ref = mlirPythonCapsuleToOperationRef(obj.ptr());
    if (mlirOperationRefIsNull(ref))
      throwPythonError();
    return OwnedRef(mlirOperationRefCopy(ref));
  }
  throw py::type_error("expected an mlir.weakref reference or an "
                       "OperationRef capsule");
}

/// `repr(reference)` in the style of CPython's weakref.ref: what it refers
/// to, or that it is dead: `<mlir.weakref.ref at 0x...; to 'arith.addi'>`.
template <typename RefClass>
std::string refRepr(py::handle self, const char *kind) {
  OwnedRef ref = py::cast<const RefClass &>(self).peek();
  std::string state = "dead";
  if (mlirOperationRefIsNull(ref.get())) {
    state = "scope closed or reset";
  } else {
    MlirOperation op = mlirOperationRefDeref(ref.get());
    if (!mlirOperationIsNull(op)) {
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
      state = "to '" + std::string(name.data, name.length) + "'";
    }
  }
  char address[32];
  std::snprintf(address, sizeof(address), "%p",
                static_cast<void *>(self.ptr()));
  return std::string("<mlir.weakref.") + kind + " at " + address + "; " +
         state + ">";
}

template <typename RefClass>
void defineRefMethods(py::class_<RefClass> &cls, const char *kind) {
  cls.def("__repr__",
          [kind](py::handle self) { return refRepr<RefClass>(self, kind); })
      .def(
          "__call__",
          [](const RefClass &self) {
            return toPython(mlirOperationRefDeref(self.get().get()));
          },
          "Returns the operation, or None if it has been destroyed.")
      .MLIR_WEAKREF_DEF_PROPERTY_READONLY(
          "alive",
          [](const RefClass &self) {
            return !mlirOperationRefIsExpired(self.get().get());
          },
          "False once the operation has been destroyed.")
      .def("__eq__",
           [](const RefClass &self, const py::object &other) -> py::object {
             if (!py::isinstance<PyOpRef>(other) &&
                 !py::isinstance<PyScopedRef>(other))
               return borrow(Py_NotImplemented);
             return py::bool_(
                 mlirOperationRefEqual(self.get().get(), toRef(other).get()));
           })
      .def("__hash__", [](const RefClass &self) {
        return static_cast<Py_ssize_t>(
            mlirOperationRefHashValue(self.get().get()));
      });
}

} // namespace

MLIR_WEAKREF_PYTHON_MODULE(_mlirWeakRef, m) {
  m.doc() = "Weak operation references, reference scopes and erasure "
            "provenance (the compiled half of mlir.weakref)";

  py::class_<PyOpRef> opRef(m, "OpRef", "A weak reference to an operation.");
  opRef.def(py::init<py::handle>(), py::arg("operation"),
            "Creates a weak reference to a live operation.");
  defineRefMethods(opRef, "ref");

  py::class_<PyScopedRef> scopedRef(
      m, "ScopedRef",
      "A weak reference owned by a RefScope; raises ReferenceError once the "
      "scope is closed or reset.");
  defineRefMethods(scopedRef, "ScopedRef");

  py::class_<PyRefScope>(m, "RefScope",
                         "Owns weak references until closed; a context "
                         "manager.")
      .def(py::init<>())
      .def(
          "ref",
          [](py::object self, const py::handle &op) {
            MlirOperation operation = toOperation(op);
            uint64_t key = py::cast<PyRefScope &>(self).createRef(operation);
            return PyScopedRef(std::move(self), key);
          },
          py::arg("operation"),
          "Creates a reference to `operation` owned by this scope.")
      .def("__len__",
           [](const PyRefScope &self) { return self.size(); })
      .def(
          "count_alive",
          [](const PyRefScope &self) { return self.countAlive(); },
          "How many of the scope's references refer to a live operation.")
      .def("reset", &PyRefScope::reset,
           "Drops every reference; the scope stays open.")
      .def("close", &PyRefScope::close, "Drops every reference.")
      .MLIR_WEAKREF_DEF_PROPERTY_READONLY(
          "closed", [](const PyRefScope &self) { return !self.isOpen(); })
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](PyRefScope &self, const py::args &) { self.close(); });

  py::class_<PyProvenance>(
      m, "ErasureProvenance",
      "Records what destroyed weakly referenced operations of a context.\n\n"
      "While open, `describe(r)` tells what destroyed the operation of a dead "
      "reference `r` (its name, location, and the pass that was running, for "
      "pass managers given to `instrument`), and so does the RuntimeError "
      "raised when an erased operation's wrapper is used:\n\n"
      "    RuntimeError: the operation has been erased: `arith.muli` at\n"
      "    loc(unknown) erased during pass 'canonicalize'\n\n"
      "Only operations with a weak reference are recorded: every Python "
      "Operation wrapper holds one. At most one recorder per context; a "
      "context manager, closed when garbage collected. It keeps the context "
      "alive.\n\n"
      "Thread safety: `describe` may be called from any thread. Creating "
      "the recorder and closing it (`close()`, leaving the "
      "`with` block, or its garbage collection) set the context's "
      "destruction hook, which must not race with the destruction of the "
      "context's operations on other threads: do neither while another "
      "thread runs a pass manager on the context, erases its operations or "
      "drops its modules. Close it explicitly rather than leaving it to the "
      "garbage collector when other threads use the context.")
      .def(py::init<py::object>(), py::arg("context") = py::none(),
           "Starts recording for `context` (default: the current context). "
           "Not while other threads destroy the context's operations.")
      .def("instrument", &PyProvenance::instrument, py::arg("pass_manager"),
           "Attributes erasures made by the pass manager's passes to them.")
      .def(
          "describe",
          [](const PyProvenance &self, const py::handle &ref) {
            return self.describe(toRef(ref).get());
          },
          py::arg("ref"),
          "What destroyed the operation `ref` refers to, or None if it is "
          "alive or was destroyed while not recording.")
      .def("close", &PyProvenance::close,
           "Stops recording; earlier records are dropped. Not while other "
           "threads destroy the context's operations.")
      .MLIR_WEAKREF_DEF_PROPERTY_READONLY(
          "closed", [](const PyProvenance &self) { return !self.isOpen(); })
      .MLIR_WEAKREF_DEF_READONLY("context", &PyProvenance::contextObj)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__",
           [](PyProvenance &self, const py::args &) { self.close(); });
}
