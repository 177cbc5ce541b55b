//! Type rules of every op, implemented once for the builder (which infers result types)
//! and the verifier (which checks them).
//!
//! [`check_instruction`] takes the opcode's [`TypeRule`] from the op table, the operand
//! types (and, for struct member indices, the operand's constant value), the payload and
//! — for ops whose result type cannot be inferred (`convert`, `bitcast`, `construct`,
//! `splat`, `alloca`) — the declared result type. It returns the result type (`None` for
//! ops without a result) or a message saying which operand breaks which rule. Operand
//! counts are the op table's [`crate::ops::Arity`] and are checked before this runs; the
//! rules here still never index out of range.

use crate::entities::Type;
use crate::function::Signature;
use crate::instructions::{InstData, Payload};
use crate::ops::{Opcode, RegisterType, SubgroupOp, TextureOp, TypeRule};
use crate::types::{
    AddressSpace, SampledKind, Scalar, ScalarKind, StorageAccess, TextureDim, TextureShape,
    TypeData, TypeStore,
};

/// What the type rules need to know about one operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Operand {
    /// The operand's type (after alias resolution).
    pub ty: Type,
    /// The integer value when the operand is a scalar integer constant (canonical bits).
    pub constant: Option<u64>,
    /// Whether the operand is a module constant (of any type).
    pub is_constant: bool,
}

type RuleResult = Result<Option<Type>, String>;

/// Checks `data` against its type rule; returns the result type or the violation.
pub fn check_instruction(
    types: &mut TypeStore,
    data: &InstData,
    operands: &[Operand],
    declared: Option<Type>,
    callee: Option<&Signature>,
) -> RuleResult {
    let mut checker = Checker {
        types,
        operands,
        op: data.opcode,
    };
    checker.check(data, declared, callee)
}

struct Checker<'a> {
    types: &'a mut TypeStore,
    operands: &'a [Operand],
    op: Opcode,
}

impl Checker<'_> {
    fn data(&self, ty: Type) -> Result<TypeData, String> {
        self.types
            .try_get(ty)
            .cloned()
            .ok_or_else(|| format!("unknown type {ty}"))
    }

    fn name(&self, ty: Type) -> String {
        self.types.display(ty).to_string()
    }

    fn operand(&self, i: usize) -> Result<Operand, String> {
        self.operands
            .get(i)
            .copied()
            .ok_or_else(|| format!("`{}` is missing operand {i}", self.op))
    }

    fn ty(&self, i: usize) -> Result<Type, String> {
        Ok(self.operand(i)?.ty)
    }

    /// Scalar element and lane count of a scalar or vector type.
    fn scalar_or_vector(&self, ty: Type) -> Option<(Scalar, u8)> {
        self.types
            .try_get(ty)
            .and_then(TypeData::scalar_or_vector_elem)
    }

    fn all_same(&self) -> Result<Type, String> {
        let first = self.ty(0)?;
        for (i, o) in self.operands.iter().enumerate().skip(1) {
            if o.ty != first {
                return Err(format!(
                    "`{}` operand {i} has type {}, expected {} like operand 0",
                    self.op,
                    self.name(o.ty),
                    self.name(first)
                ));
            }
        }
        Ok(first)
    }

    fn expect_kind(
        &self,
        ty: Type,
        ok: impl Fn(Scalar) -> bool,
        what: &str,
    ) -> Result<(Scalar, u8), String> {
        match self.scalar_or_vector(ty) {
            Some((s, n)) if ok(s) => Ok((s, n)),
            _ => Err(format!(
                "`{}` needs {what} scalars or vectors, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn bool_like(&mut self, lanes: u8) -> Type {
        if lanes == 1 {
            self.types.bool()
        } else {
            self.types.vector(Scalar::BOOL, lanes)
        }
    }

    fn expect_u32(&self, i: usize) -> Result<(), String> {
        let ty = self.ty(i)?;
        match self.types.try_get(ty) {
            Some(TypeData::Scalar(s)) if *s == Scalar::U32 => Ok(()),
            _ => Err(format!(
                "`{}` operand {i} must be u32, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn expect_int_scalar(&self, i: usize, what: &str) -> Result<(), String> {
        let ty = self.ty(i)?;
        match self.types.try_get(ty) {
            Some(TypeData::Scalar(s)) if s.is_integer() => Ok(()),
            _ => Err(format!(
                "`{}` {what} must be an integer scalar, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn pointer(&self, i: usize) -> Result<(AddressSpace, Type), String> {
        let ty = self.ty(i)?;
        match self.data(ty)? {
            TypeData::Pointer { space, pointee } => Ok((space, pointee)),
            _ => Err(format!(
                "`{}` operand {i} must be a pointer, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn matrix(&self, ty: Type) -> Result<(Scalar, u8, u8), String> {
        match self.data(ty)? {
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => Ok((elem, columns, rows)),
            _ => Err(format!(
                "`{}` needs a matrix, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn float_vector(&self, ty: Type) -> Result<(Scalar, u8), String> {
        match self.data(ty)? {
            TypeData::Vector { elem, len } if elem.is_float() => Ok((elem, len)),
            _ => Err(format!(
                "`{}` needs a float vector, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn require_declared(&self, declared: Option<Type>) -> Result<Type, String> {
        declared.ok_or_else(|| format!("`{}` needs a declared result type", self.op))
    }

    fn check(
        &mut self,
        data: &InstData,
        declared: Option<Type>,
        callee: Option<&Signature>,
    ) -> RuleResult {
        let info = self.op.info();
        match info.rule {
            TypeRule::SameNumeric { matrices } => {
                let ty = self.all_same()?;
                if matrices && matches!(self.data(ty)?, TypeData::Matrix { .. }) {
                    return Ok(Some(ty));
                }
                self.expect_kind(ty, |s| s.is_integer() || s.is_float(), "numeric")?;
                Ok(Some(ty))
            }
            TypeRule::SameSigned => {
                let ty = self.all_same()?;
                self.expect_kind(
                    ty,
                    |s| s.is_signed() || s.is_float(),
                    "signed integer or float",
                )?;
                Ok(Some(ty))
            }
            TypeRule::SameInteger => {
                let ty = self.all_same()?;
                self.expect_kind(ty, Scalar::is_integer, "integer")?;
                Ok(Some(ty))
            }
            TypeRule::SameIntegerOrBool => {
                let ty = self.all_same()?;
                self.expect_kind(ty, |s| s.is_integer() || s.is_bool(), "integer or bool")?;
                Ok(Some(ty))
            }
            TypeRule::SameFloat => {
                let ty = self.all_same()?;
                self.expect_kind(ty, Scalar::is_float, "float")?;
                Ok(Some(ty))
            }
            TypeRule::Ldexp => {
                let ty = self.ty(0)?;
                let (_, lanes) = self.expect_kind(ty, Scalar::is_float, "float")?;
                let exponent = self.ty(1)?;
                if self.scalar_or_vector(exponent) != Some((Scalar::I32, lanes)) {
                    return Err(format!(
                        "`ldexp` exponent must be i32 with the lanes of {}, found {}",
                        self.name(ty),
                        self.name(exponent)
                    ));
                }
                Ok(Some(ty))
            }
            TypeRule::Frexp | TypeRule::Modf => {
                let to = self.require_declared(declared)?;
                self.check_decomposition(info.rule == TypeRule::Frexp, to)?;
                Ok(Some(to))
            }
            TypeRule::Shift => {
                let value = self.ty(0)?;
                let amount = self.ty(1)?;
                let (_, lanes) = self.expect_kind(value, Scalar::is_integer, "integer")?;
                let (_, amount_lanes) = self.expect_kind(amount, Scalar::is_integer, "integer")?;
                if lanes != amount_lanes {
                    return Err(format!(
                        "`{}` amount has {amount_lanes} lanes, value has {lanes}",
                        self.op
                    ));
                }
                Ok(Some(value))
            }
            TypeRule::Compare { bools } => {
                let ty = self.all_same()?;
                let (_, lanes) = if bools {
                    self.expect_kind(ty, |_| true, "numeric or bool")?
                } else {
                    self.expect_kind(ty, |s| !s.is_bool(), "numeric")?
                };
                Ok(Some(self.bool_like(lanes)))
            }
            TypeRule::Select => {
                let cond = self.ty(0)?;
                let a = self.ty(1)?;
                let b = self.ty(2)?;
                if a != b {
                    return Err(format!(
                        "`select` arms differ: {} and {}",
                        self.name(a),
                        self.name(b)
                    ));
                }
                match self.scalar_or_vector(cond) {
                    Some((s, 1)) if s.is_bool() => {}
                    Some((s, n)) if s.is_bool() && self.scalar_or_vector(a).map(|x| x.1) == Some(n) => {}
                    _ => {
                        return Err(format!(
                            "`select` condition must be bool or a bool vector matching the arms, found {}",
                            self.name(cond)
                        ))
                    }
                }
                self.require_value_type(a)?;
                Ok(Some(a))
            }
            TypeRule::FloatClassify => {
                let ty = self.ty(0)?;
                let (_, lanes) = self.expect_kind(ty, Scalar::is_float, "float")?;
                Ok(Some(self.bool_like(lanes)))
            }
            TypeRule::BoolReduce => {
                let ty = self.ty(0)?;
                self.expect_kind(ty, Scalar::is_bool, "bool")?;
                Ok(Some(self.types.bool()))
            }
            TypeRule::VectorReduce => {
                let ty = self.ty(0)?;
                match self.data(ty)? {
                    TypeData::Vector { elem, .. } if !elem.is_bool() => {
                        Ok(Some(self.types.scalar(elem)))
                    }
                    _ => Err(format!(
                        "`{}` needs a numeric vector, found {}",
                        self.op,
                        self.name(ty)
                    )),
                }
            }
            TypeRule::Dot => {
                let ty = self.all_same()?;
                match self.data(ty)? {
                    TypeData::Vector { elem, .. } if !elem.is_bool() => {
                        Ok(Some(self.types.scalar(elem)))
                    }
                    _ => Err(format!(
                        "`dot` needs numeric vectors, found {}",
                        self.name(ty)
                    )),
                }
            }
            TypeRule::Cross => {
                let ty = self.all_same()?;
                match self.data(ty)? {
                    TypeData::Vector { elem, len: 3 } if elem.is_float() => Ok(Some(ty)),
                    _ => Err(format!(
                        "`cross` needs vec3 floats, found {}",
                        self.name(ty)
                    )),
                }
            }
            TypeRule::FloatLength => {
                let ty = self.all_same()?;
                let (s, _) = self.expect_kind(ty, Scalar::is_float, "float")?;
                Ok(Some(self.types.scalar(s)))
            }
            TypeRule::OuterProduct => {
                let (ea, rows) = self.float_vector(self.ty(0)?)?;
                let (eb, columns) = self.float_vector(self.ty(1)?)?;
                if ea != eb {
                    return Err("`outer_product` operands have different element types".into());
                }
                Ok(Some(self.types.matrix(ea, columns, rows)))
            }
            TypeRule::MatrixTimesMatrix => {
                let (ea, k, rows) = self.matrix(self.ty(0)?)?;
                let (eb, columns, k2) = self.matrix(self.ty(1)?)?;
                if ea != eb || k != k2 {
                    return Err(format!(
                        "`matrix_times_matrix` shapes do not chain: {} times {}",
                        self.name(self.ty(0)?),
                        self.name(self.ty(1)?)
                    ));
                }
                Ok(Some(self.types.matrix(ea, columns, rows)))
            }
            TypeRule::MatrixTimesVector => {
                let (em, columns, rows) = self.matrix(self.ty(0)?)?;
                let (ev, len) = self.float_vector(self.ty(1)?)?;
                if em != ev || len != columns {
                    return Err(
                        "`matrix_times_vector` vector length must equal the column count".into(),
                    );
                }
                Ok(Some(self.types.vector(em, rows)))
            }
            TypeRule::VectorTimesMatrix => {
                let (ev, len) = self.float_vector(self.ty(0)?)?;
                let (em, columns, rows) = self.matrix(self.ty(1)?)?;
                if em != ev || len != rows {
                    return Err(
                        "`vector_times_matrix` vector length must equal the row count".into(),
                    );
                }
                Ok(Some(self.types.vector(em, columns)))
            }
            TypeRule::MatrixTimesScalar => {
                let m = self.ty(0)?;
                let (em, _, _) = self.matrix(m)?;
                let s = self.ty(1)?;
                if self.types.try_get(s) != Some(&TypeData::Scalar(em)) {
                    return Err(format!(
                        "`matrix_times_scalar` scalar must be {}",
                        em.name()
                    ));
                }
                Ok(Some(m))
            }
            TypeRule::Transpose => {
                let (e, columns, rows) = self.matrix(self.ty(0)?)?;
                Ok(Some(self.types.matrix(e, rows, columns)))
            }
            TypeRule::Determinant | TypeRule::Inverse => {
                let m = self.ty(0)?;
                let (e, columns, rows) = self.matrix(m)?;
                if columns != rows {
                    return Err(format!(
                        "`{}` needs a square matrix, found {}",
                        self.op,
                        self.name(m)
                    ));
                }
                Ok(Some(if info.rule == TypeRule::Determinant {
                    self.types.scalar(e)
                } else {
                    m
                }))
            }
            TypeRule::ExtractBits => {
                let ty = self.ty(0)?;
                self.expect_kind(ty, Scalar::is_integer, "integer")?;
                self.expect_u32(1)?;
                self.expect_u32(2)?;
                Ok(Some(ty))
            }
            TypeRule::InsertBits => {
                let ty = self.ty(0)?;
                self.expect_kind(ty, Scalar::is_integer, "integer")?;
                if self.ty(1)? != ty {
                    return Err("`insert_bits` new bits must have the type of operand 0".into());
                }
                self.expect_u32(2)?;
                self.expect_u32(3)?;
                Ok(Some(ty))
            }
            TypeRule::Convert => {
                let to = self.require_declared(declared)?;
                let from = self.ty(0)?;
                let (_, from_lanes) = self.expect_kind(from, |_| true, "scalar or vector")?;
                match self.scalar_or_vector(to) {
                    Some((_, lanes)) if lanes == from_lanes => Ok(Some(to)),
                    _ => Err(format!(
                        "`convert` from {} to {} changes the shape",
                        self.name(from),
                        self.name(to)
                    )),
                }
            }
            TypeRule::Bitcast => {
                let to = self.require_declared(declared)?;
                let from = self.ty(0)?;
                let width = |c: &Self, ty: Type| -> Result<u32, String> {
                    match c.scalar_or_vector(ty) {
                        Some((s, n)) if !s.is_bool() => Ok(s.bytes() * u32::from(n)),
                        _ => Err(format!(
                            "`bitcast` needs non-bool scalars or vectors, found {}",
                            c.name(ty)
                        )),
                    }
                };
                if width(self, from)? != width(self, to)? {
                    return Err(format!(
                        "`bitcast` from {} to {} changes the width",
                        self.name(from),
                        self.name(to)
                    ));
                }
                Ok(Some(to))
            }
            TypeRule::Construct => {
                let to = self.require_declared(declared)?;
                self.check_construct(to)?;
                Ok(Some(to))
            }
            TypeRule::Splat => {
                let to = self.require_declared(declared)?;
                let from = self.ty(0)?;
                match self.data(to)? {
                    TypeData::Vector { elem, .. }
                        if self.types.try_get(from) == Some(&TypeData::Scalar(elem)) =>
                    {
                        Ok(Some(to))
                    }
                    _ => Err(format!(
                        "`splat` of {} cannot produce {}",
                        self.name(from),
                        self.name(to)
                    )),
                }
            }
            TypeRule::Extract | TypeRule::Insert => {
                let Payload::Indices(indices) = &data.payload else {
                    return Err(format!("`{}` needs literal indices", self.op));
                };
                if indices.is_empty() {
                    return Err(format!("`{}` needs at least one index", self.op));
                }
                let aggregate = self.ty(0)?;
                let mut ty = aggregate;
                for &index in indices.iter() {
                    if matches!(self.data(ty)?, TypeData::RuntimeArray { .. }) {
                        return Err(format!(
                            "`{}` cannot index a runtime-sized array value",
                            self.op
                        ));
                    }
                    ty = self.types.element_type(ty, index).ok_or_else(|| {
                        format!(
                            "`{}` index {index} is out of range for {}",
                            self.op,
                            self.name(ty)
                        )
                    })?;
                }
                if info.rule == TypeRule::Extract {
                    Ok(Some(ty))
                } else {
                    let element = self.ty(1)?;
                    if element != ty {
                        return Err(format!(
                            "`insert` element has type {}, the indexed member is {}",
                            self.name(element),
                            self.name(ty)
                        ));
                    }
                    Ok(Some(aggregate))
                }
            }
            TypeRule::ExtractDynamic | TypeRule::InsertDynamic => {
                let aggregate = self.ty(0)?;
                let element = match self.data(aggregate)? {
                    TypeData::Vector { .. } | TypeData::Matrix { .. } | TypeData::Array { .. } => {
                        self.types.element_type(aggregate, 0)
                    }
                    _ => None,
                }
                .ok_or_else(|| {
                    format!(
                        "`{}` needs a vector, matrix or array, found {}",
                        self.op,
                        self.name(aggregate)
                    )
                })?;
                if info.rule == TypeRule::ExtractDynamic {
                    self.expect_int_scalar(1, "index")?;
                    Ok(Some(element))
                } else {
                    if self.ty(1)? != element {
                        return Err(format!(
                            "`insert_dynamic` element must be {}",
                            self.name(element)
                        ));
                    }
                    self.expect_int_scalar(2, "index")?;
                    Ok(Some(aggregate))
                }
            }
            TypeRule::Shuffle => {
                let Payload::Indices(lanes) = &data.payload else {
                    return Err("`shuffle` needs literal lane indices".into());
                };
                let ty = self.all_same()?;
                let TypeData::Vector { elem, len } = self.data(ty)? else {
                    return Err(format!("`shuffle` needs vectors, found {}", self.name(ty)));
                };
                if !(2..=4).contains(&lanes.len()) {
                    return Err(format!(
                        "`shuffle` must select 2 to 4 lanes, selects {}",
                        lanes.len()
                    ));
                }
                if let Some(&bad) = lanes.iter().find(|&&l| l >= 2 * u32::from(len)) {
                    return Err(format!(
                        "`shuffle` lane {bad} is out of range for two {}",
                        self.name(ty)
                    ));
                }
                Ok(Some(self.types.vector(elem, lanes.len() as u8)))
            }
            TypeRule::Alloca => {
                let ty = self.require_declared(declared)?;
                match self.data(ty)? {
                    TypeData::Pointer {
                        space: AddressSpace::Function | AddressSpace::Workgroup,
                        pointee,
                    } => {
                        if matches!(
                            self.data(pointee)?,
                            TypeData::RuntimeArray { .. } | TypeData::Void
                        ) {
                            return Err(format!("`alloca` of unsized type {}", self.name(pointee)));
                        }
                        Ok(Some(ty))
                    }
                    _ => Err(format!(
                        "`alloca` must produce ptr<function|workgroup, T>, not {}",
                        self.name(ty)
                    )),
                }
            }
            TypeRule::Load => {
                let (_, pointee) = self.pointer(0)?;
                self.require_value_type(pointee)?;
                Ok(Some(pointee))
            }
            TypeRule::Store => {
                let (space, pointee) = self.pointer(0)?;
                if !space.is_writable() {
                    return Err(format!(
                        "`store` through a pointer in read-only space {space}"
                    ));
                }
                self.require_value_type(pointee)?;
                let value = self.ty(1)?;
                if value != pointee {
                    return Err(format!(
                        "`store` of {} through a pointer to {}",
                        self.name(value),
                        self.name(pointee)
                    ));
                }
                Ok(None)
            }
            TypeRule::Access => {
                let (space, mut ty) = self.pointer(0)?;
                for i in 1..self.operands.len() {
                    let index = self.operand(i)?;
                    self.expect_int_scalar(i, "index")?;
                    let next = match self.data(ty)? {
                        TypeData::Struct(st) => {
                            let Some(k) = index.constant else {
                                return Err(format!(
                                    "`access` into struct %{} needs a constant index",
                                    st.name
                                ));
                            };
                            st.members.get(k as usize).map(|m| m.ty).ok_or_else(|| {
                                format!(
                                    "`access` member {} is out of range for %{}",
                                    k as i64, st.name
                                )
                            })?
                        }
                        TypeData::Array { elem, len, .. } => {
                            if let Some(k) = index.constant {
                                if k >= u64::from(len) {
                                    return Err(format!("`access` constant index {} is out of range for array of {len}", k as i64));
                                }
                            }
                            elem
                        }
                        TypeData::RuntimeArray { elem, .. } => elem,
                        TypeData::Vector { .. } | TypeData::Matrix { .. } => {
                            let bound = match self.data(ty)? {
                                TypeData::Vector { len, .. } => u64::from(len),
                                TypeData::Matrix { columns, .. } => u64::from(columns),
                                _ => 0,
                            };
                            if index.constant.is_some_and(|k| k >= bound) {
                                return Err(format!(
                                    "`access` constant index is out of range for {}",
                                    self.name(ty)
                                ));
                            }
                            self.types
                                .element_type(ty, 0)
                                .ok_or("`access` into an empty composite")?
                        }
                        _ => return Err(format!("`access` cannot index into {}", self.name(ty))),
                    };
                    ty = next;
                }
                Ok(Some(self.types.pointer(space, ty)))
            }
            TypeRule::ArrayLength => {
                let (space, pointee) = self.pointer(0)?;
                let ends_in_runtime_array = match self.data(pointee)? {
                    TypeData::RuntimeArray { .. } => true,
                    TypeData::Struct(st) => match st.members.last() {
                        Some(m) => matches!(self.data(m.ty)?, TypeData::RuntimeArray { .. }),
                        None => false,
                    },
                    _ => false,
                };
                if !matches!(space, AddressSpace::Storage(_)) || !ends_in_runtime_array {
                    return Err(
                        "`array_length` needs a storage pointer to a runtime-sized array".into(),
                    );
                }
                Ok(Some(self.types.u32()))
            }
            TypeRule::Atomic { values, returns } => {
                let (space, pointee) = self.pointer(0)?;
                let space_ok = match space {
                    AddressSpace::Workgroup | AddressSpace::Storage(StorageAccess::ReadWrite) => {
                        true
                    }
                    AddressSpace::Storage(_) => self.op == Opcode::AtomicLoad,
                    _ => false,
                };
                if !space_ok {
                    return Err(format!(
                        "`{}` needs a storage(read_write) or workgroup pointer, found {space}",
                        self.op
                    ));
                }
                match self.data(pointee)? {
                    TypeData::Scalar(s) if s.is_integer() && s.bits >= 32 => {}
                    _ => {
                        return Err(format!(
                            "`{}` needs a 32- or 64-bit integer, found {}",
                            self.op,
                            self.name(pointee)
                        ))
                    }
                }
                for i in 1..=usize::from(values) {
                    if self.ty(i)? != pointee {
                        return Err(format!(
                            "`{}` value operand {i} must be {}",
                            self.op,
                            self.name(pointee)
                        ));
                    }
                }
                Ok(returns.then_some(pointee))
            }
            TypeRule::NoValue => Ok(None),
            TypeRule::SpecialRegister(reg) => Ok(Some(match reg {
                RegisterType::U32 => self.types.u32(),
                RegisterType::Vec3U32 => self.types.vector(Scalar::U32, 3),
                RegisterType::Vec4F32 => self.types.vector(Scalar::F32, 4),
                RegisterType::Bool => self.types.bool(),
            })),
            TypeRule::SpecConstant => {
                let Payload::Indices(indices) = &data.payload else {
                    return Err("`spec_constant` needs its specialization id".into());
                };
                if indices.len() != 1 {
                    return Err(format!(
                        "`spec_constant` takes one specialization id, found {}",
                        indices.len()
                    ));
                }
                let default = self.operand(0)?;
                if !default.is_constant {
                    return Err("the default of `spec_constant` must be a module constant".into());
                }
                match self.data(default.ty)? {
                    TypeData::Scalar(_) => Ok(Some(default.ty)),
                    // wildcard-ok: only scalars are specialization constants.
                    _ => Err(format!(
                        "`spec_constant` of {}: specialization constants are scalars",
                        self.name(default.ty)
                    )),
                }
            }
            TypeRule::WorkgroupUniformLoad => {
                let (space, pointee) = self.pointer(0)?;
                if space != AddressSpace::Workgroup {
                    return Err("`workgroup_uniform_load` needs a workgroup pointer".into());
                }
                self.require_value_type(pointee)?;
                Ok(Some(pointee))
            }
            TypeRule::Texture(op) => self.check_texture(op),
            TypeRule::Subgroup(op) => self.check_subgroup(op),
            TypeRule::Call => {
                let sig = callee.ok_or("`call` to an unknown function")?;
                if sig.params.len() != self.operands.len() {
                    return Err(format!(
                        "`call` passes {} arguments, the callee takes {}",
                        self.operands.len(),
                        sig.params.len()
                    ));
                }
                for (i, (param, arg)) in sig.params.iter().zip(self.operands).enumerate() {
                    if param.ty != arg.ty {
                        return Err(format!(
                            "`call` argument {i} has type {}, the parameter is {}",
                            self.name(arg.ty),
                            self.name(param.ty)
                        ));
                    }
                }
                match sig.returns.as_slice() {
                    [] => Ok(None),
                    [one] => Ok(Some(one.ty)),
                    _ => Err("`call` to a function with several results".into()),
                }
            }
            TypeRule::Print => Ok(None),
            TypeRule::Assert => {
                let ty = self.ty(0)?;
                if self.types.try_get(ty) != Some(&TypeData::Scalar(Scalar::BOOL)) {
                    return Err(format!(
                        "`assert` condition must be bool, found {}",
                        self.name(ty)
                    ));
                }
                Ok(None)
            }
            TypeRule::Clock => Ok(Some(self.types.scalar(Scalar::U64))),
            TypeRule::Terminator(_) => Ok(None),
        }
    }

    /// Types a value may have: sized data or resources, not void, not unsized, not opaque.
    fn require_value_type(&self, ty: Type) -> Result<(), String> {
        match self.data(ty)? {
            TypeData::Void | TypeData::RuntimeArray { .. } | TypeData::Opaque(_) => Err(format!(
                "`{}` cannot produce or consume a value of type {}",
                self.op,
                self.name(ty)
            )),
            _ => Ok(()),
        }
    }

    /// `frexp` / `modf` (`exponent`: `frexp`): `to` is a struct of two members, the
    /// operand's float type and the exponent (`i32` lanes) or the whole part (the operand's
    /// type).
    fn check_decomposition(&mut self, exponent: bool, to: Type) -> Result<(), String> {
        let x = self.ty(0)?;
        let (_, lanes) = self.expect_kind(x, Scalar::is_float, "float")?;
        let second = if exponent {
            if lanes == 1 {
                self.types.i32()
            } else {
                self.types.vector(Scalar::I32, lanes)
            }
        } else {
            x
        };
        match self.data(to)? {
            TypeData::Struct(st)
                if st.members.len() == 2 && st.members[0].ty == x && st.members[1].ty == second =>
            {
                Ok(())
            }
            _ => Err(format!(
                "`{}` of {} must produce a struct {{ {}, {} }}, not {}",
                self.op,
                self.name(x),
                self.name(x),
                self.name(second),
                self.name(to)
            )),
        }
    }

    fn check_construct(&mut self, to: Type) -> Result<(), String> {
        let operand_types: Vec<Type> = self.operands.iter().map(|o| o.ty).collect();
        match self.data(to)? {
            TypeData::Vector { elem, len } => {
                let mut lanes = 0u32;
                for &ty in &operand_types {
                    match self.scalar_or_vector(ty) {
                        Some((s, n)) if s == elem => lanes += u32::from(n),
                        _ => {
                            return Err(format!(
                                "`construct` {} from {}",
                                self.name(to),
                                self.name(ty)
                            ))
                        }
                    }
                }
                if lanes != u32::from(len) || operand_types.len() < 2 {
                    return Err(format!(
                        "`construct` {} needs {len} lanes from at least two parts, got {lanes}",
                        self.name(to)
                    ));
                }
            }
            TypeData::Matrix {
                elem,
                columns,
                rows,
            } => {
                let column = self.types.vector(elem, rows);
                if operand_types.len() != usize::from(columns)
                    || operand_types.iter().any(|&t| t != column)
                {
                    return Err(format!(
                        "`construct` {} needs {columns} columns of {}",
                        self.name(to),
                        self.name(column)
                    ));
                }
            }
            TypeData::Array { elem, len, .. } => {
                if operand_types.len() as u64 != u64::from(len)
                    || operand_types.iter().any(|&t| t != elem)
                {
                    return Err(format!(
                        "`construct` {} needs {len} elements of {}",
                        self.name(to),
                        self.name(elem)
                    ));
                }
            }
            TypeData::Struct(st) => {
                let expected: Vec<Type> = st.members.iter().map(|m| m.ty).collect();
                if expected != operand_types {
                    return Err(format!(
                        "`construct` %{} needs one operand per member, of the member's type",
                        st.name
                    ));
                }
            }
            _ => return Err(format!("`construct` cannot build {}", self.name(to))),
        }
        Ok(())
    }

    /// A subgroup value: an i32, u32, f32 or f16 scalar or vector (integers only for the
    /// bitwise reductions).
    fn subgroup_value(&self, i: usize, integers: bool) -> Result<Type, String> {
        let ty = self.ty(i)?;
        let ok = |s: Scalar| {
            (s.is_integer() && s.bits == 32)
                || (!integers && s.is_float() && (s.bits == 32 || s.bits == 16))
        };
        let what = if integers {
            "i32 or u32"
        } else {
            "i32, u32, f32 or f16"
        };
        self.expect_kind(ty, ok, what)?;
        Ok(ty)
    }

    fn expect_bool_scalar(&self, i: usize) -> Result<(), String> {
        let ty = self.ty(i)?;
        match self.types.try_get(ty) {
            Some(TypeData::Scalar(s)) if s.is_bool() => Ok(()),
            _ => Err(format!(
                "`{}` operand {i} must be bool, found {}",
                self.op,
                self.name(ty)
            )),
        }
    }

    fn check_subgroup(&mut self, op: SubgroupOp) -> RuleResult {
        use SubgroupOp::*;
        match op {
            Ballot => {
                self.expect_bool_scalar(0)?;
                Ok(Some(self.types.vector(Scalar::U32, 4)))
            }
            Elect => Ok(Some(self.types.bool())),
            All | Any => {
                self.expect_bool_scalar(0)?;
                Ok(Some(self.types.bool()))
            }
            AllEqual => {
                let ty = self.ty(0)?;
                self.expect_kind(
                    ty,
                    |s| s.is_bool() || s.bits == 32 || (s.is_float() && s.bits == 16),
                    "bool, i32, u32, f32 or f16",
                )?;
                Ok(Some(self.types.bool()))
            }
            BroadcastFirst => Ok(Some(self.subgroup_value(0, false)?)),
            Broadcast | Shuffle | ShuffleXor | ShuffleUp | ShuffleDown => {
                let ty = self.subgroup_value(0, false)?;
                self.expect_u32(1)?;
                if op == Broadcast && !self.operand(1)?.is_constant {
                    return Err("`subgroup_broadcast` needs a constant lane".into());
                }
                Ok(Some(ty))
            }
            Arithmetic { op, .. } => Ok(Some(self.subgroup_value(0, op.is_bitwise())?)),
        }
    }

    fn check_texture(&mut self, op: TextureOp) -> RuleResult {
        let texture = self.ty(0)?;
        let texture_data = self.data(texture)?;
        let (shape, sampled_kind, storage) = match texture_data {
            TypeData::Texture { shape, kind } => (shape, Some(kind), None),
            TypeData::StorageTexture {
                shape,
                format,
                access,
            } => (shape, None, Some((format, access))),
            _ => {
                return Err(format!(
                    "`{}` operand 0 must be a texture, found {}",
                    self.op,
                    self.name(texture)
                ))
            }
        };
        let layer = usize::from(shape.arrayed);
        let dims = shape.dim.coordinate_count();
        let f32_ty = self.types.f32();
        let float_coord = if dims == 1 {
            f32_ty
        } else {
            self.types.vector(Scalar::F32, dims)
        };
        let expect_count = |c: &Self, n: usize| -> Result<(), String> {
            if c.operands.len() != n {
                return Err(format!(
                    "`{}` on {} takes {n} operands, found {}",
                    c.op,
                    c.name(texture),
                    c.operands.len()
                ));
            }
            Ok(())
        };
        let expect_ty = |c: &Self, i: usize, ty: Type, what: &str| -> Result<(), String> {
            if c.ty(i)? != ty {
                return Err(format!(
                    "`{}` {what} must be {}, found {}",
                    c.op,
                    c.name(ty),
                    c.name(c.ty(i)?)
                ));
            }
            Ok(())
        };
        let expect_sampler = |c: &Self, comparison: bool| -> Result<(), String> {
            match c.data(c.ty(1)?)? {
                TypeData::Sampler { comparison: cmp } if cmp == comparison => Ok(()),
                _ => Err(format!(
                    "`{}` operand 1 must be a {}",
                    c.op,
                    if comparison {
                        "sampler_comparison"
                    } else {
                        "sampler"
                    }
                )),
            }
        };
        let sampled_result = |c: &mut Self| -> Type {
            match sampled_kind {
                Some(SampledKind::Depth) => c.types.f32(),
                Some(SampledKind::Sint) => c.types.vector(Scalar::I32, 4),
                Some(SampledKind::Uint) => c.types.vector(Scalar::U32, 4),
                _ => c.types.vector(Scalar::F32, 4),
            }
        };
        let sampled_only = |c: &Self| -> Result<(), String> {
            if sampled_kind.is_none() || shape.multisampled {
                return Err(format!("`{}` needs a single-sampled sampled texture", c.op));
            }
            Ok(())
        };
        match op {
            TextureOp::Sample
            | TextureOp::SampleBias
            | TextureOp::SampleLevel
            | TextureOp::SampleGrad => {
                sampled_only(self)?;
                expect_sampler(self, false)?;
                let extra = match op {
                    TextureOp::Sample => 0,
                    TextureOp::SampleBias | TextureOp::SampleLevel => 1,
                    TextureOp::SampleGrad => 2,
                    // Not sampling operations: the arms below check them.
                    TextureOp::SampleCompare
                    | TextureOp::SampleCompareLevel
                    | TextureOp::Gather
                    | TextureOp::GatherCompare
                    | TextureOp::Load
                    | TextureOp::Store
                    | TextureOp::Dimensions
                    | TextureOp::NumLevels
                    | TextureOp::NumLayers
                    | TextureOp::NumSamples => 0,
                };
                self.expect_count_and_offset(3 + layer + extra, shape, texture)?;
                expect_ty(self, 2, float_coord, "coordinate")?;
                if layer == 1 {
                    self.expect_int_scalar(3, "array layer")?;
                }
                let first_extra = 3 + layer;
                match op {
                    TextureOp::SampleBias => expect_ty(self, first_extra, f32_ty, "bias")?,
                    TextureOp::SampleLevel => {
                        if sampled_kind == Some(SampledKind::Depth) {
                            self.expect_int_scalar(first_extra, "level")?;
                        } else {
                            expect_ty(self, first_extra, f32_ty, "level")?;
                        }
                    }
                    TextureOp::SampleGrad => {
                        expect_ty(self, first_extra, float_coord, "ddx")?;
                        expect_ty(self, first_extra + 1, float_coord, "ddy")?;
                    }
                    // No extra operand, or not a sampling operation.
                    TextureOp::Sample
                    | TextureOp::SampleCompare
                    | TextureOp::SampleCompareLevel
                    | TextureOp::Gather
                    | TextureOp::GatherCompare
                    | TextureOp::Load
                    | TextureOp::Store
                    | TextureOp::Dimensions
                    | TextureOp::NumLevels
                    | TextureOp::NumLayers
                    | TextureOp::NumSamples => {}
                }
                Ok(Some(sampled_result(self)))
            }
            TextureOp::SampleCompare | TextureOp::SampleCompareLevel => {
                if sampled_kind != Some(SampledKind::Depth) || shape.multisampled {
                    return Err(format!("`{}` needs a depth texture", self.op));
                }
                expect_sampler(self, true)?;
                self.expect_count_and_offset(4 + layer, shape, texture)?;
                expect_ty(self, 2, float_coord, "coordinate")?;
                if layer == 1 {
                    self.expect_int_scalar(3, "array layer")?;
                }
                expect_ty(self, 3 + layer, f32_ty, "depth reference")?;
                Ok(Some(f32_ty))
            }
            TextureOp::Gather | TextureOp::GatherCompare => {
                sampled_only(self)?;
                if !matches!(shape.dim, TextureDim::D2 | TextureDim::Cube) {
                    return Err(format!("`{}` needs a 2D or cube texture", self.op));
                }
                let depth = sampled_kind == Some(SampledKind::Depth);
                let compare = op == TextureOp::GatherCompare;
                if compare && !depth {
                    return Err("`texture_gather_compare` needs a depth texture".into());
                }
                expect_sampler(self, compare)?;
                // The component of a colour gather, or the depth reference of a compare.
                let extra = usize::from(compare || !depth);
                self.expect_count_and_offset(3 + layer + extra, shape, texture)?;
                expect_ty(self, 2, float_coord, "coordinate")?;
                if layer == 1 {
                    self.expect_int_scalar(3, "array layer")?;
                }
                if compare {
                    expect_ty(self, 3 + layer, f32_ty, "depth reference")?;
                } else if !depth {
                    self.expect_int_scalar(3 + layer, "component")?;
                    if !matches!(self.operands[3 + layer].constant, Some(0..=3)) {
                        return Err("`texture_gather` component must be a constant 0..=3".into());
                    }
                }
                Ok(Some(if depth {
                    self.types.vector(Scalar::F32, 4)
                } else {
                    sampled_result(self)
                }))
            }
            TextureOp::Load | TextureOp::Store if shape.dim == TextureDim::Cube => Err(format!(
                "`{}` of a cube texture (texel loads and stores address 1D, 2D and 3D ones)",
                self.op
            )),
            TextureOp::Load => {
                let extra = usize::from(sampled_kind.is_some());
                expect_count(self, 2 + layer + extra)?;
                match self.scalar_or_vector(self.ty(1)?) {
                    Some((s, n)) if s.is_integer() && n == dims => {}
                    _ => {
                        return Err(format!(
                            "`texture_load` coordinate must be {dims} integer lanes"
                        ))
                    }
                }
                for i in 2..self.operands.len() {
                    self.expect_int_scalar(i, "layer, level or sample index")?;
                }
                match storage {
                    Some((format, access)) => {
                        if access == StorageAccess::Write {
                            return Err("`texture_load` from a write-only storage texture".into());
                        }
                        Ok(Some(self.texel_vector(format.channel_kind())))
                    }
                    None => Ok(Some(sampled_result(self))),
                }
            }
            TextureOp::Store => {
                let Some((format, access)) = storage else {
                    return Err("`texture_store` needs a storage texture".into());
                };
                if access == StorageAccess::Read {
                    return Err("`texture_store` to a read-only storage texture".into());
                }
                expect_count(self, 3 + layer)?;
                match self.scalar_or_vector(self.ty(1)?) {
                    Some((s, n)) if s.is_integer() && n == dims => {}
                    _ => {
                        return Err(format!(
                            "`texture_store` coordinate must be {dims} integer lanes"
                        ))
                    }
                }
                if layer == 1 {
                    self.expect_int_scalar(2, "array layer")?;
                }
                let texel = self.texel_vector(format.channel_kind());
                expect_ty(self, 2 + layer, texel, "value")?;
                Ok(None)
            }
            TextureOp::Dimensions => {
                if self.operands.len() == 2 {
                    sampled_only(self)?;
                    self.expect_int_scalar(1, "level")?;
                }
                let lanes = match shape.dim {
                    crate::types::TextureDim::D1 => 1,
                    crate::types::TextureDim::D3 => 3,
                    _ => 2,
                };
                Ok(Some(if lanes == 1 {
                    self.types.u32()
                } else {
                    self.types.vector(Scalar::U32, lanes)
                }))
            }
            TextureOp::NumLevels => {
                sampled_only(self)?;
                Ok(Some(self.types.u32()))
            }
            TextureOp::NumLayers => {
                if !shape.arrayed {
                    return Err("`texture_num_layers` needs an arrayed texture".into());
                }
                Ok(Some(self.types.u32()))
            }
            TextureOp::NumSamples => {
                if !shape.multisampled {
                    return Err("`texture_num_samples` needs a multisampled texture".into());
                }
                Ok(Some(self.types.u32()))
            }
        }
    }

    /// Checks that a sampling or gather op has `base` operands, or `base + 1` with a texel
    /// offset last: `vec2<i32>` for a 2D texture, `vec3<i32>` for a 3D one (1D and cube
    /// textures take none).
    fn expect_count_and_offset(
        &mut self,
        base: usize,
        shape: TextureShape,
        texture: Type,
    ) -> Result<(), String> {
        let count = self.operands.len();
        if count == base {
            return Ok(());
        }
        if count != base + 1 {
            return Err(format!(
                "`{}` on {} takes {base} operands (or {} with a texel offset), found {count}",
                self.op,
                self.name(texture),
                base + 1
            ));
        }
        let lanes = match shape.dim {
            TextureDim::D2 => 2,
            TextureDim::D3 => 3,
            TextureDim::D1 | TextureDim::Cube => {
                return Err(format!(
                    "`{}` takes no texel offset on {}",
                    self.op,
                    self.name(texture)
                ))
            }
        };
        let offset = self.types.vector(Scalar::I32, lanes);
        if !self.operands[base].is_constant {
            return Err(format!("`{}` texel offset must be a constant", self.op));
        }
        if self.ty(base)? != offset {
            return Err(format!(
                "`{}` texel offset must be {}, found {}",
                self.op,
                self.name(offset),
                self.name(self.ty(base)?)
            ));
        }
        Ok(())
    }

    fn texel_vector(&mut self, kind: ScalarKind) -> Type {
        let scalar = match kind {
            ScalarKind::Sint => Scalar::I32,
            ScalarKind::Uint => Scalar::U32,
            ScalarKind::Float | ScalarKind::Bool => Scalar::F32,
        };
        self.types.vector(scalar, 4)
    }
}
