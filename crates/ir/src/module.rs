//! The module: interned types and constants, globals, and functions.

use crate::constants::{canonical_scalar_bits, ConstData, ConstKind, ConstStore};
use crate::entities::{Const, Func, Global, Type};
use crate::function::Function;
use crate::types::{AddressSpace, Scalar, TypeData, TypeStore};
use cranelift_entity::PrimaryMap;

/// A resource binding: descriptor set (group) and binding number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceBinding {
    pub group: u32,
    pub binding: u32,
}

/// A module-level variable. Its address, of type `ptr<space, ty>`, is a value in every
/// function that uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalData {
    /// Unique within the module (shared namespace with functions); spelled `@name`.
    pub name: String,
    pub space: AddressSpace,
    /// The type of the variable (the pointee).
    pub ty: Type,
    pub init: Option<Const>,
    pub binding: Option<ResourceBinding>,
}

#[derive(Clone, Debug, Default)]
pub struct Module {
    pub types: TypeStore,
    pub consts: ConstStore,
    pub globals: PrimaryMap<Global, GlobalData>,
    pub functions: PrimaryMap<Func, Function>,
}

impl Module {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add_function(&mut self, function: Function) -> Func {
        self.functions.push(function)
    }

    pub fn add_global(&mut self, global: GlobalData) -> Global {
        self.globals.push(global)
    }

    pub fn function_by_name(&self, name: &str) -> Option<Func> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(k, _)| k)
    }

    pub fn global_by_name(&self, name: &str) -> Option<Global> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(k, _)| k)
    }

    /// The pointer type of a global's address.
    pub fn global_pointer_type(&mut self, g: Global) -> Type {
        let GlobalData { space, ty, .. } = self.globals[g];
        self.types.pointer(space, ty)
    }

    // --- constants -----------------------------------------------------------------------

    /// A scalar constant from raw bits, canonicalised to the scalar's width.
    pub fn const_scalar(&mut self, scalar: Scalar, bits: u64) -> Const {
        let ty = self.types.scalar(scalar);
        let bits = canonical_scalar_bits(scalar, bits);
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Scalar(bits),
        })
    }

    pub fn const_bool(&mut self, value: bool) -> Const {
        self.const_scalar(Scalar::BOOL, u64::from(value))
    }

    pub fn const_i32(&mut self, value: i32) -> Const {
        self.const_scalar(Scalar::I32, value as i64 as u64)
    }

    pub fn const_u32(&mut self, value: u32) -> Const {
        self.const_scalar(Scalar::U32, u64::from(value))
    }

    pub fn const_f32(&mut self, value: f32) -> Const {
        self.const_scalar(Scalar::F32, u64::from(value.to_bits()))
    }

    pub fn const_f64(&mut self, value: f64) -> Const {
        self.const_scalar(Scalar::F64, value.to_bits())
    }

    /// A composite constant; the verifier checks that `elements` fit `ty`.
    pub fn const_composite(&mut self, ty: Type, elements: Vec<Const>) -> Const {
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Composite(elements),
        })
    }

    pub fn const_zero(&mut self, ty: Type) -> Const {
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Zero,
        })
    }

    pub fn const_undef(&mut self, ty: Type) -> Const {
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Undef,
        })
    }

    /// The scalar of constant `c`'s type with its bits, when `c` is a scalar constant.
    pub fn const_scalar_value(&self, c: Const) -> Option<(Scalar, u64)> {
        let data = self.consts.try_get(c)?;
        match (&data.kind, self.types.try_get(data.ty)?) {
            (ConstKind::Scalar(bits), TypeData::Scalar(s)) => Some((*s, *bits)),
            (ConstKind::Zero, TypeData::Scalar(s)) => Some((*s, 0)),
            _ => None,
        }
    }

    /// Total number of instructions placed in function bodies.
    pub fn inst_count(&self) -> usize {
        self.functions
            .values()
            .map(Function::placed_inst_count)
            .sum()
    }
}
