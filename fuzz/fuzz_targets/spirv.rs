//! A `.spv` file → naga's reader (contained) → oxir's reflection (`oxir_driver::reflect`
//! and its JSON) and the lowering through `oxir_driver` → the shared checks.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_driver::Input;

fuzz_target!(|data: &[u8]| {
    let parsed =
        oxir_fuzz::contain_naga("spirv", data, || oxir_naga::parse_spirv(data, "fuzz.spv"));
    if !matches!(parsed, Some(Ok(_))) {
        return;
    }
    if let Ok(reflection) = oxir_driver::reflect(Input::spirv_bytes("fuzz.spv", data)) {
        let _ = reflection.to_json();
    }
    oxir_fuzz::check_driver(Input::spirv_bytes("fuzz.spv", data));
});
