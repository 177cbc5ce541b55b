//! A verified module (from the random generator or from text, chosen by the first byte)
//! → every registered pass alone (each output must verify) → the SPIR-V pipeline and
//! writer → the interpreter.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(module) = oxir_fuzz::module_from(data) else {
        return;
    };
    oxir_fuzz::every_pass_verifies(&module);
    oxir_fuzz::write_spirv(&module);
    oxir_fuzz::interpret(&module, data.len() as u64);
});
