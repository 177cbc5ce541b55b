//! Planning the checks of texture operands: which coordinates, layers, levels and sample
//! indices of `texture_load`, `texture_store` and `texture_dimensions` need one.
//!
//! A texture always has at least one texel, level, layer and sample, so a layer, level or
//! sample index that is the constant 0 is in range (counted redundant), and so is an
//! operand already clamped by this pass, `min(x, query - 1)` (through `bitcast` /
//! `convert`) with the operation's own query (the same texture, and for the size the
//! same level), and so is an operand the operation only sees under a guard of this pass:
//! it sits in a block entered by the then-edge of a `cond_br` whose condition (split at
//! `and`) includes `lt view, query` or `all(lt view, query)` with that query (`view`: the
//! operand or its unsigned `bitcast`) — a guarded store's operands are not clamped.
//! Either way a second run changes nothing. Any other coordinate is
//! checked: its bound is only known when the kernel runs. The
//! coordinate of a cube `texture_load` (which no front-end produces: WGSL and GLSL have no
//! such load) is not checked; its level is.

use super::{BoundsChecksInfo, BoundsPolicy, Facts, Form, Policy};
use oxir_ir::types::TextureDim;
use oxir_ir::{Inst, Opcode, TextureOp, TypeData, Value};

/// What bounds one texture operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(in crate::passes::bounds_checks) enum TextureBound {
    /// `texture_num_levels`.
    Levels,
    /// `texture_dimensions` (of the operation's level, when it has one).
    Size,
    /// `texture_num_layers`.
    Layers,
    /// `texture_num_samples`.
    Samples,
}

/// The checks of one texture operation.
#[derive(Clone, Debug)]
pub(in crate::passes::bounds_checks) struct TexturePlan {
    pub inst: Inst,
    /// Operand positions and their bounds, the level first (the size bound is the size
    /// of the clamped level).
    pub checks: Vec<(usize, TextureBound)>,
    /// The level operand of a single-sampled sampled `texture_load`.
    pub level_pos: Option<usize>,
    /// `Branch` for a load and a store under `read-zero-skip-write` (texture loads are
    /// not `select`ed: the branch needs no clamped coordinate, 3–5% fewer SPIR-V words
    /// on the texture-heavy shaders),
    /// `ClampOnly` under `restrict` and for `texture_dimensions`.
    pub form: Form,
}

/// The plan of the texture operation `inst`; `None` when it needs no check.
pub(in crate::passes::bounds_checks) fn plan_texture(
    facts: &Facts<'_>,
    inst: Inst,
    policy: &BoundsPolicy,
    info: &mut BoundsChecksInfo,
) -> Option<TexturePlan> {
    let pol = policy.textures;
    if pol == Policy::Unchecked {
        return None;
    }
    let data = facts.func.dfg.inst(inst);
    let texture = *data.args.first()?;
    let (shape, sampled) = match facts.types.get(facts.func.dfg.value_type(texture)) {
        TypeData::Texture { shape, .. } => (*shape, true),
        TypeData::StorageTexture { shape, .. } => (*shape, false),
        // wildcard-ok: the verifier admits only textures as operand 0
        _ => return None,
    };
    let layer = usize::from(shape.arrayed);
    let coordinate_checked = shape.dim != TextureDim::Cube;
    let mut checks = Vec::new();
    let mut level_pos = None;
    let form = match data.opcode.texture_op()? {
        TextureOp::Dimensions => {
            if data.args.len() == 2 {
                checks.push((1, TextureBound::Levels));
            }
            Form::ClampOnly
        }
        TextureOp::Load => {
            if sampled {
                let pos = 2 + layer;
                if shape.multisampled {
                    checks.push((pos, TextureBound::Samples));
                } else {
                    level_pos = Some(pos);
                    checks.push((pos, TextureBound::Levels));
                }
            }
            if coordinate_checked {
                checks.push((1, TextureBound::Size));
            }
            if shape.arrayed {
                checks.push((2, TextureBound::Layers));
            }
            Form::Branch
        }
        TextureOp::Store => {
            if coordinate_checked {
                checks.push((1, TextureBound::Size));
            }
            if shape.arrayed {
                checks.push((2, TextureBound::Layers));
            }
            Form::Branch
        }
        // Sampling clamps (or wraps) its coordinates and layer itself.
        TextureOp::Sample
        | TextureOp::SampleBias
        | TextureOp::SampleLevel
        | TextureOp::SampleGrad
        | TextureOp::SampleCompare
        | TextureOp::SampleCompareLevel
        | TextureOp::Gather
        | TextureOp::GatherCompare
        // The count queries have no index.
        | TextureOp::NumLevels
        | TextureOp::NumLayers
        | TextureOp::NumSamples => return None,
    };
    let level = level_pos.and_then(|p| data.args.get(p).copied());
    let known = facts
        .block_of(inst)
        .map(|b| facts.known_at(b))
        .unwrap_or_default();
    checks.retain(|&(pos, bound)| {
        let Some(&operand) = data.args.get(pos) else {
            return false;
        };
        let zero = bound != TextureBound::Size && facts.const_u64(operand) == Some(0);
        let redundant = zero
            || clamped_by_query(facts, operand, texture, bound, level)
            || guarded_by(facts, &known, operand, texture, bound, level);
        if redundant {
            info.texture_redundant_count += 1;
        }
        !redundant
    });
    if checks.is_empty() {
        return None;
    }
    let form = match pol {
        Policy::ReadZeroSkipWrite => form,
        Policy::Restrict | Policy::Unchecked => Form::ClampOnly,
    };
    Some(TexturePlan {
        inst,
        checks,
        level_pos,
        form,
    })
}

/// Whether `operand` is `min(x, q - 1)` (seen through casts) where `q` is `bound`'s query
/// of `texture` (for the size: at `level`, the operation's level operand).
fn clamped_by_query(
    facts: &Facts<'_>,
    operand: Value,
    texture: Value,
    bound: TextureBound,
    level: Option<Value>,
) -> bool {
    let query = query_of(bound);
    let mut v = operand;
    for _ in 0..3 {
        match facts.def(v) {
            Some(d) if matches!(d.opcode, Opcode::Bitcast | Opcode::Convert) => {
                let Some(&x) = d.args.first() else {
                    return false;
                };
                v = x;
            }
            Some(_) | None => break,
        }
    }
    let Some(min) = facts.def(v).filter(|d| d.opcode == Opcode::Min) else {
        return false;
    };
    min.args.iter().any(|&a| {
        let Some(sub) = facts.def(a).filter(|d| d.opcode == Opcode::Sub) else {
            return false;
        };
        let is_one = |x: Value| {
            facts.const_u64(x) == Some(1)
                || facts.def(x).is_some_and(|d| {
                    d.opcode == Opcode::Splat
                        && d.args.first().and_then(|&c| facts.const_u64(c)) == Some(1)
                })
        };
        let Some((&q, &one)) = sub.args.first().zip(sub.args.get(1)) else {
            return false;
        };
        is_one(one) && is_query(facts, q, query, texture, bound, level)
    })
}

/// Whether one of the `known` conditions says `operand < query` lane by lane (see the
/// module documentation).
fn guarded_by(
    facts: &Facts<'_>,
    known: &[Value],
    operand: Value,
    texture: Value,
    bound: TextureBound,
    level: Option<Value>,
) -> bool {
    let query = query_of(bound);
    known.iter().any(|&fact| {
        let cond = match facts.def(fact) {
            Some(d) if d.opcode == Opcode::All => match d.args.first() {
                Some(&lanes) => lanes,
                None => return false,
            },
            Some(_) | None => fact,
        };
        let Some(lt) = facts.def(cond).filter(|d| d.opcode == Opcode::Lt) else {
            return false;
        };
        let [view, limit] = lt.args.as_slice() else {
            return false;
        };
        // The operand, or its unsigned view: `bitcast operand`, or `bitcast (convert
        // operand)` for a narrow one (as `check_lanes` builds it).
        let is_operand = |x: Value| {
            facts.same(x, operand)
                || (facts.widens(x, operand)
                    && facts.def(x).is_some_and(|d| {
                        d.opcode == Opcode::Convert
                            && d.args.first().is_some_and(|&y| facts.same(y, operand))
                    }))
        };
        let is_view = is_operand(*view)
            || facts.def(*view).is_some_and(|d| {
                d.opcode == Opcode::Bitcast && d.args.first().is_some_and(|&x| is_operand(x))
            });
        is_view && facts.is_unsigned(*view) && is_query(facts, *limit, query, texture, bound, level)
    })
}

/// The query that bounds an operand of kind `bound`.
fn query_of(bound: TextureBound) -> Opcode {
    match bound {
        TextureBound::Levels => Opcode::TextureNumLevels,
        TextureBound::Size => Opcode::TextureDimensions,
        TextureBound::Layers => Opcode::TextureNumLayers,
        TextureBound::Samples => Opcode::TextureNumSamples,
    }
}

/// Whether `q` is `query texture` (for the size: at `level`, possibly through a widening
/// `convert`).
fn is_query(
    facts: &Facts<'_>,
    q: Value,
    query: Opcode,
    texture: Value,
    bound: TextureBound,
    level: Option<Value>,
) -> bool {
    let q = match facts.def(q) {
        Some(d) if d.opcode == Opcode::Convert => match d.args.first() {
            Some(&x) => x,
            None => return false,
        },
        Some(_) | None => q,
    };
    facts.def(q).is_some_and(|d| {
        let same_texture = d.args.first().is_some_and(|&t| facts.same(t, texture));
        let same_level = bound != TextureBound::Size
            || match (d.args.get(1), level) {
                (None, None) => true,
                (Some(&a), Some(b)) => facts.same(a, b),
                (Some(_), None) | (None, Some(_)) => false,
            };
        d.opcode == query && same_texture && same_level
    })
}
