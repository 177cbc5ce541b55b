//! Interned module constants: scalars (as bit patterns), composites, zero and undef.
//!
//! Scalars store their bits canonicalised to the type's width: integers truncated to
//! their width and sign-extended for signed types, bools as 0 or 1, floats as their IEEE
//! bit pattern in the low bits. Canonical storage makes interning exact: two constants are
//! equal exactly when their indices are. A composite lists one constant per element,
//! member, column or lane.

use crate::entities::{Const, Type};
use crate::types::{Scalar, ScalarKind};
use cranelift_entity::PrimaryMap;

/// The value of a constant, given its type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstKind {
    /// A scalar's canonical bit pattern.
    Scalar(u64),
    /// One constant per element.
    Composite(Vec<Const>),
    /// All bytes zero (any sized type).
    Zero,
    /// An unspecified value (any sized type).
    Undef,
}

/// One interned constant: its type and value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstData {
    /// The constant's type.
    pub ty: Type,
    /// The constant's value, which the verifier checks fits `ty`.
    pub kind: ConstKind,
}

/// Canonicalises raw bits to `scalar`'s width (see the module docs).
pub fn canonical_scalar_bits(scalar: Scalar, bits: u64) -> u64 {
    match scalar.kind {
        ScalarKind::Bool => u64::from(bits != 0),
        ScalarKind::Sint => {
            let width = u32::from(scalar.bits);
            if width >= 64 {
                bits
            } else {
                let shift = 64 - width;
                (((bits << shift) as i64) >> shift) as u64
            }
        }
        ScalarKind::Uint | ScalarKind::Float => {
            let width = u32::from(scalar.bits);
            if width >= 64 {
                bits
            } else {
                bits & ((1u64 << width) - 1)
            }
        }
    }
}

/// The interner of a module's constants.
#[derive(Clone, Debug, Default)]
pub struct ConstStore {
    consts: PrimaryMap<Const, ConstData>,
    index: crate::hash::HashMap<ConstData, Const>,
}

impl ConstStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns `data` as given; callers canonicalise scalar bits first (the module's
    /// constructors do).
    pub fn intern(&mut self, data: ConstData) -> Const {
        if let Some(&c) = self.index.get(&data) {
            return c;
        }
        let c = self.consts.push(data.clone());
        self.index.insert(data, c);
        c
    }

    /// The type and value of `c`.
    ///
    /// # Panics
    /// When `c` is not an index of this store; see [`ConstStore::try_get`].
    pub fn get(&self, c: Const) -> &ConstData {
        &self.consts[c]
    }

    /// The type and value of `c`, or `None` when `c` is not an index of this store.
    pub fn try_get(&self, c: Const) -> Option<&ConstData> {
        self.consts.get(c)
    }

    /// The number of distinct constants interned.
    pub fn len(&self) -> usize {
        self.consts.len()
    }

    /// Whether no constant has been interned.
    pub fn is_empty(&self) -> bool {
        self.consts.is_empty()
    }

    /// Every constant with its data, in interning order.
    pub fn iter(&self) -> impl Iterator<Item = (Const, &ConstData)> {
        self.consts.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_bits_are_canonical() {
        assert_eq!(canonical_scalar_bits(Scalar::I8, 0xff), u64::MAX);
        assert_eq!(canonical_scalar_bits(Scalar::U8, 0x1ff), 0xff);
        assert_eq!(
            canonical_scalar_bits(Scalar::I32, 0x8000_0000),
            0xffff_ffff_8000_0000
        );
        assert_eq!(canonical_scalar_bits(Scalar::BOOL, 7), 1);
        assert_eq!(
            canonical_scalar_bits(Scalar::F32, 0xdead_0000_3f80_0000),
            0x3f80_0000
        );
    }
}
