//! The verifier: every structural rule a consumer relies on, checked against the
//! operand schema ([`crate::record::schema`]), the pools, the interface table and the
//! stage. It runs on everything before any consumer: [`Verified`] is the only way to
//! reach the optimiser, the interpreter and the TGSI emitter.
//!
//! Checked, in order: pool sizes and the entry name; the interface table (valid types,
//! non-empty names of at most 255 bytes, unique in-range slots, non-overlapping uniform
//! spans inside the uniform pool, tables allowed in the stage); then per record: the
//! opcode byte, `pad == 0`, `ty`, `ncomp` in the opcode's range, each register field
//! unused (-1) or a span of temporaries inside `0..ntmp` (spans of matrices and uniform
//! ranges included, from `aux` / `aux2`), `aux` / `aux2` per the opcode (immediate
//! ranges inside the pool, swizzle and lane fields, dot widths, compare codes, matrix
//! shapes, slots that exist in the interface table with enough lanes, uniform ranges
//! covered by declared uniforms), destinations of matrix products disjoint from their
//! sources, the stage rules, and `IF` / `ELSE` / `ENDIF` balance with at most one
//! `ELSE` per `IF` and depth at most [`crate::Limits::if_depth`].
//!
//! It does not check that a temporary is written before it is read (reads of unwritten
//! lanes see zero in the interpreter), nor the semantic types of values.

use crate::interface::{Interface, Slot};
use crate::record::{schema, span_of, AuxKind, Field, Op, Record, Schema, Ty, NONE};
use crate::{Limits, Shader, Stage};
use std::collections::BTreeSet;

/// A shader that passed [`verify`], with its decoded opcodes.
#[derive(Clone, Debug)]
pub struct Verified<'a> {
    shader: &'a Shader,
    ops: Vec<Op>,
}

impl<'a> Verified<'a> {
    /// The shader.
    pub fn shader(&self) -> &'a Shader {
        self.shader
    }

    /// The records with their decoded opcodes.
    pub fn iter(&self) -> impl Iterator<Item = (Op, &'a Record)> + '_ {
        self.ops.iter().copied().zip(self.shader.records.iter())
    }
}

/// What is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyErrorKind {
    /// A pool or count is over its limit.
    #[error("{pool} pool: {count} exceeds the limit of {limit}")]
    PoolOverflow {
        /// Which pool.
        pool: &'static str,
        /// What the shader has.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// The interface table is malformed.
    #[error("interface: {0}")]
    Interface(String),
    /// An opcode byte outside the opcode set.
    #[error("invalid opcode {0}")]
    InvalidOpcode(u8),
    /// A field outside its range.
    #[error("{op}: {what}")]
    Field {
        /// The opcode's name.
        op: &'static str,
        /// What is wrong.
        what: String,
    },
    /// A register span outside `0..ntmp`.
    #[error("{op}: {field} span {start}..{end} outside the {ntmp} temporaries")]
    Span {
        /// The opcode's name.
        op: &'static str,
        /// `dst`, `a`, `b` or `c`.
        field: &'static str,
        /// First temporary.
        start: i32,
        /// One past the last.
        end: i32,
        /// The temporaries there are.
        ntmp: u16,
    },
    /// An opcode the stage may not use.
    #[error("{op} is not allowed in a {stage} shader")]
    Stage {
        /// The opcode's name.
        op: &'static str,
        /// The stage.
        stage: &'static str,
    },
    /// Unbalanced or too deep `IF` / `ELSE` / `ENDIF`.
    #[error("control flow: {0}")]
    ControlFlow(String),
}

/// A verifier error with the index of the record it is about (`None`: the shader or its
/// interface).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{kind}", at.map(|i| format!("instruction {i}: ")).unwrap_or_default())]
pub struct VerifyError {
    /// The record index.
    pub at: Option<usize>,
    /// What is wrong.
    pub kind: VerifyErrorKind,
}

fn err<T>(at: Option<usize>, kind: VerifyErrorKind) -> Result<T, VerifyError> {
    Err(VerifyError { at, kind })
}

/// Verifies `shader` against `limits`.
pub fn verify<'a>(shader: &'a Shader, limits: &Limits) -> Result<Verified<'a>, VerifyError> {
    check_pools(shader, limits)?;
    check_interface(shader, limits).map_err(|what| VerifyError {
        at: None,
        kind: VerifyErrorKind::Interface(what),
    })?;
    let mut ops = Vec::with_capacity(shader.records.len());
    let mut flow = Flow::default();
    for (i, record) in shader.records.iter().enumerate() {
        let op = Op::from_u8(record.op).ok_or(VerifyError {
            at: Some(i),
            kind: VerifyErrorKind::InvalidOpcode(record.op),
        })?;
        check_record(shader, op, record).map_err(|kind| VerifyError { at: Some(i), kind })?;
        flow.step(op, limits).map_err(|what| VerifyError {
            at: Some(i),
            kind: VerifyErrorKind::ControlFlow(what),
        })?;
        ops.push(op);
    }
    if !flow.open.is_empty() {
        return err(
            None,
            VerifyErrorKind::ControlFlow(format!("{} IF without ENDIF", flow.open.len())),
        );
    }
    Ok(Verified { shader, ops })
}

fn check_pools(shader: &Shader, limits: &Limits) -> Result<(), VerifyError> {
    let pools = [
        ("instruction", shader.records.len(), limits.instructions),
        ("immediate", shader.immediates.len(), limits.immediates),
        ("temporary", usize::from(shader.ntmp), limits.temporaries),
    ];
    for (pool, count, limit) in pools {
        if count > usize::from(limit) {
            return err(
                None,
                VerifyErrorKind::PoolOverflow {
                    pool,
                    count,
                    limit: usize::from(limit),
                },
            );
        }
    }
    if shader.name.is_empty() || shader.name.len() > 255 {
        return err(
            None,
            VerifyErrorKind::Interface("the entry name must have 1 to 255 bytes".into()),
        );
    }
    Ok(())
}

fn check_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 255 {
        return Err(format!("{what} name `{name}` must have 1 to 255 bytes"));
    }
    Ok(())
}

fn check_slots(slots: &[Slot], what: &str, limit: u16, allowed: bool) -> Result<(), String> {
    if !allowed && !slots.is_empty() {
        return Err(format!("{what}s are not allowed in this stage"));
    }
    let mut seen = BTreeSet::new();
    for s in slots {
        check_name(&s.name, what)?;
        if s.ty.cols != 1 || !s.ty.is_valid() {
            return Err(format!("{what} `{}` has type {}", s.name, s.ty));
        }
        if s.slot >= limit {
            return Err(format!("{what} `{}` slot {} >= {limit}", s.name, s.slot));
        }
        if !seen.insert(s.slot) {
            return Err(format!("{what} slot {} declared twice", s.slot));
        }
    }
    Ok(())
}

fn check_interface(shader: &Shader, limits: &Limits) -> Result<(), String> {
    let iface = &shader.interface;
    let vertex = shader.stage == Stage::Vertex;
    check_slots(&iface.attributes, "attribute", limits.attributes, vertex)?;
    check_slots(&iface.varyings, "varying", limits.varyings, true)?;
    check_slots(&iface.outputs, "output", limits.outputs, !vertex)?;
    let mut used = vec![false; usize::from(limits.uniform_slots)];
    for u in &iface.uniforms {
        check_name(&u.name, "uniform")?;
        if !u.ty.is_valid() {
            return Err(format!("uniform `{}` has an invalid type", u.name));
        }
        for slot in u.slots() {
            let Some(cell) = used.get_mut(slot as usize) else {
                return Err(format!(
                    "uniform `{}` slot {slot} >= {}",
                    u.name, limits.uniform_slots
                ));
            };
            if std::mem::replace(cell, true) {
                return Err(format!("uniform slot {slot} declared twice"));
            }
        }
    }
    if vertex && !iface.samplers.is_empty() {
        return Err("samplers are not allowed in a vertex shader".into());
    }
    let mut seen = BTreeSet::new();
    for s in &iface.samplers {
        check_name(&s.name, "sampler")?;
        if s.slot >= limits.samplers || !seen.insert(s.slot) {
            return Err(format!(
                "sampler `{}` slot {} out of range or declared twice",
                s.name, s.slot
            ));
        }
    }
    Ok(())
}

fn field_err(op: Op, what: impl Into<String>) -> VerifyErrorKind {
    VerifyErrorKind::Field {
        op: op.name(),
        what: what.into(),
    }
}

fn check_record(shader: &Shader, op: Op, r: &Record) -> Result<(), VerifyErrorKind> {
    let sc = schema(op);
    if r.pad != 0 {
        return Err(field_err(op, format!("pad is {}, not 0", r.pad)));
    }
    let ty = Ty::from_u8(r.ty).ok_or_else(|| field_err(op, format!("type {}", r.ty)))?;
    if ty == Ty::Bool && !matches!(op, Op::Cmp | Op::Mov | Op::Swz | Op::Sel | Op::Const) {
        return Err(field_err(op, "only comparisons and moves produce bools"));
    }
    if !(sc.ncomp.0..=sc.ncomp.1).contains(&r.ncomp) {
        return Err(field_err(
            op,
            format!("ncomp {} outside {}..={}", r.ncomp, sc.ncomp.0, sc.ncomp.1),
        ));
    }
    check_aux(shader, op, &sc, r)?;
    let fields = [
        ("dst", sc.dst, r.dst),
        ("a", sc.src[0], r.a),
        ("b", sc.src[1], r.b),
        ("c", sc.src[2], r.c),
    ];
    for (name, field, value) in fields {
        check_field(shader.ntmp, op, name, field, value, r)?;
    }
    if matches!(op, Op::MulMv | Op::MulMm) {
        let ops = crate::record::operands(op, r);
        if let Some(w) = ops.write {
            if ops.reads.iter().any(|s| s.overlaps(w)) {
                return Err(field_err(op, "the destination overlaps a source"));
            }
        }
    }
    check_stage(shader.stage, op)
}

fn check_field(
    ntmp: u16,
    op: Op,
    name: &'static str,
    field: Field,
    value: i16,
    r: &Record,
) -> Result<(), VerifyErrorKind> {
    if field == Field::Unused {
        return if value == NONE {
            Ok(())
        } else {
            Err(field_err(op, format!("{name} must be -1, is {value}")))
        };
    }
    let bad = |start: i32, end: i32| VerifyErrorKind::Span {
        op: op.name(),
        field: name,
        start,
        end,
        ntmp,
    };
    let Some(span) = span_of(field, value, r) else {
        return Err(bad(i32::from(value), i32::from(value) + 1));
    };
    let end = usize::from(span.start) + usize::from(span.len);
    if end > usize::from(ntmp) {
        return Err(bad(i32::from(span.start), end as i32));
    }
    Ok(())
}

fn lanes_of(slots: &[Slot], slot: i16) -> Option<u8> {
    slots
        .iter()
        .find(|s| i32::from(s.slot) == i32::from(slot))
        .map(|s| s.ty.rows)
}

fn check_slot(op: Op, slots: &[Slot], r: &Record, what: &str) -> Result<(), VerifyErrorKind> {
    match lanes_of(slots, r.aux) {
        None => Err(field_err(
            op,
            format!("{what} slot {} is not declared", r.aux),
        )),
        Some(lanes) if r.ncomp > lanes => Err(field_err(
            op,
            format!("{} lanes of a {lanes}-lane {what}", r.ncomp),
        )),
        Some(_) => Ok(()),
    }
}

fn uniforms_cover(iface: &Interface, start: i16, count: i16) -> bool {
    let (Ok(start), Ok(count)) = (u32::try_from(start), u32::try_from(count)) else {
        return false;
    };
    count >= 1
        && (start..start + count).all(|s| iface.uniforms.iter().any(|u| u.slots().contains(&s)))
}

fn check_aux(shader: &Shader, op: Op, sc: &Schema, r: &Record) -> Result<(), VerifyErrorKind> {
    let iface = &shader.interface;
    let in_range = |v: i16, lo: i16, hi: i16, what: &str| {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(field_err(op, format!("{what} {v} outside {lo}..={hi}")))
        }
    };
    let no_aux2 = || {
        if r.aux2 == NONE {
            Ok(())
        } else {
            Err(field_err(op, format!("aux2 must be -1, is {}", r.aux2)))
        }
    };
    match sc.aux {
        AuxKind::None => {
            in_range(r.aux, NONE, NONE, "aux")?;
            no_aux2()
        }
        AuxKind::Immediate => {
            let end = i32::from(r.aux) + i32::from(r.ncomp);
            if r.aux < 0 || end > shader.immediates.len() as i32 {
                return Err(field_err(
                    op,
                    format!(
                        "immediates {}..{end} outside the pool of {}",
                        r.aux,
                        shader.immediates.len()
                    ),
                ));
            }
            no_aux2()
        }
        AuxKind::Swizzle => {
            in_range(r.aux, 0, 255, "swizzle")?;
            no_aux2()
        }
        AuxKind::Lanes => {
            in_range(r.aux, 0, 3, "destination lane")?;
            in_range(r.aux2, 0, 3, "source lane")
        }
        AuxKind::Width => {
            in_range(r.aux, 2, 4, "dot width")?;
            no_aux2()
        }
        AuxKind::Compare => {
            in_range(r.aux, 0, 5, "compare code")?;
            no_aux2()
        }
        AuxKind::MatVec => {
            in_range(r.aux, 2, 4, "columns")?;
            no_aux2()
        }
        AuxKind::MatMat => {
            in_range(r.aux, 2, 4, "columns")?;
            in_range(r.aux2, 2, 4, "result columns")
        }
        AuxKind::Sampler => {
            if !iface
                .samplers
                .iter()
                .any(|s| i32::from(s.slot) == i32::from(r.aux))
            {
                return Err(field_err(
                    op,
                    format!("sampler slot {} is not declared", r.aux),
                ));
            }
            no_aux2()
        }
        AuxKind::Uniforms => {
            if !uniforms_cover(iface, r.aux, r.aux2) {
                return Err(field_err(
                    op,
                    format!("uniform slots {} (+{}) are not all declared", r.aux, r.aux2),
                ));
            }
            Ok(())
        }
        AuxKind::Attribute => {
            check_slot(op, &iface.attributes, r, "attribute")?;
            no_aux2()
        }
        AuxKind::Varying => {
            check_slot(op, &iface.varyings, r, "varying")?;
            no_aux2()
        }
        AuxKind::Output => {
            check_slot(op, &iface.outputs, r, "output")?;
            no_aux2()
        }
    }
}

fn check_stage(stage: Stage, op: Op) -> Result<(), VerifyErrorKind> {
    let allowed = match op {
        Op::StorePos | Op::LoadAttr | Op::StoreVar => stage == Stage::Vertex,
        Op::StoreColor | Op::Discard | Op::LoadFcoord | Op::Sample | Op::LoadVar => {
            stage == Stage::Fragment
        }
        Op::Nop
        | Op::Const
        | Op::Mov
        | Op::Swz
        | Op::SetLane
        | Op::Add
        | Op::Sub
        | Op::Mul
        | Op::Min
        | Op::Max
        | Op::Abs
        | Op::Dot
        | Op::Rsq
        | Op::Rcp
        | Op::Sin
        | Op::Cos
        | Op::Pow
        | Op::Trunc
        | Op::Cmp
        | Op::MulMv
        | Op::MulMm
        | Op::LoadUni
        | Op::If
        | Op::Else
        | Op::EndIf
        | Op::Neg
        | Op::Floor
        | Op::Fract
        | Op::Sqrt
        | Op::Exp2
        | Op::Log2
        | Op::Mad
        | Op::Sel
        | Op::Ceil => true,
    };
    if allowed {
        Ok(())
    } else {
        Err(VerifyErrorKind::Stage {
            op: op.name(),
            stage: stage.name(),
        })
    }
}

/// The open `IF`s: whether each has seen its `ELSE`.
#[derive(Default)]
struct Flow {
    open: Vec<bool>,
}

impl Flow {
    fn step(&mut self, op: Op, limits: &Limits) -> Result<(), String> {
        match op {
            Op::If => {
                if self.open.len() >= usize::from(limits.if_depth) {
                    return Err(format!("IF nesting deeper than {}", limits.if_depth));
                }
                self.open.push(false);
            }
            Op::Else => match self.open.last_mut() {
                None => return Err("ELSE without IF".into()),
                Some(true) => return Err("second ELSE of one IF".into()),
                Some(seen) => *seen = true,
            },
            // The guard pops the innermost IF; an ENDIF with none open is the error.
            Op::EndIf if self.open.pop().is_none() => {
                return Err("ENDIF without IF".into());
            }
            // wildcard-ok: only the three control markers change the nesting
            _ => {}
        }
        Ok(())
    }
}

/// A record of `op` with `ncomp` lanes and `dst`, `a`, `b` set: a test helper.
#[cfg(test)]
pub(crate) fn rec(op: Op, ncomp: u8, dst: i16, a: i16, b: i16) -> Record {
    Record {
        ncomp,
        dst,
        a,
        b,
        ..Record::new(op)
    }
}

/// Builds a small valid vertex shader for tests: attribute 3, uniform mat4 + vec4,
/// varying 1.
#[cfg(test)]
pub(crate) fn sample_vertex() -> Shader {
    use crate::interface::{IfaceType, Interp, Uniform};
    let slot = |name: &str, slot: u16, lanes: u8| Slot {
        name: name.into(),
        ty: IfaceType::vector(lanes),
        slot,
        interp: Interp::Perspective,
    };
    let uniform = |name: &str, slot: u16, cols: u8| Uniform {
        name: name.into(),
        ty: IfaceType { cols, rows: 4 },
        slot,
        group: 0,
        binding: 0,
        offset: u32::from(slot) * 16,
        column_stride: if cols > 1 { 16 } else { 0 },
    };
    let interface = Interface {
        uniforms: vec![uniform("u.mvp", 0, 4), uniform("u.tint", 4, 1)],
        attributes: vec![slot("position", 3, 4)],
        varyings: vec![slot("color", 1, 4)],
        outputs: vec![],
        samplers: vec![],
    };
    let mut load_uni = rec(Op::LoadUni, 4, 0, NONE, NONE);
    (load_uni.aux, load_uni.aux2) = (0, 5);
    let mut attr = rec(Op::LoadAttr, 4, 5, NONE, NONE);
    attr.aux = 3;
    let mut mv = rec(Op::MulMv, 4, 6, 0, 5);
    mv.aux = 4;
    let mut var = rec(Op::StoreVar, 4, NONE, 4, NONE);
    var.aux = 1;
    let mut konst = rec(Op::Const, 2, 7, NONE, NONE);
    konst.aux = 0;
    let mut cmp = rec(Op::Cmp, 1, 7, 7, 7);
    (cmp.aux, cmp.ty) = (1, Ty::Bool as u8);
    let mut iff = rec(Op::If, 0, NONE, 7, NONE);
    iff.ncomp = 0;
    let records = vec![
        load_uni,
        attr,
        mv,
        konst,
        cmp,
        iff,
        rec(Op::StorePos, 4, NONE, 6, NONE),
        rec(Op::Else, 0, NONE, NONE, NONE),
        rec(Op::StorePos, 4, NONE, 5, NONE),
        rec(Op::EndIf, 0, NONE, NONE, NONE),
        var,
    ];
    Shader {
        stage: Stage::Vertex,
        name: "vs_main".into(),
        ntmp: 8,
        records,
        immediates: vec![1.0, -0.5],
        interface,
    }
}

#[cfg(test)]
mod tests;
