//! Links libMLIRWeakRefC.so (MLIR's C API and the weak-reference C API in one
//! shared library) from the directory named by MLIR_WEAKREF_LIB_DIR, and
//! records that directory as an rpath of the tests and examples.

use std::env;
use std::path::PathBuf;

const VAR: &str = "MLIR_WEAKREF_LIB_DIR";
const LIB: &str = "libMLIRWeakRefC.so";

fn main() {
    println!("cargo:rerun-if-env-changed={}", VAR);
    println!("cargo:rerun-if-changed=build.rs");
    let dir = match env::var_os(VAR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => panic!(
            "{var} is not set: set it to the directory that holds {lib}, the \
             project build's lib/ (build/lib for LLVM 23.1.1, build-19.1.7/lib \
             for 19.1.7; `./setup.sh --print-build-dir` names the build)",
            var = VAR,
            lib = LIB
        ),
    };
    // A relative directory is taken relative to this crate (weakref/rust/),
    // where cargo runs build scripts.
    let dir = match dir.canonicalize() {
        Ok(dir) => dir,
        Err(e) => panic!(
            "{}={}: {} (it must name the directory that holds {})",
            VAR,
            dir.display(),
            e,
            LIB
        ),
    };
    if !dir.join(LIB).is_file() {
        panic!(
            "{}={} holds no {}: build the project first (./setup.sh), or point \
             {} at the directory that holds it",
            VAR,
            dir.display(),
            LIB,
            VAR
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=MLIRWeakRefC");
    // Tests and examples find the library at run time without LD_LIBRARY_PATH.
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
}
