//! A CSI file (CSIR's binary format) → `oxir_csir::binary::decode` with its header hash
//! sealed first (random bytes would almost never carry the right hash, and the decoder's
//! other checks are what is fuzzed) → re-encoding round trip → the verifier → on a
//! verified shader, the listing, the TGSI emitter and the CSIR interpreter with zero
//! inputs. Every stage may refuse; none may panic, and a decoded shader must encode to
//! bytes that decode to a shader encoding to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxir_csir::{binary, dump, exec, tgsi, verify, Limits};

fuzz_target!(|data: &[u8]| {
    let mut blob = data.to_vec();
    binary::seal(&mut blob);
    let limits = Limits::default();
    let Ok(shader) = binary::decode(&blob, &limits) else {
        return;
    };
    let encoded = binary::write(&shader);
    let again = binary::decode(&encoded, &limits).expect("a written CSI blob decodes");
    assert_eq!(binary::write(&again), encoded, "CSI encoding is not stable");
    let Ok(verified) = verify(&shader, &limits) else {
        return;
    };
    let _ = dump::dump(&shader);
    let _ = tgsi::emit(&verified, None);
    let _ = exec::run(&verified, &exec::Inputs::default());
});
