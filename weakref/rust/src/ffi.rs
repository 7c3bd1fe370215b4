//! Hand-written declarations of the few C functions this crate calls, from
//! `mlir-c/IR.h`, `mlir-c/Pass.h`, `mlir-c/Support.h`, the dialect headers
//! and patch 0018's (19.1.7: 0003) weak-reference API (`MlirOperationRef`).
//! All of them are exported by libMLIRWeakRefC.so for both LLVM 23.1.1 and
//! 19.1.7 (checked with `nm -D --defined-only`).
//!
//! The handle types are `struct { void *ptr; }` in C, passed and returned by
//! value; `#[repr(C)]` structs of one pointer have the same ABI.

#![allow(non_snake_case)]

use std::os::raw::{c_char, c_int, c_void};

macro_rules! handle {
    ($($name:ident),*) => {$(
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name {
            pub ptr: *mut c_void,
        }
    )*};
}

handle!(
    MlirContext,
    MlirDialectHandle,
    MlirIdentifier,
    MlirModule,
    MlirOperation,
    MlirOperationRef,
    MlirOpPassManager,
    MlirPassManager
);

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MlirStringRef {
    pub data: *const c_char,
    pub length: usize,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct MlirLogicalResult {
    pub value: i8,
}

/// `MlirWalkResult`, a C enum (an `int`).
pub type MlirWalkResult = c_int;
pub const MLIR_WALK_RESULT_ADVANCE: MlirWalkResult = 0;
/// `MlirWalkOrder`, a C enum (an `int`).
pub type MlirWalkOrder = c_int;
pub const MLIR_WALK_PRE_ORDER: MlirWalkOrder = 0;

pub type MlirStringCallback = Option<extern "C" fn(MlirStringRef, *mut c_void)>;
pub type MlirOperationWalkCallback =
    Option<extern "C" fn(MlirOperation, *mut c_void) -> MlirWalkResult>;

// Linked by build.rs (cargo:rustc-link-lib=dylib=MLIRWeakRefC).
extern "C" {
    // Context and dialects.
    pub fn mlirContextCreate() -> MlirContext;
    pub fn mlirContextDestroy(context: MlirContext);
    pub fn mlirDialectHandleRegisterDialect(handle: MlirDialectHandle, context: MlirContext);
    pub fn mlirGetDialectHandle__func__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__arith__() -> MlirDialectHandle;
    pub fn mlirGetDialectHandle__cf__() -> MlirDialectHandle;

    // Modules and operations.
    pub fn mlirModuleCreateParse(context: MlirContext, module: MlirStringRef) -> MlirModule;
    pub fn mlirModuleDestroy(module: MlirModule);
    pub fn mlirModuleGetOperation(module: MlirModule) -> MlirOperation;
    pub fn mlirOperationGetContext(op: MlirOperation) -> MlirContext;
    pub fn mlirOperationGetName(op: MlirOperation) -> MlirIdentifier;
    pub fn mlirOperationGetParentOperation(op: MlirOperation) -> MlirOperation;
    pub fn mlirOperationEqual(op: MlirOperation, other: MlirOperation) -> bool;
    pub fn mlirOperationWalk(
        op: MlirOperation,
        callback: MlirOperationWalkCallback,
        user_data: *mut c_void,
        walk_order: MlirWalkOrder,
    );
    pub fn mlirIdentifierStr(ident: MlirIdentifier) -> MlirStringRef;

    // Pass manager.
    pub fn mlirRegisterTransformsPasses();
    pub fn mlirPassManagerCreate(context: MlirContext) -> MlirPassManager;
    pub fn mlirPassManagerDestroy(pass_manager: MlirPassManager);
    pub fn mlirPassManagerGetAsOpPassManager(pass_manager: MlirPassManager) -> MlirOpPassManager;
    pub fn mlirOpPassManagerAddPipeline(
        pass_manager: MlirOpPassManager,
        pipeline_elements: MlirStringRef,
        callback: MlirStringCallback,
        user_data: *mut c_void,
    ) -> MlirLogicalResult;
    pub fn mlirPassManagerRunOnOp(
        pass_manager: MlirPassManager,
        op: MlirOperation,
    ) -> MlirLogicalResult;

    // Weak operation references (patch 0018, 19.1.7: 0003).
    // `mlirOperationRefIsNull` is a static inline function in the header, not
    // exported: a null check of `ptr` stands for it.
    pub fn mlirOperationRefCreate(op: MlirOperation) -> MlirOperationRef;
    pub fn mlirOperationRefCopy(reference: MlirOperationRef) -> MlirOperationRef;
    pub fn mlirOperationRefDestroy(reference: MlirOperationRef);
    pub fn mlirOperationRefDeref(reference: MlirOperationRef) -> MlirOperation;
    pub fn mlirOperationRefIsExpired(reference: MlirOperationRef) -> bool;
    pub fn mlirOperationRefEqual(reference: MlirOperationRef, other: MlirOperationRef) -> bool;
    pub fn mlirOperationRefHashValue(reference: MlirOperationRef) -> usize;
}

/// Borrows `s` as an `MlirStringRef` (not NUL-terminated; MLIR reads `length`
/// bytes).
pub fn string_ref(s: &str) -> MlirStringRef {
    MlirStringRef {
        data: s.as_ptr() as *const c_char,
        length: s.len(),
    }
}

/// Copies the bytes of `s` into a `String`, replacing invalid UTF-8.
///
/// # Safety
/// `s` must point at `length` readable bytes (or have length 0).
pub unsafe fn to_string(s: MlirStringRef) -> String {
    if s.length == 0 {
        return String::new();
    }
    let bytes = std::slice::from_raw_parts(s.data as *const u8, s.length);
    String::from_utf8_lossy(bytes).into_owned()
}
