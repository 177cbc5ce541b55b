//! The CSIR optimiser: use-count dead-code elimination to a fixed point, removal of dead
//! branches, and compaction.
//!
//! - **DCE**: a pure record (the schema's `pure`: everything but stores, control
//!   markers and `DISCARD`) is dead when no *other* record reads any temporary of its
//!   destination span anywhere in the shader. Reads come from the operand schema, so
//!   every column of a matrix operand and every slot of a uniform range counts, and a
//!   SETLANE's destination counts as a read (of the values it keeps). Flow-insensitive
//!   counting is sound because CSIR has no loops; it runs until nothing changes.
//! - **Dead branches**: an `IF` on a temporary whose only writer is a `CONST` before it
//!   at depth 0 keeps the arm the constant selects; an `IF` whose arms hold nothing is
//!   removed with its `ELSE` / `ENDIF`.
//! - **Compaction**: `NOP`s are removed; nothing is left behind.
//!
//! Invariant: the output verifies whenever the input does (checked: an optimised shader
//! that failed the verifier would be an error, not a panic). Not done: copy
//! propagation, CSE, renumbering temporaries.

use crate::record::{operands, schema, Op, Record};
use crate::{verify, Limits, Shader, VerifyError};

/// What the optimiser did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptInfo {
    /// Records before.
    pub before: usize,
    /// Records after.
    pub after: usize,
    /// Pure records removed as dead.
    pub dead: usize,
    /// `IF`s on a constant resolved (with the arm not taken).
    pub constant_branches: usize,
    /// `IF`s with empty arms removed.
    pub empty_ifs: usize,
    /// DCE rounds until the fixed point.
    pub rounds: usize,
}

fn nop() -> Record {
    Record::new(Op::Nop)
}

fn decoded(shader: &Shader) -> Vec<Op> {
    shader
        .records
        .iter()
        .map(|r| r.opcode().unwrap_or(Op::Nop))
        .collect()
}

/// One DCE round; how many records it removed.
fn dce_round(shader: &mut Shader) -> usize {
    let ops = decoded(shader);
    let mut uses = vec![0u32; usize::from(shader.ntmp)];
    for (op, r) in ops.iter().zip(&shader.records) {
        for span in operands(*op, r).reads {
            for t in span.temps() {
                if let Some(u) = uses.get_mut(t) {
                    *u += 1;
                }
            }
        }
    }
    let mut removed = 0;
    for (op, r) in ops.iter().zip(shader.records.iter_mut()) {
        let ops_of = operands(*op, r);
        let Some(write) = ops_of.write else { continue };
        if !schema(*op).pure {
            continue;
        }
        let live = write.temps().any(|t| {
            let own = ops_of
                .reads
                .iter()
                .filter(|s| s.temps().contains(&t))
                .count() as u32;
            uses.get(t).copied().unwrap_or(0) > own
        });
        if !live {
            *r = nop();
            removed += 1;
        }
    }
    removed
}

/// The `ELSE` and `ENDIF` indices of the `IF` at `at`.
fn arms(ops: &[Op], at: usize) -> Option<(Option<usize>, usize)> {
    let mut depth = 0usize;
    let mut else_at = None;
    for (i, op) in ops.iter().enumerate().skip(at + 1) {
        match op {
            Op::If => depth += 1,
            Op::Else if depth == 0 => else_at = Some(i),
            Op::EndIf if depth == 0 => return Some((else_at, i)),
            Op::EndIf => depth -= 1,
            // wildcard-ok: only the control markers change the nesting
            _ => {}
        }
    }
    None
}

/// The constant lane 0 a temporary holds at `at` when its only writer is a `CONST` at
/// depth 0 before `at`.
fn constant_at(shader: &Shader, ops: &[Op], at: usize, temp: i16) -> Option<f32> {
    let mut writer = None;
    let mut depth = 0usize;
    for (i, (op, r)) in ops.iter().zip(&shader.records).enumerate() {
        match op {
            Op::If => depth += 1,
            Op::EndIf => depth = depth.saturating_sub(1),
            // wildcard-ok: every other opcode leaves the nesting alone
            _ => {}
        }
        if let Some(w) = operands(*op, r).write {
            if w.temps().contains(&(temp.max(0) as usize)) {
                if writer.is_some() {
                    return None;
                }
                writer = Some((i, *op, *r, depth));
            }
        }
    }
    match writer {
        Some((i, Op::Const, r, 0)) if i < at => {
            shader.immediates.get(r.aux.max(0) as usize).copied()
        }
        // wildcard-ok: any other writer (or none) leaves the value unknown
        _ => None,
    }
}

/// Resolves one dead or empty branch; `Some(constant?)` when it changed something.
fn branch_round(shader: &mut Shader) -> Option<bool> {
    let ops = decoded(shader);
    for at in 0..ops.len() {
        if ops[at] != Op::If {
            continue;
        }
        let (else_at, end) = arms(&ops, at)?;
        let then_end = else_at.unwrap_or(end);
        let empty = |range: std::ops::Range<usize>| ops[range].iter().all(|op| *op == Op::Nop);
        if empty(at + 1..then_end) && else_at.is_none_or(|e| empty(e + 1..end)) {
            for i in [Some(at), else_at, Some(end)].into_iter().flatten() {
                shader.records[i] = nop();
            }
            return Some(false);
        }
        if let Some(value) = constant_at(shader, &ops, at, shader.records[at].a) {
            let dropped = if value != 0.0 {
                else_at.map(|e| e..end)
            } else {
                Some(at + 1..then_end)
            };
            for i in dropped.into_iter().flatten() {
                shader.records[i] = nop();
            }
            for i in [Some(at), else_at, Some(end)].into_iter().flatten() {
                shader.records[i] = nop();
            }
            return Some(true);
        }
    }
    None
}

/// Optimises a shader that verifies under `limits`.
pub fn optimize(shader: &mut Shader, limits: &Limits) -> Result<OptInfo, VerifyError> {
    verify(shader, limits)?;
    let mut info = OptInfo {
        before: shader.records.len(),
        ..OptInfo::default()
    };
    loop {
        info.rounds += 1;
        let removed = dce_round(shader);
        info.dead += removed;
        let branch = branch_round(shader);
        match branch {
            Some(true) => info.constant_branches += 1,
            Some(false) => info.empty_ifs += 1,
            None => {}
        }
        if removed == 0 && branch.is_none() {
            break;
        }
    }
    shader.records.retain(|r| r.op != Op::Nop as u8);
    info.after = shader.records.len();
    verify(shader, limits)?;
    Ok(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::NONE;
    use crate::verify::{rec, sample_vertex};

    #[test]
    fn dead_code_constant_branches_and_compaction() {
        let mut shader = sample_vertex();
        // The CMP reads temporary 7 written by CONST; the IF depends on CMP, not a
        // CONST, so both arms stay. Add a dead chain: 8 <- 5 * 5, 9 <- 8 + 8.
        shader.ntmp = 10;
        shader.records.insert(3, rec(Op::Mul, 4, 8, 5, 5));
        shader.records.insert(4, rec(Op::Add, 4, 9, 8, 8));
        let mut info = optimize(&mut shader, &Limits::default()).unwrap();
        assert_eq!(
            (info.dead, info.before, info.after),
            (2, 13, 11),
            "{info:?}"
        );
        assert!(shader.records.iter().all(|r| r.op != Op::Nop as u8));
        // A constant condition: the IF reads the CONST's temporary directly.
        let if_at = shader
            .records
            .iter()
            .position(|r| r.op == Op::If as u8)
            .unwrap();
        shader.records[if_at - 1] = nop();
        shader.records[if_at].a = 7;
        info = optimize(&mut shader, &Limits::default()).unwrap();
        // imm[0] = 1.0: the THEN arm (STORE_POS of 6) stays, ELSE arm goes.
        assert_eq!(info.constant_branches, 1, "{info:?}");
        let stores: Vec<i16> = shader
            .records
            .iter()
            .filter(|r| r.op == Op::StorePos as u8)
            .map(|r| r.a)
            .collect();
        assert_eq!(stores, [6]);
        assert!(shader.records.iter().all(|r| r.op != Op::If as u8));
    }

    /// Matrix columns 1..3 written by MOVs are read through MULMV's span: kept (the
    /// seed's DCE deleted them).
    #[test]
    fn matrix_columns_and_setlane_destinations_are_uses() {
        let mut shader = sample_vertex();
        // Column 0 from the uniform, columns 1..3 copied from it, temporary 4 built by
        // MOV then SETLANE, read by STORE_VAR.
        shader.records[0].aux2 = 1;
        let mut set = rec(Op::SetLane, 1, 4, 5, NONE);
        (set.aux, set.aux2) = (1, 0);
        let extra = [
            rec(Op::Mov, 4, 1, 0, NONE),
            rec(Op::Mov, 4, 2, 0, NONE),
            rec(Op::Mov, 4, 3, 0, NONE),
            rec(Op::Mov, 4, 4, 0, NONE),
            set,
        ];
        for (k, r) in extra.into_iter().enumerate() {
            shader.records.insert(2 + k, r);
        }
        let info = optimize(&mut shader, &Limits::default()).unwrap();
        assert_eq!(info.dead, 0, "{info:?}");
        let movs = shader
            .records
            .iter()
            .filter(|r| r.op == Op::Mov as u8)
            .count();
        assert_eq!(movs, 4);
        // Without the MULMV nothing reads columns 1..3: their MOVs die.
        let mv = shader
            .records
            .iter()
            .position(|r| r.op == Op::MulMv as u8)
            .unwrap();
        shader.records.remove(mv);
        let stores = shader
            .records
            .iter()
            .position(|r| r.op == Op::StorePos as u8)
            .unwrap();
        shader.records[stores].a = 5;
        let info = optimize(&mut shader, &Limits::default()).unwrap();
        assert_eq!(info.dead, 3, "{info:?}");
    }
}
