//! PassPipeline semantics with fake passes: convergence, iteration limits, zero budgets,
//! sequences, nesting, report merging, refusals, the changed-check and verify-each.

use oxir_ir::parser::parse_module;
use oxir_ir::Module;
use oxir_passes::{PassOutcome, PassPipeline, PassReport, Refusal, RefusalReason};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::{Mutex, MutexGuard};

/// The tests set process-wide environment variables: run them one at a time.
static ENV_LOCK: Mutex<()> = Mutex::new(());

fn lock_env() -> MutexGuard<'static, ()> {
    ENV_LOCK
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A pass that reports `changed` for its first `changes` invocations and counts calls.
/// It changes nothing in the module, so these tests turn the changed-check off.
fn counting_pass(calls: Rc<Cell<u32>>, changes: u32) -> impl Fn(&mut Module) -> PassOutcome {
    move |_m| {
        calls.set(calls.get() + 1);
        let mut report = PassReport::new();
        report.set("calls", 1);
        PassOutcome {
            changed: calls.get() <= changes,
            report,
            failure: None,
        }
    }
}

fn module() -> Module {
    parse_module("callable @f() {\nblock0:\n    return\n}\n").expect("valid text")
}

fn without_changed_check<T>(f: impl FnOnce() -> T) -> T {
    let _guard = lock_env();
    // Fake passes claim changes they do not make.
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    f()
}

#[test]
fn fixed_point_converges_after_changes_stop() {
    without_changed_check(|| {
        let calls = Rc::new(Cell::new(0));
        let mut group = PassPipeline::new();
        group.add("fake", counting_pass(calls.clone(), 2));
        let mut p = PassPipeline::new();
        p.add_fixed_point("fp", group, 64);
        let stats = p.run(&mut module());
        // Rounds 1 and 2 change, round 3 does not: converged after 3 invocations.
        assert_eq!(calls.get(), 3);
        let fp = &stats.records[0];
        assert_eq!(fp.invocations, 3);
        assert!(fp.changed && fp.converged && !fp.iteration_limit_reached);
        assert_eq!(fp.children[0].invocations, 3);
        assert_eq!(
            fp.children[0].report.get("calls"),
            Some(3),
            "reports are summed"
        );
        assert!(stats.succeeded());
    })
}

#[test]
fn fixed_point_that_still_changes_at_its_limit_fails() {
    without_changed_check(|| {
        let calls = Rc::new(Cell::new(0));
        let mut group = PassPipeline::new();
        group.add("always", counting_pass(calls.clone(), u32::MAX));
        let mut p = PassPipeline::new();
        p.add_fixed_point("fp", group, 5);
        let stats = p.run(&mut module());
        assert_eq!(calls.get(), 5);
        let fp = &stats.records[0];
        assert!(!fp.converged && fp.iteration_limit_reached);
        assert!(!stats.succeeded());
        assert!(stats.log("t").contains("iteration limit reached"));
    })
}

#[test]
fn fixed_point_with_zero_budget_runs_nothing_and_fails() {
    without_changed_check(|| {
        let calls = Rc::new(Cell::new(0));
        let mut group = PassPipeline::new();
        group.add("never", counting_pass(calls.clone(), 0));
        let mut p = PassPipeline::new();
        p.add_fixed_point("fp", group, 0);
        let stats = p.run(&mut module());
        assert_eq!(calls.get(), 0);
        assert!(!stats.records[0].converged);
        assert!(!stats.succeeded());
    })
}

#[test]
fn fixed_point_of_one_that_changed_does_not_converge_but_a_sequence_does() {
    without_changed_check(|| {
        let calls = Rc::new(Cell::new(0));
        let mut once = PassPipeline::new();
        once.add("change", counting_pass(calls.clone(), 1));
        let mut p = PassPipeline::new();
        p.add_fixed_point("fp1", once, 1);
        assert!(
            !p.run(&mut module()).succeeded(),
            "fixed point of 1 that changed is not converged"
        );

        let calls = Rc::new(Cell::new(0));
        let mut seq = PassPipeline::new();
        seq.add("change", counting_pass(calls.clone(), 1));
        let mut p = PassPipeline::new();
        p.add_sequence("seq", seq);
        let stats = p.run(&mut module());
        assert_eq!(calls.get(), 1);
        assert!(stats.records[0].changed && stats.records[0].converged);
        assert!(stats.succeeded());
    })
}

#[test]
fn nested_groups_propagate_changes_upwards() {
    without_changed_check(|| {
        let calls = Rc::new(Cell::new(0));
        let mut inner = PassPipeline::new();
        inner.add("leaf", counting_pass(calls.clone(), 2));
        let mut middle = PassPipeline::new();
        middle.add_sequence("inner", inner);
        let mut p = PassPipeline::new();
        p.add_fixed_point("outer", middle, 64);
        let stats = p.run(&mut module());
        // The leaf, two groups deep, runs until a round changes nothing: 3 times.
        assert_eq!(calls.get(), 3);
        let leaf = stats.find("leaf").expect("leaf record");
        assert_eq!(leaf.invocations, 3);
        assert!(stats.succeeded());
        assert_eq!(stats.records[0].invocations, 3);
    })
}

#[test]
fn a_refusing_pass_stops_the_pipeline_with_its_reason() {
    without_changed_check(|| {
        let later = Rc::new(Cell::new(0));
        let mut p = PassPipeline::new();
        p.add("refuser", |_m: &mut Module| PassOutcome {
            changed: false,
            report: PassReport::new(),
            failure: Some(Refusal {
                pass: "refuser",
                function: Some("f".into()),
                block: None,
                reason: RefusalReason::Counters(vec![("error_count", 1)]),
            }),
        });
        p.add("later", counting_pass(later.clone(), 0));
        let stats = p.run(&mut module());
        let error = stats.error.clone().expect("the pipeline stops");
        assert_eq!(error.pass, "refuser");
        assert_eq!(
            error.to_string(),
            "refuser: refused its input (error_count = 1)"
        );
        let refusal = error.refusal().expect("a refusal");
        assert_eq!(refusal.function.as_deref(), Some("f"));
        assert_eq!(refusal.location().as_deref(), Some("@f"));
        assert_eq!(later.get(), 0, "nothing runs after a refusal");
        assert!(!stats.succeeded());
    })
}

#[test]
fn changed_check_catches_a_pass_that_lies() {
    let _guard = lock_env();
    std::env::set_var("OXIR_CHECK_CHANGED", "1");
    let mut p = PassPipeline::new();
    p.add("liar", |_m: &mut Module| PassOutcome {
        changed: true,
        ..PassOutcome::default()
    });
    let stats = p.run(&mut module());
    let error = stats.error.expect("caught");
    assert_eq!(error.pass, "liar");
    assert!(
        error
            .message()
            .contains("reported changed = true but the module text did not change"),
        "{error}"
    );

    let mut p = PassPipeline::new();
    p.add("silent", |m: &mut Module| {
        m.functions.values_mut().next().expect("one function").name = "g".into();
        PassOutcome::default()
    });
    let error = p.run(&mut module()).error.expect("caught");
    assert!(
        error
            .message()
            .contains("reported changed = false but the module text changed"),
        "{error}"
    );
}

#[test]
fn verify_entries_and_verify_each_stop_on_invalid_ir() {
    let _guard = lock_env();
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    // scripts/test.sh exports OXIR_VERIFY_EACH=1; the first half needs it off.
    let verify_each = std::env::var_os("OXIR_VERIFY_EACH");
    std::env::remove_var("OXIR_VERIFY_EACH");
    let breaker = |m: &mut Module| {
        // Remove the only terminator: the module no longer verifies.
        let f = m.functions.values_mut().next().expect("one function");
        let entry = f.entry_block().expect("entry");
        let term = f.layout.last_inst(entry).expect("terminator");
        f.layout.remove_inst(term);
        PassOutcome {
            changed: true,
            ..PassOutcome::default()
        }
    };
    let mut p = PassPipeline::new();
    p.add("breaker", breaker);
    p.add_verify(
        "verify-after",
        oxir_ir::verifier::VerifierOptions::default(),
    );
    let error = p.run(&mut module()).error.expect("verification fails");
    assert_eq!(error.pass, "verify-after");
    assert!(error.message().contains("verification failed"));

    std::env::set_var("OXIR_VERIFY_EACH", "1");
    let mut p = PassPipeline::new();
    p.add("breaker", breaker);
    let error = p.run(&mut module()).error.expect("verify-each catches it");
    match verify_each {
        Some(value) => std::env::set_var("OXIR_VERIFY_EACH", value),
        None => std::env::remove_var("OXIR_VERIFY_EACH"),
    }
    assert_eq!(error.pass, "breaker");
    assert!(
        error
            .message()
            .contains("fails verification after this pass"),
        "{error}"
    );
}

#[test]
fn dump_dir_gets_before_and_after_texts() {
    let _guard = lock_env();
    let dir = std::env::temp_dir().join(format!("oxir-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("OXIR_DUMP_DIR", &dir);
    std::env::set_var("OXIR_CHECK_CHANGED", "0");
    let mut p = PassPipeline::new();
    p.add("noop", |_m: &mut Module| PassOutcome::default());
    let stats = p.run(&mut module());
    std::env::remove_var("OXIR_DUMP_DIR");
    assert!(stats.succeeded());
    let before = std::fs::read_to_string(dir.join("001-noop.before.oxir")).expect("before dump");
    let after = std::fs::read_to_string(dir.join("001-noop.after.oxir")).expect("after dump");
    assert!(before.contains("callable @f()"));
    assert_eq!(before, after);
}

/// `Stats` records the module's shape after each stage (outermost entries and groups) and
/// not after passes inside a group; the counts are those of the text, counted by hand.
#[test]
fn stages_record_the_module_shape() {
    let text = "
callable @g(i32) -> i32 {
block0(v0: i32):
    return v0
}
kernel @k() workgroup_size(1, 1, 1) {
block0:
    v0: ptr<function, i32> = alloca
    v1: i32 = load v0
    v2: i32 = call @g(v1)
    v3: bool = eq v2, v1
    if v3, then block1, else block2, merge block3
block1:
    br block3
block2:
    br block3
block3:
    return
}";
    let mut module = parse_module(text).expect("valid text");
    let mut inner = PassPipeline::new();
    inner.add("noop", |_m: &mut Module| PassOutcome {
        changed: false,
        report: PassReport::new(),
        failure: None,
    });
    let mut p = PassPipeline::new();
    p.add_sequence("stage", inner);
    let stats = p.run(&mut module);
    let stage = stats.find("stage").expect("stage record");
    assert_eq!(
        stage.shape,
        Some(oxir_passes::ModuleShape {
            blocks: 5,
            instructions: 9,
            structured_terminators: 1,
            calls: 1,
            allocas: 1,
            block_params: 0,
        })
    );
    assert_eq!(stage.children[0].shape, None);
    assert!(stats.log("p").contains("after: blocks 5, instructions 9"));
}
