//! Subgroup collectives: which invocations take part in one execution of a subgroup op,
//! and what each of them gets.
//!
//! An invocation that reaches a subgroup op stops there (like a barrier) until every
//! invocation of its workgroup has stopped, finished or reached a barrier. Then each
//! *instance* is resolved: the invocations of one subgroup (`local_invocation_index /
//! subgroup_size`) stopped at the same instruction with the same call stack. Those are
//! the *active lanes*; invocations that finished, wait at a barrier or at another
//! instruction (a different branch) take no part. Lanes are ordered by
//! `subgroup_invocation_id` (`local_invocation_index % subgroup_size`), and every
//! reduction and scan combines the active lanes' values in that order, one lane after
//! another, with the lane-wise opcode through the shared scalar semantics
//! (`((v0 + v1) + v2) + ...` in the value's own type: f32 sums round after each lane);
//! an exclusive scan gives the lowest active lane the identity (see
//! [`scalar::subgroup_identity`]).
//! A shuffle or broadcast whose source lane is inactive or out of range gives zero.

use super::step::{elem_of, try_map2};
use super::{map1, relane, Invocation, Machine, Status};
use crate::error::ErrorKind;
use crate::scalar;
use crate::value::{Lanes, Val};
use crate::Error;
use oxir_ir::{Opcode, Scalar, SubgroupArith, SubgroupOp, SubgroupScan};
use smallvec::SmallVec;
use std::collections::BTreeMap;

/// One active lane: its subgroup invocation id and operand values.
pub(super) struct Lane {
    pub id: u32,
    pub args: SmallVec<[Val; 4]>,
}

/// Identifies one instance: the subgroup and the call stack (function, block, position).
type InstanceKey = (u32, Vec<(u32, u32, usize)>);

impl Machine<'_> {
    /// Resolves every subgroup op the invocations wait at; `true` if there was one.
    pub(crate) fn resolve_subgroups(&mut self, invs: &mut [Invocation]) -> Result<bool, Error> {
        let size = self.options.subgroup_size.max(1);
        let mut instances: BTreeMap<InstanceKey, Vec<usize>> = BTreeMap::new();
        for (i, inv) in invs.iter().enumerate() {
            if matches!(inv.status, Status::Subgroup) {
                let stack = inv
                    .frames
                    .iter()
                    .map(|f| (f.func.as_u32(), f.block.as_u32(), f.pos))
                    .collect();
                instances
                    .entry((inv.regs.local_index / size, stack))
                    .or_default()
                    .push(i);
            }
        }
        let any = !instances.is_empty();
        for members in instances.into_values() {
            self.resolve_instance(invs, &members, size)?;
        }
        Ok(any)
    }

    fn resolve_instance(
        &mut self,
        invs: &mut [Invocation],
        members: &[usize],
        size: u32,
    ) -> Result<(), Error> {
        let first = &invs[members[0]];
        let cur = self.current(first).map_err(|k| self.located(first, k))?;
        let op = cur.data.opcode;
        let located = |k: ErrorKind| self.located(first, k);
        let sub = op
            .subgroup_op()
            .ok_or_else(|| located(ErrorKind::Malformed("a subgroup wait at another op")))?;
        let elem = match cur.data.args.first() {
            Some(_) => Some(elem_of(&self.module.types, cur.arg_ty(0)).map_err(located)?),
            None => None,
        };
        let mut lanes = Vec::with_capacity(members.len());
        for &i in members {
            let c = self
                .current(&invs[i])
                .map_err(|k| self.located(&invs[i], k))?;
            lanes.push(Lane {
                id: invs[i].regs.local_index % size,
                args: c.args,
            });
        }
        let results = results(sub, elem, &lanes, size).map_err(located)?;
        for (&i, v) in members.iter().zip(results) {
            invs[i].subgroup_result = Some(v);
            invs[i].status = Status::Running;
        }
        Ok(())
    }
}

/// The result of each lane (in `lanes`' order, which is lane order).
pub(super) fn results(
    op: SubgroupOp,
    elem: Option<Scalar>,
    lanes: &[Lane],
    size: u32,
) -> Result<Vec<Val>, ErrorKind> {
    let n = lanes.len();
    let same = |v: Val| vec![v; n];
    let s = elem.unwrap_or(Scalar::BOOL);
    Ok(match op {
        SubgroupOp::Ballot => same(ballot(lanes)),
        SubgroupOp::Elect => (0..n).map(|i| Val::S(u64::from(i == 0))).collect(),
        SubgroupOp::BroadcastFirst => same(value(lanes, 0)?.clone()),
        SubgroupOp::All => same(Val::S(u64::from(lanes.iter().all(|l| arg_bits(l) != 0)))),
        SubgroupOp::Any => same(Val::S(u64::from(lanes.iter().any(|l| arg_bits(l) != 0)))),
        SubgroupOp::AllEqual => same(Val::S(u64::from(all_equal(s, lanes)?))),
        SubgroupOp::Broadcast
        | SubgroupOp::Shuffle
        | SubgroupOp::ShuffleXor
        | SubgroupOp::ShuffleUp
        | SubgroupOp::ShuffleDown => lanes
            .iter()
            .map(|l| gather(op, lanes, l, size))
            .collect::<Result<_, _>>()?,
        SubgroupOp::Arithmetic { op, scan } => arithmetic(op, scan, s, lanes)?,
    })
}

fn arg_bits(l: &Lane) -> u64 {
    l.args.first().map_or(0, Val::bits)
}

fn value(lanes: &[Lane], i: usize) -> Result<&Val, ErrorKind> {
    lanes
        .get(i)
        .and_then(|l| l.args.first())
        .ok_or(ErrorKind::Malformed(
            "a subgroup op without its value operand",
        ))
}

/// Bit `id % 32` of word `id / 32` for each active lane whose predicate holds.
fn ballot(lanes: &[Lane]) -> Val {
    let mut words: Lanes = SmallVec::from_slice(&[0; 4]);
    for l in lanes.iter().filter(|l| arg_bits(l) != 0) {
        let word = (l.id / 32) as usize;
        if let Some(w) = words.get_mut(word) {
            *w |= 1u64 << (l.id % 32);
        }
    }
    Val::V(words)
}

fn all_equal(s: Scalar, lanes: &[Lane]) -> Result<bool, ErrorKind> {
    let first = value(lanes, 0)?.lanes();
    for i in 1..lanes.len() {
        let other = value(lanes, i)?.lanes();
        for (&a, &b) in first.iter().zip(&other) {
            if scalar::binary(Opcode::Eq, s, a, b)? == 0 {
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// A broadcast or shuffle: the value of the source lane, zero when it is inactive or out
/// of range.
fn gather(op: SubgroupOp, lanes: &[Lane], me: &Lane, size: u32) -> Result<Val, ErrorKind> {
    let mine = me.args.first().ok_or(ErrorKind::Malformed(
        "a subgroup op without its value operand",
    ))?;
    let k = me.args.get(1).map_or(0, Val::bits);
    let k = u32::try_from(k).unwrap_or(u32::MAX);
    let source = match op {
        SubgroupOp::ShuffleXor => Some(me.id ^ k),
        SubgroupOp::ShuffleUp => me.id.checked_sub(k),
        SubgroupOp::ShuffleDown => me.id.checked_add(k),
        SubgroupOp::Broadcast
        | SubgroupOp::Shuffle
        | SubgroupOp::Ballot
        | SubgroupOp::Elect
        | SubgroupOp::BroadcastFirst
        | SubgroupOp::All
        | SubgroupOp::Any
        | SubgroupOp::AllEqual
        | SubgroupOp::Arithmetic { .. } => Some(k),
    };
    let found = source
        .filter(|&id| id < size)
        .and_then(|id| lanes.iter().find(|l| l.id == id))
        .and_then(|l| l.args.first());
    Ok(match found {
        Some(v) => v.clone(),
        None => map1(mine, &|_| 0),
    })
}

/// A reduction or scan, combining lanes in order: `v0`, then `v0 op v1`, ... (the
/// identity only where an exclusive scan has no lane below).
fn arithmetic(
    op: SubgroupArith,
    scan: SubgroupScan,
    s: Scalar,
    lanes: &[Lane],
) -> Result<Vec<Val>, ErrorKind> {
    let combine = op.combine();
    let first = value(lanes, 0)?;
    let identity = scalar::subgroup_identity(op, s);
    let lanes_of_first = first.lanes().len().max(1);
    let identity = relane(first, SmallVec::from_elem(identity, lanes_of_first));
    let mut acc: Option<Val> = None;
    let mut out = Vec::with_capacity(lanes.len());
    for i in 0..lanes.len() {
        let v = value(lanes, i)?;
        let inclusive = match &acc {
            None => v.clone(),
            Some(a) => try_map2(a, v, &|x, y| scalar::binary(combine, s, x, y))?,
        };
        out.push(match scan {
            SubgroupScan::Exclusive => acc.take().unwrap_or_else(|| identity.clone()),
            SubgroupScan::Inclusive | SubgroupScan::Reduce => inclusive.clone(),
        });
        acc = Some(inclusive);
    }
    if let (SubgroupScan::Reduce, Some(total)) = (scan, acc) {
        out = vec![total; lanes.len()];
    }
    Ok(out)
}
