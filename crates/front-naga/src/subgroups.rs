//! Subgroup statements: naga's `SubgroupBallot`, `SubgroupGather` and
//! `SubgroupCollectiveOperation` (WGSL `enable subgroups;`, GLSL
//! `GL_KHR_shader_subgroup_*`) lowered to the IR's subgroup ops.
//!
//! | naga | oxir |
//! |---|---|
//! | `SubgroupBallot` (no predicate: `true`) | `subgroup_ballot` |
//! | `GatherMode::BroadcastFirst`, `Broadcast`, `Shuffle`, `ShuffleXor`, `ShuffleUp`, `ShuffleDown` | `subgroup_broadcast_first`, `subgroup_broadcast`, `subgroup_shuffle`, `subgroup_shuffle_xor`, `subgroup_shuffle_up`, `subgroup_shuffle_down` |
//! | `SubgroupOperation::All`, `Any` (reductions) | `subgroup_all`, `subgroup_any` |
//! | `Add`, `Mul`, `Min`, `Max`, `And`, `Or`, `Xor` × `Reduce`, `InclusiveScan`, `ExclusiveScan` | `subgroup_add`, `subgroup_inclusive_add`, `subgroup_exclusive_add`, ... |
//! | quad operations (`QuadBroadcast`, `QuadSwap`); scans of `All` / `Any` | refused |
//!
//! The IR's type rules decide the value types (i32, u32, f32, f16 scalars and vectors;
//! integers for `and`/`or`/`xor`); a value they refuse is a located error.

use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use naga::{CollectiveOperation, Expression, GatherMode, Handle, SubgroupOperation};
use oxir_ir::{Opcode, Scalar};

impl FunctionLowerer<'_, '_> {
    /// `subgroupBallot(predicate)`.
    pub(crate) fn lower_subgroup_ballot(
        &mut self,
        predicate: Option<Handle<Expression>>,
        result: Handle<Expression>,
    ) -> Result<()> {
        let predicate = match predicate {
            Some(p) => self.value_of(p)?,
            None => self.scalar_const(Scalar::BOOL, 1),
        };
        let value = self.op(Opcode::SubgroupBallot, &[predicate])?;
        self.values[result.index()] = Some(value);
        Ok(())
    }

    /// Broadcasts and shuffles.
    pub(crate) fn lower_subgroup_gather(
        &mut self,
        mode: &GatherMode,
        argument: Handle<Expression>,
        result: Handle<Expression>,
    ) -> Result<()> {
        let (op, lane) = match *mode {
            GatherMode::BroadcastFirst => (Opcode::SubgroupBroadcastFirst, None),
            GatherMode::Broadcast(i) => (Opcode::SubgroupBroadcast, Some(i)),
            GatherMode::Shuffle(i) => (Opcode::SubgroupShuffle, Some(i)),
            GatherMode::ShuffleXor(i) => (Opcode::SubgroupShuffleXor, Some(i)),
            GatherMode::ShuffleUp(i) => (Opcode::SubgroupShuffleUp, Some(i)),
            GatherMode::ShuffleDown(i) => (Opcode::SubgroupShuffleDown, Some(i)),
            GatherMode::QuadBroadcast(_) | GatherMode::QuadSwap(_) => {
                return Err(LowerError::unsupported(
                    "quad operation (quadBroadcast, quadSwap*)",
                    self.span,
                ))
            }
        };
        let mut args = vec![self.value_of(argument)?];
        if let Some(lane) = lane {
            args.push(self.value_of(lane)?);
        }
        let value = self.op(op, &args)?;
        self.values[result.index()] = Some(value);
        Ok(())
    }

    /// Votes, reductions and scans.
    pub(crate) fn lower_subgroup_collective(
        &mut self,
        op: SubgroupOperation,
        collective: CollectiveOperation,
        argument: Handle<Expression>,
        result: Handle<Expression>,
    ) -> Result<()> {
        let opcode = collective_opcode(op, collective).ok_or_else(|| {
            LowerError::unsupported(format!("subgroup scan of `{op:?}`"), self.span)
        })?;
        let argument = self.value_of(argument)?;
        let value = self.op(opcode, &[argument])?;
        self.values[result.index()] = Some(value);
        Ok(())
    }
}

/// The opcode of `op` under `collective`; `None` for scans of `All` / `Any`.
fn collective_opcode(op: SubgroupOperation, collective: CollectiveOperation) -> Option<Opcode> {
    use CollectiveOperation::{ExclusiveScan as E, InclusiveScan as I, Reduce as R};
    use Opcode as O;
    use SubgroupOperation as S;
    Some(match (op, collective) {
        (S::All, R) => O::SubgroupAll,
        (S::Any, R) => O::SubgroupAny,
        (S::All | S::Any, I | E) => return None,
        (S::Add, R) => O::SubgroupAdd,
        (S::Mul, R) => O::SubgroupMul,
        (S::Min, R) => O::SubgroupMin,
        (S::Max, R) => O::SubgroupMax,
        (S::And, R) => O::SubgroupAnd,
        (S::Or, R) => O::SubgroupOr,
        (S::Xor, R) => O::SubgroupXor,
        (S::Add, I) => O::SubgroupInclusiveAdd,
        (S::Mul, I) => O::SubgroupInclusiveMul,
        (S::Min, I) => O::SubgroupInclusiveMin,
        (S::Max, I) => O::SubgroupInclusiveMax,
        (S::And, I) => O::SubgroupInclusiveAnd,
        (S::Or, I) => O::SubgroupInclusiveOr,
        (S::Xor, I) => O::SubgroupInclusiveXor,
        (S::Add, E) => O::SubgroupExclusiveAdd,
        (S::Mul, E) => O::SubgroupExclusiveMul,
        (S::Min, E) => O::SubgroupExclusiveMin,
        (S::Max, E) => O::SubgroupExclusiveMax,
        (S::And, E) => O::SubgroupExclusiveAnd,
        (S::Or, E) => O::SubgroupExclusiveOr,
        (S::Xor, E) => O::SubgroupExclusiveXor,
    })
}
