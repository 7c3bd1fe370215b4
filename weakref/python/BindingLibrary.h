//===- BindingLibrary.h - pybind11 (LLVM 19) or nanobind (LLVM 20+) -------===//
//
// Part of the mlir-weakref project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// This package's extension modules are written once against the few binding
// library calls below: LLVM 19's Python bindings use pybind11, LLVM 20 and
// later use nanobind, and each module must use the library its MLIR's
// bindings use (their type casters for MlirOperation, MlirContext, ...).
//
//===----------------------------------------------------------------------===//

#ifndef MLIR_WEAKREF_PYTHON_BINDINGLIBRARY_H
#define MLIR_WEAKREF_PYTHON_BINDINGLIBRARY_H

#include "llvm/Config/llvm-config.h"

#include <string>

#if LLVM_VERSION_MAJOR >= 20
#include "mlir/Bindings/Python/Nanobind.h"
#include "mlir/Bindings/Python/NanobindAdaptors.h"
namespace py = nanobind;
#define MLIR_WEAKREF_PYTHON_MODULE(name, m) NB_MODULE(name, m)
#define MLIR_WEAKREF_DEF_PROPERTY_READONLY def_prop_ro
#define MLIR_WEAKREF_DEF_READONLY def_ro
#else
#include "mlir/Bindings/Python/PybindAdaptors.h"
namespace py = pybind11;
#define MLIR_WEAKREF_PYTHON_MODULE(name, m) PYBIND11_MODULE(name, m)
#define MLIR_WEAKREF_DEF_PROPERTY_READONLY def_property_readonly
#define MLIR_WEAKREF_DEF_READONLY def_readonly
#endif

namespace mlir_weakref::python {

/// A new reference to `handle`.
inline py::object borrow(py::handle handle) {
#if LLVM_VERSION_MAJOR >= 20
  return py::borrow<py::object>(handle);
#else
  return py::reinterpret_borrow<py::object>(handle);
#endif
}

/// Throws the Python exception that is set (PyErr_Occurred()).
[[noreturn]] inline void throwPythonError() {
#if LLVM_VERSION_MAJOR >= 20
  throw py::python_error();
#else
  throw py::error_already_set();
#endif
}

/// The Python module `name`, imported.
inline py::module_ importModule(const char *name) {
#if LLVM_VERSION_MAJOR >= 20
  return py::module_::import_(name);
#else
  return py::module_::import(name);
#endif
}

/// repr(handle) as a string.
inline std::string reprString(py::handle handle) {
#if LLVM_VERSION_MAJOR >= 20
  return py::repr(handle).c_str();
#else
  return py::repr(handle).cast<std::string>();
#endif
}

/// A Python str holding `text`.
inline py::str toStr(const std::string &text) {
#if LLVM_VERSION_MAJOR >= 20
  return py::str(text.data(), text.size());
#else
  return py::str(text);
#endif
}

/// Whether the type of `handle` (not the object itself, so that no property
/// runs) has attribute `name`.
inline bool typeHasAttr(py::handle handle, const char *name) {
  return PyObject_HasAttrString(
      reinterpret_cast<PyObject *>(Py_TYPE(handle.ptr())), name);
}

} // namespace mlir_weakref::python

#endif // MLIR_WEAKREF_PYTHON_BINDINGLIBRARY_H
