//! The module: interned types and constants, globals, and functions.

use crate::constants::{canonical_scalar_bits, ConstData, ConstKind, ConstStore};
use crate::data_layout::LayoutRules;
use crate::entities::{Const, Func, Global, Type};
use crate::function::Function;
use crate::types::{AddressSpace, Scalar, TypeData, TypeStore};
use cranelift_entity::PrimaryMap;

/// A resource binding: descriptor set (group) and binding number.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceBinding {
    /// The descriptor set (WGSL `@group`).
    pub group: u32,
    /// The binding number within the set (WGSL `@binding`).
    pub binding: u32,
}

/// A module-level variable. Its address, of type `ptr<space, ty>`, is a value in every
/// function that uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalData {
    /// Unique within the module (shared namespace with functions); spelled `@name`.
    pub name: String,
    /// Where the variable lives; never `function`.
    pub space: AddressSpace,
    /// The type of the variable (the pointee).
    pub ty: Type,
    /// The initial value, of type `ty`; only `private` and `workgroup` globals may have
    /// one. `None`: the initial contents are unspecified (or, for bound resources,
    /// provided by the host).
    pub init: Option<Const>,
    /// The resource binding: present exactly for `storage`, `uniform` and `handle`
    /// globals.
    pub binding: Option<ResourceBinding>,
}

/// The layout rules of the memory a module shares with the host, chosen by the front-end
/// that computed the layout: WGSL lays out uniform buffers as storage buffers (std430 with
/// WGSL's extra uniform constraints), GLSL's `uniform` blocks are std140. Storage buffers
/// and push constants are always std430; workgroup, private and function memory use std430
/// in every engine that has to lay them out.
///
/// The text form writes `layout uniform std430` before the first struct when the rules
/// differ from the default (std140); the verifier accepts std140 and std430 for uniform
/// buffers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct BufferLayouts {
    /// The rules of every `uniform` global (and of pointers into uniform memory).
    pub uniform: LayoutRules,
}

impl Default for BufferLayouts {
    fn default() -> Self {
        Self {
            uniform: LayoutRules::Std140,
        }
    }
}

impl BufferLayouts {
    /// The rules of memory in `space` under these layouts.
    pub fn rules(&self, space: AddressSpace) -> LayoutRules {
        match space {
            AddressSpace::Uniform => self.uniform,
            AddressSpace::Storage(_)
            | AddressSpace::PushConstant
            | AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Workgroup
            | AddressSpace::Handle => LayoutRules::Std430,
        }
    }
}

/// A whole program: the unit the parser reads, the printer writes, the verifier checks
/// and passes transform. Types and constants are interned module-wide; globals and
/// functions share one namespace of unique names.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The interned types every function and global refers to.
    pub types: TypeStore,
    /// The interned constants every function and global initializer refers to.
    pub consts: ConstStore,
    /// The module-level variables, in text order.
    pub globals: PrimaryMap<Global, GlobalData>,
    /// The functions (definitions and declarations), in text order.
    pub functions: PrimaryMap<Func, Function>,
    /// The layout rules of host-shared memory.
    pub layouts: BufferLayouts,
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// The layout rules of memory in `space`: the one answer every engine and back-end
    /// uses, so buffers hold the same bytes everywhere.
    pub fn layout_rules(&self, space: AddressSpace) -> LayoutRules {
        self.layouts.rules(space)
    }

    /// Appends `function`; name uniqueness is the verifier's to check.
    pub fn add_function(&mut self, function: Function) -> Func {
        self.functions.push(function)
    }

    /// Appends `global`; name uniqueness is the verifier's to check.
    pub fn add_global(&mut self, global: GlobalData) -> Global {
        self.globals.push(global)
    }

    /// The first function named `name` (a linear search); `None` when there is none.
    pub fn function_by_name(&self, name: &str) -> Option<Func> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(k, _)| k)
    }

    /// The first global named `name` (a linear search); `None` when there is none.
    pub fn global_by_name(&self, name: &str) -> Option<Global> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(k, _)| k)
    }

    /// The pointer type of a global's address, `ptr<space, ty>`, interned on demand.
    /// Panics when `g` is out of range.
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

    /// The `bool` constant `value`.
    pub fn const_bool(&mut self, value: bool) -> Const {
        self.const_scalar(Scalar::BOOL, u64::from(value))
    }

    /// The `i32` constant `value`.
    pub fn const_i32(&mut self, value: i32) -> Const {
        self.const_scalar(Scalar::I32, value as i64 as u64)
    }

    /// The `u32` constant `value`.
    pub fn const_u32(&mut self, value: u32) -> Const {
        self.const_scalar(Scalar::U32, u64::from(value))
    }

    /// The `f32` constant `value`, by bit pattern (so `-0.0` and each NaN are distinct).
    pub fn const_f32(&mut self, value: f32) -> Const {
        self.const_scalar(Scalar::F32, u64::from(value.to_bits()))
    }

    /// The `f64` constant `value`, by bit pattern (so `-0.0` and each NaN are distinct).
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

    /// The all-zero constant of `ty` (any sized, non-resource, non-opaque type).
    pub fn const_zero(&mut self, ty: Type) -> Const {
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Zero,
        })
    }

    /// The undefined constant of `ty`: some value of the type, left unspecified.
    pub fn const_undef(&mut self, ty: Type) -> Const {
        self.consts.intern(ConstData {
            ty,
            kind: ConstKind::Undef,
        })
    }

    /// The scalar of constant `c`'s type with its canonical bits, when `c` is a scalar
    /// constant or a scalar `zero`; `None` for other constants and out-of-range indices.
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
