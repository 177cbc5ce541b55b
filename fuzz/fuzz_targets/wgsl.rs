//! WGSL → naga (contained) → oxir through `oxir_driver` (`Target::Oxir`, then
//! `Target::Spirv` from the loaded module) → the shared checks of lowered modules.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_driver::Input;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = oxir_fuzz::contain_naga("wgsl", data, || oxir_naga::parse_wgsl(text, "fuzz.wgsl"));
    if !matches!(parsed, Some(Ok(_))) {
        return;
    }
    oxir_fuzz::check_driver(Input::wgsl("fuzz.wgsl", text));
});
