//! Subgroup operations: `OpGroupNonUniform*` at `Subgroup` execution scope (SPIR-V 1.3;
//! the preflight refuses them under vulkan1.0), each with the capability its class needs:
//! `GroupNonUniform` (elect), `GroupNonUniformBallot` (ballot, broadcasts),
//! `GroupNonUniformVote` (all, any, all_equal), `GroupNonUniformShuffle` (shuffle,
//! shuffle_xor), `GroupNonUniformShuffleRelative` (shuffle_up, shuffle_down) and
//! `GroupNonUniformArithmetic` (reductions and scans).

use super::*;
use oxir_ir::{SubgroupArith, SubgroupOp, SubgroupScan};
use rspirv::spirv::GroupOperation;

impl Writer<'_> {
    /// Writes the subgroup op `op`.
    pub(super) fn subgroup(&mut self, c: &Operands, op: SubgroupOp) -> R<()> {
        use SubgroupOp::*;
        self.cap(Capability::GroupNonUniform);
        let scope = self.const_u32(spirv::Scope::Subgroup as u32);
        let mut operands = vec![Operand::IdRef(scope)];
        let (code, capability) = match op {
            Ballot => (Op::GroupNonUniformBallot, Capability::GroupNonUniformBallot),
            Elect => (Op::GroupNonUniformElect, Capability::GroupNonUniform),
            BroadcastFirst => (
                Op::GroupNonUniformBroadcastFirst,
                Capability::GroupNonUniformBallot,
            ),
            Broadcast => (
                Op::GroupNonUniformBroadcast,
                Capability::GroupNonUniformBallot,
            ),
            Shuffle => (
                Op::GroupNonUniformShuffle,
                Capability::GroupNonUniformShuffle,
            ),
            ShuffleXor => (
                Op::GroupNonUniformShuffleXor,
                Capability::GroupNonUniformShuffle,
            ),
            ShuffleUp => (
                Op::GroupNonUniformShuffleUp,
                Capability::GroupNonUniformShuffleRelative,
            ),
            ShuffleDown => (
                Op::GroupNonUniformShuffleDown,
                Capability::GroupNonUniformShuffleRelative,
            ),
            All => (Op::GroupNonUniformAll, Capability::GroupNonUniformVote),
            Any => (Op::GroupNonUniformAny, Capability::GroupNonUniformVote),
            AllEqual => (Op::GroupNonUniformAllEqual, Capability::GroupNonUniformVote),
            Arithmetic { op, scan } => {
                let s = c.s0.ok_or("a subgroup reduction of a non-scalar")?;
                operands.push(Operand::GroupOperation(group_operation(scan)));
                (
                    arithmetic_op(op, s.kind),
                    Capability::GroupNonUniformArithmetic,
                )
            }
        };
        self.cap(capability);
        operands.extend(Self::ids(&c.a));
        self.op(code, c.rt, c.rid, operands)?;
        Ok(())
    }
}

fn group_operation(scan: SubgroupScan) -> GroupOperation {
    match scan {
        SubgroupScan::Reduce => GroupOperation::Reduce,
        SubgroupScan::Inclusive => GroupOperation::InclusiveScan,
        SubgroupScan::Exclusive => GroupOperation::ExclusiveScan,
    }
}

/// The arithmetic instruction for `op` on scalars of `kind`.
fn arithmetic_op(op: SubgroupArith, kind: ScalarKind) -> Op {
    let float = kind == ScalarKind::Float;
    let signed = kind == ScalarKind::Sint;
    match op {
        SubgroupArith::Add if float => Op::GroupNonUniformFAdd,
        SubgroupArith::Add => Op::GroupNonUniformIAdd,
        SubgroupArith::Mul if float => Op::GroupNonUniformFMul,
        SubgroupArith::Mul => Op::GroupNonUniformIMul,
        SubgroupArith::Min if float => Op::GroupNonUniformFMin,
        SubgroupArith::Min if signed => Op::GroupNonUniformSMin,
        SubgroupArith::Min => Op::GroupNonUniformUMin,
        SubgroupArith::Max if float => Op::GroupNonUniformFMax,
        SubgroupArith::Max if signed => Op::GroupNonUniformSMax,
        SubgroupArith::Max => Op::GroupNonUniformUMax,
        SubgroupArith::And => Op::GroupNonUniformBitwiseAnd,
        SubgroupArith::Or => Op::GroupNonUniformBitwiseOr,
        SubgroupArith::Xor => Op::GroupNonUniformBitwiseXor,
    }
}
