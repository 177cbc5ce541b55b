//! Reading and building module constants, for `const-fold` and `algebraic-simplify`.
//!
//! **Invariant: deciding never interns.** The printer lists every interned constant, so a
//! constant interned for a fold that is then abandoned would change the module text
//! while the pass reports no change. The readers here ([`const_of`], [`lanes`],
//! [`elements`]) only read; a decision is described by [`Elem`]s and lane bits, and only
//! [`materialize`] / [`lanes_const`] intern, once the pass has decided to rewrite. They
//! may intern *types* (a matrix column's vector type, a lane's scalar type), which the
//! text form never lists.
//!
//! What it does not do: read constants that contain `undef` as lanes ([`lanes`] refuses
//! them: an undefined lane has no bits to compute with), or look through anything that
//! is not a module constant (`ValueDef::Const`).

use oxir_ir::constants::ConstKind;
use oxir_ir::types::TypeStore;
use oxir_ir::{Const, Function, Module, Scalar, Type, TypeData, Value, ValueDef};
use smallvec::SmallVec;

/// Lane bits of a scalar (one lane) or vector constant.
pub type LaneBits = SmallVec<[u64; 4]>;

/// The module constant `v` names, after alias resolution.
pub fn const_of(func: &Function, v: Value) -> Option<Const> {
    match func.dfg.value_def(v) {
        ValueDef::Const(c) => Some(c),
        ValueDef::Result(_)
        | ValueDef::Param(..)
        | ValueDef::Global(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => None,
    }
}

/// The element scalar and lane count of `ty` when it is a scalar or a vector.
pub fn scalar_or_vector(types: &TypeStore, ty: Type) -> Option<(Scalar, u8)> {
    types.try_get(ty)?.scalar_or_vector_elem()
}

/// The canonical lane bits of a scalar or vector constant; `None` for other types and
/// for constants with an undefined lane.
pub fn lanes(module: &Module, c: Const) -> Option<(Scalar, LaneBits)> {
    let data = module.consts.try_get(c)?;
    let (s, n) = scalar_or_vector(&module.types, data.ty)?;
    let bits: LaneBits = match &data.kind {
        ConstKind::Scalar(b) => SmallVec::from_elem(*b, 1),
        ConstKind::Zero => SmallVec::from_elem(0, usize::from(n)),
        ConstKind::Undef => return None,
        ConstKind::Composite(parts) => parts
            .iter()
            .map(|&p| module.const_scalar_value(p).map(|(_, b)| b))
            .collect::<Option<_>>()?,
    };
    (bits.len() == usize::from(n)).then_some((s, bits))
}

/// A constant, or the zero / undefined value of a type, not interned yet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Elem {
    /// An interned constant.
    Const(Const),
    /// `zero` of the type.
    Zero(Type),
    /// `undef` of the type.
    Undef(Type),
}

/// The type of element `i` of a vector, matrix, array or struct type.
pub fn element_type(types: &mut TypeStore, ty: Type, i: u32) -> Option<Type> {
    let data = types.try_get(ty)?.clone();
    match data {
        TypeData::Vector { elem, len } => (i < u32::from(len)).then(|| types.scalar(elem)),
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => (i < u32::from(columns)).then(|| types.vector(elem, rows)),
        TypeData::Array { elem, len, .. } => (i < len).then_some(elem),
        TypeData::Struct(st) => st.members.get(i as usize).map(|m| m.ty),
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => None,
    }
}

/// The number of elements of a vector, matrix, array or struct type.
pub fn element_count(types: &TypeStore, ty: Type) -> Option<u32> {
    match types.try_get(ty)? {
        TypeData::Vector { len, .. } => Some(u32::from(*len)),
        TypeData::Matrix { columns, .. } => Some(u32::from(*columns)),
        TypeData::Array { len, .. } => Some(*len),
        TypeData::Struct(st) => u32::try_from(st.members.len()).ok(),
        TypeData::Void
        | TypeData::Scalar(_)
        | TypeData::RuntimeArray { .. }
        | TypeData::Pointer { .. }
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => None,
    }
}

/// The type of an [`Elem`].
pub fn elem_type(module: &Module, e: Elem) -> Option<Type> {
    match e {
        Elem::Const(c) => module.consts.try_get(c).map(|d| d.ty),
        Elem::Zero(t) | Elem::Undef(t) => Some(t),
    }
}

/// The elements of the composite value `e` (a zero composite has zero elements, an
/// undefined one undefined elements); `None` when `e` is not a composite.
pub fn elements(module: &mut Module, e: Elem) -> Option<Vec<Elem>> {
    let ty = elem_type(module, e)?;
    let n = element_count(&module.types, ty)?;
    let kind = match e {
        Elem::Const(c) => module.consts.try_get(c)?.kind.clone(),
        Elem::Zero(_) => ConstKind::Zero,
        Elem::Undef(_) => ConstKind::Undef,
    };
    match kind {
        ConstKind::Composite(parts) => {
            (parts.len() == n as usize).then(|| parts.into_iter().map(Elem::Const).collect())
        }
        ConstKind::Zero => (0..n)
            .map(|i| element_type(&mut module.types, ty, i).map(Elem::Zero))
            .collect(),
        ConstKind::Undef => (0..n)
            .map(|i| element_type(&mut module.types, ty, i).map(Elem::Undef))
            .collect(),
        ConstKind::Scalar(_) => None,
    }
}

/// Element `i` of the composite value `e`.
pub fn element(module: &mut Module, e: Elem, i: u32) -> Option<Elem> {
    let ty = elem_type(module, e)?;
    let et = element_type(&mut module.types, ty, i)?;
    Some(match e {
        Elem::Const(c) => match &module.consts.try_get(c)?.kind {
            ConstKind::Composite(parts) => Elem::Const(*parts.get(i as usize)?),
            ConstKind::Zero => Elem::Zero(et),
            ConstKind::Undef => Elem::Undef(et),
            ConstKind::Scalar(_) => return None,
        },
        Elem::Zero(_) => Elem::Zero(et),
        Elem::Undef(_) => Elem::Undef(et),
    })
}

/// Interns `e`.
pub fn materialize(module: &mut Module, e: Elem) -> Const {
    match e {
        Elem::Const(c) => c,
        Elem::Zero(t) => module.const_zero(t),
        Elem::Undef(t) => module.const_undef(t),
    }
}

/// Interns the composite of type `ty` with elements `parts`.
pub fn composite_const(module: &mut Module, ty: Type, parts: &[Elem]) -> Const {
    let parts = parts.iter().map(|&p| materialize(module, p)).collect();
    module.const_composite(ty, parts)
}

/// Interns the scalar or vector constant of type `ty` (lane type `s`) with the given
/// lane bits: a scalar constant for one lane of a scalar type, else a composite of
/// scalar constants.
pub fn lanes_const(module: &mut Module, ty: Type, s: Scalar, bits: &[u64]) -> Const {
    let is_scalar = matches!(module.types.try_get(ty), Some(TypeData::Scalar(_)));
    match bits {
        [b] if is_scalar => module.const_scalar(s, *b),
        _ => {
            let parts = bits.iter().map(|&b| module.const_scalar(s, b)).collect();
            module.const_composite(ty, parts)
        }
    }
}
