//! Interning of module-level declarations: every type, constant and module-level
//! `OpUndef` goes through [`Writer::declare`], which returns the id of an earlier
//! declaration with the same opcode, result type, operands and decorations, or emits a
//! new one (with an explicit id, so `rspirv`'s own linear deduplication scan never runs).
//!
//! Invariant: no two declarations in the written module have the same opcode, operands
//! and decoration set. What stays legitimately distinct is a type whose *decorations*
//! differ, because SPIR-V attaches a layout to the type id itself:
//!
//! - a struct or array in buffer memory carries `Offset` / `ArrayStride` /
//!   `MatrixStride` / `ColMajor`, and the same struct or array in function, private or
//!   workgroup memory must carry none (Vulkan forbids explicit layouts there), so the two
//!   are two ids with the same `OpTypeStruct` / `OpTypeArray` operands;
//! - `std430` (storage, push constant) and `std140` (uniform) copies differ in their
//!   strides and offsets;
//! - a buffer's `Block` struct is distinct from the same struct nested inside another
//!   buffer, which must not be a `Block`.
//!
//! Two buffer globals of the same type share one `Block` struct, and two oxir types that
//! write the same SPIR-V (e.g. structs with the same member types) share one id; nothing
//! here names types, so sharing is invisible. Pointers, functions and image types have no
//! decorations and are interned on their operands alone.
//!
//! Not interned: global variables (each global is its own variable), specialisation
//! constants (none are written) and instructions inside functions.

use super::*;

/// A decoration of a declared type: on the type (`member: None`) or on one member.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Deco {
    pub(super) member: Option<u32>,
    pub(super) decoration: Decoration,
    pub(super) operands: Vec<Operand>,
}

impl Deco {
    pub(super) fn on_type(decoration: Decoration, literals: &[u32]) -> Self {
        Deco {
            member: None,
            decoration,
            operands: literals.iter().map(|&l| Operand::LiteralBit32(l)).collect(),
        }
    }

    pub(super) fn on_member(member: u32, decoration: Decoration, literals: &[u32]) -> Self {
        Deco {
            member: Some(member),
            ..Deco::on_type(decoration, literals)
        }
    }
}

/// What makes two declarations the same.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct DeclKey {
    op: Op,
    ty: Option<Word>,
    operands: Vec<Operand>,
    decorations: Vec<Deco>,
}

impl Writer<'_> {
    /// The id of the declaration `op` (result type `ty`, `operands`) with `decorations`:
    /// an earlier one's, or a new one emitted now.
    pub(super) fn declare_decorated(
        &mut self,
        op: Op,
        ty: Option<Word>,
        operands: Vec<Operand>,
        decorations: Vec<Deco>,
    ) -> Word {
        let key = DeclKey {
            op,
            ty,
            operands,
            decorations,
        };
        if let Some(&id) = self.decls.get(&key) {
            return id;
        }
        let id = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(Instruction::new(op, ty, Some(id), key.operands.clone()));
        for d in &key.decorations {
            match d.member {
                None => self.b.decorate(id, d.decoration, d.operands.clone()),
                Some(m) => self
                    .b
                    .member_decorate(id, m, d.decoration, d.operands.clone()),
            }
        }
        self.decls.insert(key, id);
        id
    }

    /// [`Writer::declare_decorated`] without decorations.
    pub(super) fn declare(&mut self, op: Op, ty: Option<Word>, operands: Vec<Operand>) -> Word {
        self.declare_decorated(op, ty, operands, Vec::new())
    }

    pub(super) fn type_void(&mut self) -> Word {
        self.declare(Op::TypeVoid, None, vec![])
    }

    pub(super) fn type_bool(&mut self) -> Word {
        self.declare(Op::TypeBool, None, vec![])
    }

    pub(super) fn type_int(&mut self, width: u32, signed: u32) -> Word {
        let operands = vec![Operand::LiteralBit32(width), Operand::LiteralBit32(signed)];
        self.declare(Op::TypeInt, None, operands)
    }

    pub(super) fn type_float(&mut self, width: u32) -> Word {
        self.declare(Op::TypeFloat, None, vec![Operand::LiteralBit32(width)])
    }

    pub(super) fn type_vector(&mut self, elem: Word, len: u32) -> Word {
        let operands = vec![Operand::IdRef(elem), Operand::LiteralBit32(len)];
        self.declare(Op::TypeVector, None, operands)
    }

    pub(super) fn type_matrix(&mut self, column: Word, columns: u32) -> Word {
        let operands = vec![Operand::IdRef(column), Operand::LiteralBit32(columns)];
        self.declare(Op::TypeMatrix, None, operands)
    }

    /// An array of `len` (the id of a constant) `elem`s, with `ArrayStride` when `stride`
    /// is given.
    pub(super) fn type_array(&mut self, elem: Word, len: Word, stride: Option<u32>) -> Word {
        let decorations = stride_decoration(stride);
        let operands = vec![Operand::IdRef(elem), Operand::IdRef(len)];
        self.declare_decorated(Op::TypeArray, None, operands, decorations)
    }

    pub(super) fn type_runtime_array(&mut self, elem: Word, stride: Option<u32>) -> Word {
        let decorations = stride_decoration(stride);
        let operands = vec![Operand::IdRef(elem)];
        self.declare_decorated(Op::TypeRuntimeArray, None, operands, decorations)
    }

    /// A struct of `members` with `decorations` (its layout, and `Block` for a buffer).
    pub(super) fn type_struct(&mut self, members: &[Word], decorations: Vec<Deco>) -> Word {
        let operands = members.iter().map(|&m| Operand::IdRef(m)).collect();
        self.declare_decorated(Op::TypeStruct, None, operands, decorations)
    }

    pub(super) fn type_pointer(&mut self, class: StorageClass, pointee: Word) -> Word {
        let operands = vec![Operand::StorageClass(class), Operand::IdRef(pointee)];
        self.declare(Op::TypePointer, None, operands)
    }

    pub(super) fn type_function(&mut self, ret: Word, params: &[Word]) -> Word {
        let mut operands = vec![Operand::IdRef(ret)];
        operands.extend(params.iter().map(|&p| Operand::IdRef(p)));
        self.declare(Op::TypeFunction, None, operands)
    }

    /// `OpTypeImage` with `sampled_type`, and `depth`, `arrayed`, `multisampled` and
    /// `sampled` as their literals (no access qualifier).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn type_image(
        &mut self,
        sampled_type: Word,
        dim: spirv::Dim,
        depth: u32,
        arrayed: u32,
        multisampled: u32,
        sampled: u32,
        format: spirv::ImageFormat,
    ) -> Word {
        let operands = vec![
            Operand::IdRef(sampled_type),
            Operand::Dim(dim),
            Operand::LiteralBit32(depth),
            Operand::LiteralBit32(arrayed),
            Operand::LiteralBit32(multisampled),
            Operand::LiteralBit32(sampled),
            Operand::ImageFormat(format),
        ];
        self.declare(Op::TypeImage, None, operands)
    }

    pub(super) fn type_sampler(&mut self) -> Word {
        self.declare(Op::TypeSampler, None, vec![])
    }

    pub(super) fn type_sampled_image(&mut self, image: Word) -> Word {
        self.declare(Op::TypeSampledImage, None, vec![Operand::IdRef(image)])
    }

    pub(super) fn constant_bit32(&mut self, ty: Word, bits: u32) -> Word {
        self.declare(Op::Constant, Some(ty), vec![Operand::LiteralBit32(bits)])
    }

    pub(super) fn constant_bool(&mut self, ty: Word, value: bool) -> Word {
        let op = if value {
            Op::ConstantTrue
        } else {
            Op::ConstantFalse
        };
        self.declare(op, Some(ty), vec![])
    }

    pub(super) fn constant_composite(&mut self, ty: Word, parts: &[Word]) -> Word {
        let operands = parts.iter().map(|&p| Operand::IdRef(p)).collect();
        self.declare(Op::ConstantComposite, Some(ty), operands)
    }

    pub(super) fn constant_null(&mut self, ty: Word) -> Word {
        self.declare(Op::ConstantNull, Some(ty), vec![])
    }

    /// A module-level `OpUndef` of `ty` (one per type).
    pub(super) fn undef(&mut self, ty: Word) -> Word {
        self.declare(Op::Undef, Some(ty), vec![])
    }
}

fn stride_decoration(stride: Option<u32>) -> Vec<Deco> {
    stride
        .map(|s| Deco::on_type(Decoration::ArrayStride, &[s]))
        .into_iter()
        .collect()
}
