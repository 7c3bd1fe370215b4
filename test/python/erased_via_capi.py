# RUN: %PYTHON %s | FileCheck %s
# REQUIRES: python-bindings
# An operation destroyed through the C API by code the bindings know nothing
# about: its wrapper raises instead of touching freed memory.

import ctypes
import os

import mlir._mlir_libs
from mlir.ir import *

capi = ctypes.CDLL(
    os.path.join(os.path.dirname(mlir._mlir_libs.__file__), "libMLIRWeakRefPythonCAPI.so")
)


class MlirOperation(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


capi.mlirOperationDestroy.argtypes = [MlirOperation]
get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
get_pointer.restype = ctypes.c_void_p
get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

with Context(), Location.unknown():
    module = Module.parse(
        """
        func.func @f(%a: i32) -> i32 {
          %b = arith.addi %a, %a : i32
          return %b : i32
        }
        """
    )
    func = module.body.operations[0]
    ret = func.regions[0].blocks[0].operations[1]
    # CHECK: before: func.func func.return
    print("before:", func.operation.name, ret.operation.name)

    pointer = get_pointer(func.operation._CAPIPtr, b"mlir.ir.Operation._CAPIPtr")
    capi.mlirOperationDestroy(MlirOperation(pointer))

    for op in (func, ret):
        try:
            op.operation.name
        except RuntimeError as e:
            # CHECK: raised: the operation has been erased
            # CHECK: raised: the operation has been erased
            print("raised:", e)
    # CHECK: module still usable: 0 ops
    print("module still usable:", len(module.body.operations), "ops")
