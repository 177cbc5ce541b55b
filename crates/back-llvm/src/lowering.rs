//! How every oxir op is written: [`lowering`] is the one exhaustive `match` over
//! [`Opcode`] in this back-end, so a new op fails to compile until it is given a lowering
//! here or refused with the reason the preflight reports.
//!
//! Each lowering names the writer that handles it (`writer/arith.rs`, `writer/math.rs`,
//! `writer/memory.rs`, `writer/subgroup.rs`, `writer/function.rs`) with a typed selector
//! that writer matches exhaustively. Refusals are target-independent reasons; target-dependent refusals
//! (elementary functions without a math library, subgroups on a target without them) are
//! the preflight's.

use oxir_ir::{Opcode, SubgroupArith, SubgroupOp, SubgroupScan, TerminatorOp};

/// The writer of an op, with the op as that writer's selector.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum Lowering {
    /// Integer, float and logical arithmetic, comparisons and bit operations.
    Arith(ArithOp),
    /// Float arithmetic, geometry, reductions and conversions.
    Math(MathOp),
    /// An elementary function from the target's math library, by its C name (`sin` …).
    Elementary(&'static str),
    /// Building and projecting composite values.
    Composite(CompositeOp),
    /// Matrix arithmetic (`writer/matrix.rs`).
    Matrix(MatrixOp),
    /// Memory, atomics and barriers.
    Memory(MemoryOp),
    /// Special-register reads.
    Register(Register),
    /// Subgroup collectives (`writer/subgroup.rs`), with the IR's own sub-table as the
    /// selector; the preflight refuses them on targets without subgroups.
    Subgroup(SubgroupOp),
    /// Block terminators, written with the control flow.
    Terminator(TerminatorOp),
    /// Not written by this back-end: the preflight refuses it with this reason.
    Refused(&'static str),
}

/// Ops of `writer/arith.rs`.
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
    /// `llvm.fshl` / `llvm.fshr` of a value with itself.
    Rotate {
        left: bool,
    },
    /// A one-operand bit intrinsic (`ctpop`, `ctlz`, `cttz`, `bitreverse`).
    BitCount(&'static str),
    /// `extract_bits` (false) / `insert_bits` (true), with WGSL's clamping.
    BitField {
        insert: bool,
    },
    Compare(Comparison),
    IsNan,
    IsInf,
    /// `any` (true) / `all` (false).
    BoolReduce {
        any: bool,
    },
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

/// Ops of `writer/math.rs`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) enum MathOp {
    /// A one-operand float intrinsic (`llvm.sqrt`, `llvm.floor`, ...), exact on NVPTX.
    Intrinsic1(&'static str),
    /// `llvm.fma`.
    Fma,
    /// `llvm.copysign`.
    CopySign,
    InverseSqrt,
    Fract,
    Saturate,
    Step,
    Smoothstep,
    Mix,
    /// Multiplication by a constant: `degrees` (180/π) or `radians` (π/180).
    Scale(f64),
    Dot,
    Cross,
    Length,
    Distance,
    Normalize,
    Reflect,
    FaceForward,
    Reduce(Reduction),
    Convert,
    Bitcast,
}

/// The combining operation of a vector reduction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reduction {
    Add,
    Mul,
    Min,
    Max,
}

/// Ops of `writer/matrix.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MatrixOp {
    /// `add` / `sub` of matrices (the arithmetic table routes them here by type).
    AddSub {
        add: bool,
    },
    TimesScalar,
    TimesVector,
    VectorTimes,
    TimesMatrix,
    Outer,
    Transpose,
    Determinant,
    Inverse,
}

/// Ops of `writer/composite.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CompositeOp {
    Construct,
    Splat,
    Extract,
    Insert,
    Shuffle,
    ExtractDynamic,
    InsertDynamic,
}

/// Ops of `writer/memory.rs`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum MemoryOp {
    /// Written in the entry block (an `alloca`); nothing at the instruction.
    Alloca,
    Load,
    Store,
    Access,
    ArrayLength,
    Atomic(AtomicOp),
    WorkgroupBarrier,
    StorageBarrier,
    WorkgroupUniformLoad,
}

/// Atomic operations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AtomicOp {
    Load,
    Store,
    CompareExchange,
    /// An `atomicrmw` with this operation for signed and for unsigned operands.
    Rmw {
        signed: &'static str,
        unsigned: &'static str,
    },
}

/// Special registers of compute kernels.
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
}

const GRAPHICS: &str = "graphics-stage state (the LLVM targets compile kernels only)";

fn rmw(signed: &'static str, unsigned: &'static str) -> Lowering {
    Lowering::Memory(MemoryOp::Atomic(AtomicOp::Rmw { signed, unsigned }))
}

fn subgroup(op: SubgroupArith, scan: SubgroupScan) -> Lowering {
    Lowering::Subgroup(SubgroupOp::Arithmetic { op, scan })
}

/// The lowering of `op`.
pub(crate) fn lowering(op: Opcode) -> Lowering {
    use Lowering::{Arith, Composite, Elementary, Math, Memory, Refused, Terminator};
    use Opcode as O;
    match op {
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
        O::Rotl => Arith(ArithOp::Rotate { left: true }),
        O::Rotr => Arith(ArithOp::Rotate { left: false }),
        O::CountOnes => Arith(ArithOp::BitCount("ctpop")),
        O::CountLeadingZeros => Arith(ArithOp::BitCount("ctlz")),
        O::CountTrailingZeros => Arith(ArithOp::BitCount("cttz")),
        O::ReverseBits => Arith(ArithOp::BitCount("bitreverse")),
        O::ExtractBits => Arith(ArithOp::BitField { insert: false }),
        O::InsertBits => Arith(ArithOp::BitField { insert: true }),
        O::Eq => Arith(ArithOp::Compare(Comparison::Eq)),
        O::Ne => Arith(ArithOp::Compare(Comparison::Ne)),
        O::Lt => Arith(ArithOp::Compare(Comparison::Lt)),
        O::Le => Arith(ArithOp::Compare(Comparison::Le)),
        O::Gt => Arith(ArithOp::Compare(Comparison::Gt)),
        O::Ge => Arith(ArithOp::Compare(Comparison::Ge)),
        O::IsNan => Arith(ArithOp::IsNan),
        O::IsInf => Arith(ArithOp::IsInf),
        O::Any => Arith(ArithOp::BoolReduce { any: true }),
        O::All => Arith(ArithOp::BoolReduce { any: false }),
        O::Sin => Elementary("sin"),
        O::Cos => Elementary("cos"),
        O::Tan => Elementary("tan"),
        O::Asin => Elementary("asin"),
        O::Acos => Elementary("acos"),
        O::Atan => Elementary("atan"),
        O::Atan2 => Elementary("atan2"),
        O::Sinh => Elementary("sinh"),
        O::Cosh => Elementary("cosh"),
        O::Tanh => Elementary("tanh"),
        O::Asinh => Elementary("asinh"),
        O::Acosh => Elementary("acosh"),
        O::Atanh => Elementary("atanh"),
        O::Exp => Elementary("exp"),
        O::Exp2 => Elementary("exp2"),
        O::Exp10 => Elementary("exp10"),
        O::Log => Elementary("log"),
        O::Log2 => Elementary("log2"),
        O::Log10 => Elementary("log10"),
        O::Pow => Elementary("pow"),
        O::Sqrt => Math(MathOp::Intrinsic1("sqrt")),
        O::InverseSqrt => Math(MathOp::InverseSqrt),
        O::Ceil => Math(MathOp::Intrinsic1("ceil")),
        O::Floor => Math(MathOp::Intrinsic1("floor")),
        O::Fract => Math(MathOp::Fract),
        O::Trunc => Math(MathOp::Intrinsic1("trunc")),
        O::Round => Math(MathOp::Intrinsic1("round")),
        O::RoundEven => Math(MathOp::Intrinsic1("roundeven")),
        O::Fma => Math(MathOp::Fma),
        O::CopySign => Math(MathOp::CopySign),
        O::Saturate => Math(MathOp::Saturate),
        O::Step => Math(MathOp::Step),
        O::Smoothstep => Math(MathOp::Smoothstep),
        O::Mix => Math(MathOp::Mix),
        O::Ldexp | O::Frexp | O::Modf => {
            Refused("ldexp, frexp and modf (not written for LLVM yet)")
        }
        O::Degrees => Math(MathOp::Scale(180.0 / std::f64::consts::PI)),
        O::Radians => Math(MathOp::Scale(std::f64::consts::PI / 180.0)),
        O::Dot => Math(MathOp::Dot),
        O::Cross => Math(MathOp::Cross),
        O::Length => Math(MathOp::Length),
        O::Distance => Math(MathOp::Distance),
        O::Normalize => Math(MathOp::Normalize),
        O::Reflect => Math(MathOp::Reflect),
        O::FaceForward => Math(MathOp::FaceForward),
        O::ReduceAdd => Math(MathOp::Reduce(Reduction::Add)),
        O::ReduceMul => Math(MathOp::Reduce(Reduction::Mul)),
        O::ReduceMin => Math(MathOp::Reduce(Reduction::Min)),
        O::ReduceMax => Math(MathOp::Reduce(Reduction::Max)),
        O::OuterProduct => Lowering::Matrix(MatrixOp::Outer),
        O::MatrixTimesMatrix => Lowering::Matrix(MatrixOp::TimesMatrix),
        O::MatrixTimesVector => Lowering::Matrix(MatrixOp::TimesVector),
        O::VectorTimesMatrix => Lowering::Matrix(MatrixOp::VectorTimes),
        O::MatrixTimesScalar => Lowering::Matrix(MatrixOp::TimesScalar),
        O::Transpose => Lowering::Matrix(MatrixOp::Transpose),
        O::Determinant => Lowering::Matrix(MatrixOp::Determinant),
        O::Inverse => Lowering::Matrix(MatrixOp::Inverse),
        O::Convert => Math(MathOp::Convert),
        O::Bitcast => Math(MathOp::Bitcast),
        O::Construct => Composite(CompositeOp::Construct),
        O::Splat => Composite(CompositeOp::Splat),
        O::Extract => Composite(CompositeOp::Extract),
        O::Insert => Composite(CompositeOp::Insert),
        O::Shuffle => Composite(CompositeOp::Shuffle),
        O::ExtractDynamic => Composite(CompositeOp::ExtractDynamic),
        O::InsertDynamic => Composite(CompositeOp::InsertDynamic),
        O::Dpdx
        | O::Dpdy
        | O::Fwidth
        | O::DpdxCoarse
        | O::DpdyCoarse
        | O::FwidthCoarse
        | O::DpdxFine
        | O::DpdyFine
        | O::FwidthFine => Refused("derivatives (fragment shaders only)"),
        O::Alloca => Memory(MemoryOp::Alloca),
        O::Load => Memory(MemoryOp::Load),
        O::Store => Memory(MemoryOp::Store),
        O::Access => Memory(MemoryOp::Access),
        O::ArrayLength => Memory(MemoryOp::ArrayLength),
        O::AtomicLoad => Memory(MemoryOp::Atomic(AtomicOp::Load)),
        O::AtomicStore => Memory(MemoryOp::Atomic(AtomicOp::Store)),
        O::AtomicExchange => rmw("xchg", "xchg"),
        O::AtomicCompareExchange => Memory(MemoryOp::Atomic(AtomicOp::CompareExchange)),
        O::AtomicAdd => rmw("add", "add"),
        O::AtomicSub => rmw("sub", "sub"),
        O::AtomicAnd => rmw("and", "and"),
        O::AtomicOr => rmw("or", "or"),
        O::AtomicXor => rmw("xor", "xor"),
        O::AtomicMin => rmw("min", "umin"),
        O::AtomicMax => rmw("max", "umax"),
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
        O::FragCoord
        | O::FrontFacing
        | O::VertexIndex
        | O::InstanceIndex
        | O::BaseInstance
        | O::SampleIndex
        | O::PrimitiveId => Refused(GRAPHICS),
        O::TextureSample
        | O::TextureSampleBias
        | O::TextureSampleLevel
        | O::TextureSampleGrad
        | O::TextureSampleCompare
        | O::TextureSampleCompareLevel
        | O::TextureGather
        | O::TextureGatherCompare
        | O::TextureLoad
        | O::TextureStore
        | O::TextureDimensions
        | O::TextureNumLevels
        | O::TextureNumLayers
        | O::TextureNumSamples => Refused("textures (not written for LLVM yet)"),
        O::SubgroupBallot => Lowering::Subgroup(SubgroupOp::Ballot),
        O::SubgroupElect => Lowering::Subgroup(SubgroupOp::Elect),
        O::SubgroupBroadcastFirst => Lowering::Subgroup(SubgroupOp::BroadcastFirst),
        O::SubgroupBroadcast => Lowering::Subgroup(SubgroupOp::Broadcast),
        O::SubgroupShuffle => Lowering::Subgroup(SubgroupOp::Shuffle),
        O::SubgroupShuffleXor => Lowering::Subgroup(SubgroupOp::ShuffleXor),
        O::SubgroupShuffleUp => Lowering::Subgroup(SubgroupOp::ShuffleUp),
        O::SubgroupShuffleDown => Lowering::Subgroup(SubgroupOp::ShuffleDown),
        O::SubgroupAll => Lowering::Subgroup(SubgroupOp::All),
        O::SubgroupAny => Lowering::Subgroup(SubgroupOp::Any),
        O::SubgroupAllEqual => Lowering::Subgroup(SubgroupOp::AllEqual),
        O::SubgroupAdd => subgroup(SubgroupArith::Add, SubgroupScan::Reduce),
        O::SubgroupMul => subgroup(SubgroupArith::Mul, SubgroupScan::Reduce),
        O::SubgroupMin => subgroup(SubgroupArith::Min, SubgroupScan::Reduce),
        O::SubgroupMax => subgroup(SubgroupArith::Max, SubgroupScan::Reduce),
        O::SubgroupAnd => subgroup(SubgroupArith::And, SubgroupScan::Reduce),
        O::SubgroupOr => subgroup(SubgroupArith::Or, SubgroupScan::Reduce),
        O::SubgroupXor => subgroup(SubgroupArith::Xor, SubgroupScan::Reduce),
        O::SubgroupInclusiveAdd => subgroup(SubgroupArith::Add, SubgroupScan::Inclusive),
        O::SubgroupInclusiveMul => subgroup(SubgroupArith::Mul, SubgroupScan::Inclusive),
        O::SubgroupInclusiveMin => subgroup(SubgroupArith::Min, SubgroupScan::Inclusive),
        O::SubgroupInclusiveMax => subgroup(SubgroupArith::Max, SubgroupScan::Inclusive),
        O::SubgroupInclusiveAnd => subgroup(SubgroupArith::And, SubgroupScan::Inclusive),
        O::SubgroupInclusiveOr => subgroup(SubgroupArith::Or, SubgroupScan::Inclusive),
        O::SubgroupInclusiveXor => subgroup(SubgroupArith::Xor, SubgroupScan::Inclusive),
        O::SubgroupExclusiveAdd => subgroup(SubgroupArith::Add, SubgroupScan::Exclusive),
        O::SubgroupExclusiveMul => subgroup(SubgroupArith::Mul, SubgroupScan::Exclusive),
        O::SubgroupExclusiveMin => subgroup(SubgroupArith::Min, SubgroupScan::Exclusive),
        O::SubgroupExclusiveMax => subgroup(SubgroupArith::Max, SubgroupScan::Exclusive),
        O::SubgroupExclusiveAnd => subgroup(SubgroupArith::And, SubgroupScan::Exclusive),
        O::SubgroupExclusiveOr => subgroup(SubgroupArith::Or, SubgroupScan::Exclusive),
        O::SubgroupExclusiveXor => subgroup(SubgroupArith::Xor, SubgroupScan::Exclusive),
        O::Call => Refused("calls that survive inlining"),
        O::SpecConstant => {
            Refused("specialization constants (SPIR-V only; give the value with --override)")
        }
        O::Print => Refused("print"),
        O::Assert => Refused("assert"),
        O::Clock => Refused("clock"),
        O::Br => Terminator(TerminatorOp::Br),
        O::CondBr => Terminator(TerminatorOp::CondBr),
        O::SwitchBr => Terminator(TerminatorOp::SwitchBr),
        O::Return => Terminator(TerminatorOp::Return),
        O::Unreachable => Terminator(TerminatorOp::Unreachable),
        O::Discard => Refused("discard (fragment shaders only)"),
        O::If => Terminator(TerminatorOp::If),
        O::Loop => Terminator(TerminatorOp::Loop),
        O::SimpleLoop => Terminator(TerminatorOp::SimpleLoop),
        O::Switch => Terminator(TerminatorOp::Switch),
        O::Break => Terminator(TerminatorOp::Break),
        O::Continue => Terminator(TerminatorOp::Continue),
    }
}
