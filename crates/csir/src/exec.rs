//! The CSIR interpreter: one vertex or fragment invocation of a [`Verified`] shader.
//!
//! Register model (the seed's): `ntmp` float4 temporaries, zero at the start. A record
//! writes lanes `0..ncomp` of its destination and keeps the others; every source is read
//! before the destination is written. Arithmetic is IEEE `f32` with one rounding per
//! CSIR op (`MAD` rounds twice, as TGSI's unfused `MAD` may; `DOT` and the matrix
//! products accumulate in `f32` in lane / column order, as the TGSI expansion does).
//! `RCP(0)` is infinity and `RSQ` of a negative is NaN (IEEE, not the seed's 0), `MIN`
//! / `MAX` return the other operand when one is NaN (oxir's rule). `IF` tests lane 0
//! `!= 0`; `SEL` picks `b` when `a != 0` and `a` is not NaN. `DISCARD` ends the
//! invocation with no output. Sampling is nearest with clamp-to-edge on level 0.
//!
//! The float-lane model's bound against oxir's interpreter (which rounds once per oxir
//! op, computing in f64): a few ULP per composed built-in, more for `pow`, `exp2`,
//! `log2`, `sin`, `cos` (host libm, as oxir's), and `normalize` / `length` through
//! `RSQ` / `SQRT`; the equality test allows a relative error of 1e-4 plus 1e-5.
//!
//! Varying remapping: [`Inputs::var_remap`] maps a fragment shader's varying slot to the
//! vertex shader's (see [`crate::link`]).

use crate::record::{Cmp, Op, Record};
use crate::verify::Verified;
use std::collections::BTreeMap;

/// A 2D RGBA float texture (row-major, `width * height` texels).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// Width in texels (>= 1).
    pub width: u32,
    /// Height in texels (>= 1).
    pub height: u32,
    /// The texels.
    pub texels: Vec<[f32; 4]>,
}

impl Texture {
    /// Nearest sample with clamp-to-edge at normalised `(u, v)`.
    pub fn sample(&self, u: f32, v: f32) -> [f32; 4] {
        let pick = |t: f32, n: u32| {
            let x = (f64::from(t) * f64::from(n)).floor();
            x.clamp(0.0, f64::from(n.max(1) - 1)) as usize
        };
        let (x, y) = (pick(u, self.width), pick(v, self.height));
        let i = y * self.width as usize + x;
        self.texels.get(i).copied().unwrap_or([0.0; 4])
    }
}

/// What an invocation reads. Missing slots read zero.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Attribute values by slot (vertex shaders).
    pub attributes: BTreeMap<u16, [f32; 4]>,
    /// Varying values by slot (fragment shaders; the vertex shader's slots when
    /// `var_remap` is given).
    pub varyings: BTreeMap<u16, [f32; 4]>,
    /// Uniform slots.
    pub uniforms: Vec<[f32; 4]>,
    /// `gl_FragCoord`.
    pub frag_coord: [f32; 4],
    /// Textures by sampler slot.
    pub textures: BTreeMap<u16, Texture>,
    /// Fragment varying slot -> vertex varying slot.
    pub var_remap: Option<BTreeMap<u16, u16>>,
}

/// What an invocation wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outputs {
    /// `gl_Position` (vertex shaders), if stored.
    pub position: Option<[f32; 4]>,
    /// Varyings by slot (vertex shaders); lanes past the stored ones are zero.
    pub varyings: BTreeMap<u16, [f32; 4]>,
    /// Colour outputs by slot (fragment shaders).
    pub colors: BTreeMap<u16, [f32; 4]>,
    /// Whether the invocation discarded (then nothing else is meaningful).
    pub discarded: bool,
    /// Records executed (not skipped).
    pub executed: u32,
}

/// Why a run failed (only on a remap that names a missing slot; a verified shader
/// cannot fail otherwise).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExecError {
    /// The remap has no entry for a varying the shader reads.
    #[error("varying slot {0} is not in the remap table")]
    Remap(u16),
}

struct Machine<'a> {
    t: Vec<[f32; 4]>,
    inputs: &'a Inputs,
    imms: &'a [f32],
    out: Outputs,
}

fn lanes(r: &Record) -> usize {
    usize::from(r.ncomp)
}

fn reg(i: i16) -> usize {
    i.max(0) as usize
}

impl Machine<'_> {
    fn get(&self, i: i16) -> [f32; 4] {
        self.t.get(reg(i)).copied().unwrap_or([0.0; 4])
    }

    fn set(&mut self, i: i16, n: usize, v: [f32; 4]) {
        if let Some(d) = self.t.get_mut(reg(i)) {
            d[..n.min(4)].copy_from_slice(&v[..n.min(4)]);
        }
    }

    fn lanewise(&mut self, r: &Record, f: impl Fn(f32, f32, f32) -> f32) {
        let (a, b, c) = (self.get(r.a), self.get(r.b), self.get(r.c));
        let v = std::array::from_fn(|i| f(a[i], b[i], c[i]));
        self.set(r.dst, lanes(r), v);
    }

    /// `a..a+cols` (columns of `rows` lanes) times vector `v`.
    fn mat_vec(&self, a: i16, cols: i16, v: [f32; 4]) -> [f32; 4] {
        let mut acc = [0f32; 4];
        for k in 0..cols.max(0) {
            let col = self.get(a + k);
            for (r, x) in acc.iter_mut().enumerate() {
                *x = if k == 0 {
                    col[r] * v[0]
                } else {
                    col[r] * v[k as usize] + *x
                };
            }
        }
        acc
    }

    fn step(&mut self, op: Op, r: &Record) -> Result<bool, ExecError> {
        let n = lanes(r);
        match op {
            Op::Nop | Op::If | Op::Else | Op::EndIf => {}
            Op::Const => {
                let mut v = [0f32; 4];
                let start = reg(r.aux);
                for (i, x) in v.iter_mut().enumerate().take(n) {
                    *x = self.imms.get(start + i).copied().unwrap_or(0.0);
                }
                self.set(r.dst, n, v);
            }
            Op::Mov => self.lanewise(r, |a, _, _| a),
            Op::Swz => {
                let a = self.get(r.a);
                let v = std::array::from_fn(|i| a[((r.aux >> (2 * i)) & 3) as usize]);
                self.set(r.dst, n, v);
            }
            Op::SetLane => {
                let x = self.get(r.a)[(r.aux2 & 3) as usize];
                if let Some(d) = self.t.get_mut(reg(r.dst)) {
                    d[(r.aux & 3) as usize] = x;
                }
            }
            Op::Add => self.lanewise(r, |a, b, _| a + b),
            Op::Sub => self.lanewise(r, |a, b, _| a - b),
            Op::Mul => self.lanewise(r, |a, b, _| a * b),
            Op::Min => self.lanewise(r, |a, b, _| a.min(b)),
            Op::Max => self.lanewise(r, |a, b, _| a.max(b)),
            Op::Abs => self.lanewise(r, |a, _, _| a.abs()),
            Op::Neg => self.lanewise(r, |a, _, _| -a),
            Op::Rsq => self.lanewise(r, |a, _, _| 1.0 / a.sqrt()),
            Op::Rcp => self.lanewise(r, |a, _, _| 1.0 / a),
            Op::Sin => self.lanewise(r, |a, _, _| a.sin()),
            Op::Cos => self.lanewise(r, |a, _, _| a.cos()),
            Op::Pow => self.lanewise(r, |a, b, _| a.powf(b)),
            Op::Trunc => self.lanewise(r, |a, _, _| a.trunc()),
            Op::Floor => self.lanewise(r, |a, _, _| a.floor()),
            Op::Ceil => self.lanewise(r, |a, _, _| a.ceil()),
            Op::Fract => self.lanewise(r, |a, _, _| a - a.floor()),
            Op::Sqrt => self.lanewise(r, |a, _, _| a.sqrt()),
            Op::Exp2 => self.lanewise(r, |a, _, _| a.exp2()),
            Op::Log2 => self.lanewise(r, |a, _, _| a.log2()),
            Op::Mad => self.lanewise(r, |a, b, c| a * b + c),
            Op::Sel => self.lanewise(r, |a, b, c| if -a.abs() < 0.0 { b } else { c }),
            Op::Cmp => {
                let cmp = Cmp::from_aux(r.aux).unwrap_or(Cmp::Eq);
                self.lanewise(r, |a, b, _| f32::from(u8::from(cmp.eval(a, b))));
            }
            Op::Dot => {
                let (a, b) = (self.get(r.a), self.get(r.b));
                let w = reg(r.aux).min(4);
                let d = (1..w).fold(a[0] * b[0], |acc, i| a[i] * b[i] + acc);
                self.set(r.dst, 1, [d, 0.0, 0.0, 0.0]);
            }
            Op::MulMv => {
                let v = self.mat_vec(r.a, r.aux, self.get(r.b));
                self.set(r.dst, n, v);
            }
            Op::MulMm => {
                for j in 0..r.aux2.max(0) {
                    let v = self.mat_vec(r.a, r.aux, self.get(r.b + j));
                    self.set(r.dst + j, n, v);
                }
            }
            Op::Sample => {
                let c = self.get(r.a);
                let slot = reg(r.aux) as u16;
                let v = self
                    .inputs
                    .textures
                    .get(&slot)
                    .map(|t| t.sample(c[0], c[1]));
                self.set(r.dst, 4, v.unwrap_or([0.0; 4]));
            }
            Op::LoadUni => {
                for k in 0..r.aux2.max(0) {
                    let v = self.inputs.uniforms.get(reg(r.aux + k)).copied();
                    self.set(r.dst + k, 4, v.unwrap_or([0.0; 4]));
                }
            }
            Op::LoadAttr => {
                let v = self.inputs.attributes.get(&(reg(r.aux) as u16)).copied();
                self.set(r.dst, n, v.unwrap_or([0.0; 4]));
            }
            Op::LoadVar => {
                let mut slot = reg(r.aux) as u16;
                if let Some(remap) = &self.inputs.var_remap {
                    slot = *remap.get(&slot).ok_or(ExecError::Remap(slot))?;
                }
                let v = self.inputs.varyings.get(&slot).copied();
                self.set(r.dst, n, v.unwrap_or([0.0; 4]));
            }
            Op::LoadFcoord => self.set(r.dst, 4, self.inputs.frag_coord),
            Op::StorePos => self.out.position = Some(self.get(r.a)),
            Op::StoreVar | Op::StoreColor => {
                let mut v = [0f32; 4];
                v[..n].copy_from_slice(&self.get(r.a)[..n]);
                let table = match op {
                    Op::StoreVar => &mut self.out.varyings,
                    // wildcard-ok: this arm handles exactly STORE_VAR and STORE_COLOR
                    _ => &mut self.out.colors,
                };
                table.insert(reg(r.aux) as u16, v);
            }
            Op::Discard => {
                self.out.discarded = true;
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Runs one invocation.
pub fn run(shader: &Verified<'_>, inputs: &Inputs) -> Result<Outputs, ExecError> {
    let s = shader.shader();
    let mut m = Machine {
        t: vec![[0.0; 4]; usize::from(s.ntmp)],
        inputs,
        imms: &s.immediates,
        out: Outputs::default(),
    };
    // (enclosing arm active, condition) per open IF.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut active = true;
    for (op, r) in shader.iter() {
        match op {
            Op::If => {
                let cond = m.get(r.a)[0] != 0.0;
                stack.push((active, cond));
                active = active && cond;
            }
            Op::Else => {
                if let Some(&(outer, cond)) = stack.last() {
                    active = outer && !cond;
                }
            }
            Op::EndIf => {
                if let Some((outer, _)) = stack.pop() {
                    active = outer;
                }
            }
            // wildcard-ok: every other opcode runs only in an active arm
            _ if !active => continue,
            // wildcard-ok: every other opcode is executed by `step`
            _ => {
                m.out.executed += 1;
                if !m.step(op, r)? {
                    break;
                }
            }
        }
    }
    Ok(m.out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::NONE;
    use crate::verify::{rec, sample_vertex};
    use crate::{verify, Limits};

    /// The sample shader stores position from temporary 6 (the MVP product) when
    /// `1.0 > 1.0` holds, else from the attribute: the ELSE arm runs. Nested arms inside
    /// a skipped arm stay skipped; SEL treats NaN as false.
    #[test]
    fn arms_nesting_write_masks_and_sel() {
        let mut shader = sample_vertex();
        let inputs = Inputs {
            attributes: BTreeMap::from([(3, [1.0, 2.0, 3.0, 4.0])]),
            uniforms: vec![[0.0; 4]; 5],
            ..Inputs::default()
        };
        let v = verify(&shader, &Limits::default()).unwrap();
        let out = run(&v, &inputs).unwrap();
        assert_eq!(out.position, Some([1.0, 2.0, 3.0, 4.0]));
        // A nested IF in the skipped THEN arm must not run its body.
        let mut inner = rec(Op::If, 0, NONE, 5, NONE);
        inner.ncomp = 0;
        shader.records.insert(6, inner);
        shader
            .records
            .insert(7, rec(Op::StorePos, 4, NONE, 5, NONE));
        shader
            .records
            .insert(8, rec(Op::EndIf, 0, NONE, NONE, NONE));
        // After the IF: SEL of NaN picks c; a 2-lane MOV keeps lanes 2..3.
        shader.records.push(rec(Op::Rcp, 1, 1, 7, NONE)); // 1 / 0 = inf
        shader.records.push(rec(Op::Sub, 1, 1, 1, 1)); // inf - inf = NaN
        let mut sel = rec(Op::Sel, 4, 2, 1, 5);
        sel.c = 0;
        shader.records.push(sel);
        let mut var = rec(Op::StoreVar, 4, NONE, 2, NONE);
        var.aux = 1;
        shader.records.push(var);
        let v = verify(&shader, &Limits::default()).unwrap();
        let out = run(&v, &inputs).unwrap();
        assert_eq!(out.position, Some([1.0, 2.0, 3.0, 4.0]));
        // Temporary 7 holds CMP(1 > 1) = 0 in lane 0: RCP gives inf, SUB NaN, SEL c.
        assert_eq!(out.varyings.get(&1), Some(&[0.0, 0.0, 0.0, 0.0]));
    }
}
