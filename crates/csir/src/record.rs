//! The 16-byte CSIR record, the opcode set and the per-opcode operand schema.
//!
//! A [`Record`] is `op ty ncomp pad` (one byte each) then `dst a b c aux aux2` (one `i16`
//! each): 16 bytes, `-1` for an unused register field. `op` is kept as the raw byte so a
//! record read from a blob can hold an invalid opcode until the verifier rejects it;
//! [`Op::from_u8`] decodes it.
//!
//! [`schema`] is the one place that says, per opcode, which fields are registers, how
//! many consecutive temporaries each spans (matrix columns, uniform ranges), which lane
//! count is allowed and what `aux` / `aux2` mean. The verifier checks records against
//! it, and the optimiser's use counting, the interpreter and the TGSI emitter read the
//! same spans, so an implicit operand (matrix columns 1..3, a SETLANE's destination) is
//! never missed by one of them.
//!
//! Invariant: a [`Span`] is only meaningful for a record that passed
//! [`crate::verify()`]; [`schema`] itself never fails and never indexes anything.

/// Every CSIR opcode. Values are the wire encoding (never reorder; append).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Op {
    /// Nothing (removed by the optimiser's compaction).
    Nop = 0,
    /// `dst[0..n] = imm[aux..aux+n]`.
    Const = 1,
    /// `dst[0..n] = a[0..n]`.
    Mov = 2,
    /// `dst[i] = a[(aux >> 2i) & 3]` for `i < n`.
    Swz = 3,
    /// `dst[aux] = a[aux2]`; the other lanes of `dst` are kept (so `dst` is also read).
    SetLane = 4,
    /// Lane-wise `a + b`.
    Add = 5,
    /// Lane-wise `a - b` (emitted as `ADD a, -b`).
    Sub = 6,
    /// Lane-wise `a * b`.
    Mul = 7,
    /// Lane-wise minimum.
    Min = 8,
    /// Lane-wise maximum.
    Max = 9,
    /// Lane-wise `|a|` (emitted as `MOV |a|`).
    Abs = 10,
    /// `dst[0] = dot(a[0..aux], b[0..aux])`, `aux` in 2..=4.
    Dot = 11,
    /// Lane-wise `1 / sqrt(a)`.
    Rsq = 12,
    /// Lane-wise `1 / a`.
    Rcp = 13,
    /// Lane-wise sine.
    Sin = 14,
    /// Lane-wise cosine.
    Cos = 15,
    /// Lane-wise `a ^ b`.
    Pow = 16,
    /// Lane-wise truncation toward zero.
    Trunc = 17,
    /// Lane-wise comparison `a <aux> b` giving 1.0 / 0.0 ([`Cmp`] codes).
    Cmp = 18,
    /// `dst[0..rows] = sum_k a[k] * b[k]`: matrix `a..a+aux` (`aux` columns of `ncomp`
    /// rows) times vector `b`.
    MulMv = 19,
    /// Matrix `a` (`aux` columns of `ncomp` rows) times matrix `b` (`aux2` columns of
    /// `aux` rows) into `dst..dst+aux2`.
    MulMm = 20,
    /// `dst = texture(sampler aux, a.xy)`, four lanes.
    Sample = 21,
    /// `dst..dst+aux2 = uniform slots aux..aux+aux2` (four lanes each).
    LoadUni = 22,
    /// `dst[0..n] = attribute slot aux`.
    LoadAttr = 23,
    /// `dst[0..n] = varying slot aux`.
    LoadVar = 24,
    /// `dst = gl_FragCoord`.
    LoadFcoord = 25,
    /// `gl_Position = a`.
    StorePos = 26,
    /// `varying slot aux = a[0..n]`.
    StoreVar = 27,
    /// `colour output aux = a[0..n]`.
    StoreColor = 28,
    /// Runs the following instructions when `a[0] != 0`.
    If = 29,
    /// The other arm of the innermost `If`.
    Else = 30,
    /// Ends the innermost `If`.
    EndIf = 31,
    /// Ends a fragment invocation without output.
    Discard = 32,
    /// Lane-wise `-a` (emitted as `MOV -a`).
    Neg = 33,
    /// Lane-wise floor.
    Floor = 34,
    /// Lane-wise `a - floor(a)`.
    Fract = 35,
    /// Lane-wise square root.
    Sqrt = 36,
    /// Lane-wise `2 ^ a`.
    Exp2 = 37,
    /// Lane-wise `log2 a`.
    Log2 = 38,
    /// Lane-wise `a * b + c` (rounded twice).
    Mad = 39,
    /// Lane-wise `a != 0 (and not NaN) ? b : c`.
    Sel = 40,
    /// Lane-wise ceiling.
    Ceil = 41,
}

impl Op {
    /// Every opcode, in encoding order.
    pub const ALL: [Op; 42] = [
        Op::Nop,
        Op::Const,
        Op::Mov,
        Op::Swz,
        Op::SetLane,
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Min,
        Op::Max,
        Op::Abs,
        Op::Dot,
        Op::Rsq,
        Op::Rcp,
        Op::Sin,
        Op::Cos,
        Op::Pow,
        Op::Trunc,
        Op::Cmp,
        Op::MulMv,
        Op::MulMm,
        Op::Sample,
        Op::LoadUni,
        Op::LoadAttr,
        Op::LoadVar,
        Op::LoadFcoord,
        Op::StorePos,
        Op::StoreVar,
        Op::StoreColor,
        Op::If,
        Op::Else,
        Op::EndIf,
        Op::Discard,
        Op::Neg,
        Op::Floor,
        Op::Fract,
        Op::Sqrt,
        Op::Exp2,
        Op::Log2,
        Op::Mad,
        Op::Sel,
        Op::Ceil,
    ];

    /// The opcode encoded as `byte`, if any.
    pub fn from_u8(byte: u8) -> Option<Op> {
        Op::ALL.get(usize::from(byte)).copied()
    }

    /// The dump spelling.
    pub fn name(self) -> &'static str {
        match self {
            Op::Nop => "nop",
            Op::Const => "const",
            Op::Mov => "mov",
            Op::Swz => "swz",
            Op::SetLane => "setlane",
            Op::Add => "add",
            Op::Sub => "sub",
            Op::Mul => "mul",
            Op::Min => "min",
            Op::Max => "max",
            Op::Abs => "abs",
            Op::Dot => "dot",
            Op::Rsq => "rsq",
            Op::Rcp => "rcp",
            Op::Sin => "sin",
            Op::Cos => "cos",
            Op::Pow => "pow",
            Op::Trunc => "trunc",
            Op::Cmp => "cmp",
            Op::MulMv => "mulmv",
            Op::MulMm => "mulmm",
            Op::Sample => "sample",
            Op::LoadUni => "load_uni",
            Op::LoadAttr => "load_attr",
            Op::LoadVar => "load_var",
            Op::LoadFcoord => "load_fcoord",
            Op::StorePos => "store_pos",
            Op::StoreVar => "store_var",
            Op::StoreColor => "store_color",
            Op::If => "if",
            Op::Else => "else",
            Op::EndIf => "endif",
            Op::Discard => "discard",
            Op::Neg => "neg",
            Op::Floor => "floor",
            Op::Fract => "fract",
            Op::Sqrt => "sqrt",
            Op::Exp2 => "exp2",
            Op::Log2 => "log2",
            Op::Mad => "mad",
            Op::Sel => "sel",
            Op::Ceil => "ceil",
        }
    }
}

/// Comparison codes of [`Op::Cmp`] (`aux`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt = 0,
    /// `>`
    Gt = 1,
    /// `<=`
    Le = 2,
    /// `>=`
    Ge = 3,
    /// `==`
    Eq = 4,
    /// `!=`
    Ne = 5,
}

impl Cmp {
    /// The code `aux` holds, if valid.
    pub fn from_aux(aux: i16) -> Option<Cmp> {
        match aux {
            0 => Some(Cmp::Lt),
            1 => Some(Cmp::Gt),
            2 => Some(Cmp::Le),
            3 => Some(Cmp::Ge),
            4 => Some(Cmp::Eq),
            5 => Some(Cmp::Ne),
            _ => None,
        }
    }

    /// The comparison on two lanes (IEEE: every comparison with NaN is false but `!=`).
    pub fn eval(self, x: f32, y: f32) -> bool {
        match self {
            Cmp::Lt => x < y,
            Cmp::Gt => x > y,
            Cmp::Le => x <= y,
            Cmp::Ge => x >= y,
            Cmp::Eq => x == y,
            Cmp::Ne => x != y,
        }
    }
}

/// Semantic type of a record's result (`ty`): every lane is an `f32` whatever it is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// No result or a float result.
    Float = 0,
    /// A bool held as 0.0 / 1.0.
    Bool = 1,
}

impl Ty {
    /// The type encoded as `byte`, if any.
    pub fn from_u8(byte: u8) -> Option<Ty> {
        match byte {
            0 => Some(Ty::Float),
            1 => Some(Ty::Bool),
            _ => None,
        }
    }
}

/// One CSIR instruction: 16 bytes on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Record {
    /// The opcode byte ([`Op`]).
    pub op: u8,
    /// The result's semantic type ([`Ty`]).
    pub ty: u8,
    /// Lanes written / read, 1..=4 where the opcode has lanes.
    pub ncomp: u8,
    /// Always zero.
    pub pad: u8,
    /// Destination temporary (first of a span), or -1.
    pub dst: i16,
    /// First source temporary, or -1.
    pub a: i16,
    /// Second source temporary, or -1.
    pub b: i16,
    /// Third source temporary, or -1.
    pub c: i16,
    /// Opcode-specific.
    pub aux: i16,
    /// Opcode-specific.
    pub aux2: i16,
}

/// The unused register / field value.
pub const NONE: i16 = -1;

impl Record {
    /// A record of `op` with every field unused and `ncomp` 0.
    pub fn new(op: Op) -> Record {
        Record {
            op: op as u8,
            ty: Ty::Float as u8,
            ncomp: 0,
            pad: 0,
            dst: NONE,
            a: NONE,
            b: NONE,
            c: NONE,
            aux: NONE,
            aux2: NONE,
        }
    }

    /// The decoded opcode (`None` for an invalid byte).
    pub fn opcode(&self) -> Option<Op> {
        Op::from_u8(self.op)
    }
}

/// How a register field of an opcode is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// Must be -1.
    Unused,
    /// One temporary.
    One,
    /// `n` consecutive temporaries, `n` from another field ([`SpanLen`]).
    Span(SpanLen),
}

/// Where a span's length comes from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpanLen {
    /// `aux` temporaries (matrix columns of `a` in MULMV / MULMM).
    Aux,
    /// `aux2` temporaries (LOAD_UNI's slots, MULMM's result and `b` columns).
    Aux2,
}

/// What `aux` / `aux2` hold for an opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AuxKind {
    /// Both -1.
    None,
    /// `aux` an immediate index (with `ncomp` values).
    Immediate,
    /// `aux` four 2-bit lane selectors.
    Swizzle,
    /// `aux` destination lane, `aux2` source lane (0..=3 each).
    Lanes,
    /// `aux` the dot width, 2..=4.
    Width,
    /// `aux` a [`Cmp`] code.
    Compare,
    /// `aux` columns of `a` (2..=4).
    MatVec,
    /// `aux` columns of `a` = rows of `b`, `aux2` columns of `b` (2..=4 each).
    MatMat,
    /// `aux` a sampler slot.
    Sampler,
    /// `aux` first uniform slot, `aux2` the slot count (>= 1).
    Uniforms,
    /// `aux` an attribute slot.
    Attribute,
    /// `aux` a varying slot.
    Varying,
    /// `aux` a colour output slot.
    Output,
}

/// The operand schema of one opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// The destination field.
    pub dst: Field,
    /// The source fields `a`, `b`, `c`.
    pub src: [Field; 3],
    /// Allowed `ncomp` (inclusive); `(0, 0)` for opcodes without lanes.
    pub ncomp: (u8, u8),
    /// Meaning of `aux` / `aux2`.
    pub aux: AuxKind,
    /// The destination is also read (SETLANE keeps the other lanes).
    pub reads_dst: bool,
    /// Removable when its result is unused.
    pub pure: bool,
}

const U: Field = Field::Unused;
const O: Field = Field::One;

const fn s(dst: Field, src: [Field; 3], ncomp: (u8, u8), aux: AuxKind) -> Schema {
    Schema {
        dst,
        src,
        ncomp,
        aux,
        reads_dst: false,
        pure: true,
    }
}

const fn effect(src: [Field; 3], ncomp: (u8, u8), aux: AuxKind) -> Schema {
    Schema {
        dst: U,
        src,
        ncomp,
        aux,
        reads_dst: false,
        pure: false,
    }
}

/// The operand schema of `op`: one exhaustive match, the single source for the
/// verifier, the optimiser and the consumers.
pub fn schema(op: Op) -> Schema {
    const LANES: (u8, u8) = (1, 4);
    match op {
        Op::Nop | Op::Else | Op::EndIf | Op::Discard => effect([U, U, U], (0, 0), AuxKind::None),
        Op::Const => s(O, [U, U, U], LANES, AuxKind::Immediate),
        Op::Mov
        | Op::Abs
        | Op::Neg
        | Op::Rsq
        | Op::Rcp
        | Op::Sin
        | Op::Cos
        | Op::Trunc
        | Op::Floor
        | Op::Fract
        | Op::Sqrt
        | Op::Exp2
        | Op::Log2
        | Op::Ceil => s(O, [O, U, U], LANES, AuxKind::None),
        Op::Swz => s(O, [O, U, U], LANES, AuxKind::Swizzle),
        Op::SetLane => Schema {
            reads_dst: true,
            ..s(O, [O, U, U], (1, 1), AuxKind::Lanes)
        },
        Op::Add | Op::Sub | Op::Mul | Op::Min | Op::Max | Op::Pow => {
            s(O, [O, O, U], LANES, AuxKind::None)
        }
        Op::Mad | Op::Sel => s(O, [O, O, O], LANES, AuxKind::None),
        Op::Dot => s(O, [O, O, U], (1, 1), AuxKind::Width),
        Op::Cmp => s(O, [O, O, U], LANES, AuxKind::Compare),
        Op::MulMv => s(
            O,
            [Field::Span(SpanLen::Aux), O, U],
            (2, 4),
            AuxKind::MatVec,
        ),
        Op::MulMm => s(
            Field::Span(SpanLen::Aux2),
            [Field::Span(SpanLen::Aux), Field::Span(SpanLen::Aux2), U],
            (2, 4),
            AuxKind::MatMat,
        ),
        Op::Sample => s(O, [O, U, U], (4, 4), AuxKind::Sampler),
        Op::LoadUni => s(
            Field::Span(SpanLen::Aux2),
            [U, U, U],
            (4, 4),
            AuxKind::Uniforms,
        ),
        Op::LoadAttr => s(O, [U, U, U], LANES, AuxKind::Attribute),
        Op::LoadVar => s(O, [U, U, U], LANES, AuxKind::Varying),
        Op::LoadFcoord => s(O, [U, U, U], (4, 4), AuxKind::None),
        Op::StorePos => effect([O, U, U], (4, 4), AuxKind::None),
        Op::StoreVar => effect([O, U, U], LANES, AuxKind::Varying),
        Op::StoreColor => effect([O, U, U], LANES, AuxKind::Output),
        Op::If => effect([O, U, U], (0, 0), AuxKind::None),
    }
}

/// A run of consecutive temporaries one field of a verified record covers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first temporary.
    pub start: u16,
    /// How many (>= 1).
    pub len: u16,
}

impl Span {
    /// The temporaries of the span.
    pub fn temps(self) -> std::ops::Range<usize> {
        usize::from(self.start)..usize::from(self.start) + usize::from(self.len)
    }

    /// Whether two spans share a temporary.
    pub fn overlaps(self, other: Span) -> bool {
        let (a, b) = (self.temps(), other.temps());
        a.start < b.end && b.start < a.end
    }
}

/// The span `field` of `record` covers, given the record's own `value` for that field;
/// `None` for an unused field, a negative register or a non-positive length.
pub fn span_of(field: Field, value: i16, record: &Record) -> Option<Span> {
    let start = u16::try_from(value).ok()?;
    let len = match field {
        Field::Unused => return None,
        Field::One => 1,
        Field::Span(SpanLen::Aux) => record.aux,
        Field::Span(SpanLen::Aux2) => record.aux2,
    };
    let len = u16::try_from(len).ok().filter(|&n| n > 0)?;
    Some(Span { start, len })
}

/// The spans a record writes and reads (after verification: every used field is a
/// valid span). SETLANE's destination is listed among the reads too.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Operands {
    /// The destination span.
    pub write: Option<Span>,
    /// The source spans (and the destination of an opcode that reads it).
    pub reads: Vec<Span>,
}

/// The operands of `record` under its opcode's schema.
pub fn operands(op: Op, record: &Record) -> Operands {
    let schema = schema(op);
    let write = span_of(schema.dst, record.dst, record);
    let mut reads: Vec<Span> = [record.a, record.b, record.c]
        .iter()
        .zip(schema.src)
        .filter_map(|(&v, f)| span_of(f, v, record))
        .collect();
    if schema.reads_dst {
        reads.extend(write);
    }
    Operands { write, reads }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcodes_round_trip_their_byte() {
        for (i, op) in Op::ALL.iter().enumerate() {
            assert_eq!(*op as usize, i);
            assert_eq!(Op::from_u8(*op as u8), Some(*op));
        }
        assert_eq!(Op::from_u8(Op::ALL.len() as u8), None);
        assert_eq!(Op::from_u8(255), None);
    }

    #[test]
    fn matrix_operands_cover_every_column() {
        let mut r = Record::new(Op::MulMm);
        (r.dst, r.a, r.b, r.aux, r.aux2, r.ncomp) = (20, 4, 8, 4, 3, 4);
        let ops = operands(Op::MulMm, &r);
        assert_eq!(ops.write, Some(Span { start: 20, len: 3 }));
        assert_eq!(
            ops.reads,
            [Span { start: 4, len: 4 }, Span { start: 8, len: 3 }]
        );
        let mut set = Record::new(Op::SetLane);
        (set.dst, set.a, set.aux, set.aux2, set.ncomp) = (3, 1, 2, 0, 1);
        assert!(operands(Op::SetLane, &set)
            .reads
            .contains(&Span { start: 3, len: 1 }));
    }
}
