//! The SPIR-V writer (see the crate docs for the plan). Every error here is a preflight gap:
//! the preflight should have refused the module first.
//!
//! - [`types`]: types with layout decorations, constants, global variables.
//! - [`interface`]: entry-point interfaces (built-in and location variables).
//! - [`images`]: image and sampler types, sampling, fetches, stores and queries.
//! - [`functions`]: functions, structured control flow, block parameters as `OpPhi`.
//! - [`instructions`]: the per-instruction dispatch and conversions; [`arith`], [`math`]
//!   and [`memory`] write the ops of their concern.
//!
//! Invariants: ids come from one `rspirv` builder in a fixed order (module order of
//! globals and functions, layout order of blocks and instructions), so the same input
//! gives the same bytes; capabilities are collected while writing and declared at the end,
//! so exactly the used ones appear.

mod arith;
mod functions;
mod images;
mod instructions;
mod interface;
mod math;
mod memory;
mod types;

use instructions::Operands;
pub(crate) use interface::{input_builtin, output_builtin, register_builtin};
pub(crate) use memory::array_length_base;

use crate::{opcode_support, Options, Support, TargetEnv};
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::function::FunctionKind;
use oxir_ir::types::{AddressSpace, Scalar, ScalarKind, TypeData};
use oxir_ir::{
    Block, Builtin, Const, ConstKind, Function, Global, Inst, Module, Opcode, Payload, Type, Value,
    ValueDef,
};
use rspirv::dr::{Builder, InsertPoint, Instruction, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, GLOp, Op, StorageClass, Word};
use std::collections::{BTreeSet, HashMap};

type R<T> = Result<T, String>;

/// Layout variant of a type: buffers need explicit offsets and strides, other memory none.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Lay {
    None,
    Std430,
    Std140,
}

impl Lay {
    fn rules(self) -> Option<LayoutRules> {
        match self {
            Lay::None => None,
            Lay::Std430 => Some(LayoutRules::Std430),
            Lay::Std140 => Some(LayoutRules::Std140),
        }
    }
}

fn space_lay(space: AddressSpace) -> Lay {
    match space {
        AddressSpace::Storage(_) | AddressSpace::PushConstant => Lay::Std430,
        AddressSpace::Uniform => Lay::Std140,
        _ => Lay::None,
    }
}

fn storage_class(space: AddressSpace) -> StorageClass {
    match space {
        AddressSpace::Function => StorageClass::Function,
        AddressSpace::Private => StorageClass::Private,
        AddressSpace::Workgroup => StorageClass::Workgroup,
        AddressSpace::Storage(_) => StorageClass::StorageBuffer,
        AddressSpace::Uniform => StorageClass::Uniform,
        AddressSpace::PushConstant => StorageClass::PushConstant,
        AddressSpace::Handle => StorageClass::UniformConstant,
    }
}

/// How a global became a SPIR-V variable.
#[derive(Copy, Clone)]
struct GlobalVar {
    id: Word,
    /// A buffer whose type is not a struct: wrapped in a `Block` struct of one member.
    wrapped: bool,
    /// The variable's struct type when it is a buffer's own (fresh) `Block` struct: loads
    /// and stores of the whole global use it.
    block_ty: Option<Word>,
}

struct Writer<'a> {
    m: &'a Module,
    options: &'a Options,
    b: Builder,
    caps: BTreeSet<u32>,
    exts: BTreeSet<&'static str>,
    types: HashMap<(Type, Lay), Word>,
    consts: HashMap<Const, Word>,
    u32_consts: HashMap<u32, Word>,
    globals: HashMap<Global, GlobalVar>,
    /// Built-in input variables by (built-in, type, read by a fragment entry point).
    builtins: HashMap<(BuiltIn, Type, bool), Word>,
    /// The entry point being written is a fragment shader.
    fragment: bool,
    glsl: Option<Word>,
    // Per function:
    values: HashMap<Value, Word>,
    labels: HashMap<Block, Word>,
    exit_labels: HashMap<Block, Word>,
    interface: Vec<Word>,
    cont_values: HashMap<Block, Vec<Word>>,
    temps: HashMap<Inst, Word>,
    /// The output variables of the entry point being written, one per result.
    outputs: Vec<interface::OutputVar>,
}

impl<'a> Writer<'a> {
    fn cap(&mut self, c: Capability) {
        self.caps.insert(c as u32);
    }

    fn extension(&mut self, name: &'static str) {
        self.exts.insert(name);
    }

    fn tdata(&self, ty: Type) -> &'a TypeData {
        self.m.types.get(ty)
    }

    fn scalar_of(&self, ty: Type) -> R<Scalar> {
        self.tdata(ty)
            .scalar_or_vector_elem()
            .map(|p| p.0)
            .or(match self.tdata(ty) {
                TypeData::Matrix { elem, .. } => Some(*elem),
                _ => None,
            })
            .ok_or_else(|| {
                format!(
                    "expected a scalar or vector, got {}",
                    self.m.types.display(ty)
                )
            })
    }

    fn lanes(&self, ty: Type) -> u8 {
        match self.tdata(ty) {
            TypeData::Vector { len, .. } => *len,
            _ => 1,
        }
    }

    /// Emits one instruction into the current block.
    fn op(
        &mut self,
        opcode: Op,
        ty: Option<Word>,
        result: Option<Word>,
        operands: Vec<Operand>,
    ) -> R<Word> {
        let id = match ty {
            Some(_) => Some(result.unwrap_or_else(|| self.b.id())),
            None => None,
        };
        let inst = Instruction::new(opcode, ty, id, operands);
        self.b
            .insert_into_block(InsertPoint::End, inst)
            .map_err(|e| e.to_string())?;
        if matches!(
            opcode,
            Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::Unreachable
                | Op::Kill
                | Op::TerminateInvocation
        ) {
            self.b.select_block(None).map_err(|e| e.to_string())?;
        }
        Ok(id.unwrap_or(0))
    }

    fn ext(&mut self, ty: Word, result: Option<Word>, inst: GLOp, args: &[Word]) -> R<Word> {
        let set = match self.glsl {
            Some(s) => s,
            None => {
                let s = self.b.ext_inst_import("GLSL.std.450");
                self.glsl = Some(s);
                s
            }
        };
        self.b
            .ext_inst(
                ty,
                result,
                set,
                inst as u32,
                args.iter().map(|&a| Operand::IdRef(a)),
            )
            .map_err(|e| e.to_string())
    }

    fn ids(args: &[Word]) -> Vec<Operand> {
        args.iter().map(|&a| Operand::IdRef(a)).collect()
    }

    fn mark_global(&mut self, id: Word) {
        if self.options.target_env.spirv_version() >= (1, 4) && !self.interface.contains(&id) {
            self.interface.push(id);
        }
    }
}

/// IEEE half bits of `x` (round to nearest even; enough for the constants the writer makes).
fn half_bits(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = b & 0x7f_ffff;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    if exp >= 31 {
        return sign | 0x7c00;
    }
    if exp <= 0 {
        return sign;
    }
    let mut h = (sign as u32) | ((exp as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    h as u16
}

/// Writes a prepared, preflighted module.
pub(crate) fn write(module: &Module, options: &Options) -> R<Vec<u32>> {
    let mut w = Writer {
        m: module,
        options,
        b: Builder::new(),
        caps: BTreeSet::new(),
        exts: BTreeSet::new(),
        types: HashMap::new(),
        consts: HashMap::new(),
        u32_consts: HashMap::new(),
        globals: HashMap::new(),
        builtins: HashMap::new(),
        fragment: false,
        glsl: None,
        values: HashMap::new(),
        labels: HashMap::new(),
        exit_labels: HashMap::new(),
        interface: Vec::new(),
        cont_values: HashMap::new(),
        temps: HashMap::new(),
        outputs: Vec::new(),
    };
    let (major, minor) = options.target_env.spirv_version();
    w.b.set_version(major, minor);
    w.cap(Capability::Shader);
    w.b.memory_model(spirv::AddressingModel::Logical, spirv::MemoryModel::GLSL450);
    w.declare_globals()?;
    let uses_storage = module
        .globals
        .values()
        .any(|g| matches!(g.space, AddressSpace::Storage(_)));
    if uses_storage && options.target_env == TargetEnv::Vulkan1_0 {
        w.extension("SPV_KHR_storage_buffer_storage_class");
    }
    for func in module.functions.values() {
        w.write_function(func)?;
    }
    for c in w.caps.clone() {
        let cap: Capability = Capability::from_u32(c).ok_or("capability")?;
        w.b.capability(cap);
    }
    for e in w.exts.clone() {
        w.b.extension(e);
    }
    use rspirv::binary::Assemble;
    Ok(w.b.module().assemble())
}
