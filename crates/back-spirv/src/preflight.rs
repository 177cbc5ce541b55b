//! The preflight: everything the writer cannot express is refused here, before anything is
//! emitted. [`opcode_support`] comes from the writer's exhaustive lowering of every
//! [`Opcode`] (a new op breaks the build until it is given a lowering or refused); the
//! per-instruction checks refine it by type, stage and target environment, in one
//! exhaustive match over [`Opcode`] (a new op must be listed with its conditions, or with
//! the ops that have none). `tests/op_sync.rs` keeps this and the writer in sync: every
//! module the preflight accepts (generated per opcode from the op table's type rules) must
//! be written and pass `spirv-val`, and every refused opcode must be refused by name.
//!
//! A refusal is [`Error::Unsupported`], located at the function, block and instruction
//! being checked.

use crate::writer::{lowering, register_builtin, ArithOp, Lowering};
use crate::{Error, Location, Options, TargetEnv};
use cranelift_entity::EntitySet;
use oxir_ir::function::FunctionKind;
use oxir_ir::types::{AddressSpace, ScalarKind, TypeData};
use oxir_ir::{Block, Function, GlobalData, InstData, Module, Opcode, Payload, StageBinding, Type};

/// Whether the writer handles an opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// Written (subject to the per-instruction checks of [`preflight`]).
    Written,
    /// Refused with this reason.
    Refused(&'static str),
}

/// The writer's op table: whether the writer's lowering of `op` writes it or refuses it.
pub fn opcode_support(op: Opcode) -> Support {
    match lowering(op) {
        Lowering::Refused(why) => Support::Refused(why),
        Lowering::Arith(_)
        | Lowering::Math(_)
        | Lowering::Memory(_)
        | Lowering::Register(_)
        | Lowering::Image(_)
        | Lowering::Subgroup(_)
        | Lowering::Call
        | Lowering::SpecConstant
        | Lowering::Terminator(_) => Support::Written,
    }
}

/// Ops that lower to GLSL.std.450 instructions that exist for 16- and 32-bit floats only:
/// the elementary functions.
fn float32_only(op: Opcode) -> bool {
    op.is_elementary_function()
}

/// Ops whose lowering is written for 32-bit integers only: bit counting and fields.
fn int32_only(op: Opcode) -> bool {
    matches!(lowering(op), Lowering::Arith(ArithOp::Bits(_)))
}

struct Checker<'a> {
    module: &'a Module,
    options: &'a Options,
    /// Types already checked outside buffer memory (index 0) and in it (index 1).
    seen: [EntitySet<Type>; 2],
    /// What is being checked, for [`Error::Unsupported`].
    at: Location,
}

impl Checker<'_> {
    fn check_type(&mut self, ty: Type, in_buffer: bool) -> Result<(), String> {
        if !self.seen[usize::from(in_buffer)].insert(ty) {
            return Ok(());
        }
        let types = &self.module.types;
        let name = || types.display(ty).to_string();
        match types.try_get(ty).ok_or("invalid type")? {
            TypeData::Void => Ok(()),
            TypeData::Scalar(s)
            | TypeData::Vector { elem: s, .. }
            | TypeData::Matrix { elem: s, .. } => {
                if s.kind == ScalarKind::Bool && in_buffer {
                    return Err(format!("bool in buffer memory ({})", name()));
                }
                Ok(())
            }
            TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. } => {
                self.check_type(*elem, in_buffer)
            }
            TypeData::Struct(st) => {
                for member in st.members.clone() {
                    self.check_type(member.ty, in_buffer)?;
                }
                Ok(())
            }
            TypeData::Pointer { space, pointee } => {
                let space = *space;
                let pointee = *pointee;
                self.check_type(pointee, is_buffer(space))
            }
            TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. } => {
                if in_buffer {
                    return Err(format!("images and samplers in buffer memory ({})", name()));
                }
                Ok(())
            }
            TypeData::Opaque(_) => Err(format!("opaque types ({})", name())),
        }
    }

    /// A type at a location of the stage interface: numeric scalars, vectors, matrices
    /// and arrays of them, 32- or 64-bit.
    fn check_location_type(&mut self, ty: Type, what: &str) -> Result<(), String> {
        let types = &self.module.types;
        let ok = match types.try_get(ty).ok_or("invalid type")? {
            TypeData::Scalar(s)
            | TypeData::Vector { elem: s, .. }
            | TypeData::Matrix { elem: s, .. } => {
                if s.kind == ScalarKind::Bool {
                    return Err(format!("bool {what} at a location"));
                }
                if s.bits < 32 {
                    return Err(format!(
                        "{}-bit {what} ({}) at a location",
                        s.bits,
                        types.display(ty)
                    ));
                }
                true
            }
            TypeData::Array { elem, .. } => {
                let elem = *elem;
                return self.check_location_type(elem, what);
            }
            _ => false,
        };
        if !ok {
            return Err(format!(
                "{what} of type {} at a location",
                types.display(ty)
            ));
        }
        self.check_type(ty, false)
    }

    fn check_function(&mut self, func: &Function) -> Result<(), String> {
        self.at = Location {
            function: Some(func.name.clone()),
            ..Location::default()
        };
        let Some(stage) = crate::calls::stage_name(&func.kind) else {
            return Err(format!(
                "{} function `{}` as an entry point",
                func.kind.keyword(),
                func.name
            ));
        };
        let is_kernel = stage == "kernel";
        if is_kernel && !func.signature.returns.is_empty() {
            return Err(format!("kernel `{}` with results", func.name));
        }
        for param in &func.signature.params {
            match param.binding {
                Some(StageBinding::Builtin(builtin)) => {
                    if crate::writer::input_builtin(&func.kind, builtin).is_none() {
                        return Err(format!(
                            "built-in `{}` as an input of a {stage} entry point",
                            builtin.name()
                        ));
                    }
                    if matches!(
                        builtin,
                        oxir_ir::Builtin::SubgroupInvocationId
                            | oxir_ir::Builtin::SubgroupSize
                            | oxir_ir::Builtin::SubgroupId
                            | oxir_ir::Builtin::NumSubgroups
                    ) && self.options.target_env == TargetEnv::Vulkan1_0
                    {
                        return Err("subgroup built-ins under vulkan1.0 (needs SPIR-V 1.3)".into());
                    }
                    self.check_type(param.ty, false)?;
                }
                Some(StageBinding::Location { .. }) if !is_kernel => {
                    self.check_location_type(param.ty, "input")?;
                }
                _ => {
                    return Err(format!(
                        "{stage} `{}` parameter without a built-in{}",
                        func.name,
                        if is_kernel { "" } else { " or location" }
                    ))
                }
            }
        }
        for result in &func.signature.returns {
            match result.binding {
                Some(StageBinding::Builtin(builtin)) => {
                    if crate::writer::output_builtin(&func.kind, builtin).is_none() {
                        return Err(format!(
                            "built-in `{}` as an output of a {stage} entry point",
                            builtin.name()
                        ));
                    }
                    self.check_type(result.ty, false)?;
                }
                Some(StageBinding::Location { .. }) => {
                    self.check_location_type(result.ty, "output")?;
                }
                None => return Err(format!("{stage} `{}` result without a binding", func.name)),
            }
        }
        self.check_body(func, stage, false)
    }

    /// A callable kept as a SPIR-V function, called from entry points of `stages`.
    fn check_callable(&mut self, func: &Function, stages: &[&'static str]) -> Result<(), String> {
        self.at = Location {
            function: Some(func.name.clone()),
            ..Location::default()
        };
        if matches!(func.kind, FunctionKind::External) {
            return Err(format!(
                "a call to the external declaration `{}` (nothing defines it)",
                func.name
            ));
        }
        let signature = &func.signature;
        if signature.returns.len() > 1 {
            return Err(format!(
                "callable `{}` returning {} values (a SPIR-V function returns one)",
                func.name,
                signature.returns.len()
            ));
        }
        for abi in signature.params.iter().chain(&signature.returns) {
            if self.module.types.holds_reference(abi.ty) {
                return Err(format!(
                    "callable `{}` with a parameter or result of type {} (logical addressing \
                     passes no pointers or handles to functions)",
                    func.name,
                    self.module.types.display(abi.ty)
                ));
            }
            self.check_type(abi.ty, false)?;
        }
        for &stage in stages {
            self.check_body(func, stage, true)?;
        }
        Ok(())
    }

    /// The blocks and instructions of `func` as run by a `stage` entry point (a callable's
    /// body is checked once per stage that calls it).
    fn check_body(
        &mut self,
        func: &Function,
        stage: &'static str,
        in_callable: bool,
    ) -> Result<(), String> {
        let is_kernel = stage == "kernel";
        // Loop prepare blocks: the only blocks that may end in cond_br.
        let mut prepares = EntitySet::new();
        for block in func.layout.blocks() {
            if let Some(t) = func.terminator(block) {
                if let Payload::Loop { prepare, .. } = &func.dfg.inst(t).payload {
                    prepares.insert(prepare.block);
                }
            }
        }
        for block in func.layout.blocks() {
            self.at.block = Some(block);
            self.at.instruction = None;
            for &param in func.dfg.block_params(block) {
                let ty = func.dfg.value_type(param);
                if matches!(self.module.types.get(ty), TypeData::Pointer { .. }) {
                    return Err("pointer-typed block parameters (variable pointers)".into());
                }
                if self.module.types.get(ty).is_resource()
                    && block != func.entry_block().unwrap_or(block)
                {
                    return Err(
                        "image- or sampler-typed block parameters (OpPhi of a handle)".into(),
                    );
                }
                self.check_type(ty, false)?;
            }
            let Some(term) = func.terminator(block) else {
                return Err("a block without terminator".into());
            };
            for inst in func.layout.block_insts(block) {
                self.at.instruction = Some(inst);
                let data = func.dfg.inst(inst);
                let op = data.opcode;
                if let Support::Refused(why) = opcode_support(op) {
                    return Err(format!("{why} (`{op}`)"));
                }
                if let Some(result) = func.dfg.inst_result(inst) {
                    self.check_type(func.dfg.value_type(result), false)?;
                }
                for &arg in &data.args {
                    let arg = func.resolve(arg);
                    self.check_type(func.dfg.value_type(arg), false)?;
                }
                let arg_ty = |i: usize| -> Option<&TypeData> {
                    let v = func.resolve(*data.args.get(i)?);
                    self.module.types.try_get(func.dfg.value_type(v))
                };
                let scalar0 = arg_ty(0)
                    .and_then(|t| t.scalar_or_vector_elem())
                    .map(|p| p.0);
                if float32_only(op) && scalar0.is_some_and(|s| s.bits == 64) {
                    return Err(format!(
                        "`{op}` on 64-bit floats (GLSL.std.450 has 16- and 32-bit forms only)"
                    ));
                }
                if op.is_derivative() && scalar0.is_some_and(|s| s.bits != 32) {
                    return Err(format!(
                        "`{op}` on {}-bit floats (SPIR-V derivatives are 32-bit only)",
                        scalar0.map_or(0, |s| s.bits)
                    ));
                }
                if int32_only(op) && scalar0.is_some_and(|s| s.bits != 32) {
                    return Err(format!("`{op}` on integers other than 32-bit"));
                }
                if let Lowering::Register(register) = lowering(op) {
                    if in_callable {
                        return Err(format!(
                            "`{op}` in callable `{}` (stage registers are read by entry points)",
                            func.name
                        ));
                    }
                    if let (Some(only), _) = register_builtin(register) {
                        if only != stage {
                            return Err(format!("`{op}` in a {stage} entry point"));
                        }
                    }
                }
                if stage != "fragment"
                    && (op.is_convergent() && !op.is_synchronisation() && !op.is_subgroup()
                        || op == Opcode::Discard)
                {
                    return Err(format!("`{op}` outside a fragment entry point"));
                }
                if !is_kernel && op.is_synchronisation() {
                    return Err(format!("`{op}` in a {stage} entry point"));
                }
                if !is_kernel {
                    for &arg in data.args.iter().chain(func.dfg.inst_result(inst).as_ref()) {
                        let ty = func.dfg.value_type(func.resolve(arg));
                        if let TypeData::Pointer {
                            space: AddressSpace::Workgroup,
                            ..
                        } = self.module.types.get(ty)
                        {
                            return Err(format!("workgroup memory in a {stage} entry point"));
                        }
                    }
                }
                self.check_operands(func, block, data, &prepares)?;
            }
            self.at.instruction = Some(term);
            // One phi entry per predecessor block: two edges from one block to the same
            // target must carry the same arguments.
            let payload = &func.dfg.inst(term).payload;
            let edges = payload.edges();
            for (i, a) in edges.iter().enumerate() {
                for b in &edges[i + 1..] {
                    if a.block == b.block {
                        let same = a.args.len() == b.args.len()
                            && a.args
                                .iter()
                                .zip(&b.args)
                                .all(|(x, y)| func.resolve(*x) == func.resolve(*y));
                        if !same {
                            return Err(
                                "two edges from one block to the same block with different arguments"
                                    .into(),
                            );
                        }
                    }
                }
            }
            if let Payload::Loop { prepare, .. } = payload {
                // The prepare block carries OpLoopMerge: it must end in a plain branch.
                if let Some(pt) = func.terminator(prepare.block) {
                    let pop = func.dfg.inst(pt).opcode;
                    let plain = match lowering(pop) {
                        Lowering::Terminator(t) => crate::writer::can_hold_loop_merge(t),
                        Lowering::Refused(_)
                        | Lowering::Call
                        | Lowering::SpecConstant
                        | Lowering::Arith(_)
                        | Lowering::Math(_)
                        | Lowering::Memory(_)
                        | Lowering::Register(_)
                        | Lowering::Image(_)
                        | Lowering::Subgroup(_) => false,
                    };
                    if !plain {
                        return Err(format!("a loop whose prepare block ends in `{pop}`"));
                    }
                }
            }
        }
        Ok(())
    }

    /// The conditions single ops put on their operands and place (types, stages and the
    /// op table are checked for every op before).
    fn check_operands(
        &self,
        func: &Function,
        block: Block,
        data: &InstData,
        prepares: &EntitySet<Block>,
    ) -> Result<(), String> {
        let arg_ty = |i: usize| -> Option<&TypeData> {
            let v = func.resolve(*data.args.get(i)?);
            self.module.types.try_get(func.dfg.value_type(v))
        };
        use Opcode::*;
        let op = data.opcode;
        match op {
            SpecConstant => {
                let default = data.args.first().map(|&a| func.dfg.value_def(a));
                if let Some(oxir_ir::ValueDef::Const(c)) = default {
                    if self.module.consts.get(c).kind == oxir_ir::ConstKind::Undef {
                        return Err("`spec_constant` with an undefined default".into());
                    }
                }
            }
            Select => {
                if matches!(arg_ty(1), Some(TypeData::Pointer { .. })) {
                    return Err("`select` of pointers (variable pointers)".into());
                }
                if arg_ty(1).is_some_and(|t| t.is_resource()) {
                    return Err("`select` of images or samplers".into());
                }
            }
            CondBr => {
                if !prepares.contains(block) {
                    return Err("unstructured cond_br".into());
                }
            }
            Return => {
                if data.args.len() != func.signature.returns.len() {
                    return Err("return with a value count other than the results".into());
                }
            }
            ArrayLength => {
                if crate::writer::array_length_base(self.module, func, data.args[0]).is_none() {
                    return Err("array_length of a pointer that is not a global".into());
                }
            }
            SubgroupInvocationId | SubgroupSize | SubgroupId | NumSubgroups => {
                if self.options.target_env == TargetEnv::Vulkan1_0 {
                    return Err(format!("`{op}` under vulkan1.0 (needs SPIR-V 1.3)"));
                }
            }
            SubgroupBallot
            | SubgroupElect
            | SubgroupBroadcastFirst
            | SubgroupBroadcast
            | SubgroupShuffle
            | SubgroupShuffleXor
            | SubgroupShuffleUp
            | SubgroupShuffleDown
            | SubgroupAll
            | SubgroupAny
            | SubgroupAllEqual
            | SubgroupAdd
            | SubgroupMul
            | SubgroupMin
            | SubgroupMax
            | SubgroupAnd
            | SubgroupOr
            | SubgroupXor
            | SubgroupInclusiveAdd
            | SubgroupInclusiveMul
            | SubgroupInclusiveMin
            | SubgroupInclusiveMax
            | SubgroupInclusiveAnd
            | SubgroupInclusiveOr
            | SubgroupInclusiveXor
            | SubgroupExclusiveAdd
            | SubgroupExclusiveMul
            | SubgroupExclusiveMin
            | SubgroupExclusiveMax
            | SubgroupExclusiveAnd
            | SubgroupExclusiveOr
            | SubgroupExclusiveXor => {
                if self.options.target_env == TargetEnv::Vulkan1_0 {
                    return Err(format!(
                        "subgroup operation `{op}` under vulkan1.0 (needs SPIR-V 1.3)"
                    ));
                }
            }
            Switch => {
                if !matches!(arg_ty(0), Some(TypeData::Scalar(s)) if s.is_integer()) {
                    return Err("switch on a non-integer selector".into());
                }
            }
            // No conditions of their own.
            Add | Sub | Mul | Div | Rem | Neg | Abs | Sign | Min | Max | Clamp | And | Or | Xor
            | Not | Shl | Shr | Rotl | Rotr | CountOnes | CountLeadingZeros
            | CountTrailingZeros | ReverseBits | ExtractBits | InsertBits | Eq | Ne | Lt | Le
            | Gt | Ge | IsNan | IsInf | Any | All => {}
            Sin | Cos | Tan | Asin | Acos | Atan | Atan2 | Sinh | Cosh | Tanh | Asinh | Acosh
            | Atanh | Exp | Exp2 | Exp10 | Log | Log2 | Log10 | Pow | Sqrt | InverseSqrt | Ceil
            | Floor | Fract | Trunc | Round | RoundEven | Fma | CopySign | Saturate | Step
            | Smoothstep | Mix | Degrees | Radians | Ldexp | Frexp | Modf => {}
            Dot | Cross | Length | Distance | Normalize | Reflect | FaceForward | ReduceAdd
            | ReduceMul | ReduceMin | ReduceMax | OuterProduct | MatrixTimesMatrix
            | MatrixTimesVector | VectorTimesMatrix | MatrixTimesScalar | Transpose
            | Determinant | Inverse => {}
            Convert | Bitcast | Construct | Splat | Extract | Insert | ExtractDynamic
            | InsertDynamic | Shuffle => {}
            Alloca
            | Load
            | Store
            | Access
            | AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicAdd
            | AtomicSub
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | AtomicMin
            | AtomicMax
            | WorkgroupBarrier
            | StorageBarrier
            | WorkgroupUniformLoad => {}
            ThreadId | WorkgroupId | DispatchId | LocalInvocationIndex | WorkgroupSize
            | NumWorkgroups | DispatchSize | FragCoord | FrontFacing | VertexIndex
            | InstanceIndex | BaseInstance | SampleIndex | PrimitiveId => {}
            TextureSample
            | TextureSampleBias
            | TextureSampleLevel
            | TextureSampleGrad
            | TextureSampleCompare
            | TextureSampleCompareLevel
            | TextureGather
            | TextureGatherCompare
            | TextureLoad
            | TextureStore
            | TextureDimensions
            | TextureNumLevels
            | TextureNumLayers
            | TextureNumSamples => {}
            Dpdx | Dpdy | Fwidth | DpdxCoarse | DpdyCoarse | FwidthCoarse | DpdxFine | DpdyFine
            | FwidthFine => {}
            // Refused by the op table before.
            Call | Print | Assert | Clock | SwitchBr => {}
            Br | Unreachable | Discard | If | Loop | SimpleLoop | Break | Continue => {}
        }
        Ok(())
    }
}

fn is_buffer(space: AddressSpace) -> bool {
    matches!(
        space,
        AddressSpace::Storage(_) | AddressSpace::Uniform | AddressSpace::PushConstant
    )
}

/// Refuses (with the reason and where) everything the writer cannot express for
/// `options`: the error is always [`Error::Unsupported`].
pub fn preflight(module: &Module, options: &Options) -> Result<(), Error> {
    let mut checker = Checker {
        module,
        options,
        seen: [EntitySet::new(), EntitySet::new()],
        at: Location::default(),
    };
    check_module(&mut checker).map_err(|what| Error::Unsupported {
        what,
        location: checker.at.clone(),
    })
}

/// A specialisable workgroup size is written as the module's one `BuiltIn WorkgroupSize`
/// constant, which overrides every entry point's `LocalSize`: the module may then hold
/// no other kernel.
fn check_specialised_workgroup_sizes(module: &Module) -> Result<(), String> {
    let kernels: Vec<&Function> = module
        .functions
        .values()
        .filter(|f| matches!(f.kind, FunctionKind::Kernel { .. }))
        .collect();
    let specialised = kernels.iter().find(|f| {
        matches!(f.kind, FunctionKind::Kernel { workgroup_spec_ids, .. }
            if workgroup_spec_ids.iter().any(Option::is_some))
    });
    match specialised {
        Some(f) if kernels.len() > 1 => Err(format!(
            "kernel `{}` has a specialisable workgroup size and the module has {} kernels \
             (SPIR-V's WorkgroupSize built-in would size them all; compile one entry point)",
            f.name,
            kernels.len()
        )),
        Some(_) | None => Ok(()),
    }
}

/// A uniform buffer whose declared layout breaks Vulkan's extended alignment rules needs
/// the `uniformBufferStandardLayout` feature: refused before Vulkan 1.2.
fn check_uniform_layout(checker: &Checker, global: &GlobalData) -> Result<(), String> {
    let module = checker.module;
    let rules = module.layout_rules(AddressSpace::Uniform);
    let Some(problem) =
        crate::uniform_layout::extended_alignment_violation(&module.types, global.ty, rules)?
    else {
        return Ok(());
    };
    if checker.options.target_env >= TargetEnv::Vulkan1_2 {
        return Ok(());
    }
    Err(format!(
        "uniform buffer `@{}` in the {rules} layout its source declares, which {} uniform \
         buffers cannot hold ({problem}); use --target-env vulkan1.2 or later, with the \
         `uniformBufferStandardLayout` device feature",
        global.name,
        checker.options.target_env.name()
    ))
}

/// The module-level checks, then each function (entry points first).
fn check_module(checker: &mut Checker) -> Result<(), String> {
    let module = checker.module;
    let mut push_constants = 0;
    for global in module.globals.values() {
        if global.space == AddressSpace::PushConstant {
            push_constants += 1;
        }
        checker.check_type(global.ty, is_buffer(global.space))?;
        if global.space == AddressSpace::Uniform {
            check_uniform_layout(checker, global)?;
        }
        if let Some(init) = global.init {
            checker.check_type(module.consts.get(init).ty, false)?;
        }
    }
    if push_constants > 1 {
        return Err("more than one push-constant global".into());
    }
    if !module.functions.values().any(|f| {
        matches!(
            f.kind,
            FunctionKind::Kernel { .. } | FunctionKind::Vertex | FunctionKind::Fragment
        )
    }) {
        return Err("a module without entry points".into());
    }
    check_specialised_workgroup_sizes(module)?;
    let plan = crate::calls::CallPlan::new(module);
    if let Some(func) = plan.recursive {
        checker.at = Location {
            function: Some(module.functions[func].name.clone()),
            ..Location::default()
        };
        return Err(format!(
            "recursive function `{}` (SPIR-V has no recursion)",
            module.functions[func].name
        ));
    }
    for func in module.functions.values() {
        if crate::calls::stage_name(&func.kind).is_some() {
            checker.check_function(func)?;
        }
    }
    for &func in &plan.order {
        checker.check_callable(&module.functions[func], &plan.stages[func])?;
    }
    Ok(())
}
