//! A readable listing of a shader: the interface, then one line per record
//! (`NOP`s skipped). For people and test messages; not a stable format.

use crate::record::Op;
use crate::Shader;
use std::fmt::Write;

/// The listing of `shader`.
pub fn dump(shader: &Shader) -> String {
    let mut out = String::new();
    let i = &shader.interface;
    let _ = writeln!(
        out,
        "{} shader {} ({} temporaries)",
        shader.stage.name(),
        shader.name,
        shader.ntmp
    );
    for u in &i.uniforms {
        let _ = writeln!(out, "uniform {} {} slot {}", u.ty, u.name, u.slot);
    }
    for (what, table) in [
        ("attribute", &i.attributes),
        ("varying", &i.varyings),
        ("output", &i.outputs),
    ] {
        for s in table {
            let _ = writeln!(
                out,
                "{what} {} {} slot {} {:?}",
                s.ty, s.name, s.slot, s.interp
            );
        }
    }
    for s in &i.samplers {
        let _ = writeln!(out, "sampler {} slot {}", s.name, s.slot);
    }
    let _ = writeln!(out, "immediates {:?}", shader.immediates);
    for (k, r) in shader.records.iter().enumerate() {
        let name = Op::from_u8(r.op).map(Op::name).unwrap_or("invalid");
        if r.op == Op::Nop as u8 {
            continue;
        }
        let _ = writeln!(
            out,
            "{k:4}: {name} n{} dst={} a={} b={} c={} aux={} aux2={}",
            r.ncomp, r.dst, r.a, r.b, r.c, r.aux, r.aux2
        );
    }
    out
}
