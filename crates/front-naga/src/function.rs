//! Per-function lowering state and the helpers every statement and expression uses.
//!
//! ## Evaluation time and the value cache
//!
//! naga evaluates an expression when the `Emit` statement covering it runs (see
//! `naga::ir`'s docs). The lowering follows that exactly: `Emit(range)` lowers each
//! expression of the range at that point of the current block and stores its oxir value
//! in `values[handle]`; later uses read the cache. Re-running an `Emit` (a switch case body
//! lowered twice for fall-through) overwrites the cache, so each copy uses its own values.
//! Because naga only lets an emitted expression be used in the rest of its block and in
//! nested blocks, and the lowering keeps control flow nested the same way, the cached
//! definition dominates every use.
//!
//! Expressions no `Emit` covers are evaluated on use:
//! - literals, constants, zero values and constant `Compose` / `Splat` / `Swizzle` /
//!   projections become interned oxir constants ([`crate::constants`]);
//! - `FunctionArgument`, `LocalVariable` and handle-space `GlobalVariable` values are made
//!   in the entry block before the body (parameters, rebuilt entry structs, special
//!   registers, `alloca`s, `load`s of texture and sampler globals); other globals are
//!   their address values;
//! - call, atomic and workgroup-uniform-load results are set by their statements;
//! - anything else that naga left unemitted is evaluated at the use, uncached.
//!
//! ## Local variables
//!
//! Every naga local is an `alloca function` in the entry block, followed by a `store` of
//! its initializer, or of `zero` when it has none (WGSL zero-initializes locals; GLSL and
//! SPIR-V leave them undefined, and zero is one valid value). `mem2reg` turns them into SSA
//! values.

use crate::constants::ConstCache;
use crate::entry_points::{ArgumentInput, EntryInterface, Input};
use crate::error::{LowerError, Result};
use crate::module::{walk_statements, ModuleLowerer};
use naga::valid::FunctionInfo;
use naga::{Expression, Handle, Span, Statement};
use oxir_ir::builder::FunctionBuilder;
use oxir_ir::hash::HashMap;
use oxir_ir::{
    AddressSpace, Block, Const, Func, Inst, Opcode, Payload, Scalar, Type, TypeData, Value,
};

/// A structured construct that `break` / `continue` can leave.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Construct {
    /// A loop: `continue` goes to `update`, `break` to `merge`.
    Loop { update: Block, merge: Block },
    /// A switch: `break` goes to `merge`; `broken` records that one did.
    Switch { merge: Block, broken: bool },
}

pub(crate) struct FunctionLowerer<'a, 'n> {
    pub m: &'a mut ModuleLowerer<'n>,
    pub function: &'n naga::Function,
    pub info: &'n FunctionInfo,
    pub func: Func,
    pub interface: Option<&'a EntryInterface>,
    /// oxir value of each expression evaluated so far.
    pub values: Vec<Option<Value>>,
    /// Expressions covered by some `Emit`.
    pub emitted: Vec<bool>,
    /// Constant forms among this function's expressions.
    pub consts: ConstCache,
    /// The value of each naga argument.
    pub arguments: Vec<Value>,
    /// The `alloca` of each naga local variable.
    pub locals: Vec<Value>,
    /// Where the next instruction goes; `None` after a terminator (the rest of the naga
    /// block is unreachable and skipped).
    pub current: Option<Block>,
    /// Enclosing loops and switches, innermost last.
    pub constructs: Vec<Construct>,
    /// The span of the statement being lowered, for errors of expressions without one.
    pub span: Span,
    /// While lowering a `continuing` block: body values read from their spill slots
    /// ([`crate::loops`]).
    pub reloads: HashMap<Handle<Expression>, Value>,
}

impl<'a, 'n> FunctionLowerer<'a, 'n> {
    pub(crate) fn new(
        m: &'a mut ModuleLowerer<'n>,
        function: &'n naga::Function,
        info: &'n FunctionInfo,
        func: Func,
        interface: Option<&'a EntryInterface>,
    ) -> Self {
        let count = function.expressions.len();
        let mut emitted = vec![false; count];
        walk_statements(&function.body, &mut |statement| {
            if let Statement::Emit(range) = statement {
                for handle in range.clone() {
                    emitted[handle.index()] = true;
                }
            }
        });
        let entry = m.out.functions[func].entry_block();
        FunctionLowerer {
            m,
            function,
            info,
            func,
            interface,
            values: vec![None; count],
            emitted,
            consts: Vec::new(),
            arguments: Vec::new(),
            locals: Vec::new(),
            current: entry,
            constructs: Vec::new(),
            span: Span::UNDEFINED,
            reloads: HashMap::default(),
        }
    }

    /// Lowers the whole function: prologue, body, and the implicit return at its end.
    pub(crate) fn lower_body(mut self) -> Result<()> {
        self.prologue()?;
        self.lower_block(&self.function.body)?;
        if self.current.is_some() {
            if self.function.result.is_none() {
                self.terminate(Opcode::Return, &[], Payload::None)?;
            } else {
                // naga lets control reach the end of a function with a result only when it
                // cannot (the front-ends' own analysis) or when it is undefined behaviour.
                let message = Payload::Message("end of a function with a result".into());
                self.terminate(Opcode::Unreachable, &[], message)?;
            }
        }
        Ok(())
    }

    /// Arguments, special registers, texture and sampler loads, local allocations.
    fn prologue(&mut self) -> Result<()> {
        let params = FunctionBuilder::new(&mut self.m.out, self.func).params();
        match self.interface {
            None => self.arguments = params,
            Some(interface) => {
                for argument in &interface.arguments {
                    let value = match argument {
                        ArgumentInput::Value { input, ty } => self.input(input, *ty, &params)?,
                        ArgumentInput::Struct { ty, members } => {
                            let mut parts = Vec::with_capacity(members.len());
                            for (input, member_ty) in members {
                                parts.push(self.input(input, *member_ty, &params)?);
                            }
                            self.op_typed(Opcode::Construct, &parts, *ty)?
                        }
                    };
                    self.arguments.push(value);
                }
            }
        }
        for (handle, expression) in self.function.expressions.iter() {
            if let Expression::GlobalVariable(g) = *expression {
                let global = &self.m.naga.global_variables[g];
                // Skip dead references (naga's GLSL front-end makes them in every function).
                if global.space == naga::AddressSpace::Handle && self.info[handle].ref_count > 0 {
                    let address =
                        self.global_address(g, self.function.expressions.get_span(handle))?;
                    let value = self.op(Opcode::Load, &[address])?;
                    self.values[handle.index()] = Some(value);
                }
            }
        }
        self.spec_constants()?;
        let mut stores = Vec::new();
        for (handle, local) in self.function.local_variables.iter() {
            let span = self.function.local_variables.get_span(handle);
            let ty = self.m.lower_type(local.ty).map_err(|e| e.or_span(span))?;
            let ptr = self.m.out.types.pointer(AddressSpace::Function, ty);
            let (inst, value) = self.ins(Opcode::Alloca, &[], Payload::None, Some(ptr))?;
            if let Some(name) = &local.name {
                self.set_name(inst, name);
            }
            let value = value.ok_or_else(|| LowerError::internal("alloca without result", span))?;
            self.locals.push(value);
            let init = match local.init {
                Some(init) => self.value_of(init)?,
                None => {
                    let zero = self.m.out.const_zero(ty);
                    self.const_value(zero)
                }
            };
            stores.push((value, init));
        }
        for (ptr, init) in stores {
            self.ins(Opcode::Store, &[ptr, init], Payload::None, None)?;
        }
        Ok(())
    }

    /// `spec_constant DEFAULT, ID` for every override the function reads, when overrides
    /// are kept ([`crate::SpecPlan`]).
    fn spec_constants(&mut self) -> Result<()> {
        let Some(plan) = self.m.spec_constants.clone() else {
            return Ok(());
        };
        for (handle, expression) in self.function.expressions.iter() {
            let Expression::Override(o) = *expression else {
                continue;
            };
            let span = self.function.expressions.get_span(handle);
            let (id, value) = plan
                .get(o)
                .ok_or_else(|| LowerError::internal("override missing from the plan", span))?;
            let default = self.override_const(value);
            let default = self.const_value(default);
            let spec = self.op_indices(Opcode::SpecConstant, &[default], &[id])?;
            self.values[handle.index()] = Some(spec);
        }
        Ok(())
    }

    /// The IR constant of an override's value.
    fn override_const(&mut self, value: crate::OverrideValue) -> oxir_ir::Const {
        use crate::OverrideValue as V;
        let (scalar, bits) = match value {
            V::Bool(b) => (Scalar::BOOL, u64::from(b)),
            V::I32(i) => (Scalar::I32, i64::from(i) as u64),
            V::U32(u) => (Scalar::U32, u64::from(u)),
            V::F32(x) => (Scalar::F32, u64::from(x.to_bits())),
            V::F16(x) => (Scalar::F16, u64::from(x.to_bits())),
        };
        self.m.out.const_scalar(scalar, bits)
    }

    /// The value of a bound entry input of oxir type `ty`.
    fn input(&mut self, input: &Input, ty: Type, params: &[Value]) -> Result<Value> {
        match input {
            Input::Param(i) => params
                .get(*i)
                .copied()
                .ok_or_else(|| LowerError::internal("entry parameter out of range", self.span)),
            Input::Register(op) => {
                let value = self.op(*op, &[])?;
                self.adapt(value, ty)
            }
        }
    }

    /// `value` as type `ty`: itself, or a `bitcast` between integers of the same shape.
    pub(crate) fn adapt(&mut self, value: Value, ty: Type) -> Result<Value> {
        let have = self.value_type(value);
        if have == ty {
            return Ok(value);
        }
        let both_integer = [have, ty].iter().all(|&t| {
            self.m
                .out
                .types
                .get(t)
                .scalar_or_vector_elem()
                .is_some_and(|(s, _)| s.is_integer())
        });
        if both_integer {
            return self.op_typed(Opcode::Bitcast, &[value], ty);
        }
        let (have, want) = (self.type_name(have), self.type_name(ty));
        Err(LowerError::unsupported(
            format!("built-in of type {want} (oxir's register has type {have})"),
            self.span,
        ))
    }

    // --- building ---------------------------------------------------------------------------

    /// Emits one instruction into the current block.
    pub(crate) fn ins(
        &mut self,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> Result<(Inst, Option<Value>)> {
        let Some(block) = self.current else {
            return Err(LowerError::internal(
                format!("`{op}` in unreachable code"),
                self.span,
            ));
        };
        let mut b = FunctionBuilder::new(&mut self.m.out, self.func);
        b.switch_to_block(block);
        b.try_ins(op, args, payload, ty)
            .map_err(|e| LowerError::internal(e.to_string(), self.span))
    }

    /// An op with a result, its type inferred.
    pub(crate) fn op(&mut self, op: Opcode, args: &[Value]) -> Result<Value> {
        self.result(op, args, Payload::None, None)
    }

    /// An op with a declared result type (`convert`, `bitcast`, `construct`, `splat`).
    pub(crate) fn op_typed(&mut self, op: Opcode, args: &[Value], ty: Type) -> Result<Value> {
        self.result(op, args, Payload::None, Some(ty))
    }

    /// An op with literal indices (`extract`, `insert`, `shuffle`).
    pub(crate) fn op_indices(
        &mut self,
        op: Opcode,
        args: &[Value],
        indices: &[u32],
    ) -> Result<Value> {
        self.result(op, args, Payload::Indices(indices.into()), None)
    }

    fn result(
        &mut self,
        op: Opcode,
        args: &[Value],
        payload: Payload,
        ty: Option<Type>,
    ) -> Result<Value> {
        let (_, value) = self.ins(op, args, payload, ty)?;
        value.ok_or_else(|| LowerError::internal(format!("`{op}` produced no value"), self.span))
    }

    /// Emits a terminator; the current block is then closed.
    pub(crate) fn terminate(&mut self, op: Opcode, args: &[Value], payload: Payload) -> Result<()> {
        self.ins(op, args, payload, None)?;
        self.current = None;
        Ok(())
    }

    pub(crate) fn new_block(&mut self) -> Block {
        self.m.out.functions[self.func].append_new_block()
    }

    pub(crate) fn set_name(&mut self, inst: Inst, name: &str) {
        self.m.out.functions[self.func].dfg.metadata_mut(inst).name = Some(name.to_string());
    }

    // --- values and types -------------------------------------------------------------------

    pub(crate) fn value_type(&self, value: Value) -> Type {
        self.m.out.functions[self.func].dfg.value_type(value)
    }

    pub(crate) fn type_data(&self, ty: Type) -> &TypeData {
        self.m.out.types.get(ty)
    }

    pub(crate) fn type_name(&self, ty: Type) -> String {
        self.m.out.types.display(ty).to_string()
    }

    /// Scalar element and lane count of a scalar or vector value.
    pub(crate) fn shape(&self, value: Value) -> Option<(Scalar, u8)> {
        self.type_data(self.value_type(value))
            .scalar_or_vector_elem()
    }

    pub(crate) fn const_value(&mut self, c: Const) -> Value {
        let ty = self.m.out.consts.get(c).ty;
        self.m.out.functions[self.func].dfg.const_value(c, ty)
    }

    /// A scalar constant of `scalar` from raw bits.
    pub(crate) fn scalar_const(&mut self, scalar: Scalar, bits: u64) -> Value {
        let c = self.m.out.const_scalar(scalar, bits);
        self.const_value(c)
    }

    pub(crate) fn u32_const(&mut self, value: u32) -> Value {
        self.scalar_const(Scalar::U32, u64::from(value))
    }

    /// A float constant of `scalar`'s width.
    pub(crate) fn float_const(&mut self, scalar: Scalar, value: f64) -> Value {
        let bits = match scalar.bits {
            16 => u64::from(half::f16::from_f64(value).to_bits()),
            32 => u64::from((value as f32).to_bits()),
            _ => value.to_bits(),
        };
        self.scalar_const(scalar, bits)
    }

    /// The constant `value` (converted to the scalar) in every lane of the shape of `like`.
    pub(crate) fn const_like(&mut self, like: Type, value: f64) -> Result<Value> {
        let Some((scalar, lanes)) = self.type_data(like).scalar_or_vector_elem() else {
            return Err(LowerError::internal(
                "constant of a non-numeric shape",
                self.span,
            ));
        };
        let lane = match scalar.kind {
            oxir_ir::ScalarKind::Float => self.float_const(scalar, value),
            oxir_ir::ScalarKind::Bool => self.scalar_const(scalar, u64::from(value != 0.0)),
            _ => self.scalar_const(scalar, value as i64 as u64),
        };
        if lanes == 1 {
            return Ok(lane);
        }
        let oxir_ir::ValueDef::Const(lane) = self.m.out.functions[self.func].dfg.value_def(lane)
        else {
            return self.op_typed(Opcode::Splat, &[lane], like);
        };
        let c = self
            .m
            .out
            .const_composite(like, vec![lane; usize::from(lanes)]);
        Ok(self.const_value(c))
    }

    /// `value` splatted to vector type `like` when it is a scalar and `like` a vector.
    pub(crate) fn broadcast(&mut self, value: Value, like: Type) -> Result<Value> {
        let is_scalar = matches!(self.type_data(self.value_type(value)), TypeData::Scalar(_));
        if is_scalar && matches!(self.type_data(like), TypeData::Vector { .. }) {
            self.op_typed(Opcode::Splat, &[value], like)
        } else {
            Ok(value)
        }
    }

    /// The address of global `g` (its value for handle globals is loaded in the prologue).
    pub(crate) fn global_address(
        &mut self,
        g: Handle<naga::GlobalVariable>,
        span: Span,
    ) -> Result<Value> {
        let global = self.m.global(g).map_err(|e| e.or_span(span))?;
        let ptr = self.m.out.global_pointer_type(global);
        Ok(self.m.out.functions[self.func]
            .dfg
            .global_value(global, ptr))
    }

    /// The oxir type of expression `handle`'s naga type.
    pub(crate) fn expression_type(&mut self, handle: Handle<Expression>) -> Result<Type> {
        let span = self.function.expressions.get_span(handle);
        let resolution = &self.info[handle].ty;
        match resolution {
            naga::proc::TypeResolution::Handle(ty) => self.m.lower_type(*ty),
            naga::proc::TypeResolution::Value(inner) => {
                let inner = inner.clone();
                self.m.lower_inner(&inner, span)
            }
        }
        .map_err(|e| e.or_span(span))
    }

    /// naga's type of expression `handle`.
    pub(crate) fn naga_type(&self, handle: Handle<Expression>) -> &'n naga::TypeInner {
        self.info[handle].ty.inner_with(&self.m.naga.types)
    }

    /// Whether `pointer` (a naga pointer expression) points to an atomic.
    pub(crate) fn points_to_atomic(&self, pointer: Handle<Expression>) -> bool {
        match *self.naga_type(pointer) {
            naga::TypeInner::Pointer { base, .. } => {
                matches!(self.m.naga.types[base].inner, naga::TypeInner::Atomic(_))
            }
            _ => false,
        }
    }

    /// Expression `handle` as an interned constant, when it is a constant form.
    pub(crate) fn constant_of(&mut self, handle: Handle<Expression>) -> Result<Option<Const>> {
        let span = self.function.expressions.get_span(handle);
        let arena = &self.function.expressions;
        let mut consts = std::mem::take(&mut self.consts);
        let constant = self.m.const_expression(arena, handle, &mut consts);
        self.consts = consts;
        constant.map_err(|e| e.or_span(span))
    }

    /// The value of expression `handle` at the current point (see the module docs).
    pub(crate) fn value_of(&mut self, handle: Handle<Expression>) -> Result<Value> {
        if let Some(&slot) = self.reloads.get(&handle) {
            return self.op(Opcode::Load, &[slot]);
        }
        if let Some(value) = self.values[handle.index()] {
            return Ok(value);
        }
        let span = self.function.expressions.get_span(handle);
        match self.function.expressions[handle] {
            Expression::FunctionArgument(i) => {
                return self
                    .arguments
                    .get(i as usize)
                    .copied()
                    .ok_or_else(|| LowerError::internal("function argument out of range", span))
            }
            Expression::LocalVariable(l) => {
                return self
                    .locals
                    .get(l.index())
                    .copied()
                    .ok_or_else(|| LowerError::internal("local variable out of range", span))
            }
            Expression::GlobalVariable(g) => {
                if self.m.naga.global_variables[g].space == naga::AddressSpace::Handle {
                    return Err(LowerError::internal(
                        "texture or sampler global not loaded",
                        span,
                    ));
                }
                return self.global_address(g, span);
            }
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::RayQueryProceedResult
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => {
                return Err(LowerError::internal(
                    "statement result used before its statement",
                    span,
                ))
            }
            _ => {}
        }
        // Constant forms can be used anywhere (local initializers in the entry block are
        // constants even when an `Emit` also covers them).
        match self.constant_of(handle)? {
            Some(c) => Ok(self.const_value(c)),
            None if self.emitted[handle.index()] => Err(LowerError::internal(
                format!(
                    "expression [{}] `{}` used before its `Emit`",
                    handle.index(),
                    crate::constants::expression_name(&self.function.expressions[handle])
                ),
                span,
            )),
            None => self.lower_expression(handle),
        }
    }

    /// Stores the value of `handle` (just evaluated) into a new `zero`-initialized slot in
    /// the entry block and returns the slot ([`crate::loops`]).
    pub(crate) fn spill(&mut self, handle: Handle<Expression>) -> Result<Value> {
        let span = self.function.expressions.get_span(handle);
        let value = self.value_of(handle)?;
        let ty = self.value_type(value);
        if matches!(self.type_data(ty), TypeData::Pointer { .. }) {
            return Err(LowerError::unsupported(
                "pointer defined in a loop body after a `continue` and used in its \
                 `continuing` block",
                span,
            ));
        }
        let entry = self.m.out.functions[self.func]
            .entry_block()
            .ok_or_else(|| LowerError::internal("function without an entry block", span))?;
        let first = self.m.out.functions[self.func].layout.first_inst(entry);
        let ptr = self.m.out.types.pointer(AddressSpace::Function, ty);
        let zero = self.m.out.const_zero(ty);
        let zero = self.const_value(zero);
        let mut b = FunctionBuilder::new(&mut self.m.out, self.func);
        match first {
            Some(first) => b.insert_before(first),
            None => b.switch_to_block(entry),
        }
        let internal = |e: oxir_ir::builder::BuildError| LowerError::internal(e.to_string(), span);
        let (_, slot) = b
            .try_ins(Opcode::Alloca, &[], Payload::None, Some(ptr))
            .map_err(internal)?;
        let slot = slot.ok_or_else(|| LowerError::internal("alloca without result", span))?;
        b.try_ins(Opcode::Store, &[slot, zero], Payload::None, None)
            .map_err(internal)?;
        self.ins(Opcode::Store, &[slot, value], Payload::None, None)?;
        Ok(slot)
    }

    /// Lowers `Emit(range)`: evaluates each expression now and caches its value.
    pub(crate) fn emit_range(&mut self, range: &naga::Range<Expression>) -> Result<()> {
        for handle in range.clone() {
            // Arguments, variables and globals are evaluated on function entry whatever
            // the front-end emitted (naga's GLSL front-end covers some with `Emit`).
            if matches!(
                self.function.expressions[handle],
                Expression::FunctionArgument(_)
                    | Expression::LocalVariable(_)
                    | Expression::GlobalVariable(_)
            ) {
                continue;
            }
            // A kept override is read on function entry; otherwise `value_of` refuses it.
            if let Expression::Override(_) = self.function.expressions[handle] {
                continue;
            }
            let span = self.function.expressions.get_span(handle);
            // Constant forms (`vec3<f32>(0.0)`, say) are constants even when emitted.
            let value = match self.constant_of(handle)? {
                Some(c) => self.const_value(c),
                None => self.lower_expression(handle).map_err(|e| e.or_span(span))?,
            };
            self.values[handle.index()] = Some(value);
            if let Some(name) = self.function.named_expressions.get(&handle) {
                let def = self.m.out.functions[self.func].dfg.value_def(value);
                if let oxir_ir::ValueDef::Result(inst) = def {
                    let name = name.clone();
                    self.set_name(inst, &name);
                }
            }
        }
        Ok(())
    }
}
