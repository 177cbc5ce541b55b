//! How every oxir op is written: [`lowering`] is the one exhaustive `match` over
//! [`Opcode`] in the back-end, so a new op fails to compile until it is given a lowering
//! here (or refused, with the reason the preflight reports).
//!
//! Each lowering names the per-concern writer that handles it and a typed selector for that
//! writer ([`ArithOp`], [`MathOp`], [`MemoryOp`], [`Register`], and the op table's own
//! [`TextureOp`] and [`TerminatorOp`]). Those writers match their selector exhaustively, so a new selector
//! variant fails to compile until it is written, and no writer can be handed an op of
//! another concern. Where a selector already determines the SPIR-V instruction or the
//! GLSL.std.450 extended instruction, the selector carries it.

use rspirv::spirv::{GLOp, Op};

use oxir_ir::{Opcode, SubgroupOp, TerminatorOp, TextureOp};

/// The writer of an op, with the op as that writer's selector.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Lowering {
    /// Integer, float and logical arithmetic, comparisons, bit operations (`arith.rs`).
    Arith(ArithOp),
    /// Float math, reductions, matrices, conversions, composites (`math.rs`).
    Math(MathOp),
    /// Loads, stores, access chains, atomics, barriers (`memory.rs`).
    Memory(MemoryOp),
    /// Special-register reads (`memory.rs`, through the interface's built-ins).
    Register(Register),
    /// Texture sampling, fetches, stores and queries (`images.rs`), selected by the op
    /// table's `TextureOp`.
    Image(TextureOp),
    /// `OpGroupNonUniform*` at subgroup scope (`subgroup.rs`), selected by the op table's
    /// `SubgroupOp`.
    Subgroup(SubgroupOp),
    /// Block terminators (the op table's `TerminatorOp`), written with the control flow
    /// (`functions.rs`); `switch_br` is refused before this.
    Terminator(TerminatorOp),
    /// `OpFunctionCall` of a kept callable (`functions.rs`).
    Call,
    /// `spec_constant`: a decorated `OpSpecConstant` (`types.rs`).
    SpecConstant,
    /// Not expressible in SPIR-V for Vulkan: the preflight refuses it with this reason.
    Refused(&'static str),
}

/// Ops of `arith.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Neg,
    Abs,
    Sign,
    Min,
    Max,
    Clamp,
    Select,
    And,
    Or,
    Xor,
    Not,
    Shl,
    Shr,
    Rotl,
    Rotr,
    /// Bit counting and field operations: written for 32-bit integers only.
    Bits(BitOp),
    Compare(Comparison),
    IsNan,
    IsInf,
    Any,
    All,
}

/// Bit counting and bit-field ops (32-bit integers only; the preflight refuses others).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum BitOp {
    CountOnes,
    ReverseBits,
    CountLeadingZeros,
    CountTrailingZeros,
    ExtractBits,
    InsertBits,
}

/// Comparisons.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Comparison {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Ops of `math.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MathOp {
    /// One GLSL.std.450 instruction with the op's own operands.
    Glsl(GLOp),
    /// One SPIR-V instruction with the op's own operands.
    Simple(Op),
    /// A derivative; `control` when it needs the `DerivativeControl` capability.
    Derivative {
        op: Op,
        control: bool,
    },
    Exp10,
    Log10,
    Saturate,
    CopySign,
    Dot,
    Reduce(Reduction),
    Convert,
    Splat,
    /// `extract`, `insert`, `shuffle`: the instruction, with the op's literal indices.
    Indexed(Op),
    ExtractDynamic,
    InsertDynamic,
}

/// The combining operation of a vector reduction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    Add,
    Mul,
    Min,
    Max,
}

/// Ops of `memory.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemoryOp {
    /// Written in the function prologue (a variable); nothing at the instruction.
    Alloca,
    Load,
    WorkgroupUniformLoad,
    Store,
    Access,
    ArrayLength,
    Atomic(AtomicOp),
    WorkgroupBarrier,
    StorageBarrier,
}

/// Atomic read-modify-write operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    Load,
    Store,
    Exchange,
    CompareExchange,
    Add,
    Sub,
    And,
    Or,
    Xor,
    Min,
    Max,
}

/// Special-register reads (see `interface::register_builtin` for their stages and
/// built-ins).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Register {
    ThreadId,
    WorkgroupId,
    DispatchId,
    LocalInvocationIndex,
    WorkgroupSize,
    NumWorkgroups,
    DispatchSize,
    SubgroupInvocationId,
    SubgroupSize,
    SubgroupId,
    NumSubgroups,
    FragCoord,
    FrontFacing,
    VertexIndex,
    InstanceIndex,
    BaseInstance,
    SampleIndex,
    PrimitiveId,
}

/// Whether a block ending in `op` can hold an `OpLoopMerge` (a loop's prepare block): a
/// branch without a merge instruction of its own.
pub(crate) fn can_hold_loop_merge(op: TerminatorOp) -> bool {
    use TerminatorOp::*;
    match op {
        Br | CondBr | Break | Continue | Return | Unreachable => true,
        // `switch_br` is refused before anything is written.
        SwitchBr | Discard | If | Loop | SimpleLoop | Switch => false,
    }
}

/// The lowering of `op`.
pub(crate) fn lowering(op: Opcode) -> Lowering {
    use Lowering::{Arith, Image, Math, Memory, Refused, Terminator};
    use Opcode as O;
    match op {
        O::SpecConstant => Lowering::SpecConstant,
        O::Add => Arith(ArithOp::Add),
        O::Sub => Arith(ArithOp::Sub),
        O::Mul => Arith(ArithOp::Mul),
        O::Div => Arith(ArithOp::Div),
        O::Rem => Arith(ArithOp::Rem),
        O::Neg => Arith(ArithOp::Neg),
        O::Abs => Arith(ArithOp::Abs),
        O::Sign => Arith(ArithOp::Sign),
        O::Min => Arith(ArithOp::Min),
        O::Max => Arith(ArithOp::Max),
        O::Clamp => Arith(ArithOp::Clamp),
        O::Select => Arith(ArithOp::Select),
        O::And => Arith(ArithOp::And),
        O::Or => Arith(ArithOp::Or),
        O::Xor => Arith(ArithOp::Xor),
        O::Not => Arith(ArithOp::Not),
        O::Shl => Arith(ArithOp::Shl),
        O::Shr => Arith(ArithOp::Shr),
        O::Rotl => Arith(ArithOp::Rotl),
        O::Rotr => Arith(ArithOp::Rotr),
        O::CountOnes => Arith(ArithOp::Bits(BitOp::CountOnes)),
        O::CountLeadingZeros => Arith(ArithOp::Bits(BitOp::CountLeadingZeros)),
        O::CountTrailingZeros => Arith(ArithOp::Bits(BitOp::CountTrailingZeros)),
        O::ReverseBits => Arith(ArithOp::Bits(BitOp::ReverseBits)),
        O::ExtractBits => Arith(ArithOp::Bits(BitOp::ExtractBits)),
        O::InsertBits => Arith(ArithOp::Bits(BitOp::InsertBits)),
        O::Eq => Arith(ArithOp::Compare(Comparison::Eq)),
        O::Ne => Arith(ArithOp::Compare(Comparison::Ne)),
        O::Lt => Arith(ArithOp::Compare(Comparison::Lt)),
        O::Le => Arith(ArithOp::Compare(Comparison::Le)),
        O::Gt => Arith(ArithOp::Compare(Comparison::Gt)),
        O::Ge => Arith(ArithOp::Compare(Comparison::Ge)),
        O::IsNan => Arith(ArithOp::IsNan),
        O::IsInf => Arith(ArithOp::IsInf),
        O::Any => Arith(ArithOp::Any),
        O::All => Arith(ArithOp::All),
        O::Sin => Math(MathOp::Glsl(GLOp::Sin)),
        O::Cos => Math(MathOp::Glsl(GLOp::Cos)),
        O::Tan => Math(MathOp::Glsl(GLOp::Tan)),
        O::Asin => Math(MathOp::Glsl(GLOp::Asin)),
        O::Acos => Math(MathOp::Glsl(GLOp::Acos)),
        O::Atan => Math(MathOp::Glsl(GLOp::Atan)),
        O::Atan2 => Math(MathOp::Glsl(GLOp::Atan2)),
        O::Sinh => Math(MathOp::Glsl(GLOp::Sinh)),
        O::Cosh => Math(MathOp::Glsl(GLOp::Cosh)),
        O::Tanh => Math(MathOp::Glsl(GLOp::Tanh)),
        O::Asinh => Math(MathOp::Glsl(GLOp::Asinh)),
        O::Acosh => Math(MathOp::Glsl(GLOp::Acosh)),
        O::Atanh => Math(MathOp::Glsl(GLOp::Atanh)),
        O::Exp => Math(MathOp::Glsl(GLOp::Exp)),
        O::Exp2 => Math(MathOp::Glsl(GLOp::Exp2)),
        O::Exp10 => Math(MathOp::Exp10),
        O::Log => Math(MathOp::Glsl(GLOp::Log)),
        O::Log2 => Math(MathOp::Glsl(GLOp::Log2)),
        O::Log10 => Math(MathOp::Log10),
        O::Pow => Math(MathOp::Glsl(GLOp::Pow)),
        O::Sqrt => Math(MathOp::Glsl(GLOp::Sqrt)),
        O::InverseSqrt => Math(MathOp::Glsl(GLOp::InverseSqrt)),
        O::Ceil => Math(MathOp::Glsl(GLOp::Ceil)),
        O::Floor => Math(MathOp::Glsl(GLOp::Floor)),
        O::Fract => Math(MathOp::Glsl(GLOp::Fract)),
        O::Trunc => Math(MathOp::Glsl(GLOp::Trunc)),
        O::Round => Math(MathOp::Glsl(GLOp::Round)),
        O::RoundEven => Math(MathOp::Glsl(GLOp::RoundEven)),
        O::Fma => Math(MathOp::Glsl(GLOp::Fma)),
        O::CopySign => Math(MathOp::CopySign),
        O::Saturate => Math(MathOp::Saturate),
        O::Step => Math(MathOp::Glsl(GLOp::Step)),
        O::Smoothstep => Math(MathOp::Glsl(GLOp::SmoothStep)),
        O::Mix => Math(MathOp::Glsl(GLOp::FMix)),
        O::Degrees => Math(MathOp::Glsl(GLOp::Degrees)),
        O::Radians => Math(MathOp::Glsl(GLOp::Radians)),
        O::Ldexp => Math(MathOp::Glsl(GLOp::Ldexp)),
        // The struct result type is the op's declared `{ fract, exp }` / `{ fract, whole }`.
        O::Frexp => Math(MathOp::Glsl(GLOp::FrexpStruct)),
        O::Modf => Math(MathOp::Glsl(GLOp::ModfStruct)),
        O::Dot => Math(MathOp::Dot),
        O::Cross => Math(MathOp::Glsl(GLOp::Cross)),
        O::Length => Math(MathOp::Glsl(GLOp::Length)),
        O::Distance => Math(MathOp::Glsl(GLOp::Distance)),
        O::Normalize => Math(MathOp::Glsl(GLOp::Normalize)),
        O::Reflect => Math(MathOp::Glsl(GLOp::Reflect)),
        O::FaceForward => Math(MathOp::Glsl(GLOp::FaceForward)),
        O::ReduceAdd => Math(MathOp::Reduce(Reduction::Add)),
        O::ReduceMul => Math(MathOp::Reduce(Reduction::Mul)),
        O::ReduceMin => Math(MathOp::Reduce(Reduction::Min)),
        O::ReduceMax => Math(MathOp::Reduce(Reduction::Max)),
        O::OuterProduct => Math(MathOp::Simple(Op::OuterProduct)),
        O::MatrixTimesMatrix => Math(MathOp::Simple(Op::MatrixTimesMatrix)),
        O::MatrixTimesVector => Math(MathOp::Simple(Op::MatrixTimesVector)),
        O::VectorTimesMatrix => Math(MathOp::Simple(Op::VectorTimesMatrix)),
        O::MatrixTimesScalar => Math(MathOp::Simple(Op::MatrixTimesScalar)),
        O::Transpose => Math(MathOp::Simple(Op::Transpose)),
        O::Determinant => Math(MathOp::Glsl(GLOp::Determinant)),
        O::Inverse => Math(MathOp::Glsl(GLOp::MatrixInverse)),
        O::Convert => Math(MathOp::Convert),
        O::Bitcast => Math(MathOp::Simple(Op::Bitcast)),
        O::Construct => Math(MathOp::Simple(Op::CompositeConstruct)),
        O::Splat => Math(MathOp::Splat),
        O::Extract => Math(MathOp::Indexed(Op::CompositeExtract)),
        O::Insert => Math(MathOp::Indexed(Op::CompositeInsert)),
        O::Shuffle => Math(MathOp::Indexed(Op::VectorShuffle)),
        O::ExtractDynamic => Math(MathOp::ExtractDynamic),
        O::InsertDynamic => Math(MathOp::InsertDynamic),
        O::Dpdx => Math(derivative(Op::DPdx, false)),
        O::Dpdy => Math(derivative(Op::DPdy, false)),
        O::Fwidth => Math(derivative(Op::Fwidth, false)),
        O::DpdxCoarse => Math(derivative(Op::DPdxCoarse, true)),
        O::DpdyCoarse => Math(derivative(Op::DPdyCoarse, true)),
        O::FwidthCoarse => Math(derivative(Op::FwidthCoarse, true)),
        O::DpdxFine => Math(derivative(Op::DPdxFine, true)),
        O::DpdyFine => Math(derivative(Op::DPdyFine, true)),
        O::FwidthFine => Math(derivative(Op::FwidthFine, true)),
        O::Alloca => Memory(MemoryOp::Alloca),
        O::Load => Memory(MemoryOp::Load),
        O::Store => Memory(MemoryOp::Store),
        O::Access => Memory(MemoryOp::Access),
        O::ArrayLength => Memory(MemoryOp::ArrayLength),
        O::AtomicLoad => Memory(MemoryOp::Atomic(AtomicOp::Load)),
        O::AtomicStore => Memory(MemoryOp::Atomic(AtomicOp::Store)),
        O::AtomicExchange => Memory(MemoryOp::Atomic(AtomicOp::Exchange)),
        O::AtomicCompareExchange => Memory(MemoryOp::Atomic(AtomicOp::CompareExchange)),
        O::AtomicAdd => Memory(MemoryOp::Atomic(AtomicOp::Add)),
        O::AtomicSub => Memory(MemoryOp::Atomic(AtomicOp::Sub)),
        O::AtomicAnd => Memory(MemoryOp::Atomic(AtomicOp::And)),
        O::AtomicOr => Memory(MemoryOp::Atomic(AtomicOp::Or)),
        O::AtomicXor => Memory(MemoryOp::Atomic(AtomicOp::Xor)),
        O::AtomicMin => Memory(MemoryOp::Atomic(AtomicOp::Min)),
        O::AtomicMax => Memory(MemoryOp::Atomic(AtomicOp::Max)),
        O::WorkgroupBarrier => Memory(MemoryOp::WorkgroupBarrier),
        O::StorageBarrier => Memory(MemoryOp::StorageBarrier),
        O::WorkgroupUniformLoad => Memory(MemoryOp::WorkgroupUniformLoad),
        O::ThreadId => Lowering::Register(Register::ThreadId),
        O::WorkgroupId => Lowering::Register(Register::WorkgroupId),
        O::DispatchId => Lowering::Register(Register::DispatchId),
        O::LocalInvocationIndex => Lowering::Register(Register::LocalInvocationIndex),
        O::WorkgroupSize => Lowering::Register(Register::WorkgroupSize),
        O::NumWorkgroups => Lowering::Register(Register::NumWorkgroups),
        O::DispatchSize => Lowering::Register(Register::DispatchSize),
        O::SubgroupInvocationId => Lowering::Register(Register::SubgroupInvocationId),
        O::SubgroupSize => Lowering::Register(Register::SubgroupSize),
        O::SubgroupId => Lowering::Register(Register::SubgroupId),
        O::NumSubgroups => Lowering::Register(Register::NumSubgroups),
        O::FragCoord => Lowering::Register(Register::FragCoord),
        O::FrontFacing => Lowering::Register(Register::FrontFacing),
        O::VertexIndex => Lowering::Register(Register::VertexIndex),
        O::InstanceIndex => Lowering::Register(Register::InstanceIndex),
        O::BaseInstance => Lowering::Register(Register::BaseInstance),
        O::SampleIndex => Lowering::Register(Register::SampleIndex),
        O::PrimitiveId => Lowering::Register(Register::PrimitiveId),
        O::TextureSample => Image(TextureOp::Sample),
        O::TextureSampleBias => Image(TextureOp::SampleBias),
        O::TextureSampleLevel => Image(TextureOp::SampleLevel),
        O::TextureSampleGrad => Image(TextureOp::SampleGrad),
        O::TextureSampleCompare => Image(TextureOp::SampleCompare),
        O::TextureSampleCompareLevel => Image(TextureOp::SampleCompareLevel),
        O::TextureGather => Image(TextureOp::Gather),
        O::TextureGatherCompare => Image(TextureOp::GatherCompare),
        O::TextureLoad => Image(TextureOp::Load),
        O::TextureStore => Image(TextureOp::Store),
        O::TextureDimensions => Image(TextureOp::Dimensions),
        O::TextureNumLevels => Image(TextureOp::NumLevels),
        O::TextureNumLayers => Image(TextureOp::NumLayers),
        O::TextureNumSamples => Image(TextureOp::NumSamples),
        O::SubgroupBallot
        | O::SubgroupElect
        | O::SubgroupBroadcastFirst
        | O::SubgroupBroadcast
        | O::SubgroupShuffle
        | O::SubgroupShuffleXor
        | O::SubgroupShuffleUp
        | O::SubgroupShuffleDown
        | O::SubgroupAll
        | O::SubgroupAny
        | O::SubgroupAllEqual
        | O::SubgroupAdd
        | O::SubgroupMul
        | O::SubgroupMin
        | O::SubgroupMax
        | O::SubgroupAnd
        | O::SubgroupOr
        | O::SubgroupXor
        | O::SubgroupInclusiveAdd
        | O::SubgroupInclusiveMul
        | O::SubgroupInclusiveMin
        | O::SubgroupInclusiveMax
        | O::SubgroupInclusiveAnd
        | O::SubgroupInclusiveOr
        | O::SubgroupInclusiveXor
        | O::SubgroupExclusiveAdd
        | O::SubgroupExclusiveMul
        | O::SubgroupExclusiveMin
        | O::SubgroupExclusiveMax
        | O::SubgroupExclusiveAnd
        | O::SubgroupExclusiveOr
        | O::SubgroupExclusiveXor => match op.subgroup_op() {
            Some(sub) => Lowering::Subgroup(sub),
            None => Refused("a subgroup opcode without its sub-kind"),
        },
        O::Call => Lowering::Call,
        O::Print => Refused("print"),
        O::Assert => Refused("assert"),
        O::Clock => Refused("clock"),
        O::Br => Terminator(TerminatorOp::Br),
        O::CondBr => Terminator(TerminatorOp::CondBr),
        O::SwitchBr => Refused("unstructured switch_br"),
        O::Return => Terminator(TerminatorOp::Return),
        O::Unreachable => Terminator(TerminatorOp::Unreachable),
        O::Discard => Terminator(TerminatorOp::Discard),
        O::If => Terminator(TerminatorOp::If),
        O::Loop => Terminator(TerminatorOp::Loop),
        O::SimpleLoop => Terminator(TerminatorOp::SimpleLoop),
        O::Switch => Terminator(TerminatorOp::Switch),
        O::Break => Terminator(TerminatorOp::Break),
        O::Continue => Terminator(TerminatorOp::Continue),
    }
}

fn derivative(op: Op, control: bool) -> MathOp {
    MathOp::Derivative { op, control }
}
