//! naga expressions to oxir instructions (math in [`crate::math`], textures in
//! [`crate::images`]).
//!
//! | naga expression | oxir |
//! |---|---|
//! | `Literal`, `Constant`, `ZeroValue` | constants ([`crate::constants`]) |
//! | `Compose` | `construct` (a one-part vector of its own type is the part itself) |
//! | `Access` / `AccessIndex` on a pointer | `access ptr, index` (struct members by `u32` constant) |
//! | `Access` / `AccessIndex` on a value | `extract_dynamic` / `extract` |
//! | `Splat` | `splat` |
//! | `Swizzle` | `shuffle v, v, lanes` |
//! | `FunctionArgument`, `LocalVariable`, `GlobalVariable` | parameter (or entry-block value), `alloca`, global address (texture and sampler globals: their loaded value) |
//! | `Load` | `load`; `atomic_load` through a pointer to an atomic |
//! | `Unary` `-` / `!` / `~` | `neg` / `not` / `not` |
//! | `Binary` | `add sub mul div rem eq ne lt le gt ge and or xor shl shr`; `&&` / `\|\|` are `and` / `or` of bools; `*` of matrices and vectors is `matrix_times_matrix`, `matrix_times_vector`, `vector_times_matrix`, `matrix_times_scalar`; a scalar mixed with a vector is splatted first |
//! | `Select` | `select` |
//! | `Derivative` | `dpdx dpdy fwidth` and their `_coarse` / `_fine` forms |
//! | `Relational` | `all any is_nan is_inf` |
//! | `As` with a width | `convert` (matrices column by column); without one, `bitcast` |
//! | `ArrayLength` | `array_length` |
//! | `CallResult`, `AtomicResult`, `WorkGroupUniformLoadResult`, `SubgroupBallotResult`, `SubgroupOperationResult` | the value their statement made |
//! | `Override` | refused: `overrides.rs` replaces overrides with constants before lowering |
//! | ray-query and cooperative-matrix expressions | refused |

use crate::error::{LowerError, Result};
use crate::function::FunctionLowerer;
use naga::{
    BinaryOperator, DerivativeAxis, DerivativeControl, Expression, Handle, RelationalFunction,
    TypeInner, UnaryOperator,
};
use oxir_ir::{Opcode, Scalar, TypeData, Value};

impl FunctionLowerer<'_, '_> {
    /// Evaluates expression `handle` with instructions at the current point.
    pub(crate) fn lower_expression(&mut self, handle: Handle<Expression>) -> Result<Value> {
        let span = self.function.expressions.get_span(handle);
        let result = self.lower_expression_inner(handle);
        result.map_err(|e| e.or_span(span))
    }

    fn lower_expression_inner(&mut self, handle: Handle<Expression>) -> Result<Value> {
        let span = self.function.expressions.get_span(handle);
        match self.function.expressions[handle] {
            Expression::Literal(_) | Expression::Constant(_) | Expression::ZeroValue(_) => {
                match self.constant_of(handle)? {
                    Some(c) => Ok(self.const_value(c)),
                    None => Err(LowerError::internal("constant that is not constant", span)),
                }
            }
            Expression::Override(_) => Err(LowerError::unsupported(
                "pipeline-overridable constant",
                span,
            )),
            Expression::Compose { ty, ref components } => {
                let ty = self.m.lower_type(ty)?;
                let mut parts = Vec::with_capacity(components.len());
                for &component in components {
                    parts.push(self.value_of(component)?);
                }
                if let [only] = parts[..] {
                    if self.value_type(only) == ty {
                        return Ok(only);
                    }
                }
                self.op_typed(Opcode::Construct, &parts, ty)
            }
            Expression::Access { base, index } => {
                let is_pointer = self.is_pointer(base)?;
                let base = self.value_of(base)?;
                let index = self.value_of(index)?;
                if is_pointer {
                    self.op(Opcode::Access, &[base, index])
                } else {
                    self.op(Opcode::ExtractDynamic, &[base, index])
                }
            }
            Expression::AccessIndex { base, index } => {
                let is_pointer = self.is_pointer(base)?;
                let base = self.value_of(base)?;
                if is_pointer {
                    let index = self.u32_const(index);
                    self.op(Opcode::Access, &[base, index])
                } else {
                    self.op_indices(Opcode::Extract, &[base], &[index])
                }
            }
            Expression::Splat { size, value } => {
                let value = self.value_of(value)?;
                let Some((scalar, 1)) = self.shape(value) else {
                    return Err(LowerError::internal("splat of a non-scalar", span));
                };
                let ty = self.m.out.types.vector(scalar, size as u8);
                self.op_typed(Opcode::Splat, &[value], ty)
            }
            Expression::Swizzle {
                size,
                vector,
                pattern,
            } => {
                let vector = self.value_of(vector)?;
                let lanes: Vec<u32> = pattern[..size as usize].iter().map(|&c| c as u32).collect();
                self.op_indices(Opcode::Shuffle, &[vector, vector], &lanes)
            }
            Expression::FunctionArgument(_)
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_)
            | Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. } => self.value_of(handle),
            Expression::Load { pointer } => {
                let op = if self.points_to_atomic(pointer) {
                    Opcode::AtomicLoad
                } else {
                    Opcode::Load
                };
                let pointer = self.value_of(pointer)?;
                self.op(op, &[pointer])
            }
            Expression::ImageSample {
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            } => self.lower_image_sample(crate::images::Sample {
                span,
                image,
                sampler,
                gather,
                coordinate,
                array_index,
                offset,
                level,
                depth_ref,
                clamp_to_edge,
            }),
            Expression::ImageLoad {
                image,
                coordinate,
                array_index,
                sample,
                level,
            } => self.lower_image_load(image, coordinate, array_index, sample.or(level)),
            Expression::ImageQuery { image, query } => self.lower_image_query(image, query),
            Expression::Unary { op, expr } => {
                let value = self.value_of(expr)?;
                let op = match op {
                    UnaryOperator::Negate => Opcode::Neg,
                    UnaryOperator::LogicalNot | UnaryOperator::BitwiseNot => Opcode::Not,
                };
                self.op(op, &[value])
            }
            Expression::Binary { op, left, right } => self.lower_binary(op, left, right),
            Expression::Select {
                condition,
                accept,
                reject,
            } => {
                let condition = self.value_of(condition)?;
                let accept = self.value_of(accept)?;
                let reject = self.value_of(reject)?;
                self.op(Opcode::Select, &[condition, accept, reject])
            }
            Expression::Derivative { axis, ctrl, expr } => {
                use DerivativeAxis::{Width, X, Y};
                use DerivativeControl::{Coarse, Fine, None as Default};
                let op = match (axis, ctrl) {
                    (X, Default) => Opcode::Dpdx,
                    (X, Coarse) => Opcode::DpdxCoarse,
                    (X, Fine) => Opcode::DpdxFine,
                    (Y, Default) => Opcode::Dpdy,
                    (Y, Coarse) => Opcode::DpdyCoarse,
                    (Y, Fine) => Opcode::DpdyFine,
                    (Width, Default) => Opcode::Fwidth,
                    (Width, Coarse) => Opcode::FwidthCoarse,
                    (Width, Fine) => Opcode::FwidthFine,
                };
                let value = self.value_of(expr)?;
                self.op(op, &[value])
            }
            Expression::Relational { fun, argument } => {
                let op = match fun {
                    RelationalFunction::All => Opcode::All,
                    RelationalFunction::Any => Opcode::Any,
                    RelationalFunction::IsNan => Opcode::IsNan,
                    RelationalFunction::IsInf => Opcode::IsInf,
                };
                let value = self.value_of(argument)?;
                self.op(op, &[value])
            }
            Expression::Math {
                fun,
                arg,
                arg1,
                arg2,
                arg3,
            } => self.lower_math(handle, fun, arg, [arg1, arg2, arg3]),
            Expression::As {
                expr,
                kind,
                convert,
            } => self.lower_as(expr, kind, convert),
            Expression::ArrayLength(pointer) => {
                let pointer = self.value_of(pointer)?;
                self.op(Opcode::ArrayLength, &[pointer])
            }
            Expression::RayQueryVertexPositions { .. }
            | Expression::RayQueryProceedResult
            | Expression::RayQueryGetIntersection { .. } => {
                Err(LowerError::unsupported("ray query", span))
            }

            Expression::CooperativeLoad { .. } | Expression::CooperativeMultiplyAdd { .. } => {
                Err(LowerError::unsupported("cooperative matrix", span))
            }
        }
    }

    /// Whether expression `handle` is a pointer (binding arrays are refused here).
    fn is_pointer(&self, handle: Handle<Expression>) -> Result<bool> {
        match self.naga_type(handle) {
            TypeInner::Pointer { base, .. } => {
                if let TypeInner::BindingArray { .. } = self.m.naga.types[*base].inner {
                    let span = self.function.expressions.get_span(handle);
                    return Err(LowerError::unsupported("binding array", span));
                }
                Ok(true)
            }
            TypeInner::ValuePointer { .. } => Ok(true),
            TypeInner::BindingArray { .. } => {
                let span = self.function.expressions.get_span(handle);
                Err(LowerError::unsupported("binding array", span))
            }
            _ => Ok(false),
        }
    }

    fn lower_binary(
        &mut self,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Result<Value> {
        let mut a = self.value_of(left)?;
        let mut b = self.value_of(right)?;
        let (ta, tb) = (self.value_type(a), self.value_type(b));
        let kind = |this: &Self, ty| match this.type_data(ty) {
            TypeData::Matrix { .. } => 'm',
            TypeData::Vector { .. } => 'v',
            _ => 's',
        };
        let (ka, kb) = (kind(self, ta), kind(self, tb));
        if op == BinaryOperator::Multiply {
            match (ka, kb) {
                ('m', 'm') => return self.op(Opcode::MatrixTimesMatrix, &[a, b]),
                ('m', 'v') => return self.op(Opcode::MatrixTimesVector, &[a, b]),
                ('v', 'm') => return self.op(Opcode::VectorTimesMatrix, &[a, b]),
                ('m', 's') => return self.op(Opcode::MatrixTimesScalar, &[a, b]),
                ('s', 'm') => return self.op(Opcode::MatrixTimesScalar, &[b, a]),
                _ => {}
            }
        }
        // A scalar mixed with a vector is splatted (naga allows it for `*`, GLSL more).
        a = self.broadcast(a, tb)?;
        b = self.broadcast(b, ta)?;
        let opcode = match op {
            BinaryOperator::Add => Opcode::Add,
            BinaryOperator::Subtract => Opcode::Sub,
            BinaryOperator::Multiply => Opcode::Mul,
            BinaryOperator::Divide => Opcode::Div,
            BinaryOperator::Modulo => Opcode::Rem,
            BinaryOperator::Equal => Opcode::Eq,
            BinaryOperator::NotEqual => Opcode::Ne,
            BinaryOperator::Less => Opcode::Lt,
            BinaryOperator::LessEqual => Opcode::Le,
            BinaryOperator::Greater => Opcode::Gt,
            BinaryOperator::GreaterEqual => Opcode::Ge,
            BinaryOperator::And | BinaryOperator::LogicalAnd => Opcode::And,
            BinaryOperator::ExclusiveOr => Opcode::Xor,
            BinaryOperator::InclusiveOr | BinaryOperator::LogicalOr => Opcode::Or,
            BinaryOperator::ShiftLeft => Opcode::Shl,
            BinaryOperator::ShiftRight => Opcode::Shr,
        };
        self.op(opcode, &[a, b])
    }

    fn lower_as(
        &mut self,
        expr: Handle<Expression>,
        kind: naga::ScalarKind,
        convert: Option<u8>,
    ) -> Result<Value> {
        let span = self.function.expressions.get_span(expr);
        let value = self.value_of(expr)?;
        let from_ty = self.value_type(value);
        let (from, lanes, columns) = match *self.type_data(from_ty) {
            TypeData::Scalar(s) => (s, 1, None),
            TypeData::Vector { elem, len } => (elem, len, None),
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => (elem, rows, Some(columns)),
            _ => return Err(LowerError::internal("`As` of a non-numeric value", span)),
        };
        let width = convert.unwrap_or((from.bits / 8).max(1));
        let to = crate::types::scalar(naga::Scalar { kind, width }, span)?;
        if to == from {
            return Ok(value);
        }
        let op = if convert.is_some() {
            Opcode::Convert
        } else {
            Opcode::Bitcast
        };
        let lane_ty = |this: &mut Self, s: Scalar| {
            if lanes == 1 {
                this.m.out.types.scalar(s)
            } else {
                this.m.out.types.vector(s, lanes)
            }
        };
        match columns {
            None => {
                let ty = lane_ty(self, to);
                self.op_typed(op, &[value], ty)
            }
            Some(columns) => {
                let column_ty = lane_ty(self, to);
                let mut parts = Vec::with_capacity(usize::from(columns));
                for i in 0..u32::from(columns) {
                    let column = self.op_indices(Opcode::Extract, &[value], &[i])?;
                    parts.push(self.op_typed(op, &[column], column_ty)?);
                }
                let ty = self.m.out.types.matrix(to, columns, lanes);
                self.op_typed(Opcode::Construct, &parts, ty)
            }
        }
    }
}
