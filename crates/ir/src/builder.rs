//! The builder API: how front-ends and tests create functions and instructions.
//!
//! A [`FunctionBuilder`] borrows a [`Module`] and one of its functions and keeps an
//! insertion point ([`Position`]): the end of a block, or just before an instruction.
//! Every instruction goes through [`FunctionBuilder::try_ins`], which applies the op
//! table and the type rules ([`crate::typing`]) and infers the result type; the named
//! methods (`add`, `load`, `if_`, ...) are thin wrappers around it.
//!
//! Invariants the builder maintains:
//! - **All or nothing.** `try_ins` checks arity, payload format, operand and block
//!   indices, the insertion point and the type rule before it creates anything; on error
//!   the function is unchanged.
//! - **Terminators end blocks.** Nothing is appended after a terminator and a terminator
//!   is never inserted before another instruction.
//! - **Canonical switch labels.** `switch_br` and `switch` store labels canonicalised to the
//!   selector's width ([`canonical_scalar_bits`]) and reject duplicates.
//! - **Structured shapes.** `if_`, `loop_`, `simple_loop` and `switch` create fresh blocks
//!   and emit the structured terminator; filling the blocks according to the lowering
//!   contract (see `docs/ir.md`) is the caller's job and the verifier's to check.
//!
//! Edge arguments are *not* checked against the target's parameters: parameters may be
//! appended after an edge exists (the [`crate::ssa_builder`] does exactly that); the
//! verifier checks edge arity and types.
//!
//! Misuse of the panicking methods (`ins` and the named wrappers) is a programming error
//! and panics with the [`BuildError`] message; [`FunctionBuilder::try_ins`] is the
//! fallible form.

use crate::constants::canonical_scalar_bits;
use crate::dfg::ValueDef;
use crate::entities::{Block, Const, Func, Global, Inst, Type, Value};
use crate::function::{Function, FunctionKind, Signature};
use crate::instructions::{BlockCall, InstData, Payload, SwitchTable};
use crate::metadata::SourceLocation;
use crate::module::Module;
use crate::ops::{Arity, Format, Opcode};
use crate::types::{AddressSpace, Scalar, ScalarKind, TypeData};
use crate::typing::{check_instruction, Operand};
use smallvec::SmallVec;

/// Where the next instruction goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Position {
    /// Nowhere yet (an external function, or a builder that never switched to a block).
    Unset,
    /// Appended at the end of the block.
    End(Block),
    /// Inserted just before the instruction (which must be placed in a block).
    Before(Inst),
}

/// Why an instruction could not be built. Every message names the opcode.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Wrong number of value operands.
    #[error("`{opcode}` takes {expected} operands, found {found}")]
    Arity {
        /// The instruction's opcode.
        opcode: Opcode,
        /// What the op table declares.
        expected: Arity,
        /// What was given.
        found: usize,
    },
    /// The payload variant does not match the opcode's format.
    #[error("`{opcode}` uses payload format {expected:?}, found {found:?}")]
    Format {
        /// The instruction's opcode.
        opcode: Opcode,
        /// What the op table declares.
        expected: Format,
        /// What was given.
        found: Format,
    },
    /// An operand or edge argument is not a value of this function.
    #[error("`{0}`: {1} is not a value of this function")]
    InvalidValue(Opcode, Value),
    /// A branch target, structural role or insertion block is not a block of this function.
    #[error("`{0}`: {1} is not a block of this function")]
    InvalidBlock(Opcode, Block),
    /// The entry block is never a branch target.
    #[error("`{0}`: the entry block {1} cannot be a branch target")]
    EntryTarget(Opcode, Block),
    /// The callee is not a function of this module.
    #[error("`{0}`: {1} is not a function of this module")]
    UnknownFunction(Opcode, Func),
    /// The type rule (or a control-flow rule) rejected the instruction: the message.
    #[error("invalid `{0}`: {1}")]
    Type(Opcode, String),
    /// The builder has no insertion point.
    #[error("`{0}`: no insertion point (switch to a block first)")]
    NoPosition(Opcode),
    /// The insertion block already ends with a terminator.
    #[error("`{0}`: {1} already ends with a terminator")]
    Terminated(Opcode, Block),
    /// A terminator can only be appended at the end of a block, not inserted before an
    /// instruction.
    #[error("`{0}` is a terminator and cannot be inserted before {1}")]
    TerminatorNotAtEnd(Opcode, Inst),
    /// The insertion point is before an instruction that is not in a block.
    #[error("`{0}`: insertion point {1} is not placed in a block")]
    UnplacedInst(Opcode, Inst),
    /// Two cases of a switch have the same (canonical) label.
    #[error("`{0}`: duplicate case label {1:#x}")]
    DuplicateLabel(Opcode, u64),
    /// A family-specific helper was given an opcode of another family (what it expects).
    #[error("`{0}` is not {1}")]
    WrongFamily(Opcode, &'static str),
}

/// Blocks created by [`FunctionBuilder::if_`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IfBlocks {
    /// Entered when the condition is true.
    pub then_block: Block,
    /// Entered when the condition is false.
    pub else_block: Block,
    /// The merge role: both arms end with `br merge` unless they leave otherwise.
    pub merge: Block,
}

/// Blocks created by [`FunctionBuilder::if_without_merge`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IfArms {
    /// Entered when the condition is true.
    pub then_block: Block,
    /// Entered when the condition is false.
    pub else_block: Block,
}

/// Blocks created by [`FunctionBuilder::loop_`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LoopBlocks {
    /// Computes the condition and ends with `cond_br cond, body, merge`.
    pub prepare: Block,
    /// Ends with `br update`; `continue` targets `update`, `break` targets `merge`.
    pub body: Block,
    /// Performs the step and ends with `br prepare`.
    pub update: Block,
    /// Where the loop exits to.
    pub merge: Block,
}

/// Blocks created by [`FunctionBuilder::simple_loop`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SimpleLoopBlocks {
    /// Loops back to itself; leaves only by `break merge`.
    pub body: Block,
    /// Where the loop exits to.
    pub merge: Block,
}

/// Blocks created by [`FunctionBuilder::switch`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SwitchBlocks {
    /// One block per label, in label order.
    pub cases: Vec<Block>,
    /// The default case.
    pub default: Block,
    /// Each case and the default end with `br merge`.
    pub merge: Block,
}

/// Builds instructions into one function of a module. See the module docs.
pub struct FunctionBuilder<'m> {
    module: &'m mut Module,
    func: Func,
    position: Position,
}

macro_rules! unary_ops {
    ($($name:ident = $op:ident;)*) => {
        /// The operand-only methods this macro generates, for the op-table check.
        #[cfg(test)]
        pub(crate) const UNARY_METHODS: &'static [(&'static str, Opcode)] =
            &[$((stringify!($name), Opcode::$op)),*];
        $(
        #[doc = concat!("Emits `", stringify!($name), " a` (`Opcode::", stringify!($op), "`). Panics on misuse.")]
        pub fn $name(&mut self, a: Value) -> Value {
            self.unary(Opcode::$op, a)
        }
    )*};
}

macro_rules! binary_ops {
    ($($name:ident = $op:ident;)*) => {
        /// The operand-only methods this macro generates, for the op-table check.
        #[cfg(test)]
        pub(crate) const BINARY_METHODS: &'static [(&'static str, Opcode)] =
            &[$((stringify!($name), Opcode::$op)),*];
        $(
        #[doc = concat!("Emits `", stringify!($name), " a, b` (`Opcode::", stringify!($op), "`). Panics on misuse.")]
        pub fn $name(&mut self, a: Value, b: Value) -> Value {
            self.binary(Opcode::$op, a, b)
        }
    )*};
}

macro_rules! ternary_ops {
    ($($name:ident = $op:ident;)*) => {
        /// The operand-only methods this macro generates, for the op-table check.
        #[cfg(test)]
        pub(crate) const TERNARY_METHODS: &'static [(&'static str, Opcode)] =
            &[$((stringify!($name), Opcode::$op)),*];
        $(
        #[doc = concat!("Emits `", stringify!($name), " a, b, c` (`Opcode::", stringify!($op), "`). Panics on misuse.")]
        pub fn $name(&mut self, a: Value, b: Value, c: Value) -> Value {
            self.ternary(Opcode::$op, a, b, c)
        }
    )*};
}

impl<'m> FunctionBuilder<'m> {
    // --- setup -----------------------------------------------------------------------------

    /// A builder for `func`, positioned at the end of its entry block (if it has one).
    ///
    /// Panics when `func` is not a function of `module`.
    pub fn new(module: &'m mut Module, func: Func) -> Self {
        let Some(function) = module.functions.get(func) else {
            panic!("{func} is not a function of this module");
        };
        let position = match function.entry_block() {
            Some(entry) => Position::End(entry),
            None => Position::Unset,
        };
        FunctionBuilder {
            module,
            func,
            position,
        }
    }

    /// Adds a function to `module`. Every kind but `external` gets an entry block with one
    /// parameter per signature parameter, of the same type. Name uniqueness is the
    /// verifier's to check.
    pub fn create_function(
        module: &mut Module,
        name: impl Into<String>,
        kind: FunctionKind,
        signature: Signature,
    ) -> Func {
        let param_types: Vec<Type> = signature.params.iter().map(|p| p.ty).collect();
        let mut function = Function::new(name, kind, signature);
        if kind != FunctionKind::External {
            let entry = function.append_new_block();
            for ty in param_types {
                function.dfg.append_block_param(entry, ty);
            }
        }
        module.add_function(function)
    }

    /// The module being built into.
    pub fn module(&self) -> &Module {
        self.module
    }

    /// Mutable access to the module (types, constants, globals).
    pub fn module_mut(&mut self) -> &mut Module {
        self.module
    }

    /// The function being built.
    pub fn func_id(&self) -> Func {
        self.func
    }

    /// The function being built.
    pub fn function(&self) -> &Function {
        &self.module.functions[self.func]
    }

    /// Mutable access to the function (metadata, direct DFG edits).
    pub fn function_mut(&mut self) -> &mut Function {
        &mut self.module.functions[self.func]
    }

    /// The entry block, when the function has one.
    pub fn entry_block(&self) -> Option<Block> {
        self.function().entry_block()
    }

    /// The function's parameters: the entry block's parameters.
    pub fn params(&self) -> Vec<Value> {
        match self.entry_block() {
            Some(entry) => self.function().dfg.block_params(entry).to_vec(),
            None => Vec::new(),
        }
    }

    /// Creates a block and appends it to the layout.
    pub fn create_block(&mut self) -> Block {
        self.function_mut().append_new_block()
    }

    /// Appends a parameter of type `ty` to `block`.
    pub fn create_block_param(&mut self, block: Block, ty: Type) -> Value {
        self.function_mut().dfg.append_block_param(block, ty)
    }

    /// Appends the following instructions to the end of `block`.
    pub fn switch_to_block(&mut self, block: Block) {
        self.position = Position::End(block);
    }

    /// Inserts the following instructions just before `inst`, in order.
    pub fn insert_before(&mut self, inst: Inst) {
        self.position = Position::Before(inst);
    }

    /// The insertion point.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The block the next instruction goes into.
    pub fn current_block(&self) -> Option<Block> {
        match self.position {
            Position::Unset => None,
            Position::End(block) => Some(block),
            Position::Before(inst) => self.function().layout.inst_block(inst),
        }
    }

    /// Whether `block` already ends with a terminator.
    pub fn is_terminated(&self, block: Block) -> bool {
        let function = self.function();
        function.dfg.block_is_valid(block) && function.terminator(block).is_some()
    }

    // --- the generic core ------------------------------------------------------------------

    /// Checks and emits one instruction at the insertion point; returns it and its result
    /// (absent when the type rule gives no type or `void`). `result_ty` is the declared
    /// result type that `convert`, `bitcast`, `construct`, `splat` and `alloca` need; for
    /// other ops it is optional and, when given, must equal the inferred type. On error
    /// nothing is created.
    pub fn try_ins(
        &mut self,
        opcode: Opcode,
        args: &[Value],
        payload: Payload,
        result_ty: Option<Type>,
    ) -> Result<(Inst, Option<Value>), BuildError> {
        let (expected, found) = (opcode.info().arity, args.len());
        if !expected.accepts(found) {
            return Err(BuildError::Arity {
                opcode,
                expected,
                found,
            });
        }
        let (expected, found) = (opcode.info().format, payload.format());
        if expected != found {
            return Err(BuildError::Format {
                opcode,
                expected,
                found,
            });
        }
        self.check_position(opcode)?;
        let data = InstData::with_payload(opcode, args, payload);
        self.check_entities(&data)?;
        if opcode.is_terminator() {
            self.check_control_flow(&data)?;
        }
        let operands = self.operand_infos(args);
        let result = self.check_types(&data, &operands, result_ty)?;
        Ok(self.place(data, result))
    }

    /// Like [`FunctionBuilder::try_ins`], but panics with the error message: misusing the
    /// builder is a programming error. Returns the result value, if any.
    pub fn ins(
        &mut self,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> Option<Value> {
        self.emit(op, args, payload, ty).1
    }

    /// `try_ins` that panics on error.
    fn emit(
        &mut self,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> (Inst, Option<Value>) {
        self.try_ins(op, args, payload, ty)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// `emit` for ops that must produce a value.
    fn emit_value(
        &mut self,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> Value {
        let result = self.emit(op, args, payload, ty).1;
        result.unwrap_or_else(|| panic!("`{op}` produced no value"))
    }

    fn emit_inst(&mut self, opcode: Opcode, args: &[Value], payload: Payload) -> Inst {
        self.emit(opcode, args, payload, None).0
    }

    fn check_position(&self, opcode: Opcode) -> Result<(), BuildError> {
        let f = self.function();
        match self.position {
            Position::Unset => Err(BuildError::NoPosition(opcode)),
            Position::End(block) if !f.dfg.block_is_valid(block) => {
                Err(BuildError::InvalidBlock(opcode, block))
            }
            Position::End(block) if f.terminator(block).is_some() => {
                Err(BuildError::Terminated(opcode, block))
            }
            Position::Before(inst)
                if !f.dfg.inst_is_valid(inst) || f.layout.inst_block(inst).is_none() =>
            {
                Err(BuildError::UnplacedInst(opcode, inst))
            }
            Position::Before(inst) if opcode.is_terminator() => {
                Err(BuildError::TerminatorNotAtEnd(opcode, inst))
            }
            Position::End(_) | Position::Before(_) => Ok(()),
        }
    }

    /// Values, blocks and the callee exist; the entry block is not a target.
    fn check_entities(&self, data: &InstData) -> Result<(), BuildError> {
        let (opcode, f) = (data.opcode, self.function());
        if let Some(value) = data.all_values().find(|&v| !f.dfg.value_is_valid(v)) {
            return Err(BuildError::InvalidValue(opcode, value));
        }
        let targets = data.payload.edges().into_iter().map(|e| e.block);
        for block in targets.chain(data.payload.roles()) {
            if !f.dfg.block_is_valid(block) {
                return Err(BuildError::InvalidBlock(opcode, block));
            }
        }
        if let Some(block) = data
            .payload
            .edges()
            .iter()
            .map(|e| e.block)
            .find(|&b| Some(b) == f.entry_block())
        {
            return Err(BuildError::EntryTarget(opcode, block));
        }
        match data.payload {
            Payload::Callee(func) if self.module.functions.get(func).is_none() => {
                Err(BuildError::UnknownFunction(opcode, func))
            }
            _ => Ok(()),
        }
    }

    /// Conditions are bool, selectors integer scalars with canonical distinct labels,
    /// returned values match the signature.
    fn check_control_flow(&self, data: &InstData) -> Result<(), BuildError> {
        let (opcode, first) = (data.opcode, data.args.first().copied());
        match (&data.payload, first) {
            (Payload::CondBranch { .. } | Payload::If { .. }, Some(cond)) => {
                self.check_condition(opcode, cond)?;
            }
            (Payload::SwitchBranch(table) | Payload::Switch { table, .. }, Some(selector)) => {
                let scalar = self.selector_scalar(opcode, selector)?;
                let labels: Vec<u64> = table.cases.iter().map(|(label, _)| *label).collect();
                if let Some(&bad) = labels
                    .iter()
                    .find(|&&l| canonical_scalar_bits(scalar, l) != l)
                {
                    let message =
                        format!("case label {bad:#x} is not canonical for {}", scalar.name());
                    return Err(BuildError::Type(opcode, message));
                }
                check_distinct(opcode, labels)?;
            }
            _ => {}
        }
        if opcode != Opcode::Return {
            return Ok(());
        }
        let (f, types) = (self.function(), &self.module.types);
        let returns = &f.signature.returns;
        let arg_types = data.args.iter().map(|&v| f.dfg.value_type(v));
        let message = if returns.len() != data.args.len() {
            format!(
                "returns {} values, the signature has {}",
                data.args.len(),
                returns.len()
            )
        } else if let Some((i, (ty, param))) = arg_types
            .zip(returns)
            .enumerate()
            .find(|(_, (t, p))| *t != p.ty)
        {
            let (found, expected) = (types.display(ty), types.display(param.ty));
            format!("returned value {i} has type {found}, the signature says {expected}")
        } else {
            return Ok(());
        };
        Err(BuildError::Type(opcode, message))
    }

    /// The scalar type of `v` when it satisfies `ok`; otherwise a type error saying `what`.
    fn scalar_operand(
        &self,
        op: Opcode,
        v: Value,
        ok: fn(&Scalar) -> bool,
        what: &str,
    ) -> Result<Scalar, BuildError> {
        let dfg = &self.function().dfg;
        if !dfg.value_is_valid(v) {
            return Err(BuildError::InvalidValue(op, v));
        }
        let ty = dfg.value_type(v);
        match self.module.types.try_get(ty) {
            Some(TypeData::Scalar(s)) if ok(s) => Ok(*s),
            _ => {
                let message = format!("{what}, found {}", self.module.types.display(ty));
                Err(BuildError::Type(op, message))
            }
        }
    }

    fn check_condition(&self, opcode: Opcode, cond: Value) -> Result<(), BuildError> {
        self.scalar_operand(opcode, cond, |s| s.is_bool(), "condition must be bool")
            .map(|_| ())
    }

    fn selector_scalar(&self, opcode: Opcode, selector: Value) -> Result<Scalar, BuildError> {
        let ok = |s: &Scalar| s.is_integer() || s.is_bool();
        self.scalar_operand(opcode, selector, ok, "selector must be an integer scalar")
    }

    /// Type and (for scalar integer constants) canonical bits of each operand.
    fn operand_infos(&self, args: &[Value]) -> SmallVec<[Operand; 4]> {
        let dfg = &self.function().dfg;
        args.iter()
            .map(|&v| {
                let constant = match dfg.value_def(v) {
                    ValueDef::Const(c) => match self.module.const_scalar_value(c) {
                        Some((scalar, bits)) if scalar.is_integer() => Some(bits),
                        _ => None,
                    },
                    _ => None,
                };
                Operand {
                    ty: dfg.value_type(v),
                    constant,
                    is_constant: matches!(dfg.value_def(v), ValueDef::Const(_)),
                }
            })
            .collect()
    }

    /// Runs the type rule; returns the result type to create (`None`: no result).
    fn check_types(
        &mut self,
        data: &InstData,
        operands: &[Operand],
        declared: Option<Type>,
    ) -> Result<Option<Type>, BuildError> {
        let opcode = data.opcode;
        let Module {
            types, functions, ..
        } = &mut *self.module;
        let callee = match data.payload {
            Payload::Callee(func) => functions.get(func).map(|f| &f.signature),
            _ => None,
        };
        let inferred = check_instruction(types, data, operands, declared, callee)
            .map_err(|message| BuildError::Type(opcode, message))?;
        let is_void = |ty: Type| matches!(types.try_get(ty), Some(TypeData::Void));
        let result = inferred.filter(|&ty| !is_void(ty));
        if let Some(declared) = declared {
            let declared_result = (!is_void(declared)).then_some(declared);
            if declared_result != result {
                let shown = match result {
                    Some(ty) => types.display(ty).to_string(),
                    None => "no result".to_string(),
                };
                let declared = types.display(declared);
                let message =
                    format!("declared result type {declared}, the type rule gives {shown}");
                return Err(BuildError::Type(opcode, message));
            }
        }
        Ok(result)
    }

    /// Creates the instruction and its result and places it; cannot fail.
    fn place(&mut self, data: InstData, result: Option<Type>) -> (Inst, Option<Value>) {
        let position = self.position;
        let function = self.function_mut();
        let inst = function.dfg.make_inst(data);
        let value = result.map(|ty| function.dfg.make_result(inst, ty));
        match position {
            Position::End(block) => function.layout.append_inst(inst, block),
            Position::Before(before) => function.layout.insert_inst_before(inst, before),
            Position::Unset => unreachable!("check_position rejects an unset position"),
        }
        (inst, value)
    }

    // --- generic op families --------------------------------------------------------------

    /// Emits a one-operand plain op and returns its result. Panics on misuse.
    pub fn unary(&mut self, opcode: Opcode, a: Value) -> Value {
        self.emit_value(opcode, &[a], Payload::None, None)
    }

    /// Emits a two-operand plain op and returns its result. Panics on misuse.
    pub fn binary(&mut self, opcode: Opcode, a: Value, b: Value) -> Value {
        self.emit_value(opcode, &[a, b], Payload::None, None)
    }

    /// Emits a three-operand plain op and returns its result. Panics on misuse.
    pub fn ternary(&mut self, opcode: Opcode, a: Value, b: Value, c: Value) -> Value {
        self.emit_value(opcode, &[a, b, c], Payload::None, None)
    }

    unary_ops! {
        neg = Neg; abs = Abs; sign = Sign; not = Not;
        count_ones = CountOnes; count_leading_zeros = CountLeadingZeros;
        count_trailing_zeros = CountTrailingZeros; reverse_bits = ReverseBits;
        is_nan = IsNan; is_inf = IsInf; any = Any; all = All;
        sin = Sin; cos = Cos; tan = Tan; asin = Asin; acos = Acos; atan = Atan;
        sinh = Sinh; cosh = Cosh; tanh = Tanh; asinh = Asinh; acosh = Acosh; atanh = Atanh;
        exp = Exp; exp2 = Exp2; exp10 = Exp10; log = Log; log2 = Log2; log10 = Log10;
        sqrt = Sqrt; inverse_sqrt = InverseSqrt; ceil = Ceil; floor = Floor; fract = Fract;
        trunc = Trunc; round = Round; round_even = RoundEven; saturate = Saturate;
        degrees = Degrees; radians = Radians; length = Length; normalize = Normalize;
        reduce_add = ReduceAdd; reduce_mul = ReduceMul; reduce_min = ReduceMin; reduce_max = ReduceMax;
        transpose = Transpose; determinant = Determinant; inverse = Inverse;
        dpdx = Dpdx; dpdy = Dpdy; fwidth = Fwidth;
        dpdx_coarse = DpdxCoarse; dpdy_coarse = DpdyCoarse; fwidth_coarse = FwidthCoarse;
        dpdx_fine = DpdxFine; dpdy_fine = DpdyFine; fwidth_fine = FwidthFine;
        subgroup_ballot = SubgroupBallot; subgroup_broadcast_first = SubgroupBroadcastFirst;
        subgroup_all = SubgroupAll; subgroup_any = SubgroupAny;
        subgroup_all_equal = SubgroupAllEqual; subgroup_add = SubgroupAdd;
        subgroup_mul = SubgroupMul; subgroup_min = SubgroupMin; subgroup_max = SubgroupMax;
        subgroup_and = SubgroupAnd; subgroup_or = SubgroupOr; subgroup_xor = SubgroupXor;
        subgroup_inclusive_add = SubgroupInclusiveAdd;
        subgroup_inclusive_mul = SubgroupInclusiveMul;
        subgroup_inclusive_min = SubgroupInclusiveMin;
        subgroup_inclusive_max = SubgroupInclusiveMax;
        subgroup_inclusive_and = SubgroupInclusiveAnd;
        subgroup_inclusive_or = SubgroupInclusiveOr;
        subgroup_inclusive_xor = SubgroupInclusiveXor;
        subgroup_exclusive_add = SubgroupExclusiveAdd;
        subgroup_exclusive_mul = SubgroupExclusiveMul;
        subgroup_exclusive_min = SubgroupExclusiveMin;
        subgroup_exclusive_max = SubgroupExclusiveMax;
        subgroup_exclusive_and = SubgroupExclusiveAnd;
        subgroup_exclusive_or = SubgroupExclusiveOr;
        subgroup_exclusive_xor = SubgroupExclusiveXor;
    }

    binary_ops! {
        add = Add; sub = Sub; mul = Mul; div = Div; rem = Rem; min = Min; max = Max;
        and = And; or = Or; xor = Xor; shl = Shl; shr = Shr; rotl = Rotl; rotr = Rotr;
        eq = Eq; ne = Ne; lt = Lt; le = Le; gt = Gt; ge = Ge;
        atan2 = Atan2; pow = Pow; step = Step; copysign = CopySign; ldexp = Ldexp;
        dot = Dot; cross = Cross; distance = Distance; reflect = Reflect;
        outer_product = OuterProduct; matrix_times_matrix = MatrixTimesMatrix;
        matrix_times_vector = MatrixTimesVector; vector_times_matrix = VectorTimesMatrix;
        matrix_times_scalar = MatrixTimesScalar;
        subgroup_broadcast = SubgroupBroadcast; subgroup_shuffle = SubgroupShuffle;
        subgroup_shuffle_xor = SubgroupShuffleXor; subgroup_shuffle_up = SubgroupShuffleUp;
        subgroup_shuffle_down = SubgroupShuffleDown;
    }

    ternary_ops! {
        clamp = Clamp; select = Select; fma = Fma; mix = Mix; smoothstep = Smoothstep;
        faceforward = FaceForward; extract_bits = ExtractBits;
    }

    /// Emits `insert_bits e, new, offset, count`. Panics on misuse.
    pub fn insert_bits(&mut self, e: Value, new: Value, offset: Value, count: Value) -> Value {
        let args = [e, new, offset, count];
        self.emit_value(Opcode::InsertBits, &args, Payload::None, None)
    }

    // --- conversions and composites --------------------------------------------------------

    /// Value conversion of `v` to `ty` (same lane count). Panics on misuse.
    pub fn convert(&mut self, v: Value, ty: Type) -> Value {
        self.emit_value(Opcode::Convert, &[v], Payload::None, Some(ty))
    }

    /// Bit reinterpretation of `v` as `ty` (same width). Panics on misuse.
    pub fn bitcast(&mut self, v: Value, ty: Type) -> Value {
        self.emit_value(Opcode::Bitcast, &[v], Payload::None, Some(ty))
    }

    /// `frexp x` producing the struct `ty` (`{ fract, exp }`). Panics on misuse.
    pub fn frexp(&mut self, x: Value, ty: Type) -> Value {
        self.emit_value(Opcode::Frexp, &[x], Payload::None, Some(ty))
    }

    /// `modf x` producing the struct `ty` (`{ fract, whole }`). Panics on misuse.
    pub fn modf(&mut self, x: Value, ty: Type) -> Value {
        self.emit_value(Opcode::Modf, &[x], Payload::None, Some(ty))
    }

    /// A vector, matrix, array or struct of type `ty` from its parts. Panics on misuse.
    pub fn construct(&mut self, ty: Type, parts: &[Value]) -> Value {
        self.emit_value(Opcode::Construct, parts, Payload::None, Some(ty))
    }

    /// The scalar `v` in every lane of vector type `ty`. Panics on misuse.
    pub fn splat(&mut self, v: Value, ty: Type) -> Value {
        self.emit_value(Opcode::Splat, &[v], Payload::None, Some(ty))
    }

    /// The element of aggregate `v` at the literal index path. Panics on misuse.
    pub fn extract(&mut self, v: Value, indices: &[u32]) -> Value {
        self.emit_value(
            Opcode::Extract,
            &[v],
            Payload::Indices(indices.into()),
            None,
        )
    }

    /// `agg` with the element at the literal index path replaced by `elem`. Panics on misuse.
    pub fn insert(&mut self, agg: Value, elem: Value, indices: &[u32]) -> Value {
        self.emit_value(
            Opcode::Insert,
            &[agg, elem],
            Payload::Indices(indices.into()),
            None,
        )
    }

    /// Element `index` (a runtime integer) of a vector, matrix or array value.
    pub fn extract_dynamic(&mut self, v: Value, index: Value) -> Value {
        self.binary(Opcode::ExtractDynamic, v, index)
    }

    /// `agg` with element `index` (a runtime integer) replaced by `elem`.
    pub fn insert_dynamic(&mut self, agg: Value, elem: Value, index: Value) -> Value {
        self.ternary(Opcode::InsertDynamic, agg, elem, index)
    }

    /// Lanes of the concatenation of vectors `a` and `b`. Panics on misuse.
    pub fn shuffle(&mut self, a: Value, b: Value, lanes: &[u32]) -> Value {
        let lanes = Payload::Indices(lanes.into());
        self.emit_value(Opcode::Shuffle, &[a, b], lanes, None)
    }

    // --- memory ---------------------------------------------------------------------------

    /// A `function` or `workgroup` allocation of `ty`; the result is `ptr<space, ty>`.
    pub fn alloca(&mut self, space: AddressSpace, ty: Type) -> Value {
        let ptr = self.module.types.pointer(space, ty);
        self.emit_value(Opcode::Alloca, &[], Payload::None, Some(ptr))
    }

    /// Loads the value `ptr` points to.
    pub fn load(&mut self, ptr: Value) -> Value {
        self.unary(Opcode::Load, ptr)
    }

    /// Stores `v` through `ptr`.
    pub fn store(&mut self, ptr: Value, v: Value) -> Inst {
        self.emit_inst(Opcode::Store, &[ptr, v], Payload::None)
    }

    /// A pointer into the object `base` points to, indexed by `indices` (struct indices
    /// must be integer constants).
    pub fn access(&mut self, base: Value, indices: &[Value]) -> Value {
        self.emit_value(Opcode::Access, &prepend(base, indices), Payload::None, None)
    }

    /// The element count of the runtime-sized array `ptr` points to (`u32`).
    pub fn array_length(&mut self, ptr: Value) -> Value {
        self.unary(Opcode::ArrayLength, ptr)
    }

    /// An atomic op (`atomic_*`) on `ptr` with the given value operands. Panics when
    /// `opcode` is not an atomic op.
    pub fn atomic(&mut self, opcode: Opcode, ptr: Value, values: &[Value]) -> Option<Value> {
        self.require_family(opcode, opcode.is_atomic(), "an atomic op");
        self.ins(opcode, &prepend(ptr, values), Payload::None, None)
    }

    /// Execution and workgroup-memory barrier.
    pub fn workgroup_barrier(&mut self) -> Inst {
        self.emit_inst(Opcode::WorkgroupBarrier, &[], Payload::None)
    }

    /// Execution and storage-memory barrier.
    pub fn storage_barrier(&mut self) -> Inst {
        self.emit_inst(Opcode::StorageBarrier, &[], Payload::None)
    }

    /// A load through a workgroup pointer, uniform across the workgroup (a barrier).
    pub fn workgroup_uniform_load(&mut self, ptr: Value) -> Value {
        self.unary(Opcode::WorkgroupUniformLoad, ptr)
    }

    /// Reads a special register (`thread_id`, `dispatch_id`, ...). Panics when `opcode`
    /// is not a special register.
    pub fn special(&mut self, opcode: Opcode) -> Value {
        self.require_family(opcode, opcode.is_special_register(), "a special register");
        self.emit_value(opcode, &[], Payload::None, None)
    }

    /// A texture operation (`texture_*`). Panics when `opcode` is not one.
    pub fn texture(&mut self, opcode: Opcode, args: &[Value]) -> Option<Value> {
        self.require_family(opcode, opcode.is_texture(), "a texture op");
        self.ins(opcode, args, Payload::None, None)
    }

    fn require_family(&self, opcode: Opcode, ok: bool, expected: &'static str) {
        if !ok {
            panic!("{}", BuildError::WrongFamily(opcode, expected));
        }
    }

    // --- calls and debugging ---------------------------------------------------------------

    /// Calls `func` with `args`; returns its result, if it has one.
    pub fn call(&mut self, func: Func, args: &[Value]) -> Option<Value> {
        self.ins(Opcode::Call, args, Payload::Callee(func), None)
    }

    /// `print "format", args...`.
    pub fn print(&mut self, format: &str, args: &[Value]) -> Inst {
        self.emit_inst(Opcode::Print, args, Payload::Message(format.into()))
    }

    /// `assert "message", cond`.
    pub fn assert(&mut self, cond: Value, message: &str) -> Inst {
        self.emit_inst(Opcode::Assert, &[cond], Payload::Message(message.into()))
    }

    /// A device timestamp (`u64`).
    pub fn clock(&mut self) -> Value {
        self.emit_value(Opcode::Clock, &[], Payload::None, None)
    }

    // --- constants and globals --------------------------------------------------------------

    /// The function-local value of module constant `c`. Panics when `c` is not a
    /// constant of the module.
    pub fn const_value(&mut self, c: Const) -> Value {
        let Some(data) = self.module.consts.try_get(c) else {
            panic!("{c} is not a constant of this module");
        };
        let ty = data.ty;
        self.function_mut().dfg.const_value(c, ty)
    }

    fn scalar_const(&mut self, scalar: Scalar, bits: u64) -> Value {
        let c = self.module.const_scalar(scalar, bits);
        self.const_value(c)
    }

    /// A signed or unsigned integer constant, truncated to the scalar's width. Panics when
    /// `scalar` is not an integer type.
    pub fn iconst(&mut self, scalar: Scalar, value: i64) -> Value {
        self.int_const("iconst", scalar, value as u64)
    }

    /// An integer constant from unsigned bits, truncated to the scalar's width. Panics when
    /// `scalar` is not an integer type.
    pub fn uconst(&mut self, scalar: Scalar, value: u64) -> Value {
        self.int_const("uconst", scalar, value)
    }

    fn int_const(&mut self, what: &str, scalar: Scalar, bits: u64) -> Value {
        assert!(
            scalar.is_integer(),
            "{what} needs an integer type, not {}",
            scalar.name()
        );
        self.scalar_const(scalar, bits)
    }

    /// An `f32` constant.
    pub fn fconst32(&mut self, value: f32) -> Value {
        self.scalar_const(Scalar::F32, u64::from(value.to_bits()))
    }

    /// A float constant of width 16, 32 or 64, rounded from `value`. Panics when `scalar`
    /// is not a float type.
    pub fn fconst(&mut self, scalar: Scalar, value: f64) -> Value {
        let bits = match (scalar.kind, scalar.bits) {
            (ScalarKind::Float, 16) => u64::from(half::f16::from_f64(value).to_bits()),
            (ScalarKind::Float, 32) => u64::from((value as f32).to_bits()),
            (ScalarKind::Float, _) => value.to_bits(),
            _ => panic!("fconst needs a float type, not {}", scalar.name()),
        };
        self.scalar_const(scalar, bits)
    }

    /// A `bool` constant.
    pub fn bconst(&mut self, value: bool) -> Value {
        self.scalar_const(Scalar::BOOL, u64::from(value))
    }

    /// The all-zero constant of `ty`.
    pub fn zero(&mut self, ty: Type) -> Value {
        let c = self.module.const_zero(ty);
        self.function_mut().dfg.const_value(c, ty)
    }

    /// The undefined constant of `ty`.
    pub fn undef(&mut self, ty: Type) -> Value {
        let c = self.module.const_undef(ty);
        self.function_mut().dfg.const_value(c, ty)
    }

    /// The address of global `g` (type `ptr<space, ty>`). Panics when `g` is not a global
    /// of the module.
    pub fn global_addr(&mut self, g: Global) -> Value {
        if self.module.globals.get(g).is_none() {
            panic!("{g} is not a global of this module");
        }
        let ptr = self.module.global_pointer_type(g);
        self.function_mut().dfg.global_value(g, ptr)
    }

    // --- plain terminators ------------------------------------------------------------------

    /// `br block(args)`.
    pub fn br(&mut self, block: Block, args: &[Value]) -> Inst {
        self.jump(Opcode::Br, block, args)
    }

    /// `cond_br cond, then_block(then_args), else_block(else_args)`.
    pub fn cond_br(
        &mut self,
        cond: Value,
        then_block: Block,
        then_args: &[Value],
        else_block: Block,
        else_args: &[Value],
    ) -> Inst {
        let payload = Payload::CondBranch {
            then_dest: BlockCall::with_args(then_block, then_args),
            else_dest: BlockCall::with_args(else_block, else_args),
        };
        self.emit_inst(Opcode::CondBr, &[cond], payload)
    }

    /// Canonicalises `labels` to the selector's width; fails on a bad selector.
    fn canonical_labels(
        &self,
        op: Opcode,
        selector: Value,
        labels: &[i64],
    ) -> Result<Vec<u64>, BuildError> {
        let scalar = self.selector_scalar(op, selector)?;
        let out: Vec<u64> = labels
            .iter()
            .map(|&l| canonical_scalar_bits(scalar, l as u64))
            .collect();
        check_distinct(op, out.clone())?;
        Ok(out)
    }

    /// `switch_br selector, cases, default`. Labels are given as `i64` (pass unsigned
    /// labels with `as i64`; the bit pattern is kept) and canonicalised to the selector's
    /// width. Panics on duplicate labels or a non-integer selector.
    pub fn switch_br(&mut self, selector: Value, cases: &[(i64, Block)], default: Block) -> Inst {
        let labels: Vec<i64> = cases.iter().map(|&(label, _)| label).collect();
        let canonical = self.canonical_labels(Opcode::SwitchBr, selector, &labels);
        let canonical = canonical.unwrap_or_else(|e| panic!("{e}"));
        let table = switch_table(
            canonical.into_iter().zip(cases.iter().map(|c| c.1)),
            default,
        );
        self.emit_inst(Opcode::SwitchBr, &[selector], Payload::SwitchBranch(table))
    }

    /// `return values...`; the values must match the signature's results.
    pub fn ret(&mut self, values: &[Value]) -> Inst {
        self.emit_inst(Opcode::Return, values, Payload::None)
    }

    /// `unreachable "message"`.
    pub fn unreachable(&mut self, message: &str) -> Inst {
        self.emit_inst(Opcode::Unreachable, &[], Payload::Message(message.into()))
    }

    /// Fragment `discard`.
    pub fn discard(&mut self) -> Inst {
        self.emit_inst(Opcode::Discard, &[], Payload::None)
    }

    /// `break target(args)`: leaves the enclosing loop or switch to its merge block.
    pub fn break_(&mut self, target: Block, args: &[Value]) -> Inst {
        self.jump(Opcode::Break, target, args)
    }

    /// `continue target(args)`: goes to the enclosing loop's update (or body) block.
    pub fn continue_(&mut self, target: Block, args: &[Value]) -> Inst {
        self.jump(Opcode::Continue, target, args)
    }

    fn jump(&mut self, opcode: Opcode, target: Block, args: &[Value]) -> Inst {
        let edge = BlockCall::with_args(target, args);
        self.emit_inst(opcode, &[], Payload::Jump(edge))
    }

    // --- structured terminators -------------------------------------------------------------

    /// Checks the insertion point (and the condition) of a structured terminator, then
    /// creates its `n` blocks. Panics on misuse, before creating anything.
    fn open(&mut self, op: Opcode, cond: Option<Value>, n: usize) -> Vec<Block> {
        let checked = self.check_position(op);
        let checked = checked.and_then(|()| cond.map_or(Ok(()), |c| self.check_condition(op, c)));
        checked.unwrap_or_else(|e| panic!("{e}"));
        (0..n).map(|_| self.create_block()).collect()
    }

    /// Ends the current block with `if cond, then, else, merge` on three new blocks. Both
    /// arms should end with `br merge` unless they leave otherwise. Panics on misuse.
    pub fn if_(&mut self, cond: Value) -> IfBlocks {
        let [then_block, else_block, merge] = self.open(Opcode::If, Some(cond), 3)[..] else {
            unreachable!("three blocks")
        };
        let (then_dest, else_dest) = (BlockCall::new(then_block), BlockCall::new(else_block));
        let merge_role = Some(merge);
        let payload = Payload::If {
            then_dest,
            else_dest,
            merge: merge_role,
        };
        self.emit_inst(Opcode::If, &[cond], payload);
        IfBlocks {
            then_block,
            else_block,
            merge,
        }
    }

    /// An `if` with no merge block, for when neither arm continues after it (both return,
    /// for example). Panics on misuse.
    pub fn if_without_merge(&mut self, cond: Value) -> IfArms {
        let [then_block, else_block] = self.open(Opcode::If, Some(cond), 2)[..] else {
            unreachable!("two blocks")
        };
        let (then_dest, else_dest) = (BlockCall::new(then_block), BlockCall::new(else_block));
        self.emit_inst(
            Opcode::If,
            &[cond],
            Payload::If {
                then_dest,
                else_dest,
                merge: None,
            },
        );
        IfArms {
            then_block,
            else_block,
        }
    }

    /// Ends the current block with `loop prepare, body, update, merge` on four new
    /// blocks. Fill them per the contract: `prepare` ends with `cond_br c, body, merge`,
    /// `body` with `br update`, `update` with `br prepare`. Panics on misuse.
    pub fn loop_(&mut self) -> LoopBlocks {
        let [prepare, body, update, merge] = self.open(Opcode::Loop, None, 4)[..] else {
            unreachable!("four blocks")
        };
        let edge = BlockCall::new(prepare);
        self.emit_inst(
            Opcode::Loop,
            &[],
            Payload::Loop {
                prepare: edge,
                body,
                update,
                merge,
            },
        );
        LoopBlocks {
            prepare,
            body,
            update,
            merge,
        }
    }

    /// Ends the current block with `simple_loop body, merge` on two new blocks: `body`
    /// loops back to itself and leaves only by `break merge`. Panics on misuse.
    pub fn simple_loop(&mut self) -> SimpleLoopBlocks {
        let [body, merge] = self.open(Opcode::SimpleLoop, None, 2)[..] else {
            unreachable!("two blocks")
        };
        let edge = BlockCall::new(body);
        self.emit_inst(
            Opcode::SimpleLoop,
            &[],
            Payload::SimpleLoop { body: edge, merge },
        );
        SimpleLoopBlocks { body, merge }
    }

    /// Ends the current block with a structured `switch` on new blocks: one per label (in
    /// order), a default and a merge. Each case and the default should end with
    /// `br merge`. Labels are canonicalised as in [`FunctionBuilder::switch_br`]. Panics on
    /// misuse.
    pub fn switch(&mut self, selector: Value, labels: &[i64]) -> SwitchBlocks {
        let canonical = self.canonical_labels(Opcode::Switch, selector, labels);
        let canonical = canonical.unwrap_or_else(|e| panic!("{e}"));
        let mut blocks = self.open(Opcode::Switch, None, labels.len() + 2);
        let (merge, default) = (blocks.pop(), blocks.pop());
        let (Some(merge), Some(default)) = (merge, default) else {
            unreachable!("at least two blocks")
        };
        let table = switch_table(canonical.into_iter().zip(blocks.iter().copied()), default);
        self.emit_inst(
            Opcode::Switch,
            &[selector],
            Payload::Switch { table, merge },
        );
        SwitchBlocks {
            cases: blocks,
            default,
            merge,
        }
    }

    // --- metadata --------------------------------------------------------------------------

    /// Sets the debug name of `inst`.
    pub fn set_name(&mut self, inst: Inst, name: impl Into<String>) {
        self.function_mut().dfg.metadata_mut(inst).name = Some(name.into());
    }

    /// Sets the source location of `inst` (1-based line and column; column 0: unknown).
    pub fn set_location(&mut self, inst: Inst, file: impl Into<String>, line: u32, column: u32) {
        let location = SourceLocation {
            file: file.into(),
            line,
            column,
        };
        self.function_mut().dfg.metadata_mut(inst).location = Some(location);
    }

    /// Appends a comment to `inst`.
    pub fn add_comment(&mut self, inst: Inst, text: impl Into<String>) {
        self.function_mut()
            .dfg
            .metadata_mut(inst)
            .comments
            .push(text.into());
    }
}

/// `first` followed by `rest`.
fn prepend(first: Value, rest: &[Value]) -> Vec<Value> {
    std::iter::once(first).chain(rest.iter().copied()).collect()
}

/// A switch table with edges without arguments.
fn switch_table(cases: impl Iterator<Item = (u64, Block)>, default: Block) -> Box<SwitchTable> {
    let cases = cases
        .map(|(label, block)| (label, BlockCall::new(block)))
        .collect();
    Box::new(SwitchTable {
        cases,
        default: BlockCall::new(default),
    })
}

/// Rejects duplicate switch labels.
fn check_distinct(opcode: Opcode, mut labels: Vec<u64>) -> Result<(), BuildError> {
    labels.sort_unstable();
    match labels.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(BuildError::DuplicateLabel(opcode, w[0])),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::AbiParam;
    use crate::module::{GlobalData, ResourceBinding};
    use crate::types::StorageAccess;
    use Opcode as O;

    /// The generated operand-only methods are checked against the op table: each is named
    /// by its opcode's mnemonic and takes the table's operand count, and every plain op the
    /// table gives a fixed count of 1 to 3 value operands has one, unless it has a dedicated
    /// method (a declared result type, a pointer, a family of opcodes).
    #[test]
    fn generated_methods_agree_with_the_op_table() {
        let generated = [
            (1, FunctionBuilder::UNARY_METHODS),
            (2, FunctionBuilder::BINARY_METHODS),
            (3, FunctionBuilder::TERNARY_METHODS),
        ];
        let mut covered = std::collections::HashSet::new();
        for (count, methods) in generated {
            for &(name, op) in methods {
                assert_eq!(name, op.mnemonic(), "method `{name}` emits `{op}`");
                assert_eq!(op.info().arity, Arity::Fixed(count), "method `{name}`");
                assert_eq!(op.info().format, Format::Plain, "method `{name}`");
                assert!(covered.insert(op), "two methods emit `{op}`");
            }
        }
        let dedicated = [
            O::Convert,
            O::Bitcast,
            O::Splat,
            O::ExtractDynamic,
            O::InsertDynamic,
            O::Load,
            O::Store,
            O::ArrayLength,
            O::WorkgroupUniformLoad,
            O::Frexp,
            O::Modf,
        ];
        for &op in Opcode::ALL {
            let info = op.info();
            let simple = info.format == Format::Plain
                && matches!(info.arity, Arity::Fixed(1..=3))
                && !op.is_atomic()
                && !op.is_texture()
                && !op.is_terminator()
                && !dedicated.contains(&op);
            assert_eq!(simple, covered.contains(&op), "`{op}`: generated method");
        }
    }

    fn opcodes(b: &FunctionBuilder, block: Block) -> Vec<Opcode> {
        let f = b.function();
        f.layout
            .block_insts(block)
            .map(|i| f.dfg.inst(i).opcode)
            .collect()
    }

    fn terminator(b: &FunctionBuilder, block: Block) -> Payload {
        let f = b.function();
        f.dfg
            .inst(f.terminator(block).expect("terminated"))
            .payload
            .clone()
    }

    fn type_of(b: &FunctionBuilder, v: Value) -> String {
        b.module()
            .types
            .display(b.function().dfg.value_type(v))
            .to_string()
    }

    /// The error message of an instruction that must be rejected.
    fn error(b: &mut FunctionBuilder, op: Opcode, args: &[Value], payload: Payload) -> String {
        let before = (b.function().dfg.num_insts(), b.function().dfg.values.len());
        let message = b.try_ins(op, args, payload, None).unwrap_err().to_string();
        let after = (b.function().dfg.num_insts(), b.function().dfg.values.len());
        assert_eq!(before, after, "a failed try_ins created something");
        message
    }

    fn callable(m: &mut Module, params: &[Type], ret: Option<Type>) -> (Func, Vec<Value>) {
        let params = params.iter().map(|&t| AbiParam::new(t)).collect();
        let returns = ret.into_iter().map(AbiParam::new).collect();
        let sig = Signature { params, returns };
        let f = FunctionBuilder::create_function(m, "f", FunctionKind::Callable, sig);
        (f, FunctionBuilder::new(m, f).params())
    }

    /// A kernel: `buf[id] += 1` when in range, then a four-iteration loop with a barrier.
    #[test]
    fn builds_a_compute_kernel() {
        let mut m = Module::new();
        let u32_ty = m.types.u32();
        let ty = m.types.runtime_array(u32_ty);
        let space = AddressSpace::Storage(StorageAccess::ReadWrite);
        let binding = Some(ResourceBinding {
            group: 0,
            binding: 0,
        });
        let name = "buf".to_string();
        let buf = m.add_global(GlobalData {
            name,
            space,
            ty,
            init: None,
            binding,
        });
        let kind = FunctionKind::kernel([64, 1, 1]);
        let f = FunctionBuilder::create_function(&mut m, "main", kind, Signature::default());
        let mut b = FunctionBuilder::new(&mut m, f);
        let entry = b.entry_block().unwrap();
        assert!(b.params().is_empty());

        let id = b.special(O::DispatchId);
        let x = b.extract(id, &[0]);
        let p = b.global_addr(buf);
        let len = b.array_length(p);
        let in_range = b.lt(x, len);
        let ifb = b.if_(in_range);
        b.switch_to_block(ifb.then_block);
        let elem = b.access(p, &[x]);
        let old = b.load(elem);
        let one = b.uconst(Scalar::U32, 1);
        let new = b.add(old, one);
        let st = b.store(elem, new);
        b.set_name(st, "bump");
        b.set_location(st, "k.wgsl", 3, 5);
        b.br(ifb.merge, &[]);
        b.switch_to_block(ifb.else_block);
        b.br(ifb.merge, &[]);

        b.switch_to_block(ifb.merge);
        let slot = b.alloca(AddressSpace::Function, u32_ty);
        let zero = b.uconst(Scalar::U32, 0);
        b.store(slot, zero);
        let lp = b.loop_();
        b.switch_to_block(lp.prepare);
        let i = b.load(slot);
        let four = b.uconst(Scalar::U32, 4);
        let c = b.lt(i, four);
        b.cond_br(c, lp.body, &[], lp.merge, &[]);
        b.switch_to_block(lp.body);
        b.workgroup_barrier();
        b.br(lp.update, &[]);
        b.switch_to_block(lp.update);
        let i2 = b.load(slot);
        let next = b.add(i2, one);
        b.store(slot, next);
        b.br(lp.prepare, &[]);
        b.switch_to_block(lp.merge);
        b.ret(&[]);

        let expected: [(Block, &[Opcode]); 8] = [
            (
                entry,
                &[O::DispatchId, O::Extract, O::ArrayLength, O::Lt, O::If],
            ),
            (
                ifb.then_block,
                &[O::Access, O::Load, O::Add, O::Store, O::Br],
            ),
            (ifb.else_block, &[O::Br]),
            (ifb.merge, &[O::Alloca, O::Store, O::Loop]),
            (lp.prepare, &[O::Load, O::Lt, O::CondBr]),
            (lp.body, &[O::WorkgroupBarrier, O::Br]),
            (lp.update, &[O::Load, O::Add, O::Store, O::Br]),
            (lp.merge, &[O::Return]),
        ];
        for (block, ops) in expected {
            assert_eq!(opcodes(&b, block), ops, "{block}");
        }
        let (then_dest, else_dest) = (
            BlockCall::new(ifb.then_block),
            BlockCall::new(ifb.else_block),
        );
        let merge = Some(ifb.merge);
        assert_eq!(
            terminator(&b, entry),
            Payload::If {
                then_dest,
                else_dest,
                merge
            }
        );
        let (prepare, body, update, merge) =
            (BlockCall::new(lp.prepare), lp.body, lp.update, lp.merge);
        assert_eq!(
            terminator(&b, ifb.merge),
            Payload::Loop {
                prepare,
                body,
                update,
                merge
            }
        );
        let back_edge = Payload::Jump(BlockCall::new(lp.prepare));
        assert_eq!(terminator(&b, lp.update), back_edge);
        let f = b.function();
        assert_eq!(
            f.dfg.inst(f.terminator(entry).unwrap()).args.as_slice(),
            &[in_range]
        );

        assert_eq!(type_of(&b, id), "vec3<u32>");
        assert_eq!(type_of(&b, x), "u32");
        assert_eq!(type_of(&b, p), "ptr<storage(read_write), array<u32>>");
        assert_eq!(type_of(&b, elem), "ptr<storage(read_write), u32>");
        assert_eq!(type_of(&b, in_range), "bool");
        assert_eq!(type_of(&b, slot), "ptr<function, u32>");
        let dfg = &b.function().dfg;
        assert_eq!(dfg.inst_result(st), None);
        let md = dfg.metadata(st).unwrap();
        assert_eq!(md.name.as_deref(), Some("bump"));
        assert_eq!(
            md.location.as_ref().map(|l| (l.line, l.column)),
            Some((3, 5))
        );
        assert_eq!(
            b.uconst(Scalar::U32, 1),
            one,
            "constants are shared per function"
        );
        let mut options = crate::verifier::VerifierOptions::all();
        options.require_no_unstructured_control_flow = false; // `prepare` ends with cond_br
        let report = crate::verifier::verify_module(b.module(), &options);
        assert!(report.succeeded(), "{report}");
    }

    #[test]
    fn errors_leave_the_function_unchanged() {
        let mut m = Module::new();
        let (i32_ty, f32_ty) = (m.types.i32(), m.types.f32());
        let (f, params) = callable(&mut m, &[i32_ty, f32_ty], Some(i32_ty));
        let mut b = FunctionBuilder::new(&mut m, f);
        let (a, x, entry) = (params[0], params[1], b.entry_block().unwrap());
        let none = || Payload::None;
        let msg = error(&mut b, O::Add, &[a, x], none());
        assert!(
            msg.starts_with("invalid `add`: `add` operand 1 has type f32"),
            "{msg}"
        );
        let msg = error(&mut b, O::Add, &[a], none());
        assert_eq!(msg, "`add` takes exactly 2 operands, found 1");
        let msg = error(&mut b, O::Extract, &[a], none());
        assert_eq!(msg, "`extract` uses payload format Indices, found Plain");
        let msg = error(&mut b, O::Neg, &[Value::from_u32(999)], none());
        assert_eq!(msg, "`neg`: v999 is not a value of this function");
        let msg = b
            .try_ins(O::Add, &[a, a], none(), Some(f32_ty))
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("declared result type f32, the type rule gives i32"),
            "{msg}"
        );
        let msg = error(&mut b, O::Br, &[], Payload::Jump(BlockCall::new(entry)));
        assert!(msg.contains("entry block"), "{msg}");
        let msg = error(
            &mut b,
            O::Br,
            &[],
            Payload::Jump(BlockCall::new(Block::from_u32(50))),
        );
        assert_eq!(msg, "`br`: block50 is not a block of this function");
        let msg = error(&mut b, O::Return, &[x], none());
        assert!(
            msg.contains("returned value 0 has type f32, the signature says i32"),
            "{msg}"
        );
        let msg = error(&mut b, O::Call, &[], Payload::Callee(Func::from_u32(7)));
        assert_eq!(msg, "`call`: func7 is not a function of this module");
        let other = BlockCall::new(b.create_block());
        let cond_br = Payload::CondBranch {
            then_dest: other.clone(),
            else_dest: other,
        };
        let msg = error(&mut b, O::CondBr, &[a], cond_br);
        assert!(msg.contains("condition must be bool, found i32"), "{msg}");
        assert_eq!(b.function().layout.block_insts(entry).count(), 0);

        let sum = b.add(a, a);
        b.ret(&[sum]);
        let msg = error(&mut b, O::Neg, &[a], none());
        assert_eq!(msg, "`neg`: block0 already ends with a terminator");
        b.insert_before(b.function().terminator(entry).unwrap());
        let n = b.neg(a);
        assert_eq!(opcodes(&b, entry), [O::Add, O::Neg, O::Return]);
        assert_eq!(b.current_block(), Some(entry));
        let msg = error(&mut b, O::Return, &[n], none());
        assert!(msg.contains("cannot be inserted before"), "{msg}");
    }

    #[test]
    #[should_panic(expected = "`add` operand 1 has type f32")]
    fn ins_panics_with_the_message() {
        let mut m = Module::new();
        let (i32_ty, f32_ty) = (m.types.i32(), m.types.f32());
        let (f, params) = callable(&mut m, &[i32_ty, f32_ty], None);
        FunctionBuilder::new(&mut m, f).add(params[0], params[1]);
    }

    #[test]
    fn constants_are_canonical() {
        let mut m = Module::new();
        let (f, _) = callable(&mut m, &[], None);
        let mut b = FunctionBuilder::new(&mut m, f);
        let values = [
            (b.iconst(Scalar::I8, -1), u64::MAX),
            (b.uconst(Scalar::U8, 0x1ff), 0xff),
            (b.fconst(Scalar::F16, 1.0), 0x3c00),
            (b.fconst(Scalar::F32, 1.0), 0x3f80_0000),
            (b.fconst32(-0.0), 0x8000_0000),
            (b.fconst(Scalar::F64, 0.5), 0.5f64.to_bits()),
            (b.bconst(true), 1),
        ];
        for (v, bits) in values {
            let ValueDef::Const(c) = b.function().dfg.value_def(v) else {
                panic!("{v}")
            };
            assert_eq!(b.module().const_scalar_value(c).unwrap().1, bits, "{v}");
        }
    }

    #[test]
    fn switch_labels_are_canonical_and_distinct() {
        let mut m = Module::new();
        let (i8_ty, u8_ty) = (m.types.scalar(Scalar::I8), m.types.scalar(Scalar::U8));
        let (f, params) = callable(&mut m, &[i8_ty, u8_ty], None);
        let mut b = FunctionBuilder::new(&mut m, f);
        let (s, u, entry) = (params[0], params[1], b.entry_block().unwrap());
        let sw = b.switch(s, &[-1, 3]);
        let Payload::Switch { table, merge } = terminator(&b, entry) else {
            panic!("switch")
        };
        assert_eq!(merge, sw.merge);
        let cases = vec![
            (u64::MAX, BlockCall::new(sw.cases[0])),
            (3, BlockCall::new(sw.cases[1])),
        ];
        assert_eq!(
            (table.cases, table.default),
            (cases, BlockCall::new(sw.default))
        );

        b.switch_to_block(sw.cases[0]);
        b.switch_br(u, &[(-1, sw.merge)], sw.merge);
        let Payload::SwitchBranch(table) = terminator(&b, sw.cases[0]) else {
            panic!("switch_br")
        };
        assert_eq!(table.cases[0].0, 0xff);

        // Raw payloads are checked too.
        b.switch_to_block(sw.cases[1]);
        let raw = |labels: &[u64]| {
            let cases = labels
                .iter()
                .map(|&l| (l, BlockCall::new(sw.merge)))
                .collect();
            let default = BlockCall::new(sw.merge);
            Payload::SwitchBranch(Box::new(SwitchTable { cases, default }))
        };
        let msg = error(&mut b, O::SwitchBr, &[s], raw(&[0xff]));
        assert_eq!(
            msg,
            "invalid `switch_br`: case label 0xff is not canonical for i8"
        );
        let msg = error(&mut b, O::SwitchBr, &[s], raw(&[1, 1]));
        assert_eq!(msg, "`switch_br`: duplicate case label 0x1");
    }

    #[test]
    #[should_panic(expected = "`switch`: duplicate case label 0xffffffffffffffff")]
    fn switch_rejects_labels_equal_after_truncation() {
        let mut m = Module::new();
        let i8_ty = m.types.scalar(Scalar::I8);
        let (f, params) = callable(&mut m, &[i8_ty], None);
        FunctionBuilder::new(&mut m, f).switch(params[0], &[-1, 0xff]);
    }
}
