//! naga constant expressions to interned oxir constants.
//!
//! naga's constant evaluator folds every constant and override-free expression down to
//! `Literal`, `ZeroValue`, `Compose` and `Splat` (plus `Constant` references); those, and
//! the projections `Swizzle`, `Access` / `AccessIndex` with constant operands, become oxir
//! constants here:
//!
//! | naga expression | oxir constant |
//! |---|---|
//! | `Literal` (`bool`, `i16`..`u64`, `f16`..`f64`) | scalar, canonical bits (abstract literals: refused) |
//! | `ZeroValue(T)` | `zero` of `T` |
//! | `Constant(c)` | the constant's initializer |
//! | `Compose` | composite; vector parts are flattened to one element per lane |
//! | `Splat` | composite of copies |
//! | `Swizzle`, `Access`, `AccessIndex` of constants | the selected elements |
//! | `Override` | refused: `overrides.rs` replaces overrides with constants before lowering |
//!
//! Anything else is not a constant *form*: [`ModuleLowerer::const_expression`] answers
//! `Ok(None)`, module-scope initializers refuse it, and function bodies evaluate it with
//! instructions instead.

use crate::error::{LowerError, Result};
use crate::module::ModuleLowerer;
use naga::{Arena, Expression, Handle, Literal, Span};
use oxir_ir::{Const, ConstKind, Scalar, Type, TypeData};

/// Per-arena memo of constant expressions.
pub(crate) type ConstCache = Vec<Option<Const>>;

impl ModuleLowerer<'_> {
    /// The oxir constant holding naga constant `handle`'s value.
    pub(crate) fn lower_constant(&mut self, handle: Handle<naga::Constant>) -> Result<Const> {
        let init = self.naga.constants[handle].init;
        self.lower_global_expression(init)
    }

    /// A module-scope (constant) expression as an oxir constant.
    pub(crate) fn lower_global_expression(&mut self, handle: Handle<Expression>) -> Result<Const> {
        let arena = &self.naga.global_expressions;
        let mut cache = std::mem::take(&mut self.global_consts);
        let result = self.const_expression(arena, handle, &mut cache);
        self.global_consts = cache;
        let span = arena.get_span(handle);
        result?.ok_or_else(|| {
            let feature = if mentions_override(arena, handle) {
                "pipeline-overridable constant".to_string()
            } else {
                format!(
                    "constant expression `{}` that naga did not evaluate",
                    expression_name(&arena[handle])
                )
            };
            LowerError::unsupported(feature, span)
        })
    }

    fn scalar_const(&mut self, scalar: Scalar, bits: u64) -> Const {
        self.out.const_scalar(scalar, bits)
    }

    fn literal(&mut self, literal: Literal, span: Span) -> Result<Const> {
        Ok(match literal {
            Literal::F64(v) => self.scalar_const(Scalar::F64, v.to_bits()),
            Literal::F32(v) => self.scalar_const(Scalar::F32, u64::from(v.to_bits())),
            Literal::F16(v) => self.scalar_const(Scalar::F16, u64::from(v.to_bits())),
            Literal::U16(v) => self.scalar_const(Scalar::U16, u64::from(v)),
            Literal::I16(v) => self.scalar_const(Scalar::I16, v as i64 as u64),
            Literal::U32(v) => self.scalar_const(Scalar::U32, u64::from(v)),
            Literal::I32(v) => self.scalar_const(Scalar::I32, v as i64 as u64),
            Literal::U64(v) => self.scalar_const(Scalar::U64, v),
            Literal::I64(v) => self.scalar_const(Scalar::I64, v as u64),
            Literal::Bool(v) => self.scalar_const(Scalar::BOOL, u64::from(v)),
            Literal::AbstractInt(_) | Literal::AbstractFloat(_) => {
                return Err(LowerError::unsupported("abstract numeric literal", span))
            }
        })
    }

    /// The elements of a composite constant (one per lane, column, element or member),
    /// or `None` for scalars.
    pub(crate) fn const_elements(&mut self, c: Const) -> Option<Vec<Const>> {
        let data = self.out.consts.try_get(c)?.clone();
        let count = match self.out.types.try_get(data.ty)? {
            TypeData::Vector { len, .. } => u32::from(*len),
            TypeData::Matrix { columns, .. } => u32::from(*columns),
            TypeData::Array { len, .. } => *len,
            TypeData::Struct(st) => st.members.len() as u32,
            _ => return None,
        };
        match data.kind {
            ConstKind::Composite(elements) => Some(elements),
            kind @ (ConstKind::Zero | ConstKind::Undef) => (0..count)
                .map(|i| {
                    let ty = self.out.types.element_type(data.ty, i)?;
                    Some(match kind {
                        ConstKind::Zero => self.out.const_zero(ty),
                        _ => self.out.const_undef(ty),
                    })
                })
                .collect(),
            ConstKind::Scalar(_) => None,
        }
    }

    fn const_type(&self, c: Const) -> Option<Type> {
        self.out.consts.try_get(c).map(|d| d.ty)
    }

    /// `handle` of `arena` as a constant, or `Ok(None)` when it is not a constant form.
    pub(crate) fn const_expression(
        &mut self,
        arena: &Arena<Expression>,
        handle: Handle<Expression>,
        cache: &mut ConstCache,
    ) -> Result<Option<Const>> {
        if cache.len() < arena.len() {
            cache.resize(arena.len(), None);
        }
        if let Some(c) = cache[handle.index()] {
            return Ok(Some(c));
        }
        let span = arena.get_span(handle);
        let mut sub = |this: &mut Self, h: Handle<Expression>| -> Result<Option<Const>> {
            this.const_expression(arena, h, cache)
        };
        let result = match arena[handle] {
            Expression::Literal(literal) => Some(self.literal(literal, span)?),
            Expression::Constant(c) => Some(self.lower_constant(c)?),
            Expression::ZeroValue(ty) => {
                let ty = self.lower_type(ty).map_err(|e| e.or_span(span))?;
                Some(self.out.const_zero(ty))
            }
            // A kept override is a value the function computes (`spec_constant`).
            Expression::Override(_) if self.spec_constants.is_some() => return Ok(None),
            Expression::Override(_) => {
                return Err(LowerError::unsupported(
                    "pipeline-overridable constant",
                    span,
                ))
            }
            Expression::Compose { ty, ref components } => {
                let ty = self.lower_type(ty).map_err(|e| e.or_span(span))?;
                let mut parts = Vec::with_capacity(components.len());
                for &component in components {
                    let Some(c) = sub(self, component)? else {
                        return Ok(None);
                    };
                    parts.push(c);
                }
                let elements = if matches!(self.out.types.get(ty), TypeData::Vector { .. }) {
                    let mut lanes = Vec::new();
                    for part in parts {
                        match self.const_elements(part) {
                            Some(inner) => lanes.extend(inner),
                            None => lanes.push(part),
                        }
                    }
                    lanes
                } else {
                    parts
                };
                Some(self.out.const_composite(ty, elements))
            }
            Expression::Splat { size, value } => {
                let Some(c) = sub(self, value)? else {
                    return Ok(None);
                };
                let Some(scalar_ty) = self.const_type(c) else {
                    return Ok(None);
                };
                let Some(&TypeData::Scalar(s)) = self.out.types.try_get(scalar_ty) else {
                    return Ok(None);
                };
                let ty = self.out.types.vector(s, size as u8);
                Some(self.out.const_composite(ty, vec![c; size as usize]))
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let Some(c) = sub(self, vector)? else {
                    return Ok(None);
                };
                let (Some(lanes), Some(vector_ty)) = (self.const_elements(c), self.const_type(c))
                else {
                    return Ok(None);
                };
                let Some(&TypeData::Vector { elem, .. }) = self.out.types.try_get(vector_ty) else {
                    return Ok(None);
                };
                let picked: Option<Vec<Const>> = pattern[..size as usize]
                    .iter()
                    .map(|&p| lanes.get(p as usize).copied())
                    .collect();
                let Some(picked) = picked else {
                    return Ok(None);
                };
                let ty = self.out.types.vector(elem, size as u8);
                Some(self.out.const_composite(ty, picked))
            }
            Expression::AccessIndex { base, index } => {
                let base = sub(self, base)?;
                self.const_element(base, Some(u64::from(index)))
            }
            Expression::Access { base, index } => {
                let base = sub(self, base)?;
                let index = sub(self, index)?
                    .and_then(|c| self.out.const_scalar_value(c))
                    .filter(|(s, _)| s.is_integer())
                    .map(|(_, bits)| bits);
                self.const_element(base, index)
            }
            _ => None,
        };
        if let Some(c) = result {
            cache[handle.index()] = Some(c);
        }
        Ok(result)
    }

    fn const_element(&mut self, base: Option<Const>, index: Option<u64>) -> Option<Const> {
        let elements = self.const_elements(base?)?;
        elements.get(usize::try_from(index?).ok()?).copied()
    }
}

/// Whether expression `handle` of `arena` depends on a pipeline-overridable constant.
fn mentions_override(arena: &Arena<Expression>, handle: Handle<Expression>) -> bool {
    let mut stack = vec![handle];
    let mut seen = std::collections::HashSet::new();
    while let Some(h) = stack.pop() {
        if !seen.insert(h) {
            continue;
        }
        if let Expression::Override(_) = arena[h] {
            return true;
        }
        crate::loops::for_each_operand(&arena[h], |operand| stack.push(operand));
    }
    false
}

/// The variant name of a naga expression, for diagnostics.
pub(crate) fn expression_name(expression: &Expression) -> &'static str {
    match expression {
        Expression::Literal(_) => "Literal",
        Expression::Constant(_) => "Constant",
        Expression::Override(_) => "Override",
        Expression::ZeroValue(_) => "ZeroValue",
        Expression::Compose { .. } => "Compose",
        Expression::Access { .. } => "Access",
        Expression::AccessIndex { .. } => "AccessIndex",
        Expression::Splat { .. } => "Splat",
        Expression::Swizzle { .. } => "Swizzle",
        Expression::FunctionArgument(_) => "FunctionArgument",
        Expression::GlobalVariable(_) => "GlobalVariable",
        Expression::LocalVariable(_) => "LocalVariable",
        Expression::Load { .. } => "Load",
        Expression::ImageSample { .. } => "ImageSample",
        Expression::ImageLoad { .. } => "ImageLoad",
        Expression::ImageQuery { .. } => "ImageQuery",
        Expression::Unary { .. } => "Unary",
        Expression::Binary { .. } => "Binary",
        Expression::Select { .. } => "Select",
        Expression::Derivative { .. } => "Derivative",
        Expression::Relational { .. } => "Relational",
        Expression::Math { .. } => "Math",
        Expression::As { .. } => "As",
        Expression::CallResult(_) => "CallResult",
        Expression::AtomicResult { .. } => "AtomicResult",
        Expression::WorkGroupUniformLoadResult { .. } => "WorkGroupUniformLoadResult",
        Expression::ArrayLength(_) => "ArrayLength",
        Expression::RayQueryVertexPositions { .. } => "RayQueryVertexPositions",
        Expression::RayQueryProceedResult => "RayQueryProceedResult",
        Expression::RayQueryGetIntersection { .. } => "RayQueryGetIntersection",
        Expression::SubgroupBallotResult => "SubgroupBallotResult",
        Expression::SubgroupOperationResult { .. } => "SubgroupOperationResult",
        Expression::CooperativeLoad { .. } => "CooperativeLoad",
        Expression::CooperativeMultiplyAdd { .. } => "CooperativeMultiplyAdd",
    }
}
