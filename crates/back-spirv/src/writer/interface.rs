//! Entry-point interfaces: built-in variables, location variables and their decorations.
//!
//! - Built-in inputs: one `Input` variable per (built-in, type), shared by every entry
//!   point of its kind that reads it (fragment ones separately: their integer built-ins
//!   are `Flat`, which other stages' inputs must not be). `SampleMask` is an array of one `u32` in SPIR-V (oxir has a
//!   `u32`): loads and stores go through element 0.
//! - Location inputs and every output: one variable per entry point and binding, declared
//!   when the entry point is written ([`Writer::stage_inputs`], [`Writer::stage_outputs`]).
//!   Vertex outputs and fragment inputs carry their interpolation: `flat` → `Flat`,
//!   `linear` → `NoPerspective`, sampling `centroid` / `sample` → `Centroid` / `Sample`;
//!   fragment inputs of integer or 64-bit float type are always `Flat` (Vulkan requires
//!   it). Vertex inputs and fragment outputs never carry interpolation.
//! - Every variable an entry point uses is in its `OpEntryPoint` interface: `Input` and
//!   `Output` ones always, the others ([`Writer::mark_global`]) from SPIR-V 1.4 on.

use super::*;
use oxir_ir::function::{InterpolationKind, Sampling};
use oxir_ir::StageBinding;

/// The SPIR-V built-in of a compute-stage oxir built-in.
pub(crate) fn compute_builtin(b: Builtin) -> Option<BuiltIn> {
    Some(match b {
        Builtin::LocalInvocationId => BuiltIn::LocalInvocationId,
        Builtin::LocalInvocationIndex => BuiltIn::LocalInvocationIndex,
        Builtin::GlobalInvocationId => BuiltIn::GlobalInvocationId,
        Builtin::WorkgroupId => BuiltIn::WorkgroupId,
        Builtin::NumWorkgroups => BuiltIn::NumWorkgroups,
        Builtin::SubgroupInvocationId => BuiltIn::SubgroupLocalInvocationId,
        Builtin::SubgroupSize => BuiltIn::SubgroupSize,
        Builtin::SubgroupId => BuiltIn::SubgroupId,
        Builtin::NumSubgroups => BuiltIn::NumSubgroups,
        Builtin::Position
        | Builtin::VertexIndex
        | Builtin::InstanceIndex
        | Builtin::BaseInstance
        | Builtin::BaseVertex
        | Builtin::FrontFacing
        | Builtin::FragDepth
        | Builtin::SampleIndex
        | Builtin::SampleMask
        | Builtin::PrimitiveIndex => return None,
    })
}

/// The SPIR-V built-in of an oxir built-in bound to an input of an entry point of `kind`.
pub(crate) fn input_builtin(kind: &FunctionKind, b: Builtin) -> Option<BuiltIn> {
    match kind {
        FunctionKind::Kernel { .. } => compute_builtin(b),
        FunctionKind::Vertex => Some(match b {
            Builtin::VertexIndex => BuiltIn::VertexIndex,
            Builtin::InstanceIndex => BuiltIn::InstanceIndex,
            Builtin::BaseInstance => BuiltIn::BaseInstance,
            Builtin::BaseVertex => BuiltIn::BaseVertex,
            Builtin::Position
            | Builtin::FrontFacing
            | Builtin::FragDepth
            | Builtin::SampleIndex
            | Builtin::SampleMask
            | Builtin::PrimitiveIndex
            | Builtin::LocalInvocationId
            | Builtin::LocalInvocationIndex
            | Builtin::GlobalInvocationId
            | Builtin::WorkgroupId
            | Builtin::NumWorkgroups
            | Builtin::SubgroupInvocationId
            | Builtin::SubgroupSize
            | Builtin::SubgroupId
            | Builtin::NumSubgroups => return None,
        }),
        FunctionKind::Fragment => Some(match b {
            Builtin::Position => BuiltIn::FragCoord,
            Builtin::FrontFacing => BuiltIn::FrontFacing,
            Builtin::SampleIndex => BuiltIn::SampleId,
            Builtin::SampleMask => BuiltIn::SampleMask,
            Builtin::PrimitiveIndex => BuiltIn::PrimitiveId,
            Builtin::VertexIndex
            | Builtin::InstanceIndex
            | Builtin::BaseInstance
            | Builtin::BaseVertex
            | Builtin::FragDepth
            | Builtin::LocalInvocationId
            | Builtin::LocalInvocationIndex
            | Builtin::GlobalInvocationId
            | Builtin::WorkgroupId
            | Builtin::NumWorkgroups
            | Builtin::SubgroupInvocationId
            | Builtin::SubgroupSize
            | Builtin::SubgroupId
            | Builtin::NumSubgroups => return None,
        }),
        FunctionKind::Callable | FunctionKind::External => None,
    }
}

/// The SPIR-V built-in of an oxir built-in bound to a result of an entry point of `kind`.
pub(crate) fn output_builtin(kind: &FunctionKind, b: Builtin) -> Option<BuiltIn> {
    match (kind, b) {
        (FunctionKind::Vertex, Builtin::Position) => Some(BuiltIn::Position),
        (FunctionKind::Fragment, Builtin::FragDepth) => Some(BuiltIn::FragDepth),
        (FunctionKind::Fragment, Builtin::SampleMask) => Some(BuiltIn::SampleMask),
        _ => None,
    }
}

/// The stage a special register may be read in (`None`: any stage), and its built-in.
pub(crate) fn register_builtin(r: Register) -> (Option<&'static str>, BuiltIn) {
    use Register::*;
    match r {
        ThreadId => (Some("kernel"), BuiltIn::LocalInvocationId),
        WorkgroupId => (Some("kernel"), BuiltIn::WorkgroupId),
        DispatchId => (Some("kernel"), BuiltIn::GlobalInvocationId),
        LocalInvocationIndex => (Some("kernel"), BuiltIn::LocalInvocationIndex),
        NumWorkgroups | WorkgroupSize | DispatchSize => (Some("kernel"), BuiltIn::NumWorkgroups),
        SubgroupInvocationId => (None, BuiltIn::SubgroupLocalInvocationId),
        SubgroupSize => (None, BuiltIn::SubgroupSize),
        SubgroupId => (Some("kernel"), BuiltIn::SubgroupId),
        NumSubgroups => (Some("kernel"), BuiltIn::NumSubgroups),
        FragCoord => (Some("fragment"), BuiltIn::FragCoord),
        FrontFacing => (Some("fragment"), BuiltIn::FrontFacing),
        SampleIndex => (Some("fragment"), BuiltIn::SampleId),
        PrimitiveId => (Some("fragment"), BuiltIn::PrimitiveId),
        VertexIndex => (Some("vertex"), BuiltIn::VertexIndex),
        InstanceIndex => (Some("vertex"), BuiltIn::InstanceIndex),
        BaseInstance => (Some("vertex"), BuiltIn::BaseInstance),
    }
}

/// An output variable of the entry point being written.
#[derive(Copy, Clone)]
pub(super) struct OutputVar {
    pub id: Word,
    /// `SampleMask`: an array of one `u32`; stores go to element 0.
    pub sample_mask: bool,
}

impl Writer<'_> {
    /// Capabilities and extensions a built-in needs.
    fn builtin_requirements(&mut self, builtin: BuiltIn) {
        match builtin {
            BuiltIn::SubgroupLocalInvocationId
            | BuiltIn::SubgroupSize
            | BuiltIn::SubgroupId
            | BuiltIn::NumSubgroups => {
                self.cap(Capability::GroupNonUniform);
            }
            BuiltIn::SampleId => self.cap(Capability::SampleRateShading),
            BuiltIn::PrimitiveId => self.cap(Capability::Geometry),
            BuiltIn::BaseInstance | BuiltIn::BaseVertex => {
                self.cap(Capability::DrawParameters);
                if self.options.target_env.spirv_version() < (1, 3) {
                    self.extension("SPV_KHR_shader_draw_parameters");
                }
            }
            _ => {}
        }
    }

    /// A module-scope variable of `class` whose pointee is the SPIR-V type `t`.
    pub(super) fn io_variable(&mut self, class: StorageClass, t: Word) -> Word {
        let pt = self.type_pointer(class, t);
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(id),
                vec![Operand::StorageClass(class)],
            ));
        if !self.interface.contains(&id) {
            self.interface.push(id);
        }
        id
    }

    /// The SPIR-V type of a `SampleMask` variable: `array<u32, 1>`.
    fn sample_mask_type(&mut self) -> Word {
        let u = self.type_int(32, 0);
        let one = self.const_u32(1);
        self.type_array(u, one, None)
    }

    pub(super) fn builtin_var(&mut self, builtin: BuiltIn, ty: Type) -> R<Word> {
        let key = (builtin, ty, self.fragment);
        let id = if let Some(&id) = self.builtins.get(&key) {
            id
        } else {
            self.builtin_requirements(builtin);
            let t = if builtin == BuiltIn::SampleMask {
                self.sample_mask_type()
            } else {
                self.ty(ty)?
            };
            let id = self.io_variable(StorageClass::Input, t);
            self.b
                .decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
            // Vulkan: integer fragment inputs are flat, built-ins included.
            let integer = self
                .scalar_of(ty)
                .is_ok_and(|s| s.kind != ScalarKind::Float && s.kind != ScalarKind::Bool);
            if self.fragment && integer {
                self.b.decorate(id, Decoration::Flat, []);
            }
            self.builtins.insert(key, id);
            id
        };
        if !self.interface.contains(&id) {
            self.interface.push(id);
        }
        Ok(id)
    }

    pub(super) fn load_builtin(
        &mut self,
        builtin: BuiltIn,
        ty: Type,
        result: Option<Word>,
    ) -> R<Word> {
        let var = self.builtin_var(builtin, ty)?;
        let t = self.ty(ty)?;
        let ptr = if builtin == BuiltIn::SampleMask {
            let pt = self.type_pointer(StorageClass::Input, t);
            let zero = self.const_u32(0);
            self.op(Op::AccessChain, Some(pt), None, Self::ids(&[var, zero]))?
        } else {
            var
        };
        self.op(Op::Load, Some(t), result, vec![Operand::IdRef(ptr)])
    }

    /// Interpolation decorations of a location variable (see the module docs).
    fn interpolation(
        &mut self,
        var: Word,
        ty: Type,
        binding: &StageBinding,
        kind: &FunctionKind,
        class: StorageClass,
    ) -> R<()> {
        let StageBinding::Location {
            location,
            interpolation,
        } = binding
        else {
            return Ok(());
        };
        self.b.decorate(
            var,
            Decoration::Location,
            [Operand::LiteralBit32(*location)],
        );
        let interpolated = matches!(
            (kind, class),
            (FunctionKind::Vertex, StorageClass::Output)
                | (FunctionKind::Fragment, StorageClass::Input)
        );
        if !interpolated {
            return Ok(());
        }
        let mut flat = false;
        if let Some(i) = interpolation {
            match i.kind {
                InterpolationKind::Flat => flat = true,
                InterpolationKind::Linear => {
                    self.b.decorate(var, Decoration::NoPerspective, []);
                }
                InterpolationKind::Perspective => {}
            }
            if !flat {
                match i.sampling {
                    Sampling::Center => {}
                    Sampling::Centroid => self.b.decorate(var, Decoration::Centroid, []),
                    Sampling::Sample => {
                        self.cap(Capability::SampleRateShading);
                        self.b.decorate(var, Decoration::Sample, []);
                    }
                }
            }
        }
        if !flat && *kind == FunctionKind::Fragment {
            let s = self.scalar_of(ty).ok();
            flat = s.is_some_and(|s| s.kind != ScalarKind::Float || s.bits == 64);
        }
        if flat {
            self.b.decorate(var, Decoration::Flat, []);
        }
        Ok(())
    }

    /// Loads every used entry parameter into its value (an unused one is not declared): built-ins from their shared variables,
    /// locations from a fresh `Input` variable each.
    pub(super) fn stage_inputs(&mut self, f: &Function, entry: Block) -> R<()> {
        let params = f.dfg.block_params(entry).to_vec();
        let used = super::references::used_values(f);
        for (i, &p) in params.iter().enumerate() {
            let binding = f.signature.params[i]
                .binding
                .ok_or("entry parameter without a stage binding")?;
            if !used[p] && !forces_sample_shading(&binding) {
                continue;
            }
            let ty = f.dfg.value_type(p);
            let id = self.values[p].ok_or("an entry parameter without an id")?;
            match binding {
                StageBinding::Builtin(b) => {
                    let bi = input_builtin(&f.kind, b)
                        .ok_or_else(|| Bug::from(format!("built-in `{}` as an input", b.name())))?;
                    self.load_builtin(bi, ty, Some(id))?;
                }
                StageBinding::Location { .. } => {
                    let t = self.ty(ty)?;
                    let var = self.io_variable(StorageClass::Input, t);
                    self.interpolation(var, ty, &binding, &f.kind, StorageClass::Input)?;
                    self.op(Op::Load, Some(t), Some(id), vec![Operand::IdRef(var)])?;
                }
            }
        }
        Ok(())
    }

    /// Declares one `Output` variable per result of the entry point.
    pub(super) fn stage_outputs(&mut self, f: &Function) -> R<Vec<OutputVar>> {
        let mut outs = Vec::new();
        for result in &f.signature.returns {
            let binding = result
                .binding
                .ok_or("entry result without a stage binding")?;
            match binding {
                StageBinding::Builtin(b) => {
                    let bi = output_builtin(&f.kind, b).ok_or_else(|| {
                        Bug::from(format!("built-in `{}` as an output", b.name()))
                    })?;
                    let sample_mask = bi == BuiltIn::SampleMask;
                    let t = if sample_mask {
                        self.sample_mask_type()
                    } else {
                        self.ty(result.ty)?
                    };
                    let id = self.io_variable(StorageClass::Output, t);
                    self.b
                        .decorate(id, Decoration::BuiltIn, [Operand::BuiltIn(bi)]);
                    // The verifier admits `invariant` on a vertex position only.
                    if result.invariant {
                        self.b.decorate(id, Decoration::Invariant, []);
                    }
                    outs.push(OutputVar { id, sample_mask });
                }
                StageBinding::Location { .. } => {
                    let t = self.ty(result.ty)?;
                    let id = self.io_variable(StorageClass::Output, t);
                    self.interpolation(id, result.ty, &binding, &f.kind, StorageClass::Output)?;
                    outs.push(OutputVar {
                        id,
                        sample_mask: false,
                    });
                }
            }
        }
        Ok(outs)
    }

    /// Stores the returned values to the entry point's outputs.
    pub(super) fn store_outputs(&mut self, f: &Function, values: &[Value]) -> R<()> {
        let outs = self.outputs.clone();
        if outs.len() != values.len() {
            return Err("return with a different number of values than results".into());
        }
        for (out, &v) in outs.iter().zip(values) {
            let value = self.val(f, v)?;
            let ptr = if out.sample_mask {
                let u = self.type_int(32, 0);
                let pt = self.type_pointer(StorageClass::Output, u);
                let zero = self.const_u32(0);
                self.op(Op::AccessChain, Some(pt), None, Self::ids(&[out.id, zero]))?
            } else {
                out.id
            };
            self.op(Op::Store, None, None, Self::ids(&[ptr, value]))?;
        }
        Ok(())
    }
}

/// Whether declaring an input of `binding` makes a fragment shader run per sample
/// (`SampleId`, or `Sample` interpolation): such an input is declared even when unused,
/// because leaving it out would change the rate the stage runs at.
fn forces_sample_shading(binding: &StageBinding) -> bool {
    match binding {
        StageBinding::Builtin(b) => *b == Builtin::SampleIndex,
        StageBinding::Location { interpolation, .. } => {
            interpolation.is_some_and(|i| i.sampling == Sampling::Sample)
        }
    }
}
