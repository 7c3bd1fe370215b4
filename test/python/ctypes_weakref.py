# RUN: %PYTHON %s %weakref_c_lib | FileCheck %s
# The TSan runtime cannot be loaded into an uninstrumented interpreter.
# UNSUPPORTED: tsan
"""Weak operation references from Python through ctypes alone: no compiled
extension, only the C API exported by libMLIRWeakRefC.so."""

import ctypes
import sys

lib = ctypes.CDLL(sys.argv[1])


def handle(name):
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


MlirContext = handle("MlirContext")
MlirOperation = handle("MlirOperation")
MlirOperationRef = handle("MlirOperationRef")
MlirRegion = handle("MlirRegion")
MlirBlock = handle("MlirBlock")
MlirPassManager = handle("MlirPassManager")
MlirPass = handle("MlirPass")
MlirDialectHandle = handle("MlirDialectHandle")
MlirWeakOpMap = handle("MlirWeakOpMap")


class MlirStringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


class MlirIdentifier(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p)]


class MlirLogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


def fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)
    return f


mlirContextCreate = fn("mlirContextCreate", MlirContext)
mlirContextDestroy = fn("mlirContextDestroy", None, MlirContext)
mlirDialectHandleRegisterDialect = fn(
    "mlirDialectHandleRegisterDialect", None, MlirDialectHandle, MlirContext)
getFunc = fn("mlirGetDialectHandle__func__", MlirDialectHandle)
getArith = fn("mlirGetDialectHandle__arith__", MlirDialectHandle)
mlirOperationCreateParse = fn(
    "mlirOperationCreateParse", MlirOperation, MlirContext, MlirStringRef, MlirStringRef)
mlirOperationDestroy = fn("mlirOperationDestroy", None, MlirOperation)
mlirOperationGetRegion = fn("mlirOperationGetRegion", MlirRegion, MlirOperation, ctypes.c_ssize_t)
mlirRegionGetFirstBlock = fn("mlirRegionGetFirstBlock", MlirBlock, MlirRegion)
mlirBlockGetFirstOperation = fn("mlirBlockGetFirstOperation", MlirOperation, MlirBlock)
mlirOperationGetNextInBlock = fn("mlirOperationGetNextInBlock", MlirOperation, MlirOperation)
mlirOperationGetName = fn("mlirOperationGetName", MlirIdentifier, MlirOperation)
mlirIdentifierStr = fn("mlirIdentifierStr", MlirStringRef, MlirIdentifier)
mlirOperationEqual = fn("mlirOperationEqual", ctypes.c_bool, MlirOperation, MlirOperation)
mlirPassManagerCreate = fn("mlirPassManagerCreate", MlirPassManager, MlirContext)
mlirPassManagerDestroy = fn("mlirPassManagerDestroy", None, MlirPassManager)
mlirPassManagerAddOwnedPass = fn("mlirPassManagerAddOwnedPass", None, MlirPassManager, MlirPass)
# LLVM 23.1.1 names the generated pass constructors ...Pass (19.1.7 did not).
mlirCreateTransformsCanonicalizer = fn(
    "mlirCreateTransformsCanonicalizerPass"
    if hasattr(lib, "mlirCreateTransformsCanonicalizerPass")
    else "mlirCreateTransformsCanonicalizer",
    MlirPass,
)
mlirPassManagerRunOnOp = fn("mlirPassManagerRunOnOp", MlirLogicalResult, MlirPassManager, MlirOperation)
RefCreate = fn("mlirOperationRefCreate", MlirOperationRef, MlirOperation)
RefDeref = fn("mlirOperationRefDeref", MlirOperation, MlirOperationRef)
RefDestroy = fn("mlirOperationRefDestroy", None, MlirOperationRef)
RefIsExpired = fn("mlirOperationRefIsExpired", ctypes.c_bool, MlirOperationRef)
MapCreate = fn("mlirWeakOpMapCreate", MlirWeakOpMap)
MapInsert = fn("mlirWeakOpMapInsert", ctypes.c_bool, MlirWeakOpMap, MlirOperation, ctypes.c_ssize_t)
MapSize = fn("mlirWeakOpMapSize", ctypes.c_size_t, MlirWeakOpMap)
MapDestroy = fn("mlirWeakOpMapDestroy", None, MlirWeakOpMap)


def sref(text):
    data = text.encode()
    return MlirStringRef(data, len(data))


def name(op):
    s = mlirIdentifierStr(mlirOperationGetName(op))
    return ctypes.string_at(s.data, s.length).decode()


def body_ops(op):
    block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))
    child = mlirBlockGetFirstOperation(block)
    while child.ptr:
        yield child
        child = mlirOperationGetNextInBlock(child)


ctx = mlirContextCreate()
mlirDialectHandleRegisterDialect(getFunc(), ctx)
mlirDialectHandleRegisterDialect(getArith(), ctx)
module = mlirOperationCreateParse(ctx, sref("""
module {
  func.func @f(%a: i32) -> i32 {
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %s = arith.addi %c2, %c3 : i32
    %unused = arith.muli %a, %s : i32
    %r = arith.addi %a, %s : i32
    return %r : i32
  }
}"""), sref("ctypes.mlir"))
assert module.ptr, "parse failed"
func = next(body_ops(module))
ops = list(body_ops(func))
refs = [(name(op), op, RefCreate(op)) for op in ops]
weak_map = MapCreate()
for i, op in enumerate(ops):
    MapInsert(weak_map, op, i)
# CHECK: before: 6 alive, map size 6
print(f"before: {sum(not RefIsExpired(r) for _, _, r in refs)} alive, map size {MapSize(weak_map)}")

pm = mlirPassManagerCreate(ctx)
mlirPassManagerAddOwnedPass(pm, mlirCreateTransformsCanonicalizer())
# CHECK: canonicalize succeeded: True
print("canonicalize succeeded:", bool(mlirPassManagerRunOnOp(pm, module).value))
mlirPassManagerDestroy(pm)

for n, op, ref in refs:
    live = RefDeref(ref)
    assert (live.ptr is None) == RefIsExpired(ref)
    assert live.ptr is None or mlirOperationEqual(live, op)
    print(n, "erased" if live.ptr is None else "alive")
# CHECK-NEXT: arith.constant erased
# CHECK-NEXT: arith.constant erased
# CHECK-NEXT: arith.addi erased
# CHECK-NEXT: arith.muli erased
# CHECK-NEXT: arith.addi alive
# CHECK-NEXT: func.return alive
# CHECK-NEXT: map size after: 2
print("map size after:", MapSize(weak_map))

mlirOperationDestroy(module)
# CHECK-NEXT: after module destroyed: 0 alive
print(f"after module destroyed: {sum(not RefIsExpired(r) for _, _, r in refs)} alive")
for _, _, ref in refs:
    RefDestroy(ref)
MapDestroy(weak_map)
mlirContextDestroy(ctx)
