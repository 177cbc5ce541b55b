//! Emitting the checks of a [`TexturePlan`]: each checked operand is compared (unsigned,
//! lane by lane) with the texture's own query — `texture_num_levels`,
//! `texture_dimensions` of the clamped level, `texture_num_layers`,
//! `texture_num_samples` — and clamped to that bound minus one, so the operation itself
//! never sees an out-of-range operand. Under `read-zero-skip-write` a load and a store
//! run under `cond_br ok` (a skipped load gives zero); under `restrict` (and for
//! `texture_dimensions`) the clamps are all. An operation that runs under `cond_br ok`
//! sees only in-range operands, so its operands are not clamped — except a level, which
//! the size query before the branch reads.

use super::super::plan::{Form, TextureBound, TexturePlan};
use super::super::BoundsChecksInfo;
use super::Emitter;
use oxir_ir::{Inst, Opcode, Scalar, ScalarKind, Type, TypeData, Value};

impl Emitter<'_> {
    /// Emits the checks of one texture operation.
    pub(super) fn texture(&mut self, plan: &TexturePlan, info: &mut BoundsChecksInfo) {
        let Some(texture) = self.arg(plan.inst, 0) else {
            return;
        };
        let test = plan.form != Form::ClampOnly;
        let mut conds = Vec::new();
        for &(pos, bound) in &plan.checks {
            let Some(operand) = self.arg(plan.inst, pos) else {
                continue;
            };
            let Some(limit) = self.texture_limit(plan, texture, bound, operand) else {
                continue;
            };
            let clamp = plan.form != Form::Branch || bound == TextureBound::Levels;
            let Some((ok, clamped)) = self.check_lanes(plan.inst, operand, limit, test, clamp)
            else {
                continue;
            };
            conds.extend(ok);
            self.set_arg(plan.inst, pos, clamped);
            info.texture_check_count += 1;
        }
        let Some(ok) = self.all(plan.inst, &conds) else {
            return;
        };
        self.guard(plan.inst, plan.form, ok, info);
    }

    /// The query bounding `operand` (u32 lanes, as many as `operand` has).
    fn texture_limit(
        &mut self,
        plan: &TexturePlan,
        texture: Value,
        bound: TextureBound,
        operand: Value,
    ) -> Option<Value> {
        let u32_ty = self.types.u32();
        let at = plan.inst;
        Some(match bound {
            TextureBound::Levels => self.before(at, Opcode::TextureNumLevels, &[texture], u32_ty),
            TextureBound::Layers => self.before(at, Opcode::TextureNumLayers, &[texture], u32_ty),
            TextureBound::Samples => self.before(at, Opcode::TextureNumSamples, &[texture], u32_ty),
            TextureBound::Size => {
                let (_, lanes) = self.lanes_of(self.func.dfg.value_type(operand))?;
                let ty = self.shaped(Scalar::U32, lanes);
                match plan.level_pos.and_then(|p| self.arg(at, p)) {
                    Some(level) => {
                        self.before(at, Opcode::TextureDimensions, &[texture, level], ty)
                    }
                    None => self.before(at, Opcode::TextureDimensions, &[texture], ty),
                }
            }
        })
    }

    /// The scalar and lane count of an integer scalar or vector type.
    fn lanes_of(&self, ty: Type) -> Option<(Scalar, u8)> {
        match self.types.get(ty) {
            TypeData::Scalar(s) if s.is_integer() => Some((*s, 1)),
            TypeData::Vector { elem, len } if elem.is_integer() => Some((*elem, *len)),
            // wildcard-ok: only integer scalars and vectors index a texture
            _ => None,
        }
    }

    /// `s`, or a vector of `lanes` of it.
    fn shaped(&mut self, s: Scalar, lanes: u8) -> Type {
        if lanes == 1 {
            self.types.scalar(s)
        } else {
            self.types.vector(s, lanes)
        }
    }

    /// Compares `operand` (integer, any width and signedness; a negative signed value is
    /// out of range) lane by lane with `limit` (u32 lanes): returns `all(operand <
    /// limit)` when `test`, and `min(operand, limit - 1)` in `operand`'s type when `clamp`
    /// (`operand` itself otherwise).
    fn check_lanes(
        &mut self,
        at: Inst,
        operand: Value,
        limit: Value,
        test: bool,
        clamp: bool,
    ) -> Option<(Option<Value>, Value)> {
        let original = self.func.dfg.value_type(operand);
        let (s, lanes) = self.lanes_of(original)?;
        let bits = s.bits.max(32);
        let wide = self.shaped(
            Scalar {
                kind: ScalarKind::Uint,
                bits,
            },
            lanes,
        );
        // Signed values are sign-extended before the unsigned view, so a negative one
        // stays out of range in any width.
        let same_kind_wide = self.shaped(Scalar { kind: s.kind, bits }, lanes);
        let extended = self.convert_to(at, operand, same_kind_wide);
        let unsigned = self.bitcast_to(at, extended, wide);
        let limit = self.convert_to(at, limit, wide);
        let ok = test.then(|| {
            let bool_ty = self.shaped(Scalar::BOOL, lanes);
            let lt = self.before(at, Opcode::Lt, &[unsigned, limit], bool_ty);
            if lanes == 1 {
                lt
            } else {
                let b = self.types.bool();
                self.before(at, Opcode::All, &[lt], b)
            }
        });
        if !clamp {
            return Some((ok, operand));
        }
        let clamped = {
            let one = self.constant(
                Scalar {
                    kind: ScalarKind::Uint,
                    bits,
                },
                1,
            );
            let one = if lanes == 1 {
                one
            } else {
                self.before(at, Opcode::Splat, &[one], wide)
            };
            let last = self.before(at, Opcode::Sub, &[limit, one], wide);
            let min = self.before(at, Opcode::Min, &[unsigned, last], wide);
            let narrow = self.shaped(
                Scalar {
                    kind: ScalarKind::Uint,
                    bits: s.bits,
                },
                lanes,
            );
            let narrow = self.convert_to(at, min, narrow);
            self.bitcast_to(at, narrow, original)
        };
        Some((ok, clamped))
    }

    /// `v` converted to `ty` (itself when it has that type).
    fn convert_to(&mut self, at: Inst, v: Value, ty: Type) -> Value {
        self.cast_to(at, Opcode::Convert, v, ty)
    }

    /// `v` bitcast to `ty` (itself when it has that type).
    fn bitcast_to(&mut self, at: Inst, v: Value, ty: Type) -> Value {
        self.cast_to(at, Opcode::Bitcast, v, ty)
    }

    fn cast_to(&mut self, at: Inst, op: Opcode, v: Value, ty: Type) -> Value {
        if self.func.dfg.value_type(v) == ty {
            v
        } else {
            self.before(at, op, &[v], ty)
        }
    }
}
