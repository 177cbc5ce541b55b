//! The rewrite half of `spirv-uniform-words`: rebuilds each planned load from words and
//! gives the buffer its words type. Runs only on a buffer whose every use was planned, so
//! nothing here can fail half-way: an offset the plan admitted is always expressible.

use super::{words_type, BufferPlan, LoadPlan, Step};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::types::{AddressSpace, Scalar, ScalarKind, TypeData};
use oxir_ir::{Func, Global, Inst, InstData, Module, Opcode, Payload, Type, Value};

/// Where a word starts: a constant byte offset plus an optional dynamic one (a `u32`).
#[derive(Clone, Copy)]
struct Offset {
    bytes: u64,
    dynamic: Option<Value>,
}

impl Offset {
    fn plus(self, bytes: u64) -> Offset {
        Offset {
            bytes: self.bytes + bytes,
            dynamic: self.dynamic,
        }
    }
}

/// The buffer being rewritten, in one function.
struct Words {
    func: Func,
    /// Where new instructions go (the load being replaced).
    before: Inst,
    /// The buffer's address in this function, typed as the words struct.
    base: Value,
    /// Vec4s in the `words` member (0: no such member).
    full: u32,
    /// Words in the `tail` member (0: none).
    tail: u32,
    rules: LayoutRules,
}

/// Rewrites every planned load, removes the buffer's `access` chains and changes its type.
pub(super) fn rewrite_buffer(module: &mut Module, global: Global, size: u32, plan: BufferPlan) {
    let rules = module.layout_rules(AddressSpace::Uniform);
    let name = module.globals[global].name.clone();
    let words_ty = words_type(module, &name, size);
    let ptr_ty = module.types.pointer(AddressSpace::Uniform, words_ty);
    // Each function's old address value keeps its old type but loses its last use.
    let mut bases: SecondaryMap<Func, PackedOption<Value>> = SecondaryMap::new();
    for func in plan
        .loads
        .iter()
        .map(|l| l.func)
        .chain(plan.accesses.iter().map(|a| a.0))
    {
        if bases[func].is_none() {
            let f = &mut module.functions[func];
            f.dfg.take_global_value(global);
            bases[func] = f.dfg.global_value(global, ptr_ty).into();
        }
    }
    for load in &plan.loads {
        let Some(base) = bases[load.func].expand() else {
            continue;
        };
        let words = Words {
            func: load.func,
            before: load.load,
            base,
            full: size / 16,
            tail: (size % 16) / 4,
            rules,
        };
        rebuild_load(module, &words, load);
    }
    // Outermost accesses last in the plan's order; removing from the layout only.
    for &(func, access) in plan.accesses.iter().rev() {
        module.functions[func].layout.remove_inst(access);
    }
    module.globals[global].ty = words_ty;
}

fn rebuild_load(module: &mut Module, words: &Words, load: &LoadPlan) {
    let mut offset = Offset {
        bytes: 0,
        dynamic: None,
    };
    for step in &load.steps {
        match *step {
            Step::Constant(bytes) => offset.bytes += bytes,
            Step::Dynamic { index, stride, .. } => {
                let term = scaled_index(module, words, index, stride);
                offset.dynamic = Some(match offset.dynamic {
                    None => term,
                    Some(sum) => binary(module, words, Opcode::Add, sum, term),
                });
            }
        }
    }
    let value = build(module, words, load.ty, offset);
    let f = &mut module.functions[load.func];
    if let Some(old) = f.dfg.inst_result(load.load) {
        f.dfg.replace_all_uses(old, value);
    }
    f.layout.remove_inst(load.load);
}

/// `index * stride` as a `u32` (an `i32` index is reinterpreted, other widths converted).
fn scaled_index(module: &mut Module, words: &Words, index: Value, stride: u32) -> Value {
    let index_ty = module.functions[words.func].dfg.value_type(index);
    let index = match module.types.get(index_ty) {
        TypeData::Scalar(s) if *s == Scalar::U32 => index,
        TypeData::Scalar(s) if *s == Scalar::I32 => unary(module, words, Opcode::Bitcast, index),
        // wildcard-ok: the verifier made every index an integer scalar
        _ => unary(module, words, Opcode::Convert, index),
    };
    let stride = constant(module, words.func, stride);
    binary(module, words, Opcode::Mul, index, stride)
}

/// The value of type `ty` stored at `offset`, from its words.
fn build(module: &mut Module, words: &Words, ty: Type, offset: Offset) -> Value {
    let data = module.types.get(ty).clone();
    let layout = layout_of(&module.types, ty, words.rules).ok();
    let stride = layout.as_ref().and_then(|l| l.stride).unwrap_or(0);
    let parts: Vec<Value> = match data {
        TypeData::Scalar(s) => return scalar(module, words, s, offset),
        TypeData::Vector { elem, len } => (0..u64::from(len))
            .map(|i| {
                scalar(
                    module,
                    words,
                    elem,
                    offset.plus(i * u64::from(elem.bytes())),
                )
            })
            .collect(),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let column = module.types.vector(elem, rows);
            (0..u64::from(columns))
                .map(|i| build(module, words, column, offset.plus(i * u64::from(stride))))
                .collect()
        }
        TypeData::Array { elem, len, .. } => (0..u64::from(len))
            .map(|i| build(module, words, elem, offset.plus(i * u64::from(stride))))
            .collect(),
        TypeData::Struct(st) => {
            let offsets = layout.map(|l| l.offsets).unwrap_or_default();
            st.members
                .iter()
                .zip(offsets)
                .map(|(m, at)| build(module, words, m.ty, offset.plus(u64::from(at))))
                .collect()
        }
        // The plan admitted 32-bit scalars and composites of them only.
        TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => Vec::new(),
    };
    emit(module, words, Opcode::Construct, &parts, ty)
}

/// One scalar: the word loaded, reinterpreted unless it is a `u32`; an `f16` is the
/// half of its word that its offset names (`bitcast` to `vec2<f16>`, then the lane).
fn scalar(module: &mut Module, words: &Words, s: Scalar, offset: Offset) -> Value {
    let at = byte_address(module, words, offset);
    let word = load_word(module, words, at);
    if s == Scalar::F16 {
        return half_of(module, words, word, at);
    }
    if s.kind == ScalarKind::Uint {
        return word;
    }
    let ty = module.types.scalar(s);
    emit(module, words, Opcode::Bitcast, &[word], ty)
}

/// A byte address: known, or computed (a `u32`).
#[derive(Clone, Copy)]
enum ByteAddress {
    Constant(u64),
    Dynamic(Value),
}

fn byte_address(module: &mut Module, words: &Words, offset: Offset) -> ByteAddress {
    match offset.dynamic {
        None => ByteAddress::Constant(offset.bytes),
        Some(dynamic) if offset.bytes == 0 => ByteAddress::Dynamic(dynamic),
        Some(dynamic) => {
            let c = constant(module, words.func, offset.bytes as u32);
            ByteAddress::Dynamic(binary(module, words, Opcode::Add, dynamic, c))
        }
    }
}

/// The `f16` in `word` at byte address `at` (the low half at a multiple of 4).
fn half_of(module: &mut Module, words: &Words, word: Value, at: ByteAddress) -> Value {
    let pair_ty = module.types.vector(Scalar::F16, 2);
    let half_ty = module.types.scalar(Scalar::F16);
    let pair = emit(module, words, Opcode::Bitcast, &[word], pair_ty);
    let (op, args, payload) = match at {
        ByteAddress::Constant(bytes) => (
            Opcode::Extract,
            vec![pair],
            Payload::Indices(vec![((bytes % 4) / 2) as u32].into()),
        ),
        ByteAddress::Dynamic(bytes) => {
            let one = constant(module, words.func, 1);
            let halves = binary(module, words, Opcode::Shr, bytes, one);
            let lane = binary(module, words, Opcode::And, halves, one);
            (Opcode::ExtractDynamic, vec![pair, lane], Payload::None)
        }
    };
    emit_with_payload(
        module,
        words,
        InstData::with_payload(op, &args, payload),
        half_ty,
    )
}

/// The `u32` word holding byte address `at`.
fn load_word(module: &mut Module, words: &Words, at: ByteAddress) -> Value {
    let indices = match at {
        ByteAddress::Constant(bytes) => constant_word(module, words, bytes / 4),
        ByteAddress::Dynamic(bytes) => {
            let two = constant(module, words.func, 2);
            let three = constant(module, words.func, 3);
            let word = binary(module, words, Opcode::Shr, bytes, two);
            let vec4 = binary(module, words, Opcode::Shr, word, two);
            let lane = binary(module, words, Opcode::And, word, three);
            let member = constant(module, words.func, 0);
            vec![member, vec4, lane]
        }
    };
    let u32_ty = module.types.u32();
    let ptr = module.types.pointer(AddressSpace::Uniform, u32_ty);
    let mut args = vec![words.base];
    args.extend(indices);
    let pointer = emit(module, words, Opcode::Access, &args, ptr);
    emit(module, words, Opcode::Load, &[pointer], u32_ty)
}

/// The constant indices of word `w`: in the `words` member, or in the `tail`.
fn constant_word(module: &mut Module, words: &Words, w: u64) -> Vec<Value> {
    let in_array = u64::from(words.full) * 4;
    if w < in_array {
        return vec![
            constant(module, words.func, 0),
            constant(module, words.func, (w / 4) as u32),
            constant(module, words.func, (w % 4) as u32),
        ];
    }
    let member = u32::from(words.full > 0);
    let mut indices = vec![constant(module, words.func, member)];
    if words.tail > 1 {
        indices.push(constant(module, words.func, (w - in_array) as u32));
    }
    indices
}

fn constant(module: &mut Module, func: Func, value: u32) -> Value {
    let c = module.const_u32(value);
    let ty = module.types.u32();
    module.functions[func].dfg.const_value(c, ty)
}

fn unary(module: &mut Module, words: &Words, op: Opcode, a: Value) -> Value {
    let ty = module.types.u32();
    emit(module, words, op, &[a], ty)
}

fn binary(module: &mut Module, words: &Words, op: Opcode, a: Value, b: Value) -> Value {
    let ty = module.types.u32();
    emit(module, words, op, &[a, b], ty)
}

/// An instruction with a result of type `ty`, placed before the load being replaced.
fn emit(module: &mut Module, words: &Words, op: Opcode, args: &[Value], ty: Type) -> Value {
    emit_with_payload(module, words, InstData::new(op, args), ty)
}

fn emit_with_payload(module: &mut Module, words: &Words, data: InstData, ty: Type) -> Value {
    let f = &mut module.functions[words.func];
    let inst = f.dfg.make_inst(data);
    let result = f.dfg.make_result(inst, ty);
    f.layout.insert_inst_before(inst, words.before);
    result
}
