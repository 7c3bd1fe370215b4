//! Weak operation references from Rust: take a reference to every operation
//! of a module, run `canonicalize`, and see which operations it erased.
//!
//!     MLIR_WEAKREF_LIB_DIR=/work/main/build/lib cargo run --example canonicalize
//!
//! `cargo test` runs it too (the test at the end checks what it prints).

use mlir_weakref::{Context, Module, OperationRef, PassManager};
use std::error::Error;

/// `canonicalize` folds `2 + 3` (erasing both constants and the sum, and
/// creating a constant 5), and merges `^bb1` into the entry block (erasing
/// the branch; the `return` moves, and survives).
const SOURCE: &str = r#"
module {
  func.func @f(%a: i32) -> i32 {
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %s = arith.addi %c2, %c3 : i32
    %r = arith.addi %a, %s : i32
    cf.br ^bb1(%r : i32)
  ^bb1(%x: i32):
    return %x : i32
  }
}
"#;

/// Prints and returns each operation's name and whether it survived
/// `canonicalize`, in walk order; checks that the references outlive the
/// module and the context.
fn run() -> Result<Vec<(String, bool)>, Box<dyn Error>> {
    // [readme:rust]
    let ctx = Context::new(); // func, arith and cf dialects registered
    let mut module = Module::parse(&ctx, SOURCE)?;
    let refs: Vec<(String, OperationRef)> = module
        .as_operation()
        .walk()
        .into_iter()
        .map(|op| (op.name(), OperationRef::new(op)))
        .collect();

    PassManager::parse(&ctx, "canonicalize")?.run(&mut module)?;

    for (name, weak) in &refs {
        match weak.upgrade(&module) {
            Ok(op) => println!("{:<14} alive: {:?}", name, op),
            Err(e) => println!("{:<14} {}", name, e), // DerefError::Erased
        }
    }
    // [/readme:rust]
    let survived = refs
        .iter()
        .map(|(name, weak)| (name.clone(), weak.get(&module).is_some()))
        .collect();
    drop(module);
    drop(ctx);
    assert!(refs.iter().all(|(_, weak)| weak.is_expired()));
    Ok(survived)
}

fn main() -> Result<(), Box<dyn Error>> {
    run().map(|_| ())
}

#[cfg(test)]
mod tests {
    #[test]
    fn example_runs_and_canonicalize_erases_the_folded_ops() {
        let outcome = super::run().expect("the example failed");
        let outcome: Vec<(&str, bool)> = outcome.iter().map(|(n, a)| (n.as_str(), *a)).collect();
        assert_eq!(
            outcome,
            [
                ("builtin.module", true),
                ("func.func", true),
                ("arith.constant", false),
                ("arith.constant", false),
                ("arith.addi", false),
                ("arith.addi", true),
                ("cf.br", false),
                ("func.return", true),
            ]
        );
    }
}
