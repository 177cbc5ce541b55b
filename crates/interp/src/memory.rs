//! Byte-level memory: loading and storing typed values through the layout engine.

use crate::scalar::canon;
use crate::value::{Lanes, Val};
use oxir_ir::data_layout::{LayoutCache, LayoutRules};
use oxir_ir::types::TypeStore;
use oxir_ir::{Scalar, Type, TypeData};

/// Layout caches for the rule sets the interpreter uses.
pub struct Layouts {
    pub std430: LayoutCache,
    pub std140: LayoutCache,
}

impl Default for Layouts {
    fn default() -> Self {
        Layouts {
            std430: LayoutCache::new(LayoutRules::Std430),
            std140: LayoutCache::new(LayoutRules::Std140),
        }
    }
}

impl Layouts {
    pub fn get(
        &mut self,
        types: &TypeStore,
        ty: Type,
        rules: LayoutRules,
    ) -> Result<oxir_ir::data_layout::TypeLayout, String> {
        let cache = if rules == LayoutRules::Std140 {
            &mut self.std140
        } else {
            &mut self.std430
        };
        cache
            .get(types, ty)
            .cloned()
            .map_err(|e| format!("layout of {}: {e}", types.display(ty)))
    }

    pub fn size(&mut self, types: &TypeStore, ty: Type, rules: LayoutRules) -> Result<u64, String> {
        if let TypeData::Scalar(s) = types.get(ty) {
            return Ok(scalar_size(*s) as u64);
        }
        let cache = if rules == LayoutRules::Std140 {
            &mut self.std140
        } else {
            &mut self.std430
        };
        cache
            .get(types, ty)
            .map(|l| u64::from(l.size))
            .map_err(|e| format!("layout of {}: {e}", types.display(ty)))
    }
}

fn read_scalar(s: Scalar, size: usize, bytes: &[u8], at: usize) -> u64 {
    let mut raw = [0u8; 8];
    raw[..size].copy_from_slice(&bytes[at..at + size]);
    let v = u64::from_le_bytes(raw);
    canon(s, v)
}

fn write_scalar(size: usize, bits: u64, bytes: &mut [u8], at: usize) {
    bytes[at..at + size].copy_from_slice(&bits.to_le_bytes()[..size]);
}

fn scalar_size(s: Scalar) -> usize {
    // bool is a 32-bit value under std430 / std140 (the rules the interpreter uses).
    if s.is_bool() {
        4
    } else {
        s.bytes() as usize
    }
}

/// The zero value of `ty`.
pub fn zero(types: &TypeStore, ty: Type) -> Val {
    match types.get(ty) {
        TypeData::Scalar(_) => Val::S(0),
        TypeData::Vector { len, .. } => Val::V(Lanes::from_elem(0, usize::from(*len))),
        TypeData::Matrix { columns, rows, .. } => Val::C(
            (0..*columns)
                .map(|_| Val::V(Lanes::from_elem(0, usize::from(*rows))))
                .collect(),
        ),
        TypeData::Array { elem, len, .. } => {
            let z = zero(types, *elem);
            Val::C(vec![z; *len as usize])
        }
        TypeData::Struct(st) => Val::C(st.members.iter().map(|m| zero(types, m.ty)).collect()),
        _ => Val::Undef,
    }
}

/// Reads a value of type `ty` at byte `at` (the caller checked the bounds).
pub fn load(
    types: &TypeStore,
    layouts: &mut Layouts,
    rules: LayoutRules,
    ty: Type,
    bytes: &[u8],
    at: usize,
) -> Result<Val, String> {
    Ok(match types.get(ty) {
        TypeData::Scalar(s) => Val::S(read_scalar(*s, scalar_size(*s), bytes, at)),
        TypeData::Vector { elem, len } => {
            let n = scalar_size(*elem);
            Val::V(
                (0..usize::from(*len))
                    .map(|i| read_scalar(*elem, n, bytes, at + i * n))
                    .collect(),
            )
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let stride = layouts.get(types, ty, rules)?.stride.unwrap_or(0) as usize;
            let n = scalar_size(*elem);
            Val::C(
                (0..usize::from(*columns))
                    .map(|c| {
                        Val::V(
                            (0..usize::from(*rows))
                                .map(|r| read_scalar(*elem, n, bytes, at + c * stride + r * n))
                                .collect(),
                        )
                    })
                    .collect(),
            )
        }
        TypeData::Array { elem, len, .. } => {
            let stride = layouts.get(types, ty, rules)?.stride.unwrap_or(0) as usize;
            let mut out = Vec::with_capacity(*len as usize);
            for i in 0..*len as usize {
                out.push(load(types, layouts, rules, *elem, bytes, at + i * stride)?);
            }
            Val::C(out)
        }
        TypeData::Struct(st) => {
            let offsets = layouts.get(types, ty, rules)?.offsets;
            let mut out = Vec::with_capacity(st.members.len());
            for (m, off) in st.members.iter().zip(offsets) {
                out.push(load(types, layouts, rules, m.ty, bytes, at + off as usize)?);
            }
            Val::C(out)
        }
        other => return Err(format!("cannot load a value of type {other:?} from memory")),
    })
}

/// Writes `val` of type `ty` at byte `at` (the caller checked the bounds). Padding is
/// left untouched.
pub fn store(
    types: &TypeStore,
    layouts: &mut Layouts,
    rules: LayoutRules,
    ty: Type,
    val: &Val,
    bytes: &mut [u8],
    at: usize,
) -> Result<(), String> {
    match types.get(ty) {
        TypeData::Scalar(s) => write_scalar(scalar_size(*s), val.bits(), bytes, at),
        TypeData::Vector { elem, .. } => {
            let n = scalar_size(*elem);
            for (i, lane) in val.lanes().iter().enumerate() {
                write_scalar(n, *lane, bytes, at + i * n);
            }
        }
        TypeData::Matrix { elem, .. } => {
            let stride = layouts.get(types, ty, rules)?.stride.unwrap_or(0) as usize;
            let n = scalar_size(*elem);
            for (c, col) in val.elems().iter().enumerate() {
                for (r, lane) in col.lanes().iter().enumerate() {
                    write_scalar(n, *lane, bytes, at + c * stride + r * n);
                }
            }
        }
        TypeData::Array { elem, .. } => {
            let stride = layouts.get(types, ty, rules)?.stride.unwrap_or(0) as usize;
            for (i, e) in val.elems().iter().enumerate() {
                store(types, layouts, rules, *elem, e, bytes, at + i * stride)?;
            }
        }
        TypeData::Struct(st) => {
            let offsets = layouts.get(types, ty, rules)?.offsets;
            for ((m, off), e) in st.members.iter().zip(offsets).zip(val.elems()) {
                store(types, layouts, rules, m.ty, e, bytes, at + off as usize)?;
            }
        }
        other => return Err(format!("cannot store a value of type {other:?} to memory")),
    }
    Ok(())
}
