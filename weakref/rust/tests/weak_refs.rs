//! OperationRef against real MLIR: canonicalize through the C API pass
//! manager, modules and contexts dropped with references outstanding,
//! references on other threads, and equality and hashing.

use mlir_weakref::{Context, DerefError, Module, Operation, OperationRef, PassManager};
use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::thread;
use std::time::{Duration, Instant};

/// `canonicalize` folds `2 + 3` into a new constant 5 (erasing both
/// constants and their sum, and the now unused multiplication), and merges
/// `^bb1` into the entry block (erasing the branch, moving the `return`).
/// The function, the `addi` of the argument and the `return` survive.
const SOURCE: &str = r#"
module {
  func.func @f(%a: i32) -> i32 {
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %s = arith.addi %c2, %c3 : i32
    %unused = arith.muli %a, %s : i32
    %r = arith.addi %a, %s : i32
    cf.br ^bb1(%r : i32)
  ^bb1(%x: i32):
    return %x : i32
  }
}
"#;

/// The operations of SOURCE in walk order, and whether canonicalize keeps
/// each.
const OPS: [(&str, bool); 9] = [
    ("builtin.module", true),
    ("func.func", true),
    ("arith.constant", false),
    ("arith.constant", false),
    ("arith.addi", false),
    ("arith.muli", false),
    ("arith.addi", true),
    ("cf.br", false),
    ("func.return", true),
];

fn names(ops: &[Operation<'_>]) -> Vec<String> {
    ops.iter().map(|op| op.name()).collect()
}

/// Parses SOURCE and checks that it still reads as OPS says.
fn parse(ctx: &Context) -> Module<'_> {
    let module = Module::parse(ctx, SOURCE).expect("SOURCE parses");
    let expected: Vec<&str> = OPS.iter().map(|(name, _)| *name).collect();
    assert_eq!(names(&module.as_operation().walk()), expected);
    module
}

fn refs_of(module: &Module<'_>) -> Vec<OperationRef> {
    module
        .as_operation()
        .walk()
        .into_iter()
        .map(OperationRef::new)
        .collect()
}

fn canonicalize(ctx: &Context, module: &mut Module<'_>) {
    let pm = PassManager::parse(ctx, "canonicalize").expect("pipeline parses");
    pm.run(module).expect("canonicalize succeeds");
}

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn canonicalize_erases_the_folded_ops_and_keeps_the_rest() {
    let ctx = Context::new();
    let mut module = parse(&ctx);
    let refs = refs_of(&module);
    let addrs_before: Vec<usize> = refs
        .iter()
        .map(|r| r.get(&module).expect("alive before the pass").addr())
        .collect();
    assert!(refs.iter().all(|r| !r.is_expired()));

    canonicalize(&ctx, &mut module);

    let mut survivors = Vec::new();
    for (i, (r, (name, survives))) in refs.iter().zip(OPS.iter()).enumerate() {
        assert_eq!(r.is_expired(), !survives, "op {} ({})", i, name);
        match r.upgrade(&module) {
            Ok(op) => {
                assert!(survives, "op {} ({}) should have been erased", i, name);
                // The same operation: same name, same address, and a new
                // reference to it is equal to the old one.
                assert_eq!(op.name(), *name);
                assert_eq!(op.addr(), addrs_before[i]);
                assert_eq!(OperationRef::new(op), *r);
                survivors.push(op);
            }
            Err(e) => {
                assert!(!survives, "op {} ({}) should have survived", i, name);
                assert_eq!(e, DerefError::Erased);
                assert!(r.get(&module).is_none());
            }
        }
    }

    // What the module now holds: the survivors, in the same order, and the
    // folded constant, a new operation no reference reads.
    let after = module.as_operation().walk();
    assert_eq!(
        names(&after),
        [
            "builtin.module",
            "func.func",
            "arith.constant",
            "arith.addi",
            "func.return"
        ]
    );
    let new_ops: Vec<Operation<'_>> = after
        .iter()
        .copied()
        .filter(|op| !survivors.contains(op))
        .collect();
    assert_eq!(names(&new_ops), ["arith.constant"]);
    let kept: Vec<Operation<'_>> = after
        .iter()
        .copied()
        .filter(|op| survivors.contains(op))
        .collect();
    assert_eq!(kept, survivors);
}

#[test]
fn module_dropped_then_context_with_references_outstanding() {
    let ctx = Context::new();
    let module = parse(&ctx);
    let refs = refs_of(&module);
    let copies = refs.clone();
    assert!(refs.iter().all(|r| r.get(&module).is_some()));

    drop(module);
    assert!(refs.iter().chain(&copies).all(|r| r.is_expired()));
    // Another module of the same context: dead references read Erased (not
    // OutsideModule), although the address may well have been reused.
    let other = parse(&ctx);
    for r in &refs {
        assert_eq!(r.upgrade(&other).unwrap_err(), DerefError::Erased);
    }
    drop(other);

    drop(ctx);
    assert!(refs.iter().chain(&copies).all(|r| r.is_expired()));
    // Clones and drops of references whose context is gone.
    let more = refs.clone();
    assert_eq!(more, refs);
    drop(refs);
    drop(more);
    drop(copies);
}

#[test]
fn context_dropped_under_a_leaked_module_with_references_outstanding() {
    let ctx = Context::new();
    let module = parse(&ctx);
    let refs = refs_of(&module);
    // MLIR cannot destroy a module after its context: the only way to drop
    // the context first is to leak the module, as the C API test does.
    std::mem::forget(module);
    assert!(refs.iter().all(|r| !r.is_expired()));

    drop(ctx);
    assert!(refs.iter().all(|r| r.is_expired()));
    // A new context (possibly at the old one's address) and module: the dead
    // references read Erased.
    let ctx = Context::new();
    let module = parse(&ctx);
    for r in &refs {
        assert_eq!(r.upgrade(&module), Err(DerefError::Erased));
    }
    // And they are dropped on another thread.
    let dropped = thread::spawn(move || {
        let n = refs.len();
        drop(refs);
        n
    })
    .join()
    .expect("the thread did not panic");
    assert_eq!(dropped, OPS.len());
}

#[test]
fn references_read_on_another_thread_while_a_pass_erases_their_ops() {
    let ctx = Context::new();
    let mut module = parse(&ctx);
    let refs = refs_of(&module);
    let theirs = refs.clone();

    // The other thread watches its copies until all are dead, checking that
    // a reference never comes back to life, then drops them there.
    let watcher = thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen_dead = vec![false; theirs.len()];
        while !seen_dead.iter().all(|d| *d) {
            for (r, seen) in theirs.iter().zip(seen_dead.iter_mut()) {
                let expired = r.is_expired();
                assert!(expired || !*seen, "a dead reference read alive again");
                *seen = expired;
            }
            assert!(Instant::now() < deadline, "the references never all died");
            thread::yield_now();
        }
        let clones = theirs.clone();
        assert_eq!(clones, theirs);
        drop(theirs);
        clones.len()
    });

    canonicalize(&ctx, &mut module);
    for (r, (name, survives)) in refs.iter().zip(OPS.iter()) {
        assert_eq!(r.get(&module).is_some(), *survives, "{}", name);
    }
    drop(module);
    assert_eq!(
        watcher.join().expect("the watcher did not panic"),
        OPS.len()
    );
    assert!(refs.iter().all(|r| r.is_expired()));
}

#[test]
fn references_cloned_compared_and_dropped_on_other_threads_while_alive() {
    let ctx = Context::new();
    let module = parse(&ctx);
    let refs = refs_of(&module);

    // Shared (Sync): several threads clone and compare the same references.
    let clones: Vec<Vec<OperationRef>> = thread::scope(|s| {
        let workers: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mine = refs.clone();
                    assert_eq!(mine, refs);
                    assert!(mine.iter().all(|r| !r.is_expired()));
                    mine
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    // Moved (Send): each set is dropped on a thread of its own.
    for mine in clones {
        thread::spawn(move || {
            assert_eq!(mine.len(), OPS.len());
            drop(mine);
        })
        .join()
        .unwrap();
    }

    // The operations are alive, and read the same as before.
    let ops = module.as_operation().walk();
    for (r, op) in refs.iter().zip(&ops) {
        assert_eq!(r.get(&module), Some(*op));
        assert_eq!(OperationRef::new(*op), *r);
    }
}

#[test]
fn clone_eq_and_hash_follow_the_operation_through_its_erasure() {
    let ctx = Context::new();
    let mut module = parse(&ctx);
    let refs = refs_of(&module);
    let clones = refs.clone();

    let mut set: HashSet<OperationRef> = refs.iter().cloned().collect();
    set.extend(clones.iter().cloned());
    assert_eq!(set.len(), OPS.len(), "a clone is equal to its original");
    for (i, r) in refs.iter().enumerate() {
        assert_eq!(*r, clones[i]);
        assert_eq!(hash_of(r), hash_of(&clones[i]));
        for (j, other) in refs.iter().enumerate() {
            assert_eq!(r == other, i == j, "refs {} and {}", i, j);
        }
    }
    // A new reference to the same operation is equal too.
    let func = module.as_operation().find_all("func.func")[0];
    let again = OperationRef::new(func);
    assert_eq!(again, refs[1]);
    assert_eq!(hash_of(&again), hash_of(&refs[1]));
    assert!(set.contains(&again));

    canonicalize(&ctx, &mut module);

    // Dead references stay equal to their clones and distinct from each
    // other: the set still finds every one.
    assert_eq!(set.len(), OPS.len());
    for (r, (name, survives)) in refs.iter().zip(OPS.iter()) {
        assert!(set.contains(r), "{}", name);
        assert_eq!(r.is_expired(), !survives);
    }
    let dead: HashSet<&OperationRef> = refs.iter().filter(|r| r.is_expired()).collect();
    assert_eq!(dead.len(), OPS.iter().filter(|(_, s)| !s).count());
    // The op created by the fold is new: no reference equals one to it.
    let folded = module.as_operation().find_all("arith.constant");
    assert_eq!(folded.len(), 1);
    assert!(!set.contains(&OperationRef::new(folded[0])));
}

#[test]
fn get_refuses_operations_of_other_modules_and_contexts() {
    let ctx = Context::new();
    let a = parse(&ctx);
    let b = parse(&ctx);
    let in_a = OperationRef::new(a.as_operation().find_all("func.return")[0]);
    assert_eq!(
        in_a.get(&a).map(|op| op.name()),
        Some("func.return".to_string())
    );
    assert_eq!(in_a.upgrade(&b), Err(DerefError::OutsideModule));

    let other_ctx = Context::new();
    let c = parse(&other_ctx);
    assert_eq!(in_a.upgrade(&c), Err(DerefError::OutsideModule));

    drop(a);
    assert_eq!(in_a.upgrade(&b), Err(DerefError::Erased));
    assert_eq!(in_a.upgrade(&c), Err(DerefError::Erased));
}

#[test]
fn errors_say_what_went_wrong() {
    let ctx = Context::new();
    assert!(Module::parse(&ctx, "this is not MLIR").is_err());
    let err = PassManager::parse(&ctx, "no-such-pass")
        .err()
        .expect("refused");
    assert!(err.message.contains("no-such-pass"), "{}", err.message);
    assert!(err.to_string().starts_with("invalid pass pipeline: "));
    assert_eq!(
        DerefError::Erased.to_string(),
        "the referenced operation was erased"
    );
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(DerefError::Erased);
    assert!(boxed.to_string().contains("erased"));
}

#[test]
fn parse_reads_no_further_than_the_str() {
    // The module text is followed by bytes that are not MLIR (LLVM 19.1.7's
    // lexer reads past the end of a buffer unless a NUL follows it).
    let text = "module {}\nthis is not MLIR";
    let ctx = Context::new();
    let module = Module::parse(&ctx, &text[.."module {}".len()]).expect("parses");
    assert_eq!(names(&module.as_operation().walk()), ["builtin.module"]);
}

#[test]
#[should_panic(expected = "the module belongs to another context")]
fn a_pass_manager_refuses_a_module_of_another_context() {
    let ctx = Context::new();
    let other = Context::new();
    let mut module = parse(&other);
    let pm = PassManager::parse(&ctx, "canonicalize").unwrap();
    let _ = pm.run(&mut module);
}

#[test]
fn operation_ref_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<OperationRef>();
    assert_send_sync::<DerefError>();
}
