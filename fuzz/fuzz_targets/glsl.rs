//! GLSL (the first byte chooses the stage) → naga (contained) → oxir through
//! `oxir_driver` → the shared checks of lowered modules.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_driver::{GlslStage, Input};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let stage = match selector % 3 {
        0 => GlslStage::Compute,
        1 => GlslStage::Vertex,
        _ => GlslStage::Fragment,
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let parsed = oxir_fuzz::contain_naga("glsl", data, || {
        oxir_naga::parse_glsl(text, stage, "fuzz.glsl")
    });
    if !matches!(parsed, Some(Ok(_))) {
        return;
    }
    oxir_fuzz::check_driver(Input::glsl("fuzz.glsl", text, stage));
});
