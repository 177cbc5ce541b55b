//! `spirv-uniform-words`: a uniform buffer whose layout Vulkan's extended alignment rules
//! cannot describe is read as 32-bit words.
//!
//! WGSL lays uniform buffers out as storage buffers, so `mat2x2<f32>` has columns 8 bytes
//! apart; a Vulkan uniform block needs 16 (see [`crate::uniform_layout`]) unless the device
//! has `uniformBufferStandardLayout`. Where such a buffer is only read through `access`
//! chains ending in `load`s, this pass (run by every SPIR-V pipeline right after
//! `normalize`) gives the buffer the type
//!
//! ```text
//! struct %NAME_words { words: array<vec4<u32>, size / 16>, tail: vecR<u32> }
//! ```
//!
//! (`tail` holds the last `size % 16` bytes; either member is left out when empty), which
//! every layout rule places identically and extended alignment admits, of exactly the
//! buffer's size. Each `load` becomes loads of the words its value occupies, at the byte
//! offsets the layout engine gives the original type (constant offsets folded here,
//! dynamic array, matrix and vector indices as `index * stride`), each word `bitcast` to
//! its scalar (an `f16` is a lane of the word `bitcast` to `vec2<f16>`) and the value
//! rebuilt with `construct`. The result does not depend on the
//! target environment or on a device feature.
//!
//! What it leaves alone, for the preflight to refuse below Vulkan 1.2: buffers whose
//! address escapes (passed to a call, a block argument, anything but `access` and `load`),
//! buffers holding a scalar that is neither 32 bits wide nor `f16`, loads of more than
//! [`MAX_WORDS_PER_LOAD`] words, and dynamic indices that could reach the tail.
//!
//! Invariants: the pass changes a buffer all at once or not at all (every function is
//! checked before any is rewritten); word indices are in range whenever the original
//! indices were (the array part's largest reachable word is checked statically); the
//! buffer's size and binding are unchanged.

use crate::uniform_layout::extended_alignment_violation;
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::dfg::ValueDef;
use oxir_ir::types::{AddressSpace, Scalar, ScalarKind, StructMember, StructType, TypeData};
use oxir_ir::{Func, Global, Inst, Module, Opcode, Type, Value};
use oxir_passes::pass_info;

/// A load of a value bigger than this many words keeps the buffer's type (and the
/// preflight's refusal): the rebuilt value would be that many loads.
pub const MAX_WORDS_PER_LOAD: u64 = 4096;

/// Access chains longer than this are not followed (the verifier bounds type nesting, so a
/// real chain is much shorter).
const MAX_CHAIN: usize = 256;

pass_info! {
    pass: "spirv-uniform-words",
    /// What `spirv-uniform-words` did.
    pub struct UniformWordsInfo {
        /// Uniform buffers now read as words.
        rewritten_buffer_count,
        /// Loads rebuilt from words.
        rewritten_load_count,
    }
    changed_by: [rewritten_buffer_count]
}

/// Runs the pass on every uniform buffer of `module`.
pub fn run_on_module(module: &mut Module) -> UniformWordsInfo {
    let mut info = UniformWordsInfo::default();
    let rules = module.layout_rules(AddressSpace::Uniform);
    let globals: Vec<Global> = module.globals.keys().collect();
    for global in globals {
        let Some(size) = needs_words(module, global, rules) else {
            continue;
        };
        intern_parts(module, module.globals[global].ty, 0);
        let Some(plan) = plan_buffer(module, global, rules, size) else {
            continue;
        };
        info.rewritten_load_count += plan.loads.len() as u64;
        rewrite_buffer(module, global, size, plan);
        info.rewritten_buffer_count += 1;
    }
    info
}

/// The buffer's size when it is a uniform buffer breaking extended alignment, of a size
/// that is a whole number of words.
fn needs_words(module: &Module, global: Global, rules: LayoutRules) -> Option<u32> {
    let g = &module.globals[global];
    if g.space != AddressSpace::Uniform {
        return None;
    }
    extended_alignment_violation(&module.types, g.ty, rules).ok()??;
    let size = layout_of(&module.types, g.ty, rules).ok()?.size;
    (size > 0 && size % 4 == 0).then_some(size)
}

/// One index step of an access chain, as a byte offset.
#[derive(Clone, Copy)]
enum Step {
    Constant(u64),
    /// `index * stride`, where the index selects one of `count` parts.
    Dynamic {
        index: Value,
        stride: u32,
        count: u64,
    },
}

/// A load to rebuild: where it is, the byte offset of what it reads, and the type read.
struct LoadPlan {
    func: Func,
    load: Inst,
    steps: Vec<Step>,
    ty: Type,
}

struct BufferPlan {
    loads: Vec<LoadPlan>,
    /// Every `access` rooted at the buffer, removed once the loads are rebuilt.
    accesses: Vec<(Func, Inst)>,
}

/// Checks every use of the buffer in every function; `None` when one cannot be rewritten.
fn plan_buffer(
    module: &Module,
    global: Global,
    rules: LayoutRules,
    size: u32,
) -> Option<BufferPlan> {
    let mut plan = BufferPlan {
        loads: Vec::new(),
        accesses: Vec::new(),
    };
    let array_bytes = u64::from(size / 16 * 16);
    for (func, f) in module.functions.iter() {
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                let data = f.dfg.inst(inst);
                let rooted: Vec<usize> = data
                    .all_values()
                    .enumerate()
                    .filter(|(_, v)| chain(module, func, *v).is_some_and(|(g, _)| g == global))
                    .map(|(i, _)| i)
                    .collect();
                if rooted.is_empty() {
                    continue;
                }
                // Only the pointer operand of an access or a load may be the buffer's.
                if rooted != [0] {
                    return None;
                }
                match data.opcode {
                    Opcode::Access => plan.accesses.push((func, inst)),
                    Opcode::Load => {
                        let load = plan_load(module, func, inst, rules)?;
                        if !fits(module, &load, rules, array_bytes, size)? {
                            return None;
                        }
                        plan.loads.push(load);
                    }
                    // wildcard-ok: every other use of the buffer's address escapes
                    _ => return None,
                }
            }
        }
    }
    Some(plan)
}

/// The global a pointer value is derived from by `access` alone, with the chain's
/// instructions from the global outwards.
fn chain(module: &Module, func: Func, v: Value) -> Option<(Global, Vec<Inst>)> {
    let f = &module.functions[func];
    let mut insts = Vec::new();
    let mut v = f.resolve(v);
    for _ in 0..MAX_CHAIN {
        match f.dfg.value_def(v) {
            ValueDef::Global(g) => {
                insts.reverse();
                return Some((g, insts));
            }
            ValueDef::Result(inst) if f.dfg.inst(inst).opcode == Opcode::Access => {
                insts.push(inst);
                v = f.resolve(*f.dfg.inst(inst).args.first()?);
            }
            ValueDef::Result(_)
            | ValueDef::Param(..)
            | ValueDef::Const(_)
            | ValueDef::Alias(_)
            | ValueDef::Detached => return None,
        }
    }
    None
}

/// The byte-offset steps of the chain a load reads through, with the loaded type.
fn plan_load(module: &Module, func: Func, load: Inst, rules: LayoutRules) -> Option<LoadPlan> {
    let f = &module.functions[func];
    let (global, accesses) = chain(module, func, *f.dfg.inst(load).args.first()?)?;
    let mut ty = module.globals[global].ty;
    let mut steps = Vec::new();
    for access in accesses {
        for &index in f.dfg.inst(access).args.iter().skip(1) {
            let (step, next) = index_step(module, func, ty, index, rules)?;
            steps.push(step);
            ty = next;
        }
    }
    Some(LoadPlan {
        func,
        load,
        steps,
        ty,
    })
}

/// The offset one index adds inside `ty`, and the type it selects.
fn index_step(
    module: &Module,
    func: Func,
    ty: Type,
    index: Value,
    rules: LayoutRules,
) -> Option<(Step, Type)> {
    let types = &module.types;
    let f = &module.functions[func];
    let constant = match f.dfg.value_def(index) {
        ValueDef::Const(c) => Some(module.const_scalar_value(c)?.1),
        ValueDef::Result(_)
        | ValueDef::Param(..)
        | ValueDef::Global(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => None,
    };
    let layout = layout_of(types, ty, rules).ok()?;
    let (stride, count, next) = match types.get(ty) {
        TypeData::Struct(st) => {
            let k = usize::try_from(constant?).ok()?;
            let member = st.members.get(k)?;
            return Some((
                Step::Constant(u64::from(*layout.offsets.get(k)?)),
                member.ty,
            ));
        }
        TypeData::Array { elem, len, .. } => (layout.stride?, u64::from(*len), *elem),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let column = types.lookup(&TypeData::Vector {
                elem: *elem,
                len: *rows,
            })?;
            (layout.stride?, u64::from(*columns), column)
        }
        TypeData::Vector { elem, len } => (
            elem.bytes(),
            u64::from(*len),
            types.lookup(&TypeData::Scalar(*elem))?,
        ),
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => return None,
    };
    let step = match constant {
        Some(k) if k < count => Step::Constant(k * u64::from(stride)),
        // A constant index out of range: left to the preflight.
        Some(_) => return None,
        None => Step::Dynamic {
            index,
            stride,
            count,
        },
    };
    Some((step, next))
}

/// Whether a load's words are all 32-bit scalars, not too many, and (with a dynamic index)
/// certainly inside the array part of the words.
fn fits(
    module: &Module,
    load: &LoadPlan,
    rules: LayoutRules,
    array_bytes: u64,
    size: u32,
) -> Option<bool> {
    let words = word_count(module, load.ty, 0)?;
    let loaded = u64::from(layout_of(&module.types, load.ty, rules).ok()?.size);
    if words > MAX_WORDS_PER_LOAD {
        return Some(false);
    }
    let mut last = loaded;
    let mut dynamic = false;
    for step in &load.steps {
        last += match *step {
            Step::Constant(bytes) => bytes,
            Step::Dynamic { stride, count, .. } => {
                dynamic = true;
                count.checked_sub(1)? * u64::from(stride)
            }
        };
    }
    let limit = if dynamic {
        array_bytes
    } else {
        u64::from(size)
    };
    Some(last <= limit)
}

/// The number of words a value of `ty` is read as; `None` for anything else than 32-bit
/// scalars, `f16` and composites of them.
fn word_count(module: &Module, ty: Type, depth: u32) -> Option<u64> {
    if depth > oxir_ir::types::MAX_TYPE_NESTING {
        return None;
    }
    // An `f16` is half a word; counted as one (the count only bounds the work).
    let word = |s: &Scalar| {
        let fits = (s.bits == 32 && s.kind != ScalarKind::Bool) || *s == Scalar::F16;
        fits.then_some(1u64)
    };
    match module.types.get(ty) {
        TypeData::Scalar(s) => word(s),
        TypeData::Vector { elem, len } => Some(word(elem)? * u64::from(*len)),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => Some(word(elem)? * u64::from(*columns) * u64::from(*rows)),
        TypeData::Array { elem, len, .. } => {
            word_count(module, *elem, depth + 1)?.checked_mul(u64::from(*len))
        }
        TypeData::Struct(st) => st.members.iter().try_fold(0u64, |sum, m| {
            sum.checked_add(word_count(module, m.ty, depth + 1)?)
        }),
        TypeData::Void
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => None,
    }
}

/// Interns the column type of every matrix and the lane type of every vector inside `ty`,
/// so that planning (which borrows the module immutably) finds them.
fn intern_parts(module: &mut Module, ty: Type, depth: u32) {
    if depth > oxir_ir::types::MAX_TYPE_NESTING {
        return;
    }
    match module.types.get(ty).clone() {
        TypeData::Matrix { elem, rows, .. } => {
            module.types.vector(elem, rows);
            module.types.scalar(elem);
        }
        TypeData::Vector { elem, .. } => {
            module.types.scalar(elem);
        }
        TypeData::Array { elem, .. } => intern_parts(module, elem, depth + 1),
        TypeData::Struct(st) => {
            for member in st.members {
                intern_parts(module, member.ty, depth + 1);
            }
        }
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => {}
    }
}

#[path = "uniform_words_rewrite.rs"]
mod rewrite;
use rewrite::rewrite_buffer;

/// The words type of a buffer of `size` bytes (a multiple of 4), named after the buffer.
fn words_type(module: &mut Module, name: &str, size: u32) -> Type {
    let types = &mut module.types;
    let u32_ty = types.u32();
    let mut members = Vec::new();
    let full = size / 16;
    if full > 0 {
        let vec4 = types.vector(Scalar::U32, 4);
        members.push(StructMember {
            name: "words".into(),
            ty: types.array(vec4, full),
            offset: None,
        });
    }
    let tail = (size % 16) / 4;
    if tail > 0 {
        let ty = if tail == 1 {
            u32_ty
        } else {
            types.vector(Scalar::U32, tail as u8)
        };
        members.push(StructMember {
            name: "tail".into(),
            ty,
            offset: None,
        });
    }
    // `declare_struct` renames it when the name is taken.
    types.declare_struct(StructType {
        name: format!("{name}_words"),
        members,
        align: None,
    })
}
