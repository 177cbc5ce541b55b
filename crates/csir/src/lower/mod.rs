//! Lowering from oxir to CSIR for one vertex or fragment entry point.
//!
//! Input: a module after [`pipeline`] (normalisation with inlining, the SSA optimiser
//! for constant folding, then the structured form with `if` / merge blocks and block
//! parameters as values). [`lower`] first runs the preflight ([`preflight`]: every
//! instruction's op through the exhaustive [`table::lowering`], every value type), so a
//! refusal names the op and its location before anything is emitted; then walks the
//! structured control flow emitting records over virtual registers (`emit`), and
//! allocates temporaries by linear scan over the emitted order (`regalloc`; sound
//! because CSIR has no loops). Any pool overflow is [`LowerError::Pool`] naming the pool.
//! The result is verified before it is returned.
//!
//! Value model: every value is f32 lanes (bools 0.0 / 1.0); a matrix occupies one
//! temporary per column. Uniform leaves are one vec4 slot each (matrices one per
//! column), assigned in order of first use (module `uniforms`). Varyings keep their
//! locations as slots and are named `location_N` (oxir has no names for them), so a link
//! by name and type is a link by location.
//!
//! Loops: [`pipeline`] unrolls every innermost counted loop with a constant trip count
//! within [`UNROLL_LIMITS`] (repeatedly, so nests go too) and folds the copies; a loop
//! left after that (runtime trip count, `break`, a test outside the header, over the
//! budget) is refused as `loop`.
//!
//! `return` under an `IF`: accepted when no enclosing `if` has code after its `ENDIF`
//! (every arm around it ends the shader, as in `if c { discard; } return x;`); the
//! outputs are stored in that arm. Otherwise refused: CSIR has no early exit.
//!
//! Not done: runtime loops (TGSI's `BGNLOOP` is not used), integer values, dynamic
//! indices, a `return` with code after the enclosing `ENDIF`, interpolation with
//! centroid / sample qualifiers, textures other than `texture_sample` of a 2D float
//! texture.

mod emit;
mod regalloc;
pub(crate) mod table;
mod uniforms;

use crate::interface::{IfaceType, Interface, Interp, Slot};
use crate::record::{Op, Ty};
use crate::{Limits, Shader, Stage};
use cranelift_entity::SecondaryMap;
use oxir_ir::function::{FunctionKind, InterpolationKind, Sampling};
use oxir_ir::types::{ScalarKind, TypeData};
use oxir_ir::verifier::VerifierOptions;
use oxir_ir::{
    Block, BlockCall, Builtin, Function, Global, Inst, Module, Payload, StageBinding, TerminatorOp,
    Type, Value,
};
use oxir_passes::PassPipeline;
use std::collections::HashMap;
use std::fmt;
use table::Lowering;

/// Where in the module a lowering error arose.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The function.
    pub function: Option<String>,
    /// The block.
    pub block: Option<Block>,
    /// The instruction.
    pub instruction: Option<Inst>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(function) = &self.function else {
            return f.write_str("module level");
        };
        write!(f, "@{function}")?;
        if let Some(block) = self.block {
            write!(f, ", {block}")?;
        }
        if let Some(inst) = self.instruction {
            write!(f, ", {inst}")?;
        }
        Ok(())
    }
}

/// Why an entry point cannot be lowered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LowerError {
    /// CSIR cannot express something the entry point uses.
    #[error("unsupported: {what} (at {location})")]
    Unsupported {
        /// What.
        what: String,
        /// Where.
        location: Location,
    },
    /// A fixed pool is full.
    #[error("the {pool} pool overflows its {limit} entries (at {location})")]
    Pool {
        /// `instruction`, `immediate`, `temporary`, `uniform slot`, `sampler`, ...
        pool: &'static str,
        /// Its capacity.
        limit: u16,
        /// Where it filled up.
        location: Location,
    },
    /// No vertex or fragment entry point of that name.
    #[error("no vertex or fragment entry point `{0}`")]
    NoSuchEntryPoint(String),
    /// The pipeline refused the module.
    #[error("pass {0}")]
    Pipeline(String),
    /// A bug: the lowering produced CSIR the verifier rejects, or met a form the
    /// pipeline should have removed.
    #[error("internal error in the CSIR lowering: {0}")]
    Internal(String),
}

impl LowerError {
    /// The location, for the errors that have one.
    pub fn location(&self) -> Option<&Location> {
        match self {
            LowerError::Unsupported { location, .. } | LowerError::Pool { location, .. } => {
                Some(location)
            }
            LowerError::NoSuchEntryPoint(_) | LowerError::Pipeline(_) | LowerError::Internal(_) => {
                None
            }
        }
    }
}

/// How far the CSIR pipeline unrolls: only loops with a constant trip count (a partial
/// unroll keeps a loop, which CSIR refuses), up to the default instruction pool in IR
/// instructions (trip count × loop size), so a loop too long for the pool stays a loop
/// and is refused as one rather than as a pool overflow after a long unroll.
pub const UNROLL_LIMITS: oxir_passes::passes::loop_unroll::UnrollLimits =
    oxir_passes::passes::loop_unroll::UnrollLimits {
        full_budget: 384,
        partial: false,
    };

/// The CSIR driver pipeline: `normalize`, `ssa-optimization` (CSIR relies on constant
/// folding), full unrolling of constant-trip loops ([`UNROLL_LIMITS`]: CSIR has no
/// loops) and `ssa-optimization` again to fold the copies' induction values,
/// `structurize`, `mem2reg` on the structured form, and a structured verification.
pub fn pipeline() -> PassPipeline {
    use oxir_passes::pipelines;
    let mut p = PassPipeline::new();
    p.add_sequence("normalize", pipelines::normalize());
    p.add_sequence(
        "ssa-optimization",
        pipelines::ssa_optimization_with(pipelines::Optimizer::default()),
    );
    p.add("loop-unroll-full", |m: &mut Module| {
        oxir_passes::PassOutcome::from_info(&oxir_passes::passes::loop_unroll::run_on_module_with(
            m,
            UNROLL_LIMITS,
        ))
    });
    p.add_sequence(
        "ssa-optimization-after-unroll",
        pipelines::ssa_optimization_with(pipelines::Optimizer::default()),
    );
    p.add_sequence("structurize", pipelines::structurize());
    p.add("mem2reg", |m: &mut Module| {
        oxir_passes::PassOutcome::from_info(&oxir_passes::passes::mem2reg::run_on_module(m))
    });
    p.add_verify(
        "verify-csir-input",
        VerifierOptions {
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            ..VerifierOptions::default()
        },
    );
    p
}

/// The vertex and fragment entry points of `module`, in order.
pub fn entry_points(module: &Module) -> Vec<(String, Stage)> {
    module
        .functions
        .values()
        .filter_map(|f| stage_of(f.kind).map(|s| (f.name.clone(), s)))
        .collect()
}

fn stage_of(kind: FunctionKind) -> Option<Stage> {
    match kind {
        FunctionKind::Vertex => Some(Stage::Vertex),
        FunctionKind::Fragment => Some(Stage::Fragment),
        FunctionKind::Kernel { .. } | FunctionKind::Callable | FunctionKind::External => None,
    }
}

/// Lowers entry point `entry` of a module prepared by [`pipeline`].
pub fn lower(module: &Module, entry: &str, limits: &Limits) -> Result<Shader, LowerError> {
    let func = module
        .functions
        .values()
        .find(|f| f.name == entry && stage_of(f.kind).is_some())
        .ok_or_else(|| LowerError::NoSuchEntryPoint(entry.to_string()))?;
    let stage = stage_of(func.kind).ok_or_else(|| LowerError::NoSuchEntryPoint(entry.into()))?;
    let mut l = Lowerer::new(module, func, stage, *limits);
    l.preflight()?;
    l.lower_body()?;
    let shader = l.finish()?;
    crate::verify(&shader, limits)
        .map_err(|e| LowerError::Internal(format!("the verifier rejects the lowering: {e}")))?;
    Ok(shader)
}

/// A virtual register operand: a register of one or more columns and a column in it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct R {
    pub reg: u32,
    pub col: u8,
}

impl R {
    pub fn column(self, i: u8) -> R {
        R {
            reg: self.reg,
            col: self.col + i,
        }
    }
}

/// What an oxir value is in CSIR.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Loc {
    Reg(R),
    /// A pointer into a uniform block: the slot and lane it starts at.
    Uniform {
        slot: u16,
        lane: u8,
    },
    /// A loaded texture or sampler handle.
    Handle(Global),
}

/// A record over virtual registers.
#[derive(Clone, Debug)]
pub(crate) struct VRec {
    pub op: Op,
    pub ty: Ty,
    pub ncomp: u8,
    pub dst: Option<R>,
    pub src: [Option<R>; 3],
    pub aux: i16,
    pub aux2: i16,
}

/// The shape of a CSIR value: `cols` temporaries of `rows` lanes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub cols: u8,
    pub rows: u8,
    pub bool: bool,
}

pub(crate) struct Lowerer<'m> {
    pub module: &'m Module,
    pub func: &'m Function,
    pub stage: Stage,
    pub limits: Limits,
    pub recs: Vec<VRec>,
    pub widths: Vec<u8>,
    pub vals: SecondaryMap<Value, Option<Loc>>,
    pub imms: Vec<f32>,
    /// Constants materialised in the enclosing scopes (innermost last), by bits.
    pub const_scopes: Vec<HashMap<Vec<u32>, R>>,
    pub iface: Interface,
    pub uniform_bases: HashMap<Global, u16>,
    pub next_uniform_slot: u16,
    pub samplers: Vec<(Global, Global)>,
    pub at: Location,
    pub depth: u16,
    /// Enclosing `if`s that have a merge block (code after their `ENDIF`).
    pub merging_depth: u16,
}

/// How a structured region ended.
enum Exit {
    /// Reached the merge block it was asked to stop at.
    Merge,
    /// Returned or discarded.
    Left,
}

impl<'m> Lowerer<'m> {
    fn new(module: &'m Module, func: &'m Function, stage: Stage, limits: Limits) -> Self {
        Lowerer {
            module,
            func,
            stage,
            limits,
            recs: Vec::new(),
            widths: Vec::new(),
            vals: SecondaryMap::new(),
            imms: Vec::new(),
            const_scopes: vec![HashMap::new()],
            iface: Interface::default(),
            uniform_bases: HashMap::new(),
            next_uniform_slot: 0,
            samplers: Vec::new(),
            at: Location {
                function: Some(func.name.clone()),
                ..Location::default()
            },
            depth: 0,
            merging_depth: 0,
        }
    }

    pub fn unsupported<T>(&self, what: impl Into<String>) -> Result<T, LowerError> {
        Err(LowerError::Unsupported {
            what: what.into(),
            location: self.at.clone(),
        })
    }

    pub fn pool<T>(&self, pool: &'static str, limit: u16) -> Result<T, LowerError> {
        Err(LowerError::Pool {
            pool,
            limit,
            location: self.at.clone(),
        })
    }

    /// The CSIR shape of a value type; refuses everything that is not f32 or bool lanes.
    pub fn shape(&self, ty: Type) -> Result<Shape, LowerError> {
        let types = &self.module.types;
        let lanes = |s: oxir_ir::Scalar, cols: u8, rows: u8| {
            match s.kind {
            ScalarKind::Float if s.bits == 32 => Ok(Shape { cols, rows, bool: false }),
            ScalarKind::Bool => Ok(Shape { cols, rows, bool: true }),
            ScalarKind::Float | ScalarKind::Sint | ScalarKind::Uint => self.unsupported(format!(
                "values of type {} (CSIR lanes are f32; integers and other float widths are not held exactly)",
                types.display(ty)
            )),
        }
        };
        match types.try_get(ty) {
            Some(TypeData::Scalar(s)) => lanes(*s, 1, 1),
            Some(TypeData::Vector { elem, len }) => lanes(*elem, 1, *len),
            Some(TypeData::Matrix {
                elem,
                columns,
                rows,
            }) => lanes(*elem, *columns, *rows),
            Some(_) | None => {
                self.unsupported(format!("values of type {} in registers", types.display(ty)))
            }
        }
    }

    /// Refuses, before anything is emitted, every op the table refuses and every value
    /// type CSIR cannot hold.
    fn preflight(&mut self) -> Result<(), LowerError> {
        let func = self.func;
        for block in func.layout.blocks() {
            self.at.block = Some(block);
            self.at.instruction = None;
            for &param in func.dfg.block_params(block) {
                self.shape(func.dfg.value_type(param))?;
            }
            for inst in func.layout.block_insts(block) {
                self.at.instruction = Some(inst);
                let data = func.dfg.inst(inst);
                if let Lowering::Refused(why) = table::lowering(data.opcode) {
                    return self.unsupported(format!("{} ({why})", data.opcode));
                }
                if let Some(result) = func.dfg.inst_result(inst) {
                    self.check_result_type(data.opcode, func.dfg.value_type(result))?;
                }
            }
        }
        self.at.block = None;
        self.at.instruction = None;
        Ok(())
    }

    fn check_result_type(&self, op: oxir_ir::Opcode, ty: Type) -> Result<(), LowerError> {
        match self.module.types.try_get(ty) {
            Some(TypeData::Pointer {
                space: oxir_ir::AddressSpace::Uniform,
                ..
            }) => Ok(()),
            Some(TypeData::Texture { .. } | TypeData::Sampler { .. }) => Ok(()),
            Some(_) | None => self.shape(ty).map(|_| ()).map_err(|e| match e {
                LowerError::Unsupported { what, location } => LowerError::Unsupported {
                    what: format!("{op}: {what}"),
                    location,
                },
                other => other,
            }),
        }
    }

    fn lower_body(&mut self) -> Result<(), LowerError> {
        let entry = self
            .func
            .layout
            .entry_block()
            .ok_or_else(|| LowerError::Internal("entry point without a body".into()))?;
        self.at.block = Some(entry);
        self.prologue(entry)?;
        self.region(entry, None).map(|_| ())
    }

    /// Loads every located entry parameter into a register.
    fn prologue(&mut self, entry: Block) -> Result<(), LowerError> {
        // Refused before anything is emitted: CSIR has no invariance guarantee to give.
        if self.func.signature.returns.iter().any(|r| r.invariant) {
            return self.unsupported("`invariant` outputs");
        }
        let params = self.func.dfg.block_params(entry).to_vec();
        for (i, param) in params.into_iter().enumerate() {
            let Some(abi) = self.func.signature.params.get(i) else {
                return Err(LowerError::Internal(
                    "entry parameters and signature differ".into(),
                ));
            };
            let shape = self.shape(abi.ty)?;
            let dst = self.fresh(shape.cols);
            match abi.binding {
                Some(StageBinding::Location {
                    location,
                    interpolation,
                }) => {
                    if shape.cols != 1 {
                        return self.unsupported("matrix-typed stage inputs");
                    }
                    let interp = self.interp(interpolation)?;
                    let slot = self.slot_number(location, "location")?;
                    let op = match self.stage {
                        Stage::Vertex => Op::LoadAttr,
                        Stage::Fragment => Op::LoadVar,
                    };
                    self.located(op, location, slot, shape.rows, interp, [Some(dst), None])?;
                }
                Some(StageBinding::Builtin(Builtin::Position)) if self.stage == Stage::Fragment => {
                    self.emit(self.vrec(Op::LoadFcoord, 4, Some(dst), [None; 3]))?;
                }
                Some(StageBinding::Builtin(b)) => {
                    return self.unsupported(format!("the {} input built-in", b.name()))
                }
                None => return Err(LowerError::Internal("an unbound entry parameter".into())),
            }
            self.vals[param] = Some(Loc::Reg(dst));
        }
        Ok(())
    }

    fn interp(
        &self,
        interpolation: Option<oxir_ir::function::Interpolation>,
    ) -> Result<Interp, LowerError> {
        let Some(i) = interpolation else {
            return Ok(Interp::Perspective);
        };
        if self.stage == Stage::Vertex {
            return Ok(Interp::Perspective);
        }
        if !matches!(i.sampling, Sampling::Center) && i.kind != InterpolationKind::Flat {
            return self.unsupported(format!("{} sampling of a varying", i.sampling.name()));
        }
        Ok(match i.kind {
            InterpolationKind::Perspective => Interp::Perspective,
            InterpolationKind::Linear => Interp::Linear,
            InterpolationKind::Flat => Interp::Flat,
        })
    }

    fn slot_number(&self, location: u32, what: &str) -> Result<u16, LowerError> {
        let limit = match (self.stage, what) {
            (Stage::Vertex, "location") => self.limits.attributes,
            (Stage::Fragment, "location") => self.limits.varyings,
            (Stage::Vertex, _) => self.limits.varyings,
            (Stage::Fragment, _) => self.limits.outputs,
        };
        match u16::try_from(location) {
            Ok(slot) if slot < limit => Ok(slot),
            Ok(_) | Err(_) => {
                self.unsupported(format!("{what} {location} (at most {limit} slots)"))
            }
        }
    }

    /// Lowers the structured region starting at `block` until it branches to `stop`.
    fn region(&mut self, mut block: Block, stop: Option<Block>) -> Result<Exit, LowerError> {
        loop {
            self.at.block = Some(block);
            let insts: Vec<Inst> = self.func.layout.block_insts(block).collect();
            let Some((&term, body)) = insts.split_last() else {
                return Err(LowerError::Internal(format!("{block} is empty")));
            };
            for &inst in body {
                self.at.instruction = Some(inst);
                self.lower_inst(inst)?;
            }
            self.at.instruction = Some(term);
            let data = self.func.dfg.inst(term);
            match (table::lowering(data.opcode), &data.payload) {
                (Lowering::Terminator(TerminatorOp::Br), Payload::Jump(dest)) => {
                    self.assign_params(dest)?;
                    if Some(dest.block) == stop {
                        return Ok(Exit::Merge);
                    }
                    block = dest.block;
                }
                (
                    Lowering::Terminator(TerminatorOp::If),
                    Payload::If {
                        then_dest,
                        else_dest,
                        merge,
                    },
                ) => {
                    let cond = self.operand(data.args[0])?;
                    self.structured_if(cond, then_dest, else_dest, *merge)?;
                    match merge {
                        Some(m) => block = *m,
                        None => return Ok(Exit::Left),
                    }
                }
                (Lowering::Terminator(TerminatorOp::Return), _) => {
                    // CSIR has no early exit: a `return` under an `IF` is the end of
                    // the shader only when no enclosing `if` has code after its
                    // `ENDIF` (every arm around it ends the function).
                    if self.merging_depth > 0 {
                        return self.unsupported("return inside a conditional with code after it");
                    }
                    let args = data.args.to_vec();
                    self.store_outputs(&args)?;
                    return Ok(Exit::Left);
                }
                (Lowering::Terminator(TerminatorOp::Discard), _) => {
                    self.emit(self.vrec(Op::Discard, 0, None, [None; 3]))?;
                    return Ok(Exit::Left);
                }
                (lowering, _) => {
                    return self
                        .unsupported(format!("the terminator {} ({lowering:?})", data.opcode))
                }
            }
        }
    }

    fn structured_if(
        &mut self,
        cond: R,
        then_dest: &BlockCall,
        else_dest: &BlockCall,
        merge: Option<Block>,
    ) -> Result<(), LowerError> {
        if self.depth >= self.limits.if_depth {
            return self.pool("IF nesting", self.limits.if_depth);
        }
        self.emit(self.vrec(Op::If, 0, None, [Some(cond), None, None]))?;
        self.depth += 1;
        let merging = u16::from(merge.is_some());
        self.merging_depth += merging;
        self.arm(then_dest, merge)?;
        self.emit(self.vrec(Op::Else, 0, None, [None; 3]))?;
        self.arm(else_dest, merge)?;
        self.merging_depth -= merging;
        self.depth -= 1;
        self.emit(self.vrec(Op::EndIf, 0, None, [None; 3]))
    }

    fn arm(&mut self, dest: &BlockCall, merge: Option<Block>) -> Result<(), LowerError> {
        self.const_scopes.push(HashMap::new());
        self.assign_params(dest)?;
        let exit = if Some(dest.block) == merge {
            Exit::Merge
        } else {
            self.region(dest.block, merge)?
        };
        self.const_scopes.pop();
        match exit {
            Exit::Merge | Exit::Left => Ok(()),
        }
    }

    /// Moves an edge's arguments into its target's parameter registers.
    fn assign_params(&mut self, dest: &BlockCall) -> Result<(), LowerError> {
        let params = self.func.dfg.block_params(dest.block).to_vec();
        for (&param, &arg) in params.iter().zip(dest.args.iter()) {
            let shape = self.shape(self.func.dfg.value_type(param))?;
            let target = match self.vals[param] {
                Some(Loc::Reg(r)) => r,
                Some(_) => return Err(LowerError::Internal("a non-register parameter".into())),
                None => {
                    let r = self.fresh(shape.cols);
                    self.vals[param] = Some(Loc::Reg(r));
                    r
                }
            };
            let src = self.operand(arg)?;
            self.copy(target, src, shape)?;
        }
        Ok(())
    }

    fn store_outputs(&mut self, args: &[Value]) -> Result<(), LowerError> {
        let returns = self.func.signature.returns.clone();
        for (abi, &value) in returns.iter().zip(args) {
            let shape = self.shape(abi.ty)?;
            let src = self.operand(value)?;
            match (abi.binding, self.stage) {
                (Some(StageBinding::Builtin(Builtin::Position)), Stage::Vertex) => {
                    self.emit(self.vrec(Op::StorePos, 4, None, [Some(src), None, None]))?;
                }
                (
                    Some(StageBinding::Location {
                        location,
                        interpolation,
                    }),
                    stage,
                ) => {
                    if shape.cols != 1 {
                        return self.unsupported("matrix-typed stage outputs");
                    }
                    let slot = self.slot_number(location, "output location")?;
                    let interp = match (stage, interpolation) {
                        (Stage::Vertex, Some(i)) => match i.kind {
                            InterpolationKind::Perspective => Interp::Perspective,
                            InterpolationKind::Linear => Interp::Linear,
                            InterpolationKind::Flat => Interp::Flat,
                        },
                        (Stage::Vertex, None) | (Stage::Fragment, _) => Interp::Perspective,
                    };
                    let op = match stage {
                        Stage::Vertex => Op::StoreVar,
                        Stage::Fragment => Op::StoreColor,
                    };
                    self.located(op, location, slot, shape.rows, interp, [None, Some(src)])?;
                }
                (Some(StageBinding::Builtin(b)), _) => {
                    return self.unsupported(format!("the {} output built-in", b.name()))
                }
                (None, _) => return Err(LowerError::Internal("an unbound entry result".into())),
            }
        }
        Ok(())
    }

    /// Registers location `location` in the interface table `op` uses and emits `op`
    /// with `regs` as (dst, a).
    fn located(
        &mut self,
        op: Op,
        location: u32,
        slot: u16,
        rows: u8,
        interp: Interp,
        regs: [Option<R>; 2],
    ) -> Result<(), LowerError> {
        let table = match op {
            Op::LoadAttr => &mut self.iface.attributes,
            Op::StoreColor => &mut self.iface.outputs,
            // wildcard-ok: LOAD_VAR and STORE_VAR are the only other located ops
            _ => &mut self.iface.varyings,
        };
        table.push(Slot {
            name: format!("location_{location}"),
            ty: IfaceType::vector(rows),
            slot,
            interp,
        });
        self.emit(VRec {
            aux: slot as i16,
            ..self.vrec(op, rows, regs[0], [regs[1], None, None])
        })
    }

    fn finish(self) -> Result<Shader, LowerError> {
        let (records, ntmp) =
            regalloc::allocate(&self.recs, &self.widths, &self.limits).map_err(|pool| {
                LowerError::Pool {
                    pool,
                    limit: self.limits.temporaries,
                    location: Location {
                        function: Some(self.func.name.clone()),
                        ..Location::default()
                    },
                }
            })?;
        let mut interface = self.iface;
        interface.samplers.sort_by_key(|s| s.slot);
        Ok(Shader {
            stage: self.stage,
            name: self.func.name.clone(),
            ntmp,
            records,
            immediates: self.imms,
            interface,
        })
    }
}
