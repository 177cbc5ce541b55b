//! TGSI text for VirGL from a [`Verified`] shader.
//!
//! The text is what virglrenderer's parser and its strict sanity checker
//! (`TGSI_PRINT_SANITY=1`) accept:
//!
//! - the processor header, then every declaration, then the immediates, then the
//!   instructions, then exactly one `END`;
//! - every register declared once: `IN` per attribute slot (vertex, no semantic), per
//!   varying (fragment, `GENERIC[vertex slot]` with its interpolation) and one
//!   `POSITION` input after the varyings when the shader reads `gl_FragCoord` (never a
//!   fixed index, so it cannot collide with a varying); `OUT[0], POSITION` and one
//!   `GENERIC` output per varying (vertex) or `COLOR[slot]` per colour output
//!   (fragment); `SAMP` and `SVIEW` per sampler; `CONST[0][0..n]` covering the uniform
//!   slots; `TEMP[0..ntmp]`;
//! - immediates `IMM[k] FLT32` numbered in order, four bit-exact hex values each (one per
//!   distinct `CONST` record, unused lanes zero);
//! - every source swizzle four letters (`IF TEMP[n].xxxx`, scalar ops replicate their
//!   lane), write masks from `ncomp`, negate and absolute value as operand modifiers
//!   (`ADD a, -b`, `MOV |a|`; no `SUB` / `ABS`, which current Mesa removed);
//! - the replicating TGSI ops (`RSQ RCP SIN COS SQRT EX2 LG2 POW`) one instruction per
//!   lane; comparisons as `SLT` / `SGE` / `SEQ` / `SNE` (operands swapped for `>` and
//!   `<=`); `SEL` as `CMP -|a|, b, c`; matrix products as `MUL` plus `MAD`s over column
//!   splats.
//!
//! [`Tgsi::token_bound`] is an upper bound on the binary tokens the text parses into
//! (VirGL's `num_tokens`): at most 16 tokens per line plus 32.

use crate::record::{Cmp, Op, Record};
use crate::verify::Verified;
use crate::{Interp, Stage};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Emitted TGSI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tgsi {
    /// The text (without the NUL VirGL appends).
    pub text: String,
    /// Instructions (lines after the declarations, `END` included).
    pub instructions: usize,
    /// An upper bound on the tokens of the parsed shader.
    pub token_bound: u32,
}

const LANES: [char; 4] = ['x', 'y', 'z', 'w'];

fn mask(n: u8) -> String {
    if n >= 4 {
        String::new()
    } else {
        format!(".{}", LANES[..usize::from(n)].iter().collect::<String>())
    }
}

fn rep(lane: usize) -> String {
    let c = LANES[lane & 3];
    format!(".{c}{c}{c}{c}")
}

fn temp(i: i16) -> String {
    format!("TEMP[{}]", i.max(0))
}

struct Emitter<'a> {
    out: Vec<String>,
    /// `(aux, ncomp)` of each CONST record -> its IMM index.
    imms: Vec<(i16, u8)>,
    imm_pool: &'a [f32],
    /// Attribute / varying slot -> IN index, colour / varying slot -> OUT index.
    ins: BTreeMap<u16, usize>,
    outs: BTreeMap<u16, usize>,
    fcoord_in: usize,
}

impl Emitter<'_> {
    fn line(&mut self, s: String) {
        self.out.push(s);
    }

    fn imm(&mut self, r: &Record) -> usize {
        let key = (r.aux, r.ncomp);
        match self.imms.iter().position(|k| *k == key) {
            Some(i) => i,
            None => {
                self.imms.push(key);
                self.imms.len() - 1
            }
        }
    }

    /// A lane-wise op: one instruction with the write mask.
    fn lanewise(&mut self, name: &str, r: &Record, srcs: &[String]) {
        let dst = format!("{}{}", temp(r.dst), mask(r.ncomp));
        self.line(format!("{name} {dst}, {}", srcs.join(", ")));
    }

    /// A replicating scalar op, once per lane.
    fn per_lane(&mut self, name: &str, r: &Record, srcs: &[i16]) {
        for (i, lane) in LANES.iter().enumerate().take(usize::from(r.ncomp)) {
            let s: Vec<String> = srcs
                .iter()
                .map(|&t| format!("{}{}", temp(t), rep(i)))
                .collect();
            self.line(format!("{name} {}.{lane}, {}", temp(r.dst), s.join(", ")));
        }
    }

    fn mat_vec(&mut self, dst: i16, a: i16, cols: i16, v: i16, n: u8) {
        let d = format!("{}{}", temp(dst), mask(n));
        for k in 0..cols.max(0) {
            let splat = format!("{}{}", temp(v), rep(k as usize));
            if k == 0 {
                self.line(format!("MUL {d}, {}, {splat}", temp(a)));
            } else {
                self.line(format!("MAD {d}, {}, {splat}, {}", temp(a + k), temp(dst)));
            }
        }
    }

    fn record(&mut self, op: Op, r: &Record) {
        let (a, b, c) = (temp(r.a), temp(r.b), temp(r.c));
        match op {
            Op::Nop => {}
            Op::Const => {
                let k = self.imm(r);
                self.lanewise("MOV", r, &[format!("IMM[{k}]")]);
            }
            Op::Mov => self.lanewise("MOV", r, &[a]),
            Op::Swz => {
                let sw: String = (0..4)
                    .map(|i| LANES[((r.aux >> (2 * i.min(usize::from(r.ncomp) - 1))) & 3) as usize])
                    .collect();
                self.lanewise("MOV", r, &[format!("{a}.{sw}")]);
            }
            Op::SetLane => {
                let d = LANES[(r.aux & 3) as usize];
                self.line(format!(
                    "MOV {}.{d}, {a}{}",
                    temp(r.dst),
                    rep((r.aux2 & 3) as usize)
                ));
            }
            Op::Add => self.lanewise("ADD", r, &[a, b]),
            Op::Sub => self.lanewise("ADD", r, &[a, format!("-{b}")]),
            Op::Mul => self.lanewise("MUL", r, &[a, b]),
            Op::Min => self.lanewise("MIN", r, &[a, b]),
            Op::Max => self.lanewise("MAX", r, &[a, b]),
            Op::Abs => self.lanewise("MOV", r, &[format!("|{a}|")]),
            Op::Neg => self.lanewise("MOV", r, &[format!("-{a}")]),
            Op::Trunc => self.lanewise("TRUNC", r, &[a]),
            Op::Floor => self.lanewise("FLR", r, &[a]),
            Op::Ceil => self.lanewise("CEIL", r, &[a]),
            Op::Fract => self.lanewise("FRC", r, &[a]),
            Op::Mad => self.lanewise("MAD", r, &[a, b, c]),
            Op::Sel => self.lanewise("CMP", r, &[format!("-|{a}|"), b, c]),
            Op::Cmp => {
                let (name, swap) = match Cmp::from_aux(r.aux).unwrap_or(Cmp::Eq) {
                    Cmp::Lt => ("SLT", false),
                    Cmp::Gt => ("SLT", true),
                    Cmp::Le => ("SGE", true),
                    Cmp::Ge => ("SGE", false),
                    Cmp::Eq => ("SEQ", false),
                    Cmp::Ne => ("SNE", false),
                };
                let srcs = if swap { [b, a] } else { [a, b] };
                self.lanewise(name, r, &srcs);
            }
            Op::Dot => {
                let name = ["DP2", "DP3", "DP4"][(r.aux.clamp(2, 4) - 2) as usize];
                self.line(format!("{name} {}.x, {a}, {b}", temp(r.dst)));
            }
            Op::Rsq => self.per_lane("RSQ", r, &[r.a]),
            Op::Rcp => self.per_lane("RCP", r, &[r.a]),
            Op::Sin => self.per_lane("SIN", r, &[r.a]),
            Op::Cos => self.per_lane("COS", r, &[r.a]),
            Op::Sqrt => self.per_lane("SQRT", r, &[r.a]),
            Op::Exp2 => self.per_lane("EX2", r, &[r.a]),
            Op::Log2 => self.per_lane("LG2", r, &[r.a]),
            Op::Pow => self.per_lane("POW", r, &[r.a, r.b]),
            Op::MulMv => self.mat_vec(r.dst, r.a, r.aux, r.b, r.ncomp),
            Op::MulMm => {
                for j in 0..r.aux2.max(0) {
                    self.mat_vec(r.dst + j, r.a, r.aux, r.b + j, r.ncomp);
                }
            }
            Op::Sample => {
                let s = r.aux.max(0);
                self.line(format!("TEX {}, {a}, SAMP[{s}], 2D", temp(r.dst)));
            }
            Op::LoadUni => {
                for k in 0..r.aux2.max(0) {
                    self.line(format!("MOV {}, CONST[0][{}]", temp(r.dst + k), r.aux + k));
                }
            }
            Op::LoadAttr | Op::LoadVar => {
                let i = self.ins.get(&(r.aux.max(0) as u16)).copied().unwrap_or(0);
                self.lanewise("MOV", r, &[format!("IN[{i}]")]);
            }
            Op::LoadFcoord => {
                let i = self.fcoord_in;
                self.line(format!("MOV {}, IN[{i}]", temp(r.dst)));
            }
            Op::StorePos => self.line(format!("MOV OUT[0], {a}")),
            Op::StoreVar | Op::StoreColor => {
                let o = self.outs.get(&(r.aux.max(0) as u16)).copied().unwrap_or(0);
                self.line(format!("MOV OUT[{o}]{}, {a}", mask(r.ncomp)));
            }
            Op::If => self.line(format!("IF {a}.xxxx")),
            Op::Else => self.line("ELSE".into()),
            Op::EndIf => self.line("ENDIF".into()),
            Op::Discard => self.line("KILL".into()),
        }
    }
}

fn interp_name(i: Interp) -> &'static str {
    match i {
        Interp::Perspective => "PERSPECTIVE",
        Interp::Linear => "LINEAR",
        Interp::Flat => "CONSTANT",
    }
}

fn hex(f: f32) -> String {
    format!("0x{:08x}", f.to_bits())
}

/// TGSI for `shader`; `remap` (from [`crate::link::Link::remap`]) gives a fragment
/// shader's varyings the vertex shader's `GENERIC` indices.
pub fn emit(shader: &Verified<'_>, remap: Option<&BTreeMap<u16, u16>>) -> Tgsi {
    let s = shader.shader();
    let iface = &s.interface;
    let mut decls = vec![match s.stage {
        Stage::Vertex => "VERT".to_string(),
        Stage::Fragment => "FRAG".to_string(),
    }];
    let mut ins = BTreeMap::new();
    let mut outs = BTreeMap::new();
    let uses_fcoord = shader.iter().any(|(op, _)| op == Op::LoadFcoord);
    let mut fcoord_in = 0;
    match s.stage {
        Stage::Vertex => {
            let mut attrs: Vec<u16> = iface.attributes.iter().map(|a| a.slot).collect();
            attrs.sort_unstable();
            for slot in attrs {
                decls.push(format!("DCL IN[{slot}]"));
                ins.insert(slot, usize::from(slot));
            }
            decls.push("DCL OUT[0], POSITION".into());
            let mut vars = iface.varyings.clone();
            vars.sort_by_key(|v| v.slot);
            for (i, v) in vars.iter().enumerate() {
                decls.push(format!("DCL OUT[{}], GENERIC[{}]", i + 1, v.slot));
                outs.insert(v.slot, i + 1);
            }
        }
        Stage::Fragment => {
            let mut vars = iface.varyings.clone();
            vars.sort_by_key(|v| v.slot);
            for (i, v) in vars.iter().enumerate() {
                let generic = remap
                    .and_then(|m| m.get(&v.slot))
                    .copied()
                    .unwrap_or(v.slot);
                decls.push(format!(
                    "DCL IN[{i}], GENERIC[{generic}], {}",
                    interp_name(v.interp)
                ));
                ins.insert(v.slot, i);
            }
            if uses_fcoord {
                fcoord_in = vars.len();
                decls.push(format!("DCL IN[{fcoord_in}], POSITION"));
            }
            let mut colors = iface.outputs.clone();
            colors.sort_by_key(|o| o.slot);
            for (i, o) in colors.iter().enumerate() {
                decls.push(format!("DCL OUT[{i}], COLOR[{}]", o.slot));
                outs.insert(o.slot, i);
            }
            for smp in &iface.samplers {
                decls.push(format!("DCL SAMP[{}]", smp.slot));
                decls.push(format!("DCL SVIEW[{}], 2D, FLOAT", smp.slot));
            }
        }
    }
    let uniform_slots = iface.uniform_slots();
    if uniform_slots > 0 {
        decls.push(format!("DCL CONST[0][0..{}]", uniform_slots - 1));
    }
    if s.ntmp > 0 {
        decls.push(format!("DCL TEMP[0..{}]", s.ntmp - 1));
    }
    let mut e = Emitter {
        out: Vec::new(),
        imms: Vec::new(),
        imm_pool: &s.immediates,
        ins,
        outs,
        fcoord_in,
    };
    for (op, r) in shader.iter() {
        e.record(op, r);
    }
    e.line("END".into());
    for (k, (aux, n)) in e.imms.iter().enumerate() {
        let vals: Vec<String> = (0..4)
            .map(|i| {
                let v = if i < usize::from(*n) {
                    e.imm_pool
                        .get(aux.max(&0).unsigned_abs() as usize + i)
                        .copied()
                        .unwrap_or(0.0)
                } else {
                    0.0
                };
                hex(v)
            })
            .collect();
        decls.push(format!("IMM[{k}] FLT32 {{{}}}", vals.join(", ")));
    }
    let instructions = e.out.len();
    let mut text = String::new();
    for line in decls.iter().chain(&e.out) {
        let _ = writeln!(text, "{line}");
    }
    let lines = (decls.len() + instructions) as u32;
    Tgsi {
        text,
        instructions,
        token_bound: 32 + 16 * lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::sample_vertex;
    use crate::Limits;

    #[test]
    fn sample_vertex_text() {
        let shader = sample_vertex();
        let v = crate::verify(&shader, &Limits::default()).unwrap();
        let t = emit(&v, None);
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines[0], "VERT");
        assert!(lines.contains(&"DCL IN[3]"));
        assert!(lines.contains(&"DCL OUT[1], GENERIC[1]"));
        assert!(lines.contains(&"DCL CONST[0][0..4]"));
        assert!(lines.contains(&"IMM[0] FLT32 {0x3f800000, 0xbf000000, 0x00000000, 0x00000000}"));
        assert!(lines.contains(&"SLT TEMP[7].x, TEMP[7], TEMP[7]"));
        assert!(lines.contains(&"IF TEMP[7].xxxx"));
        assert!(lines.contains(&"MAD TEMP[6], TEMP[3], TEMP[5].wwww, TEMP[6]"));
        assert_eq!(lines.last(), Some(&"END"));
        assert_eq!(lines.iter().filter(|l| **l == "END").count(), 1);
        let first_inst = lines.iter().position(|l| l.starts_with("MOV")).unwrap();
        assert!(lines[first_inst..]
            .iter()
            .all(|l| !l.starts_with("DCL") && !l.starts_with("IMM")));
    }
}
