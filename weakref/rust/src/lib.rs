//! A safe Rust handle over `MlirOperationRef`, the weak operation references
//! of the patched MLIR C API (patch 0018, 19.1.7: 0003; `mlir-c/IR.h`), with
//! just enough of MLIR around it to use one: a [`Context`] (builtin, func,
//! arith and cf dialects), a [`Module`] parsed from text, [`Operation`]s
//! borrowed from it, and a [`PassManager`] built from a textual pipeline.
//!
//! An [`OperationRef`] does not keep its operation alive. Once the operation
//! has been destroyed, by whatever path (a pass, the erasure of a parent, the
//! destruction of the module or of the context), [`OperationRef::get`] reads
//! `None`, never an operation later allocated at the same address: no
//! dangling pointer of the kind melior's issue #695 ("References to dropped
//! operations cause segmentation faults") is about.
//!
//! Everything links against `libMLIRWeakRefC.so` only, through the
//! hand-written declarations of `ffi.rs`; `build.rs` finds the library through
//! `MLIR_WEAKREF_LIB_DIR`. `examples/canonicalize.rs` is a complete use.
//!
//! # What the types guarantee
//!
//! * An [`Operation<'m>`](Operation) borrows the [`Module`] it is in: while it
//!   is in use the module can be neither dropped nor run through a pass
//!   manager ([`PassManager::run`] takes `&mut Module`):
//!
//!   ```compile_fail,E0505
//!   use mlir_weakref::{Context, Module};
//!   let ctx = Context::new();
//!   let module = Module::parse(&ctx, "module {}").unwrap();
//!   let op = module.as_operation();
//!   drop(module); // error: `module` is borrowed by `op`
//!   op.name();
//!   ```
//!
//!   ```compile_fail,E0502
//!   use mlir_weakref::{Context, Module, OperationRef, PassManager};
//!   let ctx = Context::new();
//!   let mut module = Module::parse(&ctx, "module {}").unwrap();
//!   let pm = PassManager::parse(&ctx, "canonicalize").unwrap();
//!   let weak = OperationRef::new(module.as_operation());
//!   let op = weak.get(&module).unwrap();
//!   pm.run(&mut module).unwrap(); // error: `module` is borrowed by `op`
//!   op.name();
//!   ```
//!
//! * [`Context`], [`Module`] and [`Operation`] are neither `Send` nor `Sync`:
//!   a context and all its IR stay on the thread that created the context
//!   (MLIR's own worker threads touch it only inside a call such as
//!   [`PassManager::run`]), so no other thread can destroy an operation while
//!   this thread uses it.
//!
//!   ```compile_fail,E0277
//!   fn send<T: Send>(_: T) {}
//!   send(mlir_weakref::Context::new());
//!   ```
//!
//! * [`OperationRef`] is `Send` and `Sync` (see its documentation for why the
//!   C API's contract allows it): references may be moved to, cloned on and
//!   dropped on any thread, and outlive their module and context.
//!
//! # What they do not
//!
//! The C API returns a raw operation from a reference, and `WeakOpRef.h` says
//! so plainly: "`get()` returns a raw pointer: using it while another thread
//! may destroy the operation is a data race like any other access to that
//! operation". [`OperationRef::get`] is safe here only because of the second
//! point above: it dereferences a reference only against a module that the
//! caller borrows on the context's own thread, and returns `None` for an
//! operation of another context without reading it. A binding whose contexts
//! or modules are `Send` or `Sync` (so that another thread may run a pass over
//! a module while this one holds one of its operations) cannot get this from
//! the types: there, `get` has to be an `unsafe fn`, or IR mutation has to be
//! serialised with its reads by some lock of the binding's own. Nothing in the
//! C API (or this crate) keeps an operation alive.

mod ffi;

use std::error::Error;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::os::raw::c_void;
use std::panic::{self, AssertUnwindSafe};
use std::process;
use std::sync::Once;

/// An MLIR context with the func, arith and cf dialects registered (builtin
/// is always there). It owns the `MlirContext` and destroys it when dropped;
/// references still outstanding then read `None`.
///
/// Neither `Send` nor `Sync` (it holds a raw pointer): the context and all
/// its IR stay on one thread, which is what makes [`OperationRef::get`] safe.
pub struct Context {
    raw: ffi::MlirContext,
}

impl Context {
    /// Creates a context and registers the func, arith and cf dialects
    /// through their dialect handles (they are loaded when first parsed).
    pub fn new() -> Context {
        unsafe {
            let raw = ffi::mlirContextCreate();
            assert!(!raw.ptr.is_null(), "mlirContextCreate returned null");
            for handle in [
                ffi::mlirGetDialectHandle__func__(),
                ffi::mlirGetDialectHandle__arith__(),
                ffi::mlirGetDialectHandle__cf__(),
            ] {
                ffi::mlirDialectHandleRegisterDialect(handle, raw);
            }
            Context { raw }
        }
    }
}

impl Default for Context {
    fn default() -> Context {
        Context::new()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { ffi::mlirContextDestroy(self.raw) }
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("raw", &self.raw.ptr)
            .finish()
    }
}

/// A `builtin.module` parsed from text, owned: dropping it destroys every
/// operation in it, and references to them then read `None`. It borrows its
/// [`Context`], which therefore outlives it (MLIR cannot destroy a module
/// after its context; `std::mem::forget` on a module leaks it, and dropping
/// the context afterwards still makes its references read `None`).
pub struct Module<'c> {
    raw: ffi::MlirModule,
    context: &'c Context,
}

impl<'c> Module<'c> {
    /// Parses `source` (a `module { ... }`, or operations to wrap in one).
    /// On failure MLIR reports the diagnostics through the context's
    /// handlers (stderr by default) and this returns [`ParseError`].
    pub fn parse(context: &'c Context, source: &str) -> Result<Module<'c>, ParseError> {
        // `MlirStringRef` need not be NUL-terminated, but LLVM 19.1.7's lexer
        // only stops at the end of its buffer where a NUL follows it, and
        // reads on otherwise (23.1.1's stops at the end): parse a copy that
        // has one, without counting it in the length.
        let mut text = Vec::with_capacity(source.len() + 1);
        text.extend_from_slice(source.as_bytes());
        text.push(0);
        let source = ffi::MlirStringRef {
            data: text.as_ptr() as *const std::os::raw::c_char,
            length: source.len(),
        };
        let raw = unsafe { ffi::mlirModuleCreateParse(context.raw, source) };
        if raw.ptr.is_null() {
            return Err(ParseError);
        }
        Ok(Module { raw, context })
    }

    /// The module's `builtin.module` operation, borrowed from the module.
    pub fn as_operation(&self) -> Operation<'_> {
        Operation::from_raw(unsafe { ffi::mlirModuleGetOperation(self.raw) })
    }

    /// The context the module belongs to.
    pub fn context(&self) -> &'c Context {
        self.context
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        unsafe { ffi::mlirModuleDestroy(self.raw) }
    }
}

impl fmt::Debug for Module<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("raw", &self.raw.ptr)
            .finish()
    }
}

/// An operation of a [`Module`], borrowed from it for `'m`: a copyable
/// non-owning handle that cannot outlive the module's borrow, so the module
/// can be neither dropped nor transformed while it is in use.
///
/// Equality is identity (`mlirOperationEqual`: the same operation).
#[derive(Clone, Copy)]
pub struct Operation<'m> {
    raw: ffi::MlirOperation,
    _module: PhantomData<&'m ()>,
}

impl<'m> Operation<'m> {
    fn from_raw(raw: ffi::MlirOperation) -> Operation<'m> {
        debug_assert!(!raw.ptr.is_null());
        Operation {
            raw,
            _module: PhantomData,
        }
    }

    /// The operation's name, e.g. `"arith.addi"`.
    pub fn name(&self) -> String {
        unsafe { ffi::to_string(ffi::mlirIdentifierStr(ffi::mlirOperationGetName(self.raw))) }
    }

    /// This operation and every operation nested in it, in pre-order
    /// (`mlirOperationWalk`).
    pub fn walk(&self) -> Vec<Operation<'m>> {
        extern "C" fn push(op: ffi::MlirOperation, ops: *mut c_void) -> ffi::MlirWalkResult {
            // A panic must not unwind into C++.
            let pushed = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
                (*(ops as *mut Vec<ffi::MlirOperation>)).push(op)
            }));
            if pushed.is_err() {
                process::abort();
            }
            ffi::MLIR_WALK_RESULT_ADVANCE
        }
        let mut ops: Vec<ffi::MlirOperation> = Vec::new();
        unsafe {
            ffi::mlirOperationWalk(
                self.raw,
                Some(push),
                &mut ops as *mut Vec<ffi::MlirOperation> as *mut c_void,
                ffi::MLIR_WALK_PRE_ORDER,
            )
        }
        ops.into_iter().map(Operation::from_raw).collect()
    }

    /// The operations named `name` among [`walk`](Operation::walk)'s.
    pub fn find_all(&self, name: &str) -> Vec<Operation<'m>> {
        self.walk()
            .into_iter()
            .filter(|op| op.name() == name)
            .collect()
    }

    /// The address of the operation: for printing only (a destroyed
    /// operation's address may be reused by a new one).
    pub fn addr(&self) -> usize {
        self.raw.ptr as usize
    }
}

impl PartialEq for Operation<'_> {
    fn eq(&self, other: &Self) -> bool {
        unsafe { ffi::mlirOperationEqual(self.raw, other.raw) }
    }
}

impl Eq for Operation<'_> {}

impl fmt::Debug for Operation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Operation({} at {:#x})", self.name(), self.addr())
    }
}

/// A weak reference to an operation: it does not keep the operation alive,
/// reads `None` once the operation has been destroyed (never an operation
/// later allocated at the same address), and may outlive its module and its
/// context. `Clone` is `mlirOperationRefCopy`, `Drop` is
/// `mlirOperationRefDestroy`, and `==` and `Hash` are `mlirOperationRefEqual`
/// and `mlirOperationRefHashValue`: references are equal when they were
/// created from the same operation, before and after its destruction, so a
/// `HashSet<OperationRef>` keeps working as operations die.
///
/// # `Send` and `Sync`
///
/// Both, because the C API's threading contract allows it. The "Thread
/// safety" paragraph of `mlir/IR/WeakOpRef.h` (patch 0011, 19.1.7: 0001),
/// which the C functions wrap, says: "References may be copied, dropped and
/// read with `WeakOpRef::get()` on any thread, concurrently with the
/// destruction of the referenced operation, or of its context, on another";
/// its "Context lifetime" paragraph: "References may outlive their context:
/// destroying the context makes every outstanding reference read null." So
/// moving a reference to another thread and cloning, dropping or testing it
/// there (`Send`), and cloning, comparing, hashing or testing one
/// `&OperationRef` on several threads at once (`Sync`: copying is an atomic
/// increment of the shared count, `mlirOperationRefDeref` and
/// `mlirOperationRefIsExpired` an atomic load, equality and hashing read only
/// the handle) are all within the contract.
///
/// The contract stops at the operation `Deref` returns: "using it while
/// another thread may destroy the operation is a data race like any other
/// access to that operation". That is why [`get`](OperationRef::get) takes the
/// module the operation must be in and ties the [`Operation`] it returns to
/// that borrow; see the crate documentation for what this relies on.
pub struct OperationRef {
    raw: ffi::MlirOperationRef,
    /// The operation's context when the reference was created: compared,
    /// never dereferenced. It tells `get` whether the operation can belong to
    /// the caller's module without reading the operation.
    context: *mut c_void,
}

// See the `Send` and `Sync` section above.
unsafe impl Send for OperationRef {}
unsafe impl Sync for OperationRef {}

impl OperationRef {
    /// Creates a weak reference to `op` (`mlirOperationRefCreate`). The first
    /// reference to an operation sets a flag on it and adds an entry to its
    /// context's table; further ones share that entry.
    pub fn new(op: Operation<'_>) -> OperationRef {
        unsafe {
            let raw = ffi::mlirOperationRefCreate(op.raw);
            assert!(!raw.ptr.is_null(), "mlirOperationRefCreate returned null");
            OperationRef {
                raw,
                context: ffi::mlirOperationGetContext(op.raw).ptr,
            }
        }
    }

    /// Whether the operation has been destroyed (`mlirOperationRefIsExpired`).
    /// Needs no module, and may be called on any thread.
    pub fn is_expired(&self) -> bool {
        unsafe { ffi::mlirOperationRefIsExpired(self.raw) }
    }

    /// The operation, if it is alive and inside `module`; borrowed from the
    /// module. `None` once it has been destroyed (by a pass, the erasure of a
    /// parent, or the destruction of its module or context), and for an
    /// operation of another module. [`upgrade`](OperationRef::upgrade) says
    /// which.
    pub fn get<'m>(&self, module: &'m Module<'_>) -> Option<Operation<'m>> {
        self.upgrade(module).ok()
    }

    /// Like [`get`](OperationRef::get), with the reason when there is no
    /// operation: [`DerefError::Erased`] or [`DerefError::OutsideModule`].
    pub fn upgrade<'m>(&self, module: &'m Module<'_>) -> Result<Operation<'m>, DerefError> {
        // An atomic load: no read of the operation.
        let op = unsafe { ffi::mlirOperationRefDeref(self.raw) };
        if op.ptr.is_null() {
            return Err(DerefError::Erased);
        }
        // Another context, possibly on another thread: the operation must not
        // be read.
        if self.context != module.context.raw.ptr {
            return Err(DerefError::OutsideModule);
        }
        // The caller's context, hence this thread's: no other thread can
        // destroy the operation while its ancestors are read. (It cannot be
        // an operation of an earlier context at the same address: destroying
        // a context nulls its references before freeing it, and the free
        // happened before the caller's context was allocated, on this thread,
        // before the load above.)
        let top = unsafe { ffi::mlirModuleGetOperation(module.raw) };
        let mut cur = op;
        while !cur.ptr.is_null() {
            if unsafe { ffi::mlirOperationEqual(cur, top) } {
                return Ok(Operation::from_raw(op));
            }
            cur = unsafe { ffi::mlirOperationGetParentOperation(cur) };
        }
        Err(DerefError::OutsideModule)
    }
}

impl Clone for OperationRef {
    fn clone(&self) -> OperationRef {
        OperationRef {
            raw: unsafe { ffi::mlirOperationRefCopy(self.raw) },
            context: self.context,
        }
    }
}

impl Drop for OperationRef {
    fn drop(&mut self) {
        unsafe { ffi::mlirOperationRefDestroy(self.raw) }
    }
}

impl PartialEq for OperationRef {
    fn eq(&self, other: &OperationRef) -> bool {
        unsafe { ffi::mlirOperationRefEqual(self.raw, other.raw) }
    }
}

impl Eq for OperationRef {}

impl Hash for OperationRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(unsafe { ffi::mlirOperationRefHashValue(self.raw) })
    }
}

impl fmt::Debug for OperationRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OperationRef")
            .field("expired", &self.is_expired())
            .finish()
    }
}

/// Why [`OperationRef::upgrade`] returned no operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DerefError {
    /// The operation has been destroyed: erased (by a pass, say), destroyed
    /// with a parent or its module, or with its context.
    Erased,
    /// The operation is alive, but not inside the module passed in.
    OutsideModule,
}

impl fmt::Display for DerefError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DerefError::Erased => "the referenced operation was erased",
            DerefError::OutsideModule => {
                "the referenced operation is alive but not inside this module"
            }
        })
    }
}

impl Error for DerefError {}

/// [`Module::parse`] failed; MLIR reported why through the context's
/// diagnostic handlers (stderr by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseError;

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("failed to parse the MLIR module (diagnostics were reported on stderr)")
    }
}

impl Error for ParseError {}

/// A pass manager of a context, with the passes of a textual pipeline.
pub struct PassManager<'c> {
    raw: ffi::MlirPassManager,
    context: &'c Context,
}

impl<'c> PassManager<'c> {
    /// Creates a pass manager (`mlirPassManagerCreate`) and adds the passes
    /// of `pipeline`, e.g. `"canonicalize"` or `"cse,canonicalize"`
    /// (`mlirOpPassManagerAddPipeline`); the error carries MLIR's message.
    /// MLIR's transforms passes are registered, once per process, first.
    pub fn parse(context: &'c Context, pipeline: &str) -> Result<PassManager<'c>, PipelineError> {
        // MLIR's pass registry is a global without a lock: registering must
        // not race with itself or with pipeline parsing on other threads.
        static REGISTER: Once = Once::new();
        REGISTER.call_once(|| unsafe { ffi::mlirRegisterTransformsPasses() });
        extern "C" fn append(text: ffi::MlirStringRef, message: *mut c_void) {
            let appended = panic::catch_unwind(AssertUnwindSafe(|| unsafe {
                (*(message as *mut String)).push_str(&ffi::to_string(text))
            }));
            if appended.is_err() {
                process::abort();
            }
        }
        let pm = PassManager {
            raw: unsafe { ffi::mlirPassManagerCreate(context.raw) },
            context,
        };
        let mut message = String::new();
        let added = unsafe {
            ffi::mlirOpPassManagerAddPipeline(
                ffi::mlirPassManagerGetAsOpPassManager(pm.raw),
                ffi::string_ref(pipeline),
                Some(append),
                &mut message as *mut String as *mut c_void,
            )
        };
        if added.value == 0 {
            return Err(PipelineError { message });
        }
        Ok(pm)
    }

    /// Runs the pipeline on `module` (`mlirPassManagerRunOnOp`). It takes
    /// the module mutably: no [`Operation`] of it can be in use meanwhile.
    ///
    /// # Panics
    /// If `module` belongs to another context than the pass manager.
    pub fn run(&self, module: &mut Module<'_>) -> Result<(), PassFailed> {
        assert!(
            self.context.raw.ptr == module.context.raw.ptr,
            "PassManager::run: the module belongs to another context"
        );
        let result = unsafe {
            ffi::mlirPassManagerRunOnOp(self.raw, ffi::mlirModuleGetOperation(module.raw))
        };
        if result.value == 0 {
            return Err(PassFailed);
        }
        Ok(())
    }
}

impl Drop for PassManager<'_> {
    fn drop(&mut self) {
        unsafe { ffi::mlirPassManagerDestroy(self.raw) }
    }
}

/// [`PassManager::parse`] could not parse the pipeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PipelineError {
    /// MLIR's message.
    pub message: String,
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid pass pipeline: {}", self.message)
    }
}

impl Error for PipelineError {}

/// [`PassManager::run`] failed (a pass signalled failure; MLIR reported the
/// diagnostics on stderr by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PassFailed;

impl fmt::Display for PassFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the pass pipeline failed")
    }
}

impl Error for PassFailed {}
