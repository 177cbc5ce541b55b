//! naga's panics through the library: an error of stage `Panic`, nothing printed by the
//! panic hook for it, and the hook that was installed before still sees every other
//! panic. One test in its own binary: it installs a process-wide panic hook.

use oxir_driver::{compile, CompileOptions, Error, Input, Target};
use oxir_naga::FrontendStage;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn histogram_spirv() -> Vec<u32> {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/shaders/histogram.wgsl"
    );
    let text = std::fs::read_to_string(file).expect("project shader");
    let artifact = compile(
        Input::wgsl("histogram.wgsl", &text),
        Target::Spirv,
        &CompileOptions::default(),
    )
    .expect("compiles");
    artifact.as_words().expect("words").to_vec()
}

#[test]
fn naga_panics_are_errors_and_other_panics_still_reach_the_previous_hook() {
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    std::panic::set_hook(Box::new(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    }));
    let mut words = histogram_spirv();
    // Word 76 set to 0 reaches naga 30's `front/spv/mod.rs:2477` (an unwrap of a layout
    // error); see scripts/naga_spv_sweep.py.
    words[76] = 0;
    let options = CompileOptions::default();
    for _ in 0..2 {
        let error = compile(
            Input::spirv_words("bad.spv", &words),
            Target::Oxir,
            &options,
        )
        .expect_err("naga panics on it");
        let Error::Frontend(error) = error else {
            panic!("not a front-end error: {error}");
        };
        assert_eq!(error.stage, FrontendStage::Panic, "{}", error.rendered);
        assert!(
            error
                .rendered
                .starts_with("bad.spv: error: naga failed on this input: "),
            "{}",
            error.rendered
        );
        assert!(
            error.rendered.contains("(panic at naga-"),
            "{}",
            error.rendered
        );
    }
    assert_eq!(
        seen.load(Ordering::SeqCst),
        0,
        "naga's panics reached the hook"
    );
    let other = std::thread::spawn(|| panic!("a panic outside naga")).join();
    assert!(other.is_err());
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the previous hook saw the other panic"
    );
}
