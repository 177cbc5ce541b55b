//! Refusals: each is located and names what CSIR cannot express, or the pool that
//! overflowed, before anything is emitted.

use oxir_csir::lower::{lower, pipeline, LowerError};
use oxir_csir::Limits;

/// Lowers entry `entry` of WGSL `text` under `limits`.
fn lower_wgsl(text: &str, entry: &str, limits: &Limits) -> Result<oxir_csir::Shader, LowerError> {
    let shader = oxir_naga::ShaderSource::Wgsl(text)
        .parse("test.wgsl")
        .expect("parses");
    let mut module = oxir_naga::lower_with_options(
        &shader.module,
        &shader.info,
        &oxir_naga::LowerOptions::default(),
    )
    .expect("lowers");
    assert!(pipeline().run(&mut module).error.is_none());
    lower(&module, entry, limits)
}

fn refused(text: &str, needle: &str) {
    match lower_wgsl(text, "main", &Limits::default()) {
        Err(LowerError::Unsupported { what, location }) => {
            assert!(what.contains(needle), "`{what}` lacks `{needle}`");
            assert_eq!(location.function.as_deref(), Some("main"));
            assert!(location.block.is_some(), "{what}: no block");
        }
        other => panic!("{needle}: {other:?}"),
    }
}

#[test]
fn runtime_loops_integers_and_constant_zero_divisors() {
    refused(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            var s = 0.0;
            for (var i = 0.0; i < x; i += 1.0) { s += i; }
            return vec4<f32>(s);
        }",
        "loops",
    );
    refused(
        "@fragment fn main(@location(0) @interpolate(flat) k: i32) -> @location(0) vec4<f32> {
            return vec4<f32>(f32(k * 3));
        }",
        "i32",
    );
    refused(
        "@fragment fn main(@location(0) x: vec2<f32>) -> @location(0) vec4<f32> {
            return vec4<f32>(x / vec2<f32>(1.0, 0.0), 0.0, 1.0);
        }",
        "division by a constant zero",
    );
    refused(
        "@group(0) @binding(0) var t: texture_2d<f32>;
        @fragment fn main(@location(0) x: vec2<f32>) -> @location(0) vec4<f32> {
            return textureLoad(t, vec2<i32>(1, 2), 0);
        }",
        "texture",
    );
}

#[test]
fn pool_overflows_name_the_pool() {
    let path = oxir_test_support::repo_root().join("tests/shaders/csir_scene.wgsl");
    let text = std::fs::read_to_string(path).unwrap();
    let cases = [
        (
            Limits {
                instructions: 20,
                ..Limits::default()
            },
            "instruction",
        ),
        (
            Limits {
                immediates: 2,
                ..Limits::default()
            },
            "immediate",
        ),
        (
            Limits {
                temporaries: 6,
                ..Limits::default()
            },
            "temporary",
        ),
        (
            Limits {
                uniform_slots: 4,
                ..Limits::default()
            },
            "uniform slot",
        ),
    ];
    for (limits, pool) in cases {
        match lower_wgsl(&text, "vs_main", &limits) {
            Err(LowerError::Pool { pool: p, .. }) => assert_eq!(p, pool),
            other => panic!("{pool}: {other:?}"),
        }
    }
    assert!(lower_wgsl(&text, "vs_main", &Limits::default()).is_ok());
}

#[test]
fn invariant_position_and_float_decomposition() {
    refused(
        "@vertex fn main(@location(0) p: vec4<f32>) -> @builtin(position) @invariant vec4<f32> {
            return p;
        }",
        "`invariant` outputs",
    );
    refused(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            return vec4<f32>(ldexp(x, 2));
        }",
        "ldexp",
    );
}

/// Constant-trip loops are unrolled and folded by the CSIR pipeline; loops it cannot
/// unroll (over the budget, a `break` on a runtime condition) are still refused as loops.
#[test]
fn constant_trip_loops_unrolled_other_loops_refused() {
    let shader = lower_wgsl(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            var s = 0.0;
            for (var i = 1; i <= 4; i++) {
                for (var j = 0u; j < 2u; j++) { s += f32(i) * x + f32(j); }
            }
            return vec4<f32>(s, x, 0.0, 1.0);
        }",
        "main",
        &Limits::default(),
    )
    .expect("a constant-trip nest is unrolled");
    let verified = oxir_csir::verify(&shader, &Limits::default()).unwrap();
    let mut inputs = oxir_csir::exec::Inputs::default();
    inputs.varyings.insert(0, [0.5, 0.0, 0.0, 0.0]);
    let out = oxir_csir::exec::run(&verified, &inputs).unwrap();
    // Σ_{i=1..4} Σ_{j=0..1} (i·0.5 + j) = 2·0.5·10 + 4·1 = 14.
    assert_eq!(out.colors.get(&0), Some(&[14.0, 0.5, 0.0, 1.0]));
    refused(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            var s = 0.0;
            for (var i = 0; i < 1000; i++) { s += sin(x * f32(i)); }
            return vec4<f32>(s);
        }",
        "loop",
    );
    refused(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            var s = 0.0;
            for (var i = 0; i < 4; i++) { s += x; if s > 2.0 { break; } }
            return vec4<f32>(s);
        }",
        "loop",
    );
}

/// A `return` under `if`s whose arms all end the shader is lowered (outputs stored in
/// that arm); one with code after an enclosing `ENDIF` is refused, as CSIR has no
/// early exit.
#[test]
fn return_under_if_only_when_nothing_follows() {
    let text = "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
        if x < 0.0 { discard; }
        if x > 1.0 { return vec4<f32>(1.0, 2.0, 3.0, 4.0); }
        return vec4<f32>(x * 2.0);
    }";
    let shader = lower_wgsl(text, "main", &Limits::default()).expect("accepted");
    let verified = oxir_csir::verify(&shader, &Limits::default()).unwrap();
    let run = |x: f32| {
        let mut inputs = oxir_csir::exec::Inputs::default();
        inputs.varyings.insert(0, [x, 0.0, 0.0, 0.0]);
        oxir_csir::exec::run(&verified, &inputs).unwrap()
    };
    assert!(run(-1.0).discarded);
    assert_eq!(run(2.0).colors.get(&0), Some(&[1.0, 2.0, 3.0, 4.0]));
    assert_eq!(run(0.25).colors.get(&0), Some(&[0.5; 4]));
    refused(
        "@fragment fn main(@location(0) x: f32) -> @location(0) vec4<f32> {
            var y = x;
            if x > 0.0 {
                if x > 1.0 { return vec4<f32>(1.0); }
                y = y * 2.0;
            }
            y = y + 0.5;
            return vec4<f32>(y);
        }",
        "return inside a conditional with code after it",
    );
}
