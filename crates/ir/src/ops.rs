//! The op table: every opcode of the IR, declared once.
//!
//! Each row gives the opcode's mnemonic (its text-form spelling), its payload format, its
//! operand arity, its memory-effect class, its flags (convergent, constant-foldable) and
//! the type rule the verifier and builder apply (see [`crate::typing`]). The printer,
//! parser, verifier, builder and effect queries all read this table; nothing else lists
//! opcodes, and every `match` over [`Opcode`] is exhaustive so a new row breaks each place
//! that must handle it.

use std::fmt;

/// How an instruction's non-value operands are stored; see [`crate::instructions::Payload`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Value operands only.
    Plain,
    /// Value operands plus a list of literal indices (`extract`, `insert`, `shuffle`).
    Indices,
    /// A callee plus argument values.
    Call,
    /// A string plus value operands (`print`, `assert`, `unreachable`).
    Message,
    /// One edge: `br`, `break`, `continue`.
    Jump,
    /// `cond_br cond, then, else`.
    CondBranch,
    /// `switch_br selector, cases, default`.
    SwitchBranch,
    /// Structured `if`.
    If,
    /// Structured `loop`.
    Loop,
    /// Structured `simple_loop`.
    SimpleLoop,
    /// Structured `switch`.
    Switch,
}

/// Operand count rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arity {
    Fixed(u8),
    AtLeast(u8),
    /// Any count in the inclusive range.
    Range(u8, u8),
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Fixed(k) => n == usize::from(k),
            Arity::AtLeast(k) => n >= usize::from(k),
            Arity::Range(lo, hi) => n >= usize::from(lo) && n <= usize::from(hi),
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arity::Fixed(k) => write!(f, "exactly {k}"),
            Arity::AtLeast(k) => write!(f, "at least {k}"),
            Arity::Range(lo, hi) => write!(f, "{lo} to {hi}"),
        }
    }
}

/// Memory-effect class of an opcode. The address space of the pointer operand refines
/// `MemoryRead` / `MemoryWrite` / `Atomic` into local, workgroup or global effects
/// (see [`crate::effects`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EffectClass {
    /// No effect; may be removed when unused, value-numbered, hoisted.
    Pure,
    /// Reads memory through its pointer operand.
    MemoryRead,
    /// Writes memory through its pointer operand.
    MemoryWrite,
    /// Reads and writes memory through its pointer operand, atomically.
    Atomic,
    /// Reads a resource (texture) without side effects on it.
    ResourceRead,
    /// Writes a resource.
    ResourceWrite,
    /// Orders memory between invocations; volatile.
    Barrier,
    /// Calls a function: may read and write global memory.
    Call,
    /// Observable side effects that must neither be removed nor reordered (print, assert).
    Volatile,
    /// Reads a value that changes over time (`clock`): not pure, not loop-invariant.
    TimeRead,
    /// Control flow.
    Terminator,
}

/// Type rule families; [`crate::typing::check_instruction`] implements each.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TypeRule {
    /// Operands and result share one numeric scalar/vector type (also matrices when
    /// `matrices` is set).
    SameNumeric {
        matrices: bool,
    },
    /// As `SameNumeric`, restricted to signed integers and floats.
    SameSigned,
    /// Operands and result share one integer scalar/vector type.
    SameInteger,
    /// Operands and result share one integer or bool scalar/vector type.
    SameIntegerOrBool,
    /// Operands and result share one float scalar/vector type.
    SameFloat,
    /// Operand 0 integer; operand 1 integer with the same lane count; result = operand 0.
    Shift,
    /// Same-typed scalar/vector operands (numeric, or bool when `bools`), bool result of
    /// the same lane count.
    Compare {
        bools: bool,
    },
    /// `select cond, a, b`.
    Select,
    /// Float scalar/vector in, bool of the same lane count out (`is_nan`, `is_inf`).
    FloatClassify,
    /// Bool vector (or scalar) in, bool scalar out.
    BoolReduce,
    /// Numeric vector in, its element out.
    VectorReduce,
    /// Two same-typed numeric vectors, their element out.
    Dot,
    /// Two `vec3` floats, `vec3` out.
    Cross,
    /// Float scalar/vector(s) in, float scalar out (`length`, `distance`).
    FloatLength,
    /// `outer_product a: vecR, b: vecC -> matCxR`.
    OuterProduct,
    MatrixTimesMatrix,
    MatrixTimesVector,
    VectorTimesMatrix,
    MatrixTimesScalar,
    Transpose,
    Determinant,
    Inverse,
    /// `extract_bits e, offset: u32, count: u32`.
    ExtractBits,
    /// `insert_bits e, new, offset: u32, count: u32`.
    InsertBits,
    /// Value conversion to the declared scalar/vector type with the same lane count.
    Convert,
    /// Reinterpretation to a declared type of equal byte width (no bools).
    Bitcast,
    /// Composite construction of the declared type.
    Construct,
    /// Scalar to the declared vector type.
    Splat,
    /// Literal-index projection of a composite value.
    Extract,
    /// Literal-index replacement in a composite value.
    Insert,
    /// Runtime-index projection of a vector, array or matrix value.
    ExtractDynamic,
    /// Runtime-index replacement in a vector, array or matrix value.
    InsertDynamic,
    /// Lane selection from two same-typed vectors.
    Shuffle,
    /// Declared `ptr<function|workgroup, T>`, no operands.
    Alloca,
    /// `ptr<_, T>` in, `T` out.
    Load,
    /// `store ptr<_, T>, T`.
    Store,
    /// Pointer projection by index values; struct indices are constants.
    Access,
    /// Pointer to a runtime array (or a struct ending in one), `u32` out.
    ArrayLength,
    /// `atomic_* ptr<storage|workgroup, T>, T...` with T a 32- or 64-bit integer.
    Atomic {
        values: u8,
        returns: bool,
    },
    /// No operands, no result.
    NoValue,
    /// Special register of the given fixed type.
    SpecialRegister(RegisterType),
    /// `workgroup_uniform_load ptr<workgroup, T> -> T`.
    WorkgroupUniformLoad,
    /// Texture operations; the verifier checks the texture type and per-op operands.
    Texture,
    /// Callee signature decides.
    Call,
    /// `print`: any data operands, no result.
    Print,
    /// `assert cond`.
    Assert,
    /// `clock -> u64`.
    Clock,
    /// Terminators: checked by the control-flow rules.
    Terminator,
}

/// Result types of special registers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegisterType {
    U32,
    Vec3U32,
    Vec4F32,
    Bool,
}

macro_rules! declare_ops {
    ($( $(#[$doc:meta])* $name:ident = $mnemonic:literal, $format:ident, $arity:expr, $effect:ident, $convergent:literal, $foldable:literal, $rule:expr; )*) => {
        /// Every operation of the IR.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $( $(#[$doc])* $name, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[ $( Opcode::$name, )* ];

            /// The text-form spelling.
            pub fn mnemonic(self) -> &'static str {
                match self { $( Opcode::$name => $mnemonic, )* }
            }

            /// The opcode spelled `mnemonic`.
            pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
                match mnemonic { $( $mnemonic => Some(Opcode::$name), )* _ => None }
            }

            /// The table row.
            pub fn info(self) -> OpInfo {
                match self {
                    $( Opcode::$name => OpInfo {
                        format: Format::$format,
                        arity: $arity,
                        effect: EffectClass::$effect,
                        convergent: $convergent,
                        foldable: $foldable,
                        rule: $rule,
                    }, )*
                }
            }
        }
    };
}

/// One row of the op table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub format: Format,
    pub arity: Arity,
    pub effect: EffectClass,
    /// Collective operations: never duplicated, sunk into or hoisted out of control flow.
    pub convergent: bool,
    /// Constant folding may evaluate this op on constant operands.
    pub foldable: bool,
    pub rule: TypeRule,
}

use Arity::{AtLeast, Fixed, Range};
use TypeRule as R;

declare_ops! {
    // --- integer and float arithmetic -------------------------------------------------
    /// Wrapping integer or IEEE float addition; also matrices.
    Add = "add", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: true };
    Sub = "sub", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: true };
    /// Component-wise multiplication.
    Mul = "mul", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: false };
    /// Division (integer: WGSL semantics, division by zero yields the dividend).
    Div = "div", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: false };
    /// Remainder with the sign of the dividend (truncated division).
    Rem = "rem", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: false };
    Neg = "neg", Plain, Fixed(1), Pure, false, true, R::SameSigned;
    Abs = "abs", Plain, Fixed(1), Pure, false, true, R::SameNumeric { matrices: false };
    Sign = "sign", Plain, Fixed(1), Pure, false, true, R::SameSigned;
    /// NaN-aware minimum (WGSL): if one operand is NaN the other is returned.
    Min = "min", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: false };
    Max = "max", Plain, Fixed(2), Pure, false, true, R::SameNumeric { matrices: false };
    /// `clamp x, low, high`.
    Clamp = "clamp", Plain, Fixed(3), Pure, false, true, R::SameNumeric { matrices: false };
    /// `select cond, if_true, if_false`; a bool vector condition selects per lane.
    Select = "select", Plain, Fixed(3), Pure, false, true, R::Select;
    // --- bitwise -------------------------------------------------------------------------
    And = "and", Plain, Fixed(2), Pure, false, true, R::SameIntegerOrBool;
    Or = "or", Plain, Fixed(2), Pure, false, true, R::SameIntegerOrBool;
    Xor = "xor", Plain, Fixed(2), Pure, false, true, R::SameIntegerOrBool;
    /// Bitwise not of integers, logical not of bools.
    Not = "not", Plain, Fixed(1), Pure, false, true, R::SameIntegerOrBool;
    /// Shift left; the amount is taken modulo the bit width.
    Shl = "shl", Plain, Fixed(2), Pure, false, true, R::Shift;
    /// Shift right: arithmetic for signed, logical for unsigned operands.
    Shr = "shr", Plain, Fixed(2), Pure, false, true, R::Shift;
    Rotl = "rotl", Plain, Fixed(2), Pure, false, true, R::Shift;
    Rotr = "rotr", Plain, Fixed(2), Pure, false, true, R::Shift;
    CountOnes = "count_ones", Plain, Fixed(1), Pure, false, true, R::SameInteger;
    CountLeadingZeros = "count_leading_zeros", Plain, Fixed(1), Pure, false, true, R::SameInteger;
    CountTrailingZeros = "count_trailing_zeros", Plain, Fixed(1), Pure, false, true, R::SameInteger;
    ReverseBits = "reverse_bits", Plain, Fixed(1), Pure, false, true, R::SameInteger;
    /// `extract_bits e, offset, count` (sign-extending for signed `e`).
    ExtractBits = "extract_bits", Plain, Fixed(3), Pure, false, true, R::ExtractBits;
    /// `insert_bits e, new, offset, count`.
    InsertBits = "insert_bits", Plain, Fixed(4), Pure, false, true, R::InsertBits;
    // --- comparisons ---------------------------------------------------------------------
    Eq = "eq", Plain, Fixed(2), Pure, false, true, R::Compare { bools: true };
    Ne = "ne", Plain, Fixed(2), Pure, false, true, R::Compare { bools: true };
    Lt = "lt", Plain, Fixed(2), Pure, false, true, R::Compare { bools: false };
    Le = "le", Plain, Fixed(2), Pure, false, true, R::Compare { bools: false };
    Gt = "gt", Plain, Fixed(2), Pure, false, true, R::Compare { bools: false };
    Ge = "ge", Plain, Fixed(2), Pure, false, true, R::Compare { bools: false };
    IsNan = "is_nan", Plain, Fixed(1), Pure, false, true, R::FloatClassify;
    IsInf = "is_inf", Plain, Fixed(1), Pure, false, true, R::FloatClassify;
    Any = "any", Plain, Fixed(1), Pure, false, true, R::BoolReduce;
    All = "all", Plain, Fixed(1), Pure, false, true, R::BoolReduce;
    // --- float math ----------------------------------------------------------------------
    Sin = "sin", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Cos = "cos", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Tan = "tan", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Asin = "asin", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Acos = "acos", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Atan = "atan", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Atan2 = "atan2", Plain, Fixed(2), Pure, false, false, R::SameFloat;
    Sinh = "sinh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Cosh = "cosh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Tanh = "tanh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Asinh = "asinh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Acosh = "acosh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Atanh = "atanh", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Exp = "exp", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Exp2 = "exp2", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Exp10 = "exp10", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Log = "log", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Log2 = "log2", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Log10 = "log10", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Pow = "pow", Plain, Fixed(2), Pure, false, false, R::SameFloat;
    Sqrt = "sqrt", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    InverseSqrt = "inverse_sqrt", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Ceil = "ceil", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    Floor = "floor", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    Fract = "fract", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    Trunc = "trunc", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    /// Round half away from zero.
    Round = "round", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    /// Round half to even.
    RoundEven = "round_even", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    /// Fused multiply-add `a * b + c` with one rounding.
    Fma = "fma", Plain, Fixed(3), Pure, false, true, R::SameFloat;
    CopySign = "copysign", Plain, Fixed(2), Pure, false, true, R::SameFloat;
    Saturate = "saturate", Plain, Fixed(1), Pure, false, true, R::SameFloat;
    /// `step edge, x`: 0 if x < edge else 1.
    Step = "step", Plain, Fixed(2), Pure, false, true, R::SameFloat;
    /// `smoothstep low, high, x`.
    Smoothstep = "smoothstep", Plain, Fixed(3), Pure, false, false, R::SameFloat;
    /// `mix a, b, t` = a * (1 - t) + b * t.
    Mix = "mix", Plain, Fixed(3), Pure, false, false, R::SameFloat;
    Degrees = "degrees", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    Radians = "radians", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    // --- vector ops ----------------------------------------------------------------------
    Dot = "dot", Plain, Fixed(2), Pure, false, false, R::Dot;
    Cross = "cross", Plain, Fixed(2), Pure, false, false, R::Cross;
    Length = "length", Plain, Fixed(1), Pure, false, false, R::FloatLength;
    Distance = "distance", Plain, Fixed(2), Pure, false, false, R::FloatLength;
    Normalize = "normalize", Plain, Fixed(1), Pure, false, false, R::SameFloat;
    /// `reflect incident, normal`.
    Reflect = "reflect", Plain, Fixed(2), Pure, false, false, R::SameFloat;
    /// `faceforward n, incident, nref`.
    FaceForward = "faceforward", Plain, Fixed(3), Pure, false, false, R::SameFloat;
    ReduceAdd = "reduce_add", Plain, Fixed(1), Pure, false, false, R::VectorReduce;
    ReduceMul = "reduce_mul", Plain, Fixed(1), Pure, false, false, R::VectorReduce;
    ReduceMin = "reduce_min", Plain, Fixed(1), Pure, false, false, R::VectorReduce;
    ReduceMax = "reduce_max", Plain, Fixed(1), Pure, false, false, R::VectorReduce;
    OuterProduct = "outer_product", Plain, Fixed(2), Pure, false, false, R::OuterProduct;
    // --- matrix ops ----------------------------------------------------------------------
    MatrixTimesMatrix = "matrix_times_matrix", Plain, Fixed(2), Pure, false, false, R::MatrixTimesMatrix;
    MatrixTimesVector = "matrix_times_vector", Plain, Fixed(2), Pure, false, false, R::MatrixTimesVector;
    VectorTimesMatrix = "vector_times_matrix", Plain, Fixed(2), Pure, false, false, R::VectorTimesMatrix;
    MatrixTimesScalar = "matrix_times_scalar", Plain, Fixed(2), Pure, false, false, R::MatrixTimesScalar;
    Transpose = "transpose", Plain, Fixed(1), Pure, false, false, R::Transpose;
    Determinant = "determinant", Plain, Fixed(1), Pure, false, false, R::Determinant;
    Inverse = "inverse", Plain, Fixed(1), Pure, false, false, R::Inverse;
    // --- conversions and composites ------------------------------------------------------
    /// Value conversion (int <-> float, widening, narrowing, to and from bool).
    Convert = "convert", Plain, Fixed(1), Pure, false, true, R::Convert;
    /// Bit reinterpretation between types of equal width.
    Bitcast = "bitcast", Plain, Fixed(1), Pure, false, true, R::Bitcast;
    /// Build a vector, matrix, array or struct from its parts.
    Construct = "construct", Plain, AtLeast(1), Pure, false, true, R::Construct;
    Splat = "splat", Plain, Fixed(1), Pure, false, true, R::Splat;
    Extract = "extract", Indices, Fixed(1), Pure, false, true, R::Extract;
    Insert = "insert", Indices, Fixed(2), Pure, false, true, R::Insert;
    ExtractDynamic = "extract_dynamic", Plain, Fixed(2), Pure, false, true, R::ExtractDynamic;
    InsertDynamic = "insert_dynamic", Plain, Fixed(3), Pure, false, true, R::InsertDynamic;
    Shuffle = "shuffle", Indices, Fixed(2), Pure, false, true, R::Shuffle;
    // --- memory --------------------------------------------------------------------------
    /// A function- or workgroup-space allocation; the result pointer type names the space.
    Alloca = "alloca", Plain, Fixed(0), Pure, false, false, R::Alloca;
    Load = "load", Plain, Fixed(1), MemoryRead, false, false, R::Load;
    Store = "store", Plain, Fixed(2), MemoryWrite, false, false, R::Store;
    /// Pointer projection into arrays, vectors, matrices and structs.
    Access = "access", Plain, AtLeast(2), Pure, false, false, R::Access;
    ArrayLength = "array_length", Plain, Fixed(1), Pure, false, false, R::ArrayLength;
    // --- atomics -------------------------------------------------------------------------
    AtomicLoad = "atomic_load", Plain, Fixed(1), Atomic, false, false, R::Atomic { values: 0, returns: true };
    AtomicStore = "atomic_store", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: false };
    AtomicExchange = "atomic_exchange", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    /// `atomic_compare_exchange ptr, expected, new` returns the old value.
    AtomicCompareExchange = "atomic_compare_exchange", Plain, Fixed(3), Atomic, false, false, R::Atomic { values: 2, returns: true };
    AtomicAdd = "atomic_add", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicSub = "atomic_sub", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicAnd = "atomic_and", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicOr = "atomic_or", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicXor = "atomic_xor", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicMin = "atomic_min", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    AtomicMax = "atomic_max", Plain, Fixed(2), Atomic, false, false, R::Atomic { values: 1, returns: true };
    // --- synchronisation -----------------------------------------------------------------
    /// Execution and workgroup-memory barrier.
    WorkgroupBarrier = "workgroup_barrier", Plain, Fixed(0), Barrier, true, false, R::NoValue;
    /// Execution and storage-memory barrier.
    StorageBarrier = "storage_barrier", Plain, Fixed(0), Barrier, true, false, R::NoValue;
    /// Load through a workgroup pointer, the same value in every invocation (a barrier).
    WorkgroupUniformLoad = "workgroup_uniform_load", Plain, Fixed(1), Barrier, true, false, R::WorkgroupUniformLoad;
    // --- special registers ---------------------------------------------------------------
    /// Local invocation id within the workgroup.
    ThreadId = "thread_id", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    WorkgroupId = "workgroup_id", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    /// Global invocation id.
    DispatchId = "dispatch_id", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    LocalInvocationIndex = "local_invocation_index", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    WorkgroupSize = "workgroup_size", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    /// Number of workgroups in the dispatch.
    NumWorkgroups = "num_workgroups", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    /// Number of invocations in the dispatch (workgroups times workgroup size).
    DispatchSize = "dispatch_size", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec3U32);
    SubgroupInvocationId = "subgroup_invocation_id", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    SubgroupSize = "subgroup_size", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    /// Fragment coordinate (`position` as a fragment input).
    FragCoord = "frag_coord", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Vec4F32);
    FrontFacing = "front_facing", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::Bool);
    VertexIndex = "vertex_index", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    InstanceIndex = "instance_index", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    BaseInstance = "base_instance", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    SampleIndex = "sample_index", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    PrimitiveId = "primitive_id", Plain, Fixed(0), Pure, false, false, R::SpecialRegister(RegisterType::U32);
    // --- textures ------------------------------------------------------------------------
    /// `texture_sample t, s, coord[, layer]` (implicit derivatives: fragment only).
    TextureSample = "texture_sample", Plain, Range(3, 4), ResourceRead, true, false, R::Texture;
    /// `texture_sample_bias t, s, coord[, layer], bias`.
    TextureSampleBias = "texture_sample_bias", Plain, Range(4, 5), ResourceRead, true, false, R::Texture;
    /// `texture_sample_level t, s, coord[, layer], level`.
    TextureSampleLevel = "texture_sample_level", Plain, Range(4, 5), ResourceRead, false, false, R::Texture;
    /// `texture_sample_grad t, s, coord[, layer], ddx, ddy`.
    TextureSampleGrad = "texture_sample_grad", Plain, Range(5, 6), ResourceRead, false, false, R::Texture;
    /// `texture_sample_compare t, s, coord[, layer], depth_ref` (level 0).
    TextureSampleCompare = "texture_sample_compare", Plain, Range(4, 5), ResourceRead, false, false, R::Texture;
    /// `texture_load t, coord[, layer][, level_or_sample]`.
    TextureLoad = "texture_load", Plain, Range(2, 4), ResourceRead, false, false, R::Texture;
    /// `texture_store t, coord[, layer], value`.
    TextureStore = "texture_store", Plain, Range(3, 4), ResourceWrite, false, false, R::Texture;
    /// `texture_dimensions t[, level]`.
    TextureDimensions = "texture_dimensions", Plain, Range(1, 2), Pure, false, false, R::Texture;
    TextureNumLevels = "texture_num_levels", Plain, Fixed(1), Pure, false, false, R::Texture;
    TextureNumLayers = "texture_num_layers", Plain, Fixed(1), Pure, false, false, R::Texture;
    TextureNumSamples = "texture_num_samples", Plain, Fixed(1), Pure, false, false, R::Texture;
    // --- derivatives (fragment only, convergent) -----------------------------------------
    Dpdx = "dpdx", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    Dpdy = "dpdy", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    Fwidth = "fwidth", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    DpdxCoarse = "dpdx_coarse", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    DpdyCoarse = "dpdy_coarse", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    FwidthCoarse = "fwidth_coarse", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    DpdxFine = "dpdx_fine", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    DpdyFine = "dpdy_fine", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    FwidthFine = "fwidth_fine", Plain, Fixed(1), Pure, true, false, R::SameFloat;
    // --- calls and debugging -------------------------------------------------------------
    Call = "call", Call, AtLeast(0), Call, false, false, R::Call;
    /// `print "format", values...`.
    Print = "print", Message, AtLeast(0), Volatile, false, false, R::Print;
    /// `assert "message", cond`.
    Assert = "assert", Message, Fixed(1), Volatile, false, false, R::Assert;
    /// A device timestamp.
    Clock = "clock", Plain, Fixed(0), TimeRead, false, false, R::Clock;
    // --- terminators: plain --------------------------------------------------------------
    Br = "br", Jump, Fixed(0), Terminator, false, false, R::Terminator;
    CondBr = "cond_br", CondBranch, Fixed(1), Terminator, false, false, R::Terminator;
    SwitchBr = "switch_br", SwitchBranch, Fixed(1), Terminator, false, false, R::Terminator;
    Return = "return", Plain, AtLeast(0), Terminator, false, false, R::Terminator;
    Unreachable = "unreachable", Message, Fixed(0), Terminator, false, false, R::Terminator;
    /// Fragment discard (demote to helper invocation).
    Discard = "discard", Plain, Fixed(0), Terminator, false, false, R::Terminator;
    // --- terminators: structured ---------------------------------------------------------
    If = "if", If, Fixed(1), Terminator, false, false, R::Terminator;
    Loop = "loop", Loop, Fixed(0), Terminator, false, false, R::Terminator;
    SimpleLoop = "simple_loop", SimpleLoop, Fixed(0), Terminator, false, false, R::Terminator;
    Switch = "switch", Switch, Fixed(1), Terminator, false, false, R::Terminator;
    Break = "break", Jump, Fixed(0), Terminator, false, false, R::Terminator;
    Continue = "continue", Jump, Fixed(0), Terminator, false, false, R::Terminator;
}

impl Opcode {
    pub fn is_terminator(self) -> bool {
        self.info().effect == EffectClass::Terminator
    }

    /// Terminators with merge / body / update roles (DESIGN.md §2).
    pub fn is_structured(self) -> bool {
        matches!(
            self,
            Opcode::If | Opcode::Loop | Opcode::SimpleLoop | Opcode::Switch
        )
    }

    /// Terminators that only structured control flow may use.
    pub fn is_structured_exit(self) -> bool {
        matches!(self, Opcode::Break | Opcode::Continue)
    }

    /// Plain multi-successor branches (forbidden by `require_no_unstructured_control_flow`).
    pub fn is_unstructured_branch(self) -> bool {
        matches!(self, Opcode::CondBr | Opcode::SwitchBr)
    }

    pub fn is_convergent(self) -> bool {
        self.info().convergent
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn mnemonics_are_unique_and_round_trip() {
        let mut seen = HashSet::new();
        for &op in Opcode::ALL {
            assert!(
                seen.insert(op.mnemonic()),
                "duplicate mnemonic {}",
                op.mnemonic()
            );
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(op));
        }
        assert_eq!(Opcode::from_mnemonic("no_such_op"), None);
    }

    #[test]
    fn terminators_have_terminator_rule_and_nothing_else_does() {
        for &op in Opcode::ALL {
            let info = op.info();
            assert_eq!(
                op.is_terminator(),
                info.rule == TypeRule::Terminator,
                "{op}"
            );
        }
    }
}
