//! Entry points: stage, signature, and the mapping of naga's bound arguments and results.
//!
//! **Stages**: `compute` becomes a `kernel` with naga's workgroup size (a size set by
//! overrides is known once `overrides.rs` applied them; before that it is refused), `vertex` and `fragment` keep their kind; mesh, task and ray
//! tracing stages are refused, as is `@early_depth_test` (oxir has no place for it).
//!
//! **Flattening**: an argument or result with a binding becomes one oxir parameter or
//! result with that stage binding. A struct-typed argument (whose members carry the
//! bindings) becomes one parameter per member, and the entry block rebuilds the struct
//! value with `construct`; a struct-typed result becomes one oxir result per member, and
//! every `return` extracts the members.
//!
//! **Built-ins**: inputs oxir has a special register for are read from the register in
//! the entry block instead of becoming parameters (a signedness mismatch between the
//! naga type and the register's type is bridged with `bitcast`):
//!
//! | naga built-in (input) | oxir |
//! |---|---|
//! | `global_invocation_id` | `dispatch_id` |
//! | `local_invocation_id` | `thread_id` |
//! | `local_invocation_index` | `local_invocation_index` |
//! | `workgroup_id` | `workgroup_id` |
//! | `num_workgroups` | `num_workgroups` |
//! | `workgroup_size` | `workgroup_size` |
//! | `subgroup_invocation_id`, `subgroup_size` | `subgroup_invocation_id`, `subgroup_size` |
//! | `position` (fragment) | `frag_coord` |
//! | `front_facing` | `front_facing` |
//! | `vertex_index`, `instance_index`, `base_instance` | the registers of the same name |
//! | `sample_index` | `sample_index` |
//! | `primitive_index` | `primitive_id` |
//! | `base_vertex`, `sample_mask` | parameters with `builtin(base_vertex)` / `builtin(sample_mask)` |
//!
//! Outputs: `position` (`@invariant` sets the result's `invariant` flag), `frag_depth` and `sample_mask` become bound
//! results. Every other built-in (clip and cull distances, point size and coordinate,
//! view and draw index, barycentrics, subgroup ids, mesh and ray-tracing built-ins) is
//! refused. Locations keep their number, and vertex outputs and fragment inputs their
//! interpolation (naga gives every location a default; elsewhere it is dropped):
//! (`perspective`, `linear`,
//! `flat`; sampling `center`, `centroid`, `sample`; naga's flat-only samplings `first`
//! and `either` map to `center`, which flat interpolation ignores); per-vertex
//! interpolation, dual-source blending (`blend_src`) and per-primitive values are refused.

use crate::error::{LowerError, Result};
use crate::module::ModuleLowerer;
use naga::{Binding, BuiltIn, ShaderStage, Span, TypeInner};
use oxir_ir::function::{Interpolation, InterpolationKind, Sampling};
use oxir_ir::{AbiParam, Builtin, FunctionKind, Opcode, Signature, StageBinding, Type};

/// Where the value of one bound entry-point input comes from.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    /// The oxir parameter with this index.
    Param(usize),
    /// A special register, read in the entry block.
    Register(Opcode),
}

/// How one naga entry-point argument is rebuilt.
#[derive(Clone, Debug)]
pub(crate) enum ArgumentInput {
    /// A bound argument: `ty` is its oxir type.
    Value { input: Input, ty: Type },
    /// A struct of bound members, rebuilt with `construct`.
    Struct {
        ty: Type,
        members: Vec<(Input, Type)>,
    },
}

/// How a naga entry point's result is returned.
#[derive(Clone, Debug)]
pub(crate) enum ResultOutput {
    /// One bound value.
    Value,
    /// One oxir result per member of this many members.
    Struct { members: u32 },
}

/// The oxir signature of an entry point and how naga's arguments and result map to it.
#[derive(Clone, Debug)]
pub(crate) struct EntryInterface {
    pub signature: Signature,
    pub arguments: Vec<ArgumentInput>,
    pub result: Option<ResultOutput>,
}

enum BoundInput {
    Register(Opcode),
    Param(StageBinding),
}

pub(crate) fn builtin_name(builtin: BuiltIn) -> String {
    let debug = format!("{builtin:?}");
    // `Position { invariant: false }` -> `position`; `WorkGroupId` -> `work_group_id`.
    let head = debug.split_whitespace().next().unwrap_or("");
    let mut out = String::new();
    for (i, c) in head.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

fn unsupported_builtin(builtin: BuiltIn, direction: &str, span: Span) -> LowerError {
    LowerError::unsupported(
        format!("built-in {direction} `{}`", builtin_name(builtin)),
        span,
    )
}

fn input_builtin(builtin: BuiltIn, stage: ShaderStage, span: Span) -> Result<BoundInput> {
    use BoundInput::{Param, Register};
    Ok(match builtin {
        BuiltIn::GlobalInvocationId => Register(Opcode::DispatchId),
        BuiltIn::LocalInvocationId => Register(Opcode::ThreadId),
        BuiltIn::LocalInvocationIndex => Register(Opcode::LocalInvocationIndex),
        BuiltIn::WorkGroupId => Register(Opcode::WorkgroupId),
        BuiltIn::NumWorkGroups => Register(Opcode::NumWorkgroups),
        BuiltIn::WorkGroupSize => Register(Opcode::WorkgroupSize),
        BuiltIn::SubgroupInvocationId => Register(Opcode::SubgroupInvocationId),
        BuiltIn::SubgroupSize => Register(Opcode::SubgroupSize),
        BuiltIn::SubgroupId => Register(Opcode::SubgroupId),
        BuiltIn::NumSubgroups => Register(Opcode::NumSubgroups),
        BuiltIn::Position { .. } if stage == ShaderStage::Fragment => Register(Opcode::FragCoord),
        BuiltIn::FrontFacing => Register(Opcode::FrontFacing),
        BuiltIn::VertexIndex => Register(Opcode::VertexIndex),
        BuiltIn::InstanceIndex => Register(Opcode::InstanceIndex),
        BuiltIn::BaseInstance => Register(Opcode::BaseInstance),
        BuiltIn::SampleIndex => Register(Opcode::SampleIndex),
        BuiltIn::PrimitiveIndex => Register(Opcode::PrimitiveId),
        BuiltIn::BaseVertex => Param(StageBinding::Builtin(Builtin::BaseVertex)),
        BuiltIn::SampleMask => Param(StageBinding::Builtin(Builtin::SampleMask)),
        other => return Err(unsupported_builtin(other, "input", span)),
    })
}

fn output_builtin(builtin: BuiltIn, span: Span) -> Result<StageBinding> {
    Ok(StageBinding::Builtin(match builtin {
        // `@invariant` is the result's `invariant` flag (set by the caller).
        BuiltIn::Position { .. } => Builtin::Position,
        BuiltIn::FragDepth => Builtin::FragDepth,
        BuiltIn::SampleMask => Builtin::SampleMask,
        other => return Err(unsupported_builtin(other, "output", span)),
    }))
}

fn location_binding(
    location: u32,
    interpolation: Option<naga::Interpolation>,
    sampling: Option<naga::Sampling>,
    span: Span,
) -> Result<StageBinding> {
    let kind = match interpolation {
        None => None,
        Some(naga::Interpolation::Perspective) => Some(InterpolationKind::Perspective),
        Some(naga::Interpolation::Linear) => Some(InterpolationKind::Linear),
        Some(naga::Interpolation::Flat) => Some(InterpolationKind::Flat),
        Some(naga::Interpolation::PerVertex) => {
            return Err(LowerError::unsupported("per-vertex interpolation", span))
        }
    };
    let sampling = match sampling {
        None | Some(naga::Sampling::Center | naga::Sampling::First | naga::Sampling::Either) => {
            Sampling::Center
        }
        Some(naga::Sampling::Centroid) => Sampling::Centroid,
        Some(naga::Sampling::Sample) => Sampling::Sample,
    };
    Ok(StageBinding::Location {
        location,
        interpolation: kind.map(|kind| Interpolation { kind, sampling }),
    })
}

/// A `Location` binding, or the refusal of its unsupported flavours.
fn location(binding: &Binding, span: Span) -> Result<Option<StageBinding>> {
    match *binding {
        Binding::BuiltIn(_) => Ok(None),
        Binding::Location {
            location,
            interpolation,
            sampling,
            blend_src,
            per_primitive,
        } => {
            if blend_src.is_some() {
                return Err(LowerError::unsupported(
                    "dual-source blending (`blend_src`)",
                    span,
                ));
            }
            if per_primitive {
                return Err(LowerError::unsupported(
                    "per-primitive value (mesh shaders)",
                    span,
                ));
            }
            location_binding(location, interpolation, sampling, span).map(Some)
        }
    }
}

/// `binding` without its interpolation unless `keep`.
fn keep_interpolation(binding: StageBinding, keep: bool) -> StageBinding {
    match binding {
        StageBinding::Location { location, .. } if !keep => StageBinding::Location {
            location,
            interpolation: None,
        },
        other => other,
    }
}

/// The function kind, signature and argument/result mapping of `entry`.
/// A workgroup size within the verifier's documented maximum, refused here (with the
/// shader's location) rather than as a lowered module that does not verify.
fn check_workgroup_size(size: [u32; 3], span: Span) -> Result<()> {
    use oxir_ir::verifier::{MAX_WORKGROUP_INVOCATIONS, MAX_WORKGROUP_SIZE};
    let invocations: u64 = size.iter().map(|&d| u64::from(d)).product();
    let within = size
        .iter()
        .zip(MAX_WORKGROUP_SIZE)
        .all(|(&d, max)| d <= max);
    if within && invocations <= MAX_WORKGROUP_INVOCATIONS {
        return Ok(());
    }
    let [mx, my, mz] = MAX_WORKGROUP_SIZE;
    Err(LowerError::unsupported(
        format!(
            "workgroup size {}x{}x{} ({invocations} invocations; the limits are \
             MAX_WORKGROUP_SIZE {mx}x{my}x{mz} and MAX_WORKGROUP_INVOCATIONS \
             {MAX_WORKGROUP_INVOCATIONS})",
            size[0], size[1], size[2]
        ),
        span,
    ))
}

/// A compute entry's workgroup size, and the specialization id of each dimension an
/// override sets when overrides are kept as specialization constants (its default is the
/// override's). Without a plan, overrides must have been applied (`overrides.rs`).
fn kernel_size(
    m: &ModuleLowerer<'_>,
    entry: &naga::EntryPoint,
    span: Span,
) -> Result<([u32; 3], [Option<u32>; 3])> {
    let Some(overrides) = entry.workgroup_size_overrides else {
        return Ok((entry.workgroup_size, [None; 3]));
    };
    let refuse = |what: String| Err(LowerError::unsupported(what, span));
    let Some(plan) = &m.spec_constants else {
        return refuse("workgroup size set by a pipeline-overridable constant".into());
    };
    let mut size = entry.workgroup_size;
    let mut ids = [None; 3];
    for (dim, expr) in overrides.iter().enumerate() {
        let Some(expr) = *expr else { continue };
        let naga::Expression::Override(handle) = m.naga.global_expressions[expr] else {
            return refuse("workgroup size computed from pipeline-overridable constants".into());
        };
        let Some((id, value)) = plan.get(handle) else {
            return refuse("workgroup size set by an override the plan does not know".into());
        };
        size[dim] = match value {
            crate::OverrideValue::U32(n) => n,
            crate::OverrideValue::I32(n) if n > 0 => n.unsigned_abs(),
            other => return refuse(format!("workgroup size default {other:?}")),
        };
        ids[dim] = Some(id);
    }
    Ok((size, ids))
}

pub(crate) fn entry_interface(
    m: &mut ModuleLowerer<'_>,
    entry: &naga::EntryPoint,
) -> Result<(FunctionKind, EntryInterface)> {
    let span = entry
        .function
        .body
        .span_iter()
        .next()
        .map_or(Span::UNDEFINED, |(_, s)| *s);
    let kind = match entry.stage {
        ShaderStage::Compute => {
            let (workgroup_size, workgroup_spec_ids) = kernel_size(m, entry, span)?;
            check_workgroup_size(workgroup_size, span)?;
            FunctionKind::Kernel {
                workgroup_size,
                workgroup_spec_ids,
            }
        }
        ShaderStage::Vertex => FunctionKind::Vertex,
        ShaderStage::Fragment => FunctionKind::Fragment,
        other => {
            return Err(LowerError::unsupported(
                format!("{} shader stage", format!("{other:?}").to_lowercase()),
                span,
            ))
        }
    };
    if entry.early_depth_test.is_some() {
        return Err(LowerError::unsupported("`@early_depth_test`", span));
    }
    let stage = entry.stage;
    let mut signature = Signature::default();
    // Interpolation means something only between the vertex and fragment stages; naga's
    // front-ends give every location a default, which is dropped elsewhere.
    let interpolated_inputs = stage == ShaderStage::Fragment;
    let interpolated_outputs = stage == ShaderStage::Vertex;
    let input = |signature: &mut Signature, binding: &Binding, ty: Type| -> Result<Input> {
        let bound = match binding {
            Binding::BuiltIn(builtin) => input_builtin(*builtin, stage, span)?,
            Binding::Location { .. } => {
                let Some(location) = location(binding, span)? else {
                    return Err(LowerError::internal("location expected", span));
                };
                BoundInput::Param(keep_interpolation(location, interpolated_inputs))
            }
        };
        Ok(match bound {
            BoundInput::Register(op) => Input::Register(op),
            BoundInput::Param(binding) => {
                signature.params.push(AbiParam::bound(ty, binding));
                Input::Param(signature.params.len() - 1)
            }
        })
    };
    let mut arguments = Vec::with_capacity(entry.function.arguments.len());
    for argument in &entry.function.arguments {
        let ty = m.lower_type(argument.ty)?;
        match &argument.binding {
            Some(binding) => {
                let input = input(&mut signature, binding, ty)?;
                arguments.push(ArgumentInput::Value { input, ty });
            }
            None => {
                let TypeInner::Struct { members, .. } = &m.naga.types[argument.ty].inner else {
                    return Err(LowerError::internal(
                        "unbound non-struct entry argument",
                        span,
                    ));
                };
                let mut inputs = Vec::with_capacity(members.len());
                for member in members {
                    let member_ty = m.lower_type(member.ty)?;
                    let Some(binding) = &member.binding else {
                        return Err(LowerError::internal("unbound entry struct member", span));
                    };
                    inputs.push((input(&mut signature, binding, member_ty)?, member_ty));
                }
                arguments.push(ArgumentInput::Struct {
                    ty,
                    members: inputs,
                });
            }
        }
    }
    let output = |binding: &Binding, ty: Type| -> Result<AbiParam> {
        let invariant = matches!(
            binding,
            Binding::BuiltIn(BuiltIn::Position { invariant: true })
        );
        let binding = match binding {
            Binding::BuiltIn(builtin) => output_builtin(*builtin, span)?,
            Binding::Location { .. } => match location(binding, span)? {
                Some(location) => keep_interpolation(location, interpolated_outputs),
                None => return Err(LowerError::internal("location expected", span)),
            },
        };
        let param = AbiParam::bound(ty, binding);
        Ok(if invariant { param.invariant() } else { param })
    };
    let result = match &entry.function.result {
        None => None,
        Some(result) => {
            let ty = m.lower_type(result.ty)?;
            match &result.binding {
                Some(binding) => {
                    signature.returns.push(output(binding, ty)?);
                    Some(ResultOutput::Value)
                }
                None => {
                    let TypeInner::Struct { members, .. } = &m.naga.types[result.ty].inner else {
                        return Err(LowerError::internal(
                            "unbound non-struct entry result",
                            span,
                        ));
                    };
                    for member in members {
                        let member_ty = m.lower_type(member.ty)?;
                        let Some(binding) = &member.binding else {
                            return Err(LowerError::internal("unbound entry struct member", span));
                        };
                        signature.returns.push(output(binding, member_ty)?);
                    }
                    Some(ResultOutput::Struct {
                        members: members.len() as u32,
                    })
                }
            }
        }
    };
    Ok((
        kind,
        EntryInterface {
            signature,
            arguments,
            result,
        },
    ))
}
