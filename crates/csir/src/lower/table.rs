//! How every oxir op becomes CSIR: [`lowering`] is the one exhaustive `match` over
//! [`Opcode`] in this back-end, so a new op does not compile until it is given a
//! lowering here or refused with the reason the preflight reports.

use crate::record::{Cmp, Op};
use oxir_ir::{Opcode, TerminatorOp};

/// How one oxir op is written in CSIR.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lowering {
    /// One lane-wise CSIR op with the same operands (matrices column by column for
    /// `add` / `sub`).
    Lanewise(Op),
    /// A composition of CSIR ops (module `emit`).
    Composed(Composed),
    /// A comparison giving 1.0 / 0.0.
    Compare(Cmp),
    /// A pointer or handle: `access`, `load`.
    Memory(MemoryOp),
    /// `texture_sample` of a 2D float texture.
    Sample,
    /// `frag_coord`.
    FragCoord,
    /// A terminator, handled by the structured walk.
    Terminator(TerminatorOp),
    /// Not expressible in CSIR.
    Refused(&'static str),
}

/// Ops written as several CSIR instructions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Composed {
    Div,
    Rem,
    Sign,
    Clamp,
    Select,
    And,
    Or,
    Xor,
    Not,
    IsNan,
    Any,
    All,
    Tan,
    Exp,
    Log,
    Fma,
    Saturate,
    Step,
    Smoothstep,
    Mix,
    Degrees,
    Radians,
    Dot,
    Cross,
    Length,
    Distance,
    Normalize,
    Reflect,
    FaceForward,
    ReduceAdd,
    MatMat,
    MatVec,
    VecMat,
    MatScalar,
    Transpose,
    Convert,
    Construct,
    Splat,
    Extract,
    Insert,
    Shuffle,
}

/// Memory ops CSIR keeps: uniform access chains with constant indices, and loads of
/// uniforms and resource handles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemoryOp {
    Access,
    Load,
}

const INTEGER: &str = "integer and bit operations (CSIR lanes are f32)";
const LOOPS: &str = "runtime loops (CSIR has IF/ELSE/ENDIF only)";

/// The lowering of `op`.
pub(crate) fn lowering(op: Opcode) -> Lowering {
    use Composed as C;
    use Lowering::{Composed as K, Lanewise as L, Refused as R};
    match op {
        Opcode::Add => L(Op::Add),
        Opcode::Sub => L(Op::Sub),
        Opcode::Mul => L(Op::Mul),
        Opcode::Min => L(Op::Min),
        Opcode::Max => L(Op::Max),
        Opcode::Neg => L(Op::Neg),
        Opcode::Abs => L(Op::Abs),
        Opcode::Sin => L(Op::Sin),
        Opcode::Cos => L(Op::Cos),
        Opcode::Pow => L(Op::Pow),
        Opcode::Exp2 => L(Op::Exp2),
        Opcode::Log2 => L(Op::Log2),
        Opcode::Sqrt => L(Op::Sqrt),
        Opcode::InverseSqrt => L(Op::Rsq),
        Opcode::Ceil => L(Op::Ceil),
        Opcode::Floor => L(Op::Floor),
        Opcode::Fract => L(Op::Fract),
        Opcode::Trunc => L(Op::Trunc),
        Opcode::Div => K(C::Div),
        Opcode::Rem => K(C::Rem),
        Opcode::Sign => K(C::Sign),
        Opcode::Clamp => K(C::Clamp),
        Opcode::Select => K(C::Select),
        Opcode::And => K(C::And),
        Opcode::Or => K(C::Or),
        Opcode::Xor => K(C::Xor),
        Opcode::Not => K(C::Not),
        Opcode::Eq => Lowering::Compare(Cmp::Eq),
        Opcode::Ne => Lowering::Compare(Cmp::Ne),
        Opcode::Lt => Lowering::Compare(Cmp::Lt),
        Opcode::Le => Lowering::Compare(Cmp::Le),
        Opcode::Gt => Lowering::Compare(Cmp::Gt),
        Opcode::Ge => Lowering::Compare(Cmp::Ge),
        Opcode::IsNan => K(C::IsNan),
        Opcode::Any => K(C::Any),
        Opcode::All => K(C::All),
        Opcode::Tan => K(C::Tan),
        Opcode::Exp => K(C::Exp),
        Opcode::Log => K(C::Log),
        Opcode::Fma => K(C::Fma),
        Opcode::Saturate => K(C::Saturate),
        Opcode::Step => K(C::Step),
        Opcode::Smoothstep => K(C::Smoothstep),
        Opcode::Mix => K(C::Mix),
        Opcode::Degrees => K(C::Degrees),
        Opcode::Radians => K(C::Radians),
        Opcode::Dot => K(C::Dot),
        Opcode::Cross => K(C::Cross),
        Opcode::Length => K(C::Length),
        Opcode::Distance => K(C::Distance),
        Opcode::Normalize => K(C::Normalize),
        Opcode::Reflect => K(C::Reflect),
        Opcode::FaceForward => K(C::FaceForward),
        Opcode::ReduceAdd => K(C::ReduceAdd),
        Opcode::MatrixTimesMatrix => K(C::MatMat),
        Opcode::MatrixTimesVector => K(C::MatVec),
        Opcode::VectorTimesMatrix => K(C::VecMat),
        Opcode::MatrixTimesScalar => K(C::MatScalar),
        Opcode::Transpose => K(C::Transpose),
        Opcode::Convert => K(C::Convert),
        Opcode::Construct => K(C::Construct),
        Opcode::Splat => K(C::Splat),
        Opcode::Extract => K(C::Extract),
        Opcode::Insert => K(C::Insert),
        Opcode::Shuffle => K(C::Shuffle),
        Opcode::Access => Lowering::Memory(MemoryOp::Access),
        Opcode::Load => Lowering::Memory(MemoryOp::Load),
        Opcode::TextureSample => Lowering::Sample,
        Opcode::FragCoord => Lowering::FragCoord,
        Opcode::Shl
        | Opcode::Shr
        | Opcode::Rotl
        | Opcode::Rotr
        | Opcode::CountOnes
        | Opcode::CountLeadingZeros
        | Opcode::CountTrailingZeros
        | Opcode::ReverseBits
        | Opcode::ExtractBits
        | Opcode::InsertBits
        | Opcode::Bitcast => R(INTEGER),
        Opcode::IsInf => R("is_inf"),
        Opcode::Asin
        | Opcode::Acos
        | Opcode::Atan
        | Opcode::Atan2
        | Opcode::Sinh
        | Opcode::Cosh
        | Opcode::Tanh
        | Opcode::Asinh
        | Opcode::Acosh
        | Opcode::Atanh
        | Opcode::Exp10
        | Opcode::Log10 => R("this elementary function (CSIR has sin, cos, exp2, log2, pow)"),
        Opcode::Round | Opcode::RoundEven => R("rounding to nearest (no exact CSIR op)"),
        Opcode::CopySign => R("copy_sign"),
        Opcode::Ldexp | Opcode::Frexp | Opcode::Modf => R("ldexp, frexp and modf"),
        Opcode::ReduceMul | Opcode::ReduceMin | Opcode::ReduceMax => R("this vector reduction"),
        Opcode::OuterProduct => R("outer_product"),
        Opcode::Determinant | Opcode::Inverse => R("matrix determinant and inverse"),
        Opcode::ExtractDynamic | Opcode::InsertDynamic => R("dynamic indexing"),
        Opcode::Alloca | Opcode::Store | Opcode::ArrayLength => {
            R("function memory, stores and runtime arrays (CSIR has registers and uniforms only)")
        }
        Opcode::AtomicLoad
        | Opcode::AtomicStore
        | Opcode::AtomicExchange
        | Opcode::AtomicCompareExchange
        | Opcode::AtomicAdd
        | Opcode::AtomicSub
        | Opcode::AtomicAnd
        | Opcode::AtomicOr
        | Opcode::AtomicXor
        | Opcode::AtomicMin
        | Opcode::AtomicMax => R("atomics"),
        Opcode::SpecConstant => {
            R("specialization constants (SPIR-V only; give the value with --override)")
        }
        Opcode::WorkgroupBarrier | Opcode::StorageBarrier | Opcode::WorkgroupUniformLoad => {
            R("compute synchronisation")
        }
        Opcode::ThreadId
        | Opcode::WorkgroupId
        | Opcode::DispatchId
        | Opcode::LocalInvocationIndex
        | Opcode::WorkgroupSize
        | Opcode::NumWorkgroups
        | Opcode::DispatchSize
        | Opcode::SubgroupInvocationId
        | Opcode::SubgroupSize
        | Opcode::SubgroupId
        | Opcode::NumSubgroups
        | Opcode::FrontFacing
        | Opcode::VertexIndex
        | Opcode::InstanceIndex
        | Opcode::BaseInstance
        | Opcode::SampleIndex
        | Opcode::PrimitiveId => R("this built-in (integer or bool built-ins are not CSIR values)"),
        Opcode::TextureSampleBias
        | Opcode::TextureSampleLevel
        | Opcode::TextureSampleGrad
        | Opcode::TextureSampleCompare
        | Opcode::TextureSampleCompareLevel
        | Opcode::TextureGather
        | Opcode::TextureGatherCompare
        | Opcode::TextureLoad
        | Opcode::TextureStore
        | Opcode::TextureDimensions
        | Opcode::TextureNumLevels
        | Opcode::TextureNumLayers
        | Opcode::TextureNumSamples => {
            R("this texture form (CSIR samples 2D float textures with an implicit level only)")
        }
        Opcode::Dpdx
        | Opcode::Dpdy
        | Opcode::Fwidth
        | Opcode::DpdxCoarse
        | Opcode::DpdyCoarse
        | Opcode::FwidthCoarse
        | Opcode::DpdxFine
        | Opcode::DpdyFine
        | Opcode::FwidthFine => R("derivatives"),
        Opcode::SubgroupBallot
        | Opcode::SubgroupElect
        | Opcode::SubgroupBroadcastFirst
        | Opcode::SubgroupBroadcast
        | Opcode::SubgroupShuffle
        | Opcode::SubgroupShuffleXor
        | Opcode::SubgroupShuffleUp
        | Opcode::SubgroupShuffleDown
        | Opcode::SubgroupAll
        | Opcode::SubgroupAny
        | Opcode::SubgroupAllEqual
        | Opcode::SubgroupAdd
        | Opcode::SubgroupMul
        | Opcode::SubgroupMin
        | Opcode::SubgroupMax
        | Opcode::SubgroupAnd
        | Opcode::SubgroupOr
        | Opcode::SubgroupXor
        | Opcode::SubgroupInclusiveAdd
        | Opcode::SubgroupInclusiveMul
        | Opcode::SubgroupInclusiveMin
        | Opcode::SubgroupInclusiveMax
        | Opcode::SubgroupInclusiveAnd
        | Opcode::SubgroupInclusiveOr
        | Opcode::SubgroupInclusiveXor
        | Opcode::SubgroupExclusiveAdd
        | Opcode::SubgroupExclusiveMul
        | Opcode::SubgroupExclusiveMin
        | Opcode::SubgroupExclusiveMax
        | Opcode::SubgroupExclusiveAnd
        | Opcode::SubgroupExclusiveOr
        | Opcode::SubgroupExclusiveXor => R("subgroup operations"),
        Opcode::Call => R("calls (inlining should have removed them)"),
        Opcode::Print | Opcode::Assert | Opcode::Clock => R("print, assert and clock"),
        Opcode::Br => Lowering::Terminator(TerminatorOp::Br),
        Opcode::If => Lowering::Terminator(TerminatorOp::If),
        Opcode::Return => Lowering::Terminator(TerminatorOp::Return),
        Opcode::Discard => Lowering::Terminator(TerminatorOp::Discard),
        Opcode::Loop | Opcode::SimpleLoop | Opcode::Break | Opcode::Continue => R(LOOPS),
        Opcode::CondBr | Opcode::SwitchBr => R("unstructured branches"),
        Opcode::Switch => R("switch"),
        Opcode::Unreachable => R("unreachable"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The structured terminators CSIR needs are lowered and every family that cannot
    /// be expressed is refused by name.
    #[test]
    fn refusals_name_what_is_missing() {
        assert!(matches!(lowering(Opcode::Loop), Lowering::Refused(r) if r.contains("loops")));
        assert!(matches!(lowering(Opcode::Shl), Lowering::Refused(r) if r.contains("integer")));
        assert!(matches!(
            lowering(Opcode::If),
            Lowering::Terminator(TerminatorOp::If)
        ));
        let written = Opcode::ALL
            .iter()
            .filter(|op| !matches!(lowering(**op), Lowering::Refused(_)))
            .count();
        assert!(written > 60, "{written}");
    }
}
