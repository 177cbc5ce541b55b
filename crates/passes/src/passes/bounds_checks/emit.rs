//! Emitting a [`FunctionPlan`]: clamps and tests before each access, `select`s after
//! loads and dynamic extracts/inserts, and `cond_br` guards around stores, atomics and
//! runtime-sized loads.

use super::plan::{unsigned_of, AccessPlan, Form, FunctionPlan, OpPlan, ValuePlan};
use super::{BoundsChecksInfo, CheckClass, Policy};
use oxir_ir::constants::canonical_scalar_bits;
use oxir_ir::constants::ConstStore;
use oxir_ir::hash::HashMap;
use oxir_ir::types::TypeStore;
use oxir_ir::{
    BlockCall, ConstData, ConstKind, Func, Function, Inst, InstData, Module, Opcode, Payload,
    Scalar, ScalarKind, Type, Value,
};

mod texture;

struct Emitter<'a> {
    types: &'a mut TypeStore,
    consts: &'a mut ConstStore,
    func: &'a mut Function,
}

/// Applies `plan` to `func`, counting the checks it emits into `info`.
pub(super) fn apply(
    module: &mut Module,
    func: Func,
    plan: &FunctionPlan,
    info: &mut BoundsChecksInfo,
) {
    let Module {
        types,
        consts,
        functions,
        ..
    } = module;
    let Some(function) = functions.get_mut(func) else {
        return;
    };
    let mut e = Emitter {
        types,
        consts,
        func: function,
    };
    let mut tests: HashMap<Inst, Vec<Value>> = HashMap::default();
    for access in &plan.accesses {
        let t = e.access(access, info);
        tests.insert(access.inst, t);
    }
    for value in &plan.values {
        e.value(value, info);
    }
    for texture in &plan.textures {
        e.texture(texture, info);
    }
    for op in &plan.ops {
        e.op(op, &tests, info);
    }
}

impl Emitter<'_> {
    fn make(&mut self, op: Opcode, args: &[Value], ty: Type) -> (Inst, Value) {
        let inst = self.func.dfg.make_inst(InstData::new(op, args));
        let v = self.func.dfg.make_result(inst, ty);
        (inst, v)
    }

    fn before(&mut self, at: Inst, op: Opcode, args: &[Value], ty: Type) -> Value {
        let (inst, v) = self.make(op, args, ty);
        self.func.layout.insert_inst_before(inst, at);
        v
    }

    fn constant(&mut self, s: Scalar, bits: u64) -> Value {
        let ty = self.types.scalar(s);
        let c = self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Scalar(canonical_scalar_bits(s, bits)),
        });
        self.func.dfg.const_value(c, ty)
    }

    /// The zero of `ty`: `0` for a scalar (so it shares the constant), else `zero`.
    fn zero(&mut self, ty: Type) -> Value {
        if let Some(s) = self.types.get(ty).as_scalar() {
            return self.constant(s, 0);
        }
        let c = self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Zero,
        });
        self.func.dfg.const_value(c, ty)
    }

    fn scalar_of(&self, v: Value) -> Option<Scalar> {
        self.types.get(self.func.dfg.value_type(v)).as_scalar()
    }

    /// `idx` as an unsigned integer of its width (a `bitcast` when signed).
    fn unsigned(&mut self, at: Inst, idx: Value) -> Option<(Value, Scalar)> {
        let s = self.scalar_of(idx)?;
        let us = unsigned_of(s)?;
        if s.kind == ScalarKind::Uint {
            return Some((idx, us));
        }
        let ty = self.types.scalar(us);
        Some((self.before(at, Opcode::Bitcast, &[idx], ty), us))
    }

    /// `v` (unsigned, of scalar `from`) converted to the unsigned scalar `to`.
    fn widen(&mut self, at: Inst, v: Value, from: Scalar, to: Scalar) -> Value {
        if from == to {
            return v;
        }
        let ty = self.types.scalar(to);
        self.before(at, Opcode::Convert, &[v], ty)
    }

    /// The index and `array_length(base)` in one unsigned type (at least 32 bits).
    fn index_and_length(
        &mut self,
        at: Inst,
        idx: Value,
        base: Value,
    ) -> Option<(Value, Value, Scalar)> {
        let (iu, us) = self.unsigned(at, idx)?;
        let u32_ty = self.types.u32();
        let len = self.before(at, Opcode::ArrayLength, &[base], u32_ty);
        let wide = Scalar {
            kind: ScalarKind::Uint,
            bits: us.bits.max(32),
        };
        let iu = self.widen(at, iu, us, wide);
        let len = self.widen(at, len, Scalar::U32, wide);
        Some((iu, len, wide))
    }

    fn set_arg(&mut self, inst: Inst, pos: usize, v: Value) {
        if let Some(slot) = self.func.dfg.inst_mut(inst).args.get_mut(pos) {
            *slot = v;
        }
    }

    fn arg(&self, inst: Inst, pos: usize) -> Option<Value> {
        self.func.dfg.inst(inst).args.get(pos).copied()
    }

    /// Clamps `inst`'s operand `pos` to `n - 1`; returns the test `iu < n` when `test`.
    fn clamp_fixed(&mut self, inst: Inst, pos: usize, n: u64, test: bool) -> Option<Value> {
        let idx = self.arg(inst, pos)?;
        let (iu, us) = self.unsigned(inst, idx)?;
        let ty = self.types.scalar(us);
        let ok = if test {
            let bool_ty = self.types.bool();
            let bound = self.constant(us, n);
            Some(self.before(inst, Opcode::Lt, &[iu, bound], bool_ty))
        } else {
            None
        };
        let last = self.constant(us, n.saturating_sub(1));
        let clamped = self.before(inst, Opcode::Min, &[iu, last], ty);
        self.set_arg(inst, pos, clamped);
        ok
    }

    /// The access's clamps; returns its read-zero tests.
    fn access(&mut self, a: &AccessPlan, info: &mut BoundsChecksInfo) -> Vec<Value> {
        let test = a.policy == Policy::ReadZeroSkipWrite;
        let mut tests = Vec::new();
        for &(pos, n) in &a.fixed {
            tests.extend(self.clamp_fixed(a.inst, pos, n, test));
            info.count_check(a.class);
        }
        if let Some(pos) = a.runtime_clamp {
            if let (Some(idx), Some(base)) = (self.arg(a.inst, pos), self.arg(a.inst, 0)) {
                if let Some((iu, len, wide)) = self.index_and_length(a.inst, idx, base) {
                    let ty = self.types.scalar(wide);
                    let one = self.constant(wide, 1);
                    let last = self.before(a.inst, Opcode::Sub, &[len, one], ty);
                    let clamped = self.before(a.inst, Opcode::Min, &[iu, last], ty);
                    self.set_arg(a.inst, pos, clamped);
                    info.count_check(a.class);
                }
            }
        }
        tests
    }

    fn value(&mut self, v: &ValuePlan, info: &mut BoundsChecksInfo) {
        let test = v.policy == Policy::ReadZeroSkipWrite;
        let ok = self.clamp_fixed(v.inst, v.index_pos, v.len, test);
        info.count_check(CheckClass::Values);
        let Some(ok) = ok else { return };
        let Some(result) = self.func.dfg.inst_result(v.inst) else {
            return;
        };
        let ty = self.func.dfg.value_type(result);
        let otherwise = match self.func.dfg.inst(v.inst).opcode {
            Opcode::InsertDynamic => match self.arg(v.inst, 0) {
                Some(original) => original,
                None => return,
            },
            // wildcard-ok: only extract_dynamic and insert_dynamic are planned
            _ => self.zero(ty),
        };
        self.select_after(v.inst, ok, otherwise);
        info.select_guard_count += 1;
    }

    /// Replaces the result `r` of `inst` by `select ok, r, otherwise` placed after it.
    fn select_after(&mut self, inst: Inst, ok: Value, otherwise: Value) {
        let Some(result) = self.func.dfg.inst_result(inst) else {
            return;
        };
        let ty = self.func.dfg.value_type(result);
        let (sel, sel_value) = self.make(Opcode::Select, &[ok, result, otherwise], ty);
        self.func.layout.insert_inst_after(sel, inst);
        self.func.dfg.replace_all_uses(result, sel_value);
        // `inst` got a fresh result; the select reads it.
        if let Some(fresh) = self.func.dfg.inst_result(inst) {
            self.set_arg(sel, 1, fresh);
        }
    }

    fn op(&mut self, op: &OpPlan, tests: &HashMap<Inst, Vec<Value>>, info: &mut BoundsChecksInfo) {
        if op.form == Form::ClampOnly {
            return;
        }
        let mut conds: Vec<Value> = op
            .chain
            .iter()
            .filter_map(|a| tests.get(a))
            .flatten()
            .copied()
            .collect();
        for &(access, pos) in &op.runtime {
            let (Some(idx), Some(base)) = (self.arg(access, pos), self.arg(access, 0)) else {
                continue;
            };
            if let Some((iu, len, _)) = self.index_and_length(op.inst, idx, base) {
                let bool_ty = self.types.bool();
                conds.push(self.before(op.inst, Opcode::Lt, &[iu, len], bool_ty));
                if let Some(class) = self.class_of_access(access) {
                    info.count_check(class);
                }
            }
        }
        let Some(ok) = self.all(op.inst, &conds) else {
            return;
        };
        self.guard(op.inst, op.form, ok, info);
    }

    /// Guards `inst` by `ok` in `form`: its result becomes `select ok, result, zero`, or
    /// it runs under `cond_br ok`.
    fn guard(&mut self, inst: Inst, form: Form, ok: Value, info: &mut BoundsChecksInfo) {
        match form {
            Form::Select => {
                if let Some(r) = self.func.dfg.inst_result(inst) {
                    let zero = self.zero(self.func.dfg.value_type(r));
                    self.select_after(inst, ok, zero);
                    info.select_guard_count += 1;
                }
            }
            Form::Branch => {
                self.branch_around(inst, ok);
                info.branch_guard_count += 1;
            }
            Form::ClampOnly => {}
        }
    }

    fn class_of_access(&self, access: Inst) -> Option<CheckClass> {
        let base = self.arg(access, 0)?;
        match self.types.get(self.func.dfg.value_type(base)) {
            oxir_ir::TypeData::Pointer { space, .. } => Some(super::plan::class_of(*space)),
            // wildcard-ok: an access base is a pointer
            _ => None,
        }
    }

    /// `and` of `conds`, placed before `at`; `None` when there are none.
    fn all(&mut self, at: Inst, conds: &[Value]) -> Option<Value> {
        let (&first, rest) = conds.split_first()?;
        let bool_ty = self.types.bool();
        Some(rest.iter().fold(first, |acc, &c| {
            self.before(at, Opcode::And, &[acc, c], bool_ty)
        }))
    }

    /// Moves `inst` into a new block entered when `ok` holds; the rest of its block moves
    /// to a continuation that receives `inst`'s result (zero when skipped).
    fn branch_around(&mut self, inst: Inst, ok: Value) {
        let (Some(block), Some(next)) = (
            self.func.layout.inst_block(inst),
            self.func.layout.next_inst(inst),
        ) else {
            return;
        };
        let guarded = self.func.dfg.make_block();
        let cont = self.func.dfg.make_block();
        self.func.layout.insert_block_after(guarded, block);
        self.func.layout.insert_block_after(cont, guarded);
        self.func.layout.split_block_at(next, cont);
        self.func.layout.remove_inst(inst);
        self.func.layout.append_inst(inst, guarded);
        let (taken, skipped) = match self.func.dfg.inst_result(inst) {
            Some(r) => {
                let ty = self.func.dfg.value_type(r);
                let param = self.func.dfg.append_block_param(cont, ty);
                self.func.dfg.replace_all_uses(r, param);
                let fresh = self.func.dfg.inst_result(inst).unwrap_or(r);
                let zero = self.zero(ty);
                (
                    BlockCall::with_args(cont, &[fresh]),
                    BlockCall::with_args(cont, &[zero]),
                )
            }
            None => (BlockCall::new(cont), BlockCall::new(cont)),
        };
        let br = self.func.dfg.make_inst(InstData::with_payload(
            Opcode::Br,
            &[],
            Payload::Jump(taken),
        ));
        self.func.layout.append_inst(br, guarded);
        let cond_br = self.func.dfg.make_inst(InstData::with_payload(
            Opcode::CondBr,
            &[ok],
            Payload::CondBranch {
                then_dest: BlockCall::new(guarded),
                else_dest: skipped,
            },
        ));
        self.func.layout.append_inst(cond_br, block);
    }
}
