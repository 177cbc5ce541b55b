//! The op table: every opcode of the IR, declared once.
//!
//! Each row names its columns: the opcode's mnemonic (its text-form spelling), its
//! [`OpFamily`], its payload [`Format`], its operand [`Arity`], its memory-effect class
//! ([`EffectClass`]), whether it is `convergent` (collective) and `foldable` (constant
//! folding may evaluate it), and the [`TypeRule`] the verifier and builder apply (see
//! [`crate::typing`]). The printer, parser, verifier, builder and effect queries read this
//! table, and every family question (`is_atomic`, `is_texture`, `is_derivative`,
//! `is_collective`, `is_foldable`, ...) is a predicate over it: nothing else lists opcodes.
//! Every consumer's `match` over [`Opcode`] is exhaustive, so a new row breaks the build
//! in each place that must handle it (`docs/adding-an-opcode.md` lists them).

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
    /// Exactly this many.
    Fixed(u8),
    /// This many or more.
    AtLeast(u8),
    /// Any count in the inclusive range.
    Range(u8, u8),
}

impl Arity {
    /// Whether `n` operands satisfy the rule.
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
        /// Matrices are admitted too.
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
        /// Bool operands are admitted too (`eq`, `ne`).
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
    /// `matCxR * matKxC -> matKxR` over one float type.
    MatrixTimesMatrix,
    /// `matCxR * vecC -> vecR`.
    MatrixTimesVector,
    /// `vecR * matCxR -> vecC`.
    VectorTimesMatrix,
    /// `matCxR * scalar -> matCxR`.
    MatrixTimesScalar,
    /// `matCxR -> matRxC`.
    Transpose,
    /// Square float matrix in, its element type out.
    Determinant,
    /// Square float matrix in, the same type out.
    Inverse,
    /// `ldexp x: float, e: i32` with the lane count of `x`; result = operand 0.
    Ldexp,
    /// `frexp x: float` to the declared struct `{ fract: typeof x, exp: i32 lanes of x }`.
    Frexp,
    /// `modf x: float` to the declared struct `{ fract: typeof x, whole: typeof x }`.
    Modf,
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
        /// Value operands after the pointer.
        values: u8,
        /// Whether it returns the old value.
        returns: bool,
    },
    /// No operands, no result.
    NoValue,
    /// Special register of the given fixed type.
    SpecialRegister(RegisterType),
    /// `spec_constant c: S, ID -> S`: a scalar module constant (the default) and one
    /// literal, the specialization id; the result has the constant's type.
    SpecConstant,
    /// `workgroup_uniform_load ptr<workgroup, T> -> T`.
    WorkgroupUniformLoad,
    /// Texture operations; the verifier checks the texture type and per-op operands.
    Texture(TextureOp),
    /// Subgroup operations; see [`SubgroupOp`] for each one's operands.
    Subgroup(SubgroupOp),
    /// Callee signature decides.
    Call,
    /// `print`: any data operands, no result.
    Print,
    /// `assert cond`.
    Assert,
    /// `clock -> u64`.
    Clock,
    /// Terminators: checked by the control-flow rules.
    Terminator(TerminatorOp),
}

/// Which terminator a `Terminator` type rule stands for: the control-flow families'
/// sub-table, so code that handles terminators matches it exhaustively (and a new
/// non-terminator opcode needs no decision there).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TerminatorOp {
    /// `br`: one edge.
    Br,
    /// `cond_br`: two edges chosen by a bool.
    CondBr,
    /// `switch_br`: a plain multi-way branch.
    SwitchBr,
    /// `return`.
    Return,
    /// `unreachable`: reaching it is an error.
    Unreachable,
    /// `discard`: ends a fragment invocation.
    Discard,
    /// Structured `if`.
    If,
    /// Structured `loop`.
    Loop,
    /// Structured `simple_loop`.
    SimpleLoop,
    /// Structured `switch`.
    Switch,
    /// `break` out of the innermost structured construct.
    Break,
    /// `continue` to the innermost loop's update.
    Continue,
}

impl TerminatorOp {
    /// Terminators that leave the function (or the invocation): `return`, `unreachable`,
    /// `discard`. They have no successor.
    pub fn is_function_exit(self) -> bool {
        use TerminatorOp::*;
        match self {
            Return | Unreachable | Discard => true,
            Br | CondBr | SwitchBr | If | Loop | SimpleLoop | Switch | Break | Continue => false,
        }
    }
}

/// Which texture operation a `Texture` type rule checks: the texture family's own
/// sub-table, so consumers match it exhaustively instead of re-listing opcodes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TextureOp {
    /// `texture_sample` (implicit level of detail).
    Sample,
    /// `texture_sample_bias`.
    SampleBias,
    /// `texture_sample_level`.
    SampleLevel,
    /// `texture_sample_grad`.
    SampleGrad,
    /// `texture_sample_compare` (depth comparison, implicit level of detail).
    SampleCompare,
    /// `texture_sample_compare_level` (depth comparison at level 0).
    SampleCompareLevel,
    /// `texture_gather`.
    Gather,
    /// `texture_gather_compare`.
    GatherCompare,
    /// `texture_load`.
    Load,
    /// `texture_store`.
    Store,
    /// `texture_dimensions`.
    Dimensions,
    /// `texture_num_levels`.
    NumLevels,
    /// `texture_num_layers`.
    NumLayers,
    /// `texture_num_samples`.
    NumSamples,
}

/// Which subgroup operation a `Subgroup` type rule stands for: the subgroup family's
/// sub-table, so consumers match it exhaustively instead of re-listing opcodes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubgroupOp {
    /// `subgroup_ballot pred: bool -> vec4<u32>`.
    Ballot,
    /// `subgroup_elect -> bool`.
    Elect,
    /// `subgroup_broadcast_first v -> typeof v`.
    BroadcastFirst,
    /// `subgroup_broadcast v, lane: u32 (a constant) -> typeof v`.
    Broadcast,
    /// `subgroup_shuffle v, lane: u32`.
    Shuffle,
    /// `subgroup_shuffle_xor v, mask: u32`.
    ShuffleXor,
    /// `subgroup_shuffle_up v, delta: u32`.
    ShuffleUp,
    /// `subgroup_shuffle_down v, delta: u32`.
    ShuffleDown,
    /// `subgroup_all pred: bool -> bool`.
    All,
    /// `subgroup_any pred: bool -> bool`.
    Any,
    /// `subgroup_all_equal v -> bool`.
    AllEqual,
    /// A reduction or scan of `v` over the active lanes, in lane order.
    Arithmetic {
        /// The combining operation.
        op: SubgroupArith,
        /// Reduction, inclusive or exclusive scan.
        scan: SubgroupScan,
    },
}

impl SubgroupOp {
    /// Whether the op takes a value and a `u32` lane (or mask, or delta) operand.
    pub fn takes_lane(self) -> bool {
        use SubgroupOp::*;
        match self {
            Broadcast | Shuffle | ShuffleXor | ShuffleUp | ShuffleDown => true,
            Ballot | Elect | BroadcastFirst | All | Any | AllEqual | Arithmetic { .. } => false,
        }
    }
}

/// The combining operation of a subgroup reduction or scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubgroupArith {
    /// Wrapping integer or IEEE float addition.
    Add,
    /// Wrapping integer or IEEE float multiplication.
    Mul,
    /// `min` (NaN-aware for floats, as the `min` opcode).
    Min,
    /// `max` (NaN-aware for floats, as the `max` opcode).
    Max,
    /// Bitwise and (integers only).
    And,
    /// Bitwise or (integers only).
    Or,
    /// Bitwise xor (integers only).
    Xor,
}

impl SubgroupArith {
    /// The lane-wise opcode that combines two values (evaluated by the scalar semantics).
    pub fn combine(self) -> Opcode {
        match self {
            SubgroupArith::Add => Opcode::Add,
            SubgroupArith::Mul => Opcode::Mul,
            SubgroupArith::Min => Opcode::Min,
            SubgroupArith::Max => Opcode::Max,
            SubgroupArith::And => Opcode::And,
            SubgroupArith::Or => Opcode::Or,
            SubgroupArith::Xor => Opcode::Xor,
        }
    }

    /// Bitwise operations admit integers only.
    pub fn is_bitwise(self) -> bool {
        match self {
            SubgroupArith::And | SubgroupArith::Or | SubgroupArith::Xor => true,
            SubgroupArith::Add | SubgroupArith::Mul | SubgroupArith::Min | SubgroupArith::Max => {
                false
            }
        }
    }
}

/// Whether a subgroup arithmetic op reduces or scans.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SubgroupScan {
    /// Every active lane gets the combination of all active lanes.
    Reduce,
    /// Each lane gets the combination of the active lanes up to and including itself.
    Inclusive,
    /// Each lane gets the combination of the active lanes below itself (the identity in
    /// the lowest).
    Exclusive,
}

/// Result types of special registers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegisterType {
    /// `u32`.
    U32,
    /// `vec3<u32>`.
    Vec3U32,
    /// `vec4<f32>`.
    Vec4F32,
    /// `bool`.
    Bool,
}

/// The family an opcode belongs to: one column of the op table, so every "is this an
/// atomic / a texture op / a derivative" question is answered by the table and nowhere
/// else. The predicates on [`Opcode`] (`is_atomic`, `is_texture`, ...) read it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpFamily {
    /// Integer and float arithmetic, `min`/`max`/`clamp`, `select`.
    Arithmetic,
    /// Bitwise logic, shifts, rotates and bit counting or field operations.
    Bitwise,
    /// Comparisons, float classification and bool reductions.
    Comparison,
    /// Trigonometric, hyperbolic, exponential and logarithmic functions, `pow`, and the
    /// angle conversions: functions targets evaluate with their own approximations, and
    /// that some (GLSL.std.450) define for 16- and 32-bit floats only.
    ElementaryFunction,
    /// Float operations with exactly defined or simply composed results (`sqrt`,
    /// rounding, `fma`, `mix`, `step`, ...).
    FloatArithmetic,
    /// Vector geometry (`dot`, `cross`, `length`, ...) and horizontal reductions.
    Vector,
    /// Matrix products, transpose, determinant and inverse.
    Matrix,
    /// `convert` and `bitcast`.
    Conversion,
    /// Building, projecting and shuffling composite values.
    Composite,
    /// `alloca`, `load`, `store`, `access`, `array_length`.
    Memory,
    /// Atomic read-modify-write operations on storage or workgroup memory.
    Atomic,
    /// Barriers and `workgroup_uniform_load`: compute-only, convergent.
    Synchronisation,
    /// Reads of invocation, dispatch and rasteriser state.
    SpecialRegister,
    /// `spec_constant`: values the pipeline sets when it is created.
    Specialization,
    /// Texture sampling, loads, stores and queries.
    Texture,
    /// Screen-space derivatives (fragment only, convergent).
    Derivative,
    /// Subgroup collectives: ballots, votes, broadcasts, shuffles, reductions and scans
    /// (compute only, convergent).
    Subgroup,
    /// `call`.
    Call,
    /// `print`, `assert` and `clock`.
    Debug,
    /// Plain control flow: `br`, `cond_br`, `switch_br`, `return`, `unreachable`,
    /// `discard`.
    Branch,
    /// Structured control flow: `if`, `loop`, `simple_loop`, `switch`, `break`,
    /// `continue`.
    Structured,
}

/// Declares [`Opcode`] and [`OpInfo`] from the table rows below: one row per opcode with
/// named columns, so that a reader (and the compiler) sees what each flag means.
macro_rules! declare_ops {
    ($( $(#[$doc:meta])* $name:ident = $mnemonic:literal,
        family: $family:ident,
        format: $format:ident,
        arity: $arity:expr,
        effect: $effect:ident,
        convergent: $convergent:literal,
        foldable: $foldable:literal,
        rule: $rule:expr; )*) => {
        /// Every operation of the IR.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode {
            $(
                #[doc = concat!("`", $mnemonic, "` (", stringify!($family), ").")]
                #[doc = ""]
                $(#[$doc])*
                $name,
            )*
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

            /// Every row, in table order: `ROWS[op as usize]` is `op`'s (the opcodes'
            /// discriminants are their table positions).
            const ROWS: &'static [OpInfo] = &[ $( OpInfo {
                family: OpFamily::$family,
                format: Format::$format,
                arity: $arity,
                effect: EffectClass::$effect,
                convergent: $convergent,
                foldable: $foldable,
                rule: $rule,
            }, )* ];

            /// The table row (a load from a static table: every pass asks, often).
            pub fn info(self) -> OpInfo {
                Self::ROWS[self as usize]
            }
        }
    };
}

/// One row of the op table.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The family the op belongs to.
    pub family: OpFamily,
    /// How the instruction stores its non-value operands.
    pub format: Format,
    /// How many value operands it takes.
    pub arity: Arity,
    /// Its memory-effect class.
    pub effect: EffectClass,
    /// Collective operations: never duplicated, sunk into or hoisted out of control flow,
    /// nor made conditional.
    pub convergent: bool,
    /// Constant folding may evaluate this op on constant operands: its result on every
    /// scalar type is defined exactly by the scalar-semantics module, so a folded result
    /// equals what the interpreter computes, and targets do not approximate it (`sqrt`
    /// and `fma` are not foldable: Vulkan's `sqrt` has 2 ULP and its `fma` may be
    /// unfused). `const-fold` adds per-lane conditions (`passes/const_fold/safety.rs`).
    pub foldable: bool,
    /// The type rule the verifier and builder apply.
    pub rule: TypeRule,
}

use Arity::{AtLeast, Fixed, Range};
use TypeRule as R;

declare_ops! {
    // --- integer and float arithmetic -------------------------------------------------
    /// Wrapping integer or IEEE float addition; also matrices.
    Add = "add", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: true };
    Sub = "sub", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: true };
    /// Component-wise multiplication.
    Mul = "mul", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    /// Division (integer: WGSL semantics, division by zero yields the dividend).
    Div = "div", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    /// Remainder with the sign of the dividend (truncated division).
    Rem = "rem", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    Neg = "neg", family: Arithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameSigned;
    Abs = "abs", family: Arithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    Sign = "sign", family: Arithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameSigned;
    /// NaN-aware minimum (WGSL): if one operand is NaN the other is returned.
    Min = "min", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    Max = "max", family: Arithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    /// `clamp x, low, high`.
    Clamp = "clamp", family: Arithmetic, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: true, rule: R::SameNumeric { matrices: false };
    /// `select cond, if_true, if_false`; a bool vector condition selects per lane.
    Select = "select", family: Arithmetic, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: true, rule: R::Select;
    // --- bitwise -------------------------------------------------------------------------
    And = "and", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameIntegerOrBool;
    Or = "or", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameIntegerOrBool;
    Xor = "xor", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameIntegerOrBool;
    /// Bitwise not of integers, logical not of bools.
    Not = "not", family: Bitwise, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameIntegerOrBool;
    /// Shift left; the amount is taken modulo the bit width.
    Shl = "shl", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Shift;
    /// Shift right: arithmetic for signed, logical for unsigned operands.
    Shr = "shr", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Shift;
    Rotl = "rotl", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Shift;
    Rotr = "rotr", family: Bitwise, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Shift;
    CountOnes = "count_ones", family: Bitwise, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameInteger;
    CountLeadingZeros = "count_leading_zeros", family: Bitwise, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameInteger;
    CountTrailingZeros = "count_trailing_zeros", family: Bitwise, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameInteger;
    ReverseBits = "reverse_bits", family: Bitwise, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameInteger;
    /// `extract_bits e, offset, count` (sign-extending for signed `e`).
    ExtractBits = "extract_bits", family: Bitwise, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: true, rule: R::ExtractBits;
    /// `insert_bits e, new, offset, count`.
    InsertBits = "insert_bits", family: Bitwise, format: Plain, arity: Fixed(4), effect: Pure, convergent: false, foldable: true, rule: R::InsertBits;
    // --- comparisons ---------------------------------------------------------------------
    Eq = "eq", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: true };
    Ne = "ne", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: true };
    Lt = "lt", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: false };
    Le = "le", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: false };
    Gt = "gt", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: false };
    Ge = "ge", family: Comparison, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Compare { bools: false };
    IsNan = "is_nan", family: Comparison, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::FloatClassify;
    IsInf = "is_inf", family: Comparison, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::FloatClassify;
    Any = "any", family: Comparison, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::BoolReduce;
    All = "all", family: Comparison, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::BoolReduce;
    // --- float math ----------------------------------------------------------------------
    Sin = "sin", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Cos = "cos", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Tan = "tan", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Asin = "asin", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Acos = "acos", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Atan = "atan", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Atan2 = "atan2", family: ElementaryFunction, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Sinh = "sinh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Cosh = "cosh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Tanh = "tanh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Asinh = "asinh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Acosh = "acosh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Atanh = "atanh", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Exp = "exp", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Exp2 = "exp2", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Exp10 = "exp10", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Log = "log", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Log2 = "log2", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Log10 = "log10", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Pow = "pow", family: ElementaryFunction, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Sqrt = "sqrt", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    InverseSqrt = "inverse_sqrt", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Ceil = "ceil", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    Floor = "floor", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    Fract = "fract", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    Trunc = "trunc", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    /// Round half away from zero.
    Round = "round", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    /// Round half to even.
    RoundEven = "round_even", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    /// Fused multiply-add `a * b + c` with one rounding.
    Fma = "fma", family: FloatArithmetic, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    CopySign = "copysign", family: FloatArithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    Saturate = "saturate", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    /// `ldexp x, e` = `x * 2^e`, rounded once; `e` is `i32` with the lanes of `x`.
    Ldexp = "ldexp", family: FloatArithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::Ldexp;
    /// `frexp x` = `{ fract, exp }` with `x = fract * 2^exp`, `|fract|` in [0.5, 1) (`{±0, 0}`
    /// for zeros); the declared result is a two-member struct (`x`'s type, `i32` lanes).
    Frexp = "frexp", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Frexp;
    /// `modf x` = `{ fract, whole }` with `whole = trunc x`, `fract = x - whole`, both with
    /// the sign of `x` (`fract = ±0` for infinities); the declared result is a two-member
    /// struct of `x`'s type.
    Modf = "modf", family: FloatArithmetic, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Modf;
    /// `step edge, x`: 0 if x < edge else 1.
    Step = "step", family: FloatArithmetic, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::SameFloat;
    /// `smoothstep low, high, x`.
    Smoothstep = "smoothstep", family: FloatArithmetic, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    /// `mix a, b, t` = a * (1 - t) + b * t.
    Mix = "mix", family: FloatArithmetic, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Degrees = "degrees", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    Radians = "radians", family: ElementaryFunction, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    // --- vector ops ----------------------------------------------------------------------
    Dot = "dot", family: Vector, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::Dot;
    Cross = "cross", family: Vector, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::Cross;
    Length = "length", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::FloatLength;
    Distance = "distance", family: Vector, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::FloatLength;
    Normalize = "normalize", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    /// `reflect incident, normal`.
    Reflect = "reflect", family: Vector, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    /// `faceforward n, incident, nref`.
    FaceForward = "faceforward", family: Vector, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: false, rule: R::SameFloat;
    ReduceAdd = "reduce_add", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::VectorReduce;
    ReduceMul = "reduce_mul", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::VectorReduce;
    ReduceMin = "reduce_min", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::VectorReduce;
    ReduceMax = "reduce_max", family: Vector, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::VectorReduce;
    OuterProduct = "outer_product", family: Vector, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::OuterProduct;
    // --- matrix ops ----------------------------------------------------------------------
    MatrixTimesMatrix = "matrix_times_matrix", family: Matrix, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::MatrixTimesMatrix;
    MatrixTimesVector = "matrix_times_vector", family: Matrix, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::MatrixTimesVector;
    VectorTimesMatrix = "vector_times_matrix", family: Matrix, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::VectorTimesMatrix;
    MatrixTimesScalar = "matrix_times_scalar", family: Matrix, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: false, rule: R::MatrixTimesScalar;
    Transpose = "transpose", family: Matrix, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Transpose;
    Determinant = "determinant", family: Matrix, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Determinant;
    Inverse = "inverse", family: Matrix, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Inverse;
    // --- conversions and composites ------------------------------------------------------
    /// Value conversion (int <-> float, widening, narrowing, to and from bool).
    Convert = "convert", family: Conversion, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::Convert;
    /// Bit reinterpretation between types of equal width.
    Bitcast = "bitcast", family: Conversion, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::Bitcast;
    /// Build a vector, matrix, array or struct from its parts.
    Construct = "construct", family: Composite, format: Plain, arity: AtLeast(1), effect: Pure, convergent: false, foldable: true, rule: R::Construct;
    Splat = "splat", family: Composite, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::Splat;
    Extract = "extract", family: Composite, format: Indices, arity: Fixed(1), effect: Pure, convergent: false, foldable: true, rule: R::Extract;
    Insert = "insert", family: Composite, format: Indices, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Insert;
    ExtractDynamic = "extract_dynamic", family: Composite, format: Plain, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::ExtractDynamic;
    InsertDynamic = "insert_dynamic", family: Composite, format: Plain, arity: Fixed(3), effect: Pure, convergent: false, foldable: true, rule: R::InsertDynamic;
    Shuffle = "shuffle", family: Composite, format: Indices, arity: Fixed(2), effect: Pure, convergent: false, foldable: true, rule: R::Shuffle;
    // --- memory --------------------------------------------------------------------------
    /// A function- or workgroup-space allocation; the result pointer type names the space.
    Alloca = "alloca", family: Memory, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::Alloca;
    Load = "load", family: Memory, format: Plain, arity: Fixed(1), effect: MemoryRead, convergent: false, foldable: false, rule: R::Load;
    Store = "store", family: Memory, format: Plain, arity: Fixed(2), effect: MemoryWrite, convergent: false, foldable: false, rule: R::Store;
    /// Pointer projection into arrays, vectors, matrices and structs.
    Access = "access", family: Memory, format: Plain, arity: AtLeast(2), effect: Pure, convergent: false, foldable: false, rule: R::Access;
    ArrayLength = "array_length", family: Memory, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::ArrayLength;
    // --- atomics -------------------------------------------------------------------------
    AtomicLoad = "atomic_load", family: Atomic, format: Plain, arity: Fixed(1), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 0, returns: true };
    AtomicStore = "atomic_store", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: false };
    AtomicExchange = "atomic_exchange", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    /// `atomic_compare_exchange ptr, expected, new` returns the old value.
    AtomicCompareExchange = "atomic_compare_exchange", family: Atomic, format: Plain, arity: Fixed(3), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 2, returns: true };
    AtomicAdd = "atomic_add", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicSub = "atomic_sub", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicAnd = "atomic_and", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicOr = "atomic_or", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicXor = "atomic_xor", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicMin = "atomic_min", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    AtomicMax = "atomic_max", family: Atomic, format: Plain, arity: Fixed(2), effect: Atomic, convergent: false, foldable: false, rule: R::Atomic { values: 1, returns: true };
    // --- synchronisation -----------------------------------------------------------------
    /// Execution and workgroup-memory barrier.
    WorkgroupBarrier = "workgroup_barrier", family: Synchronisation, format: Plain, arity: Fixed(0), effect: Barrier, convergent: true, foldable: false, rule: R::NoValue;
    /// Execution and storage-memory barrier.
    StorageBarrier = "storage_barrier", family: Synchronisation, format: Plain, arity: Fixed(0), effect: Barrier, convergent: true, foldable: false, rule: R::NoValue;
    /// Load through a workgroup pointer, the same value in every invocation (a barrier).
    WorkgroupUniformLoad = "workgroup_uniform_load", family: Synchronisation, format: Plain, arity: Fixed(1), effect: Barrier, convergent: true, foldable: false, rule: R::WorkgroupUniformLoad;
    // --- special registers ---------------------------------------------------------------
    /// Local invocation id within the workgroup.
    ThreadId = "thread_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    WorkgroupId = "workgroup_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    /// Global invocation id.
    DispatchId = "dispatch_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    LocalInvocationIndex = "local_invocation_index", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    WorkgroupSize = "workgroup_size", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    /// Number of workgroups in the dispatch.
    NumWorkgroups = "num_workgroups", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    /// Number of invocations in the dispatch (workgroups times workgroup size).
    DispatchSize = "dispatch_size", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec3U32);
    SubgroupInvocationId = "subgroup_invocation_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    SubgroupSize = "subgroup_size", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    /// Which subgroup of its workgroup the invocation is in: `local_invocation_index /
    /// subgroup_size` (subgroups are formed from consecutive local indices).
    SubgroupId = "subgroup_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    /// How many subgroups a workgroup has: the workgroup's invocation count divided by the
    /// subgroup size, rounded up.
    NumSubgroups = "num_subgroups", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    /// Fragment coordinate (`position` as a fragment input).
    FragCoord = "frag_coord", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Vec4F32);
    FrontFacing = "front_facing", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::Bool);
    VertexIndex = "vertex_index", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    InstanceIndex = "instance_index", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    BaseInstance = "base_instance", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    SampleIndex = "sample_index", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    PrimitiveId = "primitive_id", family: SpecialRegister, format: Plain, arity: Fixed(0), effect: Pure, convergent: false, foldable: false, rule: R::SpecialRegister(RegisterType::U32);
    // --- specialization ------------------------------------------------------------------
    /// A pipeline-overridable constant kept for the pipeline to set (a SPIR-V
    /// specialization constant): `spec_constant DEFAULT, ID`, where DEFAULT is a scalar
    /// module constant, the value when the pipeline sets none, and ID the specialization
    /// id. Not foldable: its value is known only when the pipeline is created.
    SpecConstant = "spec_constant", family: Specialization, format: Indices, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::SpecConstant;
    // --- textures ------------------------------------------------------------------------
    /// `texture_sample t, s, coord[, layer][, offset]` (implicit derivatives: fragment
    /// only). `offset`, on every sampling and gather op, is a constant `vec2<i32>` (2D) or
    /// `vec3<i32>` (3D) texel offset with lanes in -8..=7.
    TextureSample = "texture_sample", family: Texture, format: Plain, arity: Range(3, 5), effect: ResourceRead, convergent: true, foldable: false, rule: R::Texture(TextureOp::Sample);
    /// `texture_sample_bias t, s, coord[, layer], bias[, offset]`.
    TextureSampleBias = "texture_sample_bias", family: Texture, format: Plain, arity: Range(4, 6), effect: ResourceRead, convergent: true, foldable: false, rule: R::Texture(TextureOp::SampleBias);
    /// `texture_sample_level t, s, coord[, layer], level[, offset]`.
    TextureSampleLevel = "texture_sample_level", family: Texture, format: Plain, arity: Range(4, 6), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::SampleLevel);
    /// `texture_sample_grad t, s, coord[, layer], ddx, ddy[, offset]`.
    TextureSampleGrad = "texture_sample_grad", family: Texture, format: Plain, arity: Range(5, 7), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::SampleGrad);
    /// `texture_sample_compare t, s, coord[, layer], depth_ref[, offset]` (implicit level
    /// of detail: fragment only).
    TextureSampleCompare = "texture_sample_compare", family: Texture, format: Plain, arity: Range(4, 6), effect: ResourceRead, convergent: true, foldable: false, rule: R::Texture(TextureOp::SampleCompare);
    /// `texture_sample_compare_level t, s, coord[, layer], depth_ref[, offset]` (level 0).
    TextureSampleCompareLevel = "texture_sample_compare_level", family: Texture, format: Plain, arity: Range(4, 6), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::SampleCompareLevel);
    /// `texture_gather t, s, coord[, layer][, component][, offset]`: one channel
    /// (`component`, a constant 0..=3; none for depth textures) of the four texels
    /// bilinear filtering would read, at level 0.
    TextureGather = "texture_gather", family: Texture, format: Plain, arity: Range(3, 6), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::Gather);
    /// `texture_gather_compare t, s, coord[, layer], depth_ref[, offset]`: the comparison
    /// results of those four texels of a depth texture.
    TextureGatherCompare = "texture_gather_compare", family: Texture, format: Plain, arity: Range(4, 6), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::GatherCompare);
    /// `texture_load t, coord[, layer][, level_or_sample]`.
    TextureLoad = "texture_load", family: Texture, format: Plain, arity: Range(2, 4), effect: ResourceRead, convergent: false, foldable: false, rule: R::Texture(TextureOp::Load);
    /// `texture_store t, coord[, layer], value`.
    TextureStore = "texture_store", family: Texture, format: Plain, arity: Range(3, 4), effect: ResourceWrite, convergent: false, foldable: false, rule: R::Texture(TextureOp::Store);
    /// `texture_dimensions t[, level]`.
    TextureDimensions = "texture_dimensions", family: Texture, format: Plain, arity: Range(1, 2), effect: Pure, convergent: false, foldable: false, rule: R::Texture(TextureOp::Dimensions);
    TextureNumLevels = "texture_num_levels", family: Texture, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Texture(TextureOp::NumLevels);
    TextureNumLayers = "texture_num_layers", family: Texture, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Texture(TextureOp::NumLayers);
    TextureNumSamples = "texture_num_samples", family: Texture, format: Plain, arity: Fixed(1), effect: Pure, convergent: false, foldable: false, rule: R::Texture(TextureOp::NumSamples);
    // --- derivatives (fragment only, convergent) -----------------------------------------
    Dpdx = "dpdx", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    Dpdy = "dpdy", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    Fwidth = "fwidth", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    DpdxCoarse = "dpdx_coarse", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    DpdyCoarse = "dpdy_coarse", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    FwidthCoarse = "fwidth_coarse", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    DpdxFine = "dpdx_fine", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    DpdyFine = "dpdy_fine", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    FwidthFine = "fwidth_fine", family: Derivative, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::SameFloat;
    // --- subgroups (compute, convergent) -------------------------------------------------
    /// `subgroup_ballot pred: bool -> vec4<u32>`: bit `i` (word `i / 32`) set for each active lane `i` whose `pred` holds.
    SubgroupBallot = "subgroup_ballot", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Ballot);
    /// `subgroup_elect -> bool`: true in the active lane with the lowest id.
    SubgroupElect = "subgroup_elect", family: Subgroup, format: Plain, arity: Fixed(0), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Elect);
    /// `subgroup_broadcast_first v`: `v` of the lowest active lane.
    SubgroupBroadcastFirst = "subgroup_broadcast_first", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::BroadcastFirst);
    /// `subgroup_broadcast v, lane: u32` (a constant lane): `v` of that lane.
    SubgroupBroadcast = "subgroup_broadcast", family: Subgroup, format: Plain, arity: Fixed(2), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Broadcast);
    /// `subgroup_shuffle v, lane: u32`: `v` of `lane`.
    SubgroupShuffle = "subgroup_shuffle", family: Subgroup, format: Plain, arity: Fixed(2), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Shuffle);
    /// `subgroup_shuffle_xor v, mask: u32`: `v` of lane `id ^ mask`.
    SubgroupShuffleXor = "subgroup_shuffle_xor", family: Subgroup, format: Plain, arity: Fixed(2), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::ShuffleXor);
    /// `subgroup_shuffle_up v, delta: u32`: `v` of lane `id - delta`.
    SubgroupShuffleUp = "subgroup_shuffle_up", family: Subgroup, format: Plain, arity: Fixed(2), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::ShuffleUp);
    /// `subgroup_shuffle_down v, delta: u32`: `v` of lane `id + delta`.
    SubgroupShuffleDown = "subgroup_shuffle_down", family: Subgroup, format: Plain, arity: Fixed(2), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::ShuffleDown);
    /// `subgroup_all pred: bool -> bool` over the active lanes.
    SubgroupAll = "subgroup_all", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::All);
    /// `subgroup_any pred: bool -> bool` over the active lanes.
    SubgroupAny = "subgroup_any", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Any);
    /// `subgroup_all_equal v -> bool`: every active lane's `v` compares equal.
    SubgroupAllEqual = "subgroup_all_equal", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::AllEqual);
    /// Reductions over the active lanes, in lane order (`and`/`or`/`xor`: integers).
    SubgroupAdd = "subgroup_add", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Add, scan: SubgroupScan::Reduce });
    SubgroupMul = "subgroup_mul", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Mul, scan: SubgroupScan::Reduce });
    SubgroupMin = "subgroup_min", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Min, scan: SubgroupScan::Reduce });
    SubgroupMax = "subgroup_max", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Max, scan: SubgroupScan::Reduce });
    SubgroupAnd = "subgroup_and", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::And, scan: SubgroupScan::Reduce });
    SubgroupOr = "subgroup_or", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Or, scan: SubgroupScan::Reduce });
    SubgroupXor = "subgroup_xor", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Xor, scan: SubgroupScan::Reduce });
    /// Inclusive scans: the reduction over the active lanes up to and including this one.
    SubgroupInclusiveAdd = "subgroup_inclusive_add", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Add, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveMul = "subgroup_inclusive_mul", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Mul, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveMin = "subgroup_inclusive_min", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Min, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveMax = "subgroup_inclusive_max", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Max, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveAnd = "subgroup_inclusive_and", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::And, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveOr = "subgroup_inclusive_or", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Or, scan: SubgroupScan::Inclusive });
    SubgroupInclusiveXor = "subgroup_inclusive_xor", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Xor, scan: SubgroupScan::Inclusive });
    /// Exclusive scans: the reduction over the active lanes below this one (the identity in the lowest).
    SubgroupExclusiveAdd = "subgroup_exclusive_add", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Add, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveMul = "subgroup_exclusive_mul", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Mul, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveMin = "subgroup_exclusive_min", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Min, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveMax = "subgroup_exclusive_max", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Max, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveAnd = "subgroup_exclusive_and", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::And, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveOr = "subgroup_exclusive_or", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Or, scan: SubgroupScan::Exclusive });
    SubgroupExclusiveXor = "subgroup_exclusive_xor", family: Subgroup, format: Plain, arity: Fixed(1), effect: Pure, convergent: true, foldable: false, rule: R::Subgroup(SubgroupOp::Arithmetic { op: SubgroupArith::Xor, scan: SubgroupScan::Exclusive });
    // --- calls and debugging -------------------------------------------------------------
    Call = "call", family: Call, format: Call, arity: AtLeast(0), effect: Call, convergent: false, foldable: false, rule: R::Call;
    /// `print "format", values...`.
    Print = "print", family: Debug, format: Message, arity: AtLeast(0), effect: Volatile, convergent: false, foldable: false, rule: R::Print;
    /// `assert "message", cond`.
    Assert = "assert", family: Debug, format: Message, arity: Fixed(1), effect: Volatile, convergent: false, foldable: false, rule: R::Assert;
    /// A device timestamp.
    Clock = "clock", family: Debug, format: Plain, arity: Fixed(0), effect: TimeRead, convergent: false, foldable: false, rule: R::Clock;
    // --- terminators: plain --------------------------------------------------------------
    Br = "br", family: Branch, format: Jump, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Br);
    CondBr = "cond_br", family: Branch, format: CondBranch, arity: Fixed(1), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::CondBr);
    SwitchBr = "switch_br", family: Branch, format: SwitchBranch, arity: Fixed(1), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::SwitchBr);
    Return = "return", family: Branch, format: Plain, arity: AtLeast(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Return);
    Unreachable = "unreachable", family: Branch, format: Message, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Unreachable);
    /// Fragment discard (demote to helper invocation).
    Discard = "discard", family: Branch, format: Plain, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Discard);
    // --- terminators: structured ---------------------------------------------------------
    If = "if", family: Structured, format: If, arity: Fixed(1), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::If);
    Loop = "loop", family: Structured, format: Loop, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Loop);
    SimpleLoop = "simple_loop", family: Structured, format: SimpleLoop, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::SimpleLoop);
    Switch = "switch", family: Structured, format: Switch, arity: Fixed(1), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Switch);
    Break = "break", family: Structured, format: Jump, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Break);
    Continue = "continue", family: Structured, format: Jump, arity: Fixed(0), effect: Terminator, convergent: false, foldable: false, rule: R::Terminator(TerminatorOp::Continue);
}

impl Opcode {
    /// Ends a block (the `Terminator` effect class; exactly the `Branch` and `Structured`
    /// families).
    pub fn is_terminator(self) -> bool {
        self.info().effect == EffectClass::Terminator
    }

    /// Structured terminators with merge / body / update roles: `if`, `loop`,
    /// `simple_loop`, `switch` (see `docs/ir.md`).
    pub fn is_structured(self) -> bool {
        let info = self.info();
        info.family == OpFamily::Structured && info.format != Format::Jump
    }

    /// Terminators that only structured control flow may use: `break`, `continue`.
    pub fn is_structured_exit(self) -> bool {
        let info = self.info();
        info.family == OpFamily::Structured && info.format == Format::Jump
    }

    /// Plain multi-successor branches (forbidden by `require_no_unstructured_control_flow`):
    /// `cond_br`, `switch_br`.
    pub fn is_unstructured_branch(self) -> bool {
        matches!(
            self.info().format,
            Format::CondBranch | Format::SwitchBranch
        )
    }

    /// Whether swapping the two operands never changes the result bits: `add`, `mul`,
    /// `and`, `or`, `xor`, `eq`, `ne`. (`min` and `max` are not: for floats, `min(-0, +0)`
    /// may answer either zero.)
    pub fn is_commutative(self) -> bool {
        // wildcard-ok: a few named opcodes commute; every other (and any new) one answers no
        matches!(
            self,
            Opcode::Add
                | Opcode::Mul
                | Opcode::And
                | Opcode::Or
                | Opcode::Xor
                | Opcode::Eq
                | Opcode::Ne
        )
    }

    /// Collective operations (the table's `convergent` column): barriers, derivatives,
    /// subgroup operations and implicit-derivative texture samples. The same as [`Opcode::is_collective`].
    pub fn is_convergent(self) -> bool {
        self.info().convergent
    }

    /// The table's `family` column.
    pub fn family(self) -> OpFamily {
        self.info().family
    }

    /// Operations every invocation of a group must reach together (the `convergent`
    /// column): never duplicated, made conditional, or moved across control flow.
    pub fn is_collective(self) -> bool {
        self.info().convergent
    }

    /// Constant folding may evaluate this op (the `foldable` column).
    pub fn is_foldable(self) -> bool {
        self.info().foldable
    }

    /// Atomic read-modify-write operations.
    pub fn is_atomic(self) -> bool {
        self.family() == OpFamily::Atomic
    }

    /// Screen-space derivatives.
    pub fn is_derivative(self) -> bool {
        self.family() == OpFamily::Derivative
    }

    /// Texture sampling, loads, stores and queries.
    pub fn is_texture(self) -> bool {
        self.family() == OpFamily::Texture
    }

    /// Subgroup collectives (the `Subgroup` family).
    pub fn is_subgroup(self) -> bool {
        self.family() == OpFamily::Subgroup
    }

    /// The subgroup operation, for subgroup opcodes (their type rule's sub-kind).
    pub fn subgroup_op(self) -> Option<SubgroupOp> {
        match self.info().rule {
            TypeRule::Subgroup(op) => Some(op),
            _ => None,
        }
    }

    /// The terminator, for terminator opcodes (their type rule's sub-kind).
    pub fn terminator_op(self) -> Option<TerminatorOp> {
        match self.info().rule {
            TypeRule::Terminator(op) => Some(op),
            _ => None,
        }
    }

    /// The texture operation, for texture opcodes (their type rule's sub-kind).
    pub fn texture_op(self) -> Option<TextureOp> {
        match self.info().rule {
            TypeRule::Texture(op) => Some(op),
            _ => None,
        }
    }

    /// Barriers and `workgroup_uniform_load`: operations only compute kernels may use.
    pub fn is_synchronisation(self) -> bool {
        self.family() == OpFamily::Synchronisation
    }

    /// Special-register reads (`thread_id`, `frag_coord`, ...).
    pub fn is_special_register(self) -> bool {
        self.family() == OpFamily::SpecialRegister
    }

    /// Trigonometric, hyperbolic, exponential and logarithmic functions, `pow` and the
    /// angle conversions (see [`OpFamily::ElementaryFunction`]).
    pub fn is_elementary_function(self) -> bool {
        self.family() == OpFamily::ElementaryFunction
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
    fn an_opcodes_discriminant_is_its_table_position() {
        assert_eq!(Opcode::ALL.len(), Opcode::ROWS.len());
        for (i, &op) in Opcode::ALL.iter().enumerate() {
            assert_eq!(op as usize, i, "{op:?}");
        }
        // Spot checks against rows written in the table.
        assert!(Opcode::WorkgroupBarrier.info().convergent);
        assert!(!Opcode::Add.info().convergent && Opcode::Add.info().foldable);
        assert!(!Opcode::Sqrt.info().foldable);
        assert_eq!(Opcode::Load.info().family, OpFamily::Memory);
    }

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
            assert_eq!(op.is_terminator(), op.terminator_op().is_some(), "{op}");
            if let Some(kind) = op.terminator_op() {
                assert_eq!(format!("{kind:?}"), format!("{op:?}"), "sub-kind of {op}");
            }
            if let Some(kind) = op.texture_op() {
                assert_eq!(
                    format!("Texture{kind:?}"),
                    format!("{op:?}"),
                    "sub-kind of {op}"
                );
            }
        }
    }

    /// The family column agrees with the other columns and with the mnemonics, so a row
    /// put in the wrong family is caught here rather than by a back-end.
    #[test]
    fn families_agree_with_effects_rules_and_mnemonics() {
        for &op in Opcode::ALL {
            let info = op.info();
            let name = op.mnemonic();
            let family = info.family;
            assert_eq!(
                op.is_terminator(),
                matches!(family, OpFamily::Branch | OpFamily::Structured),
                "{op}"
            );
            assert_eq!(op.is_atomic(), info.effect == EffectClass::Atomic, "{op}");
            assert_eq!(op.is_atomic(), name.starts_with("atomic_"), "{op}");
            assert_eq!(op.is_texture(), op.texture_op().is_some(), "{op}");
            assert_eq!(op.is_texture(), name.starts_with("texture_"), "{op}");
            assert_eq!(
                op.is_special_register(),
                matches!(info.rule, TypeRule::SpecialRegister(_)),
                "{op}"
            );
            assert_eq!(
                op.is_synchronisation(),
                info.effect == EffectClass::Barrier,
                "{op}"
            );
            let derivative = ["dpdx", "dpdy", "fwidth"]
                .iter()
                .any(|p| name.starts_with(p));
            assert_eq!(op.is_derivative(), derivative, "{op}");
            assert_eq!(op.is_subgroup(), op.subgroup_op().is_some(), "{op}");
            if op.is_subgroup() {
                assert!(name.starts_with("subgroup_"), "{op}");
            }
            if op.is_derivative() || op.is_synchronisation() || op.is_subgroup() {
                assert!(op.is_collective(), "{op} must be convergent");
            }
            if op.is_foldable() {
                assert_eq!(info.effect, EffectClass::Pure, "foldable {op} must be pure");
            }
            if family == OpFamily::ElementaryFunction {
                assert!(
                    !op.is_foldable(),
                    "{op}: targets approximate it; do not fold"
                );
                assert!(matches!(info.rule, TypeRule::SameFloat), "{op}");
            }
        }
        let structured: Vec<&str> = Opcode::ALL
            .iter()
            .filter(|op| op.is_structured())
            .map(|op| op.mnemonic())
            .collect();
        assert_eq!(structured, ["if", "loop", "simple_loop", "switch"]);
        let exits: Vec<&str> = Opcode::ALL
            .iter()
            .filter(|op| op.is_structured_exit())
            .map(|op| op.mnemonic())
            .collect();
        assert_eq!(exits, ["break", "continue"]);
    }
}
