//! The SPIR-V writer (see the crate docs for the plan). Every error here is a preflight gap
//! (the preflight should have refused the module first) or an `rspirv` builder error: a
//! [`Bug`], reported as [`Error::Internal`] at the function, block and instruction being
//! written ([`Writer::at`]).
//!
//! - [`lowering`]: the one exhaustive match over [`Opcode`], routing each op to its writer.
//! - [`types`]: types with layout decorations, constants, global variables.
//! - [`references`]: what the code names, so unreferenced globals and unused entry
//!   parameters are not declared.
//! - [`intern`]: every type and constant is declared once (which duplicates are
//!   legitimate, and why).
//! - [`interface`]: entry-point interfaces (built-in and location variables).
//! - [`images`]: image and sampler types, sampling, fetches, stores and queries.
//! - [`functions`]: functions, structured control flow, block parameters as `OpPhi`.
//! - [`instructions`]: the per-instruction dispatch and conversions; [`arith`], [`math`]
//!   and [`memory`] write the ops of their concern.
//!
//! Per-entity state is kept in `SecondaryMap`s keyed by the IR's dense entities. The maps
//! that stay `HashMap`s have keys that are not one entity: `decls` (a declaration's
//! opcode, operands and decorations), `builtins` (a SPIR-V built-in with a type and a
//! stage flag); both are only looked up, never iterated, so they cannot affect the output
//! order.
//!
//! Invariants: ids come from one `rspirv` builder in a fixed order (module order of
//! globals and functions, layout order of blocks and instructions), so the same input
//! gives the same bytes; capabilities are collected while writing and declared at the end,
//! so exactly the used ones appear.

mod arith;
mod functions;
pub(crate) mod images;
mod instructions;
mod interface;
mod intern;
mod lowering;
mod math;
mod memory;
mod references;
mod subgroup;
mod types;

use instructions::Operands;
pub(crate) use interface::{input_builtin, output_builtin, register_builtin};
use intern::Deco;
pub(crate) use lowering::{
    can_hold_loop_merge, lowering, ArithOp, BitOp, Lowering, MemoryOp, Register,
};
pub(crate) use memory::array_length_base;
pub(crate) use oxir_ir::TerminatorOp;

use crate::{Error, Location, Options, TargetEnv};
use cranelift_entity::SecondaryMap;
use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::function::FunctionKind;
use oxir_ir::hash::HashMap;
use oxir_ir::types::{AddressSpace, Scalar, ScalarKind, TypeData};
use oxir_ir::{
    Block, Builtin, Const, ConstKind, Func, Function, Global, Inst, Module, Opcode, Payload, Type,
    Value, ValueDef,
};
use rspirv::dr::{Builder, InsertPoint, Instruction, Operand};
use rspirv::spirv::{self, BuiltIn, Capability, Decoration, GLOp, Op, StorageClass, Word};
use std::collections::BTreeSet;

/// A writer failure: what went wrong. The writer adds where ([`Writer::at`]) when it
/// turns it into [`Error::Internal`].
#[derive(Debug)]
pub(crate) struct Bug(String);

impl From<String> for Bug {
    fn from(message: String) -> Self {
        Bug(message)
    }
}

impl From<&str> for Bug {
    fn from(message: &str) -> Self {
        Bug(message.to_string())
    }
}

impl From<rspirv::dr::Error> for Bug {
    fn from(e: rspirv::dr::Error) -> Self {
        Bug(format!("rspirv: {e}"))
    }
}

impl From<oxir_ir::data_layout::LayoutError> for Bug {
    fn from(e: oxir_ir::data_layout::LayoutError) -> Self {
        Bug(format!("layout: {e}"))
    }
}

type R<T> = Result<T, Bug>;

/// The SPIR-V ids of one oxir type, one per layout variant.
#[derive(Copy, Clone, Debug, Default)]
struct TypeIds {
    plain: Option<Word>,
    std430: Option<Word>,
    std140: Option<Word>,
}

impl TypeIds {
    fn slot(&mut self, lay: Lay) -> &mut Option<Word> {
        match lay {
            Lay::None => &mut self.plain,
            Lay::Std430 => &mut self.std430,
            Lay::Std140 => &mut self.std140,
        }
    }
}

/// Layout variant of a type: buffers need explicit offsets and strides, other memory none.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Lay {
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

/// The layout variant of memory in `space` of module `m`: buffers by the module's rules
/// ([`Module::layout_rules`]), other memory none.
pub(crate) fn space_lay(m: &Module, space: AddressSpace) -> Lay {
    let buffer = || match m.layout_rules(space) {
        LayoutRules::Std140 => Lay::Std140,
        // The verifier admits std140 and std430 only; std430 is what every other rule
        // set would have to be legalised to anyway.
        LayoutRules::Std430 | LayoutRules::Scalar | LayoutRules::Metal | LayoutRules::C => {
            Lay::Std430
        }
    };
    match space {
        AddressSpace::Storage(_) | AddressSpace::PushConstant | AddressSpace::Uniform => buffer(),
        AddressSpace::Function
        | AddressSpace::Private
        | AddressSpace::Workgroup
        | AddressSpace::Handle => Lay::None,
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
    caps: BTreeSet<Capability>,
    exts: BTreeSet<&'static str>,
    types: SecondaryMap<Type, TypeIds>,
    consts: SecondaryMap<Const, Option<Word>>,
    /// Every type, constant and module-level `OpUndef` declared so far (module `intern`).
    decls: HashMap<intern::DeclKey, Word>,
    globals: SecondaryMap<Global, Option<GlobalVar>>,
    /// Built-in input variables by (built-in, type, read by a fragment entry point).
    builtins: HashMap<(BuiltIn, Type, bool), Word>,
    /// The entry point being written is a fragment shader.
    fragment: bool,
    glsl: Option<Word>,
    /// What is being written, for [`Error::Internal`].
    at: Location,
    // Per function:
    values: SecondaryMap<Value, Option<Word>>,
    /// The label of every block in the layout.
    labels: SecondaryMap<Block, Option<Word>>,
    /// The label of the SPIR-V block that ends each oxir block (its phi predecessor).
    exit_labels: SecondaryMap<Block, Option<Word>>,
    interface: Vec<Word>,
    cont_values: SecondaryMap<Block, Vec<Word>>,
    temps: SecondaryMap<Inst, Option<Word>>,
    /// Float vector `splat`s every use of which is a float `mul` with another vector:
    /// not written; each `mul` is an `OpVectorTimesScalar` of the splat's scalar
    /// (`arith.rs`).
    folded_splats: SecondaryMap<Value, bool>,
    /// The output variables of the entry point being written, one per result.
    outputs: Vec<interface::OutputVar>,
    /// The function being written is a kept callable, not an entry point.
    in_callable: bool,
    /// The kernel being written has a specialisable workgroup size: its `BuiltIn
    /// WorkgroupSize` spec-constant composite, which `workgroup_size` reads.
    specialised_size: Option<Word>,
    /// `if` arms not written: the merge their `if` branches to instead (`functions.rs`).
    arm_redirect: SecondaryMap<Block, Option<Block>>,
    // Per module:
    /// The ids of the kept callables ([`crate::calls::CallPlan`]).
    func_ids: SecondaryMap<Func, Option<Word>>,
    /// The interface variables (SPIR-V 1.4+) each written callable names, with its callees'.
    callable_interfaces: SecondaryMap<Func, Vec<Word>>,
}

impl<'a> Writer<'a> {
    fn cap(&mut self, c: Capability) {
        self.caps.insert(c);
    }

    /// The label of `block` (every block in the layout has one, given before any is used).
    fn label(&self, block: Block) -> R<Word> {
        self.labels[block].ok_or_else(|| format!("{block} has no label").into())
    }

    /// The label of the SPIR-V block that ends `block`.
    fn exit_label(&self, block: Block) -> R<Word> {
        self.exit_labels[block].ok_or_else(|| format!("{block} has no exit label").into())
    }

    /// The variable of global `g` (every global is declared before functions are written).
    fn global(&self, g: Global) -> R<GlobalVar> {
        self.globals[g].ok_or_else(|| format!("{g} is used before it is declared").into())
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
                Bug::from(format!(
                    "expected a scalar or vector, got {}",
                    self.m.types.display(ty)
                ))
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
        let id = ty.map(|_| result.unwrap_or_else(|| self.b.id()));
        let inst = Instruction::new(opcode, ty, id, operands);
        self.b.insert_into_block(InsertPoint::End, inst)?;
        if matches!(
            opcode,
            Op::Branch
                | Op::BranchConditional
                | Op::Switch
                | Op::Return
                | Op::ReturnValue
                | Op::Unreachable
                | Op::Kill
                | Op::TerminateInvocation
        ) {
            self.b.select_block(None)?;
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
        Ok(self.b.ext_inst(
            ty,
            result,
            set,
            inst as u32,
            args.iter().map(|&a| Operand::IdRef(a)),
        )?)
    }

    fn ids(args: &[Word]) -> Vec<Operand> {
        args.iter().map(|&a| Operand::IdRef(a)).collect()
    }

    /// An `OpName` for `id`, when debug names are asked for.
    fn debug_name(&mut self, id: Word, name: &str) {
        if self.options.debug_names {
            self.b.name(id, name);
        }
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

/// Writes a prepared, preflighted module; a failure is an [`Error::Internal`] at what was
/// being written.
pub(crate) fn write(module: &Module, options: &Options) -> Result<Vec<u32>, Error> {
    let mut w = Writer {
        m: module,
        options,
        b: Builder::new(),
        caps: BTreeSet::new(),
        exts: BTreeSet::new(),
        types: SecondaryMap::new(),
        consts: SecondaryMap::new(),
        decls: HashMap::default(),
        globals: SecondaryMap::new(),
        builtins: HashMap::default(),
        fragment: false,
        glsl: None,
        at: Location::default(),
        values: SecondaryMap::new(),
        labels: SecondaryMap::new(),
        exit_labels: SecondaryMap::new(),
        interface: Vec::new(),
        cont_values: SecondaryMap::new(),
        temps: SecondaryMap::new(),
        folded_splats: SecondaryMap::new(),
        outputs: Vec::new(),
        in_callable: false,
        specialised_size: None,
        arm_redirect: SecondaryMap::new(),
        func_ids: SecondaryMap::new(),
        callable_interfaces: SecondaryMap::new(),
    };
    match w.write_module() {
        Ok(words) => Ok(words),
        Err(Bug(message)) => Err(Error::Internal {
            location: w.at,
            message,
        }),
    }
}

impl Writer<'_> {
    fn write_module(&mut self) -> R<Vec<u32>> {
        let (module, options) = (self.m, self.options);
        let w = self;
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
        // Kept callables first, callees before callers, so each caller's interface can
        // take its callees'; then the entry points in module order.
        let plan = crate::calls::CallPlan::new(module);
        for &func in &plan.order {
            w.func_ids[func] = Some(w.b.id());
        }
        let entries = module
            .functions
            .iter()
            .filter(|(_, f)| crate::calls::stage_name(&f.kind).is_some())
            .map(|(func, _)| func);
        let order: Vec<oxir_ir::Func> = plan.order.iter().copied().chain(entries).collect();
        for func in order {
            let f = &module.functions[func];
            w.at = Location {
                function: Some(f.name.clone()),
                ..Location::default()
            };
            w.write_function(func, f)?;
        }
        w.at = Location::default();
        for cap in w.caps.clone() {
            w.b.capability(cap);
        }
        for e in w.exts.clone() {
            w.b.extension(e);
        }
        use rspirv::binary::Assemble;
        // `module()` consumes the builder and sets the header's id bound.
        let builder = std::mem::replace(&mut w.b, Builder::new());
        Ok(builder.module().assemble())
    }
}
