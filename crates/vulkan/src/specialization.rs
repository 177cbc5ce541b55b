//! Specialization constants: what a module declares ([`spec_constants`], part of
//! [`crate::Interface`]) and the values a run sets ([`Specialization`]), handed to the
//! driver as `VkSpecializationInfo` when the pipeline is created.
//!
//! A scalar `OpSpecConstant`, `OpSpecConstantTrue` or `OpSpecConstantFalse` decorated
//! `SpecId N` is settable; each value is read by the constant's type (a bool as `true` /
//! `false`, integers in range of their width and signedness, finite floats of 16, 32 or
//! 64 bits) and laid out as Vulkan reads it: a bool as a 32-bit `VkBool32`, other scalars
//! in their own width, little-endian. Setting an id the module does not declare, or one
//! twice, is an error before anything reaches the driver.

use crate::reflect::ReflectError;
use rspirv::dr::{Module, Operand};
use rspirv::spirv::{Decoration, Op};
use std::collections::{BTreeMap, HashMap};

/// The type of a specialization constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpecType {
    Bool,
    Int { width: u32, signed: bool },
    Float { width: u32 },
}

impl SpecType {
    /// The bytes Vulkan reads for a value of this type.
    pub fn size(self) -> usize {
        match self {
            SpecType::Bool => 4,
            SpecType::Int { width, .. } | SpecType::Float { width } => (width / 8) as usize,
        }
    }

    /// `value` read as this type: its little-endian bytes, [`SpecType::size`] long.
    pub fn encode(self, value: &str) -> Result<Vec<u8>, String> {
        let value = value.trim();
        match self {
            SpecType::Bool => match value {
                "true" => Ok(1u32.to_le_bytes().to_vec()),
                "false" => Ok(0u32.to_le_bytes().to_vec()),
                _ => Err(format!("`{value}` is not a bool (true or false)")),
            },
            SpecType::Int { width, signed } => {
                let bits = width.min(64);
                let fits = if signed {
                    let v: i64 = value.parse().map_err(|e| format!("`{value}`: {e}"))?;
                    let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
                    (lo..=hi).contains(&i128::from(v)).then_some(v as u64)
                } else {
                    let v: u64 = value.parse().map_err(|e| format!("`{value}`: {e}"))?;
                    (u128::from(v) < (1u128 << bits)).then_some(v)
                };
                let v = fits.ok_or_else(|| format!("`{value}` is out of range of {self}"))?;
                Ok(v.to_le_bytes()[..self.size()].to_vec())
            }
            SpecType::Float { width } => {
                let v: f64 = value.parse().map_err(|e| format!("`{value}`: {e}"))?;
                let bytes = match width {
                    16 => half::f16::from_f64(v).to_le_bytes().to_vec(),
                    32 => (v as f32).to_le_bytes().to_vec(),
                    _ => v.to_le_bytes().to_vec(),
                };
                let finite = match width {
                    16 => half::f16::from_f64(v).is_finite(),
                    32 => (v as f32).is_finite(),
                    _ => v.is_finite(),
                };
                match finite {
                    true => Ok(bytes),
                    false => Err(format!("`{value}` is not a finite {self}")),
                }
            }
        }
    }
}

impl std::fmt::Display for SpecType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpecType::Bool => write!(f, "bool"),
            SpecType::Int {
                width,
                signed: true,
            } => write!(f, "i{width}"),
            SpecType::Int {
                width,
                signed: false,
            } => write!(f, "u{width}"),
            SpecType::Float { width } => write!(f, "f{width}"),
        }
    }
}

/// The settable specialization constants of `module`, by `SpecId`.
pub(crate) fn spec_constants(module: &Module) -> Result<BTreeMap<u32, SpecType>, ReflectError> {
    let mut spec_ids: HashMap<u32, u32> = HashMap::new();
    for inst in &module.annotations {
        if let (Op::Decorate, Some(Operand::IdRef(target))) =
            (inst.class.opcode, inst.operands.first())
        {
            if let (Some(Operand::Decoration(Decoration::SpecId)), Some(Operand::LiteralBit32(n))) =
                (inst.operands.get(1), inst.operands.get(2))
            {
                spec_ids.insert(*target, *n);
            }
        }
    }
    let mut scalars: HashMap<u32, SpecType> = HashMap::new();
    let mut out = BTreeMap::new();
    for inst in &module.types_global_values {
        let Some(result) = inst.result_id else {
            continue;
        };
        let literal = |i: usize| match inst.operands.get(i) {
            Some(Operand::LiteralBit32(v)) => Some(*v),
            _ => None,
        };
        match inst.class.opcode {
            Op::TypeBool => {
                scalars.insert(result, SpecType::Bool);
            }
            Op::TypeInt => {
                if let (Some(width @ (8 | 16 | 32 | 64)), Some(signed)) = (literal(0), literal(1)) {
                    let signed = signed != 0;
                    scalars.insert(result, SpecType::Int { width, signed });
                }
            }
            Op::TypeFloat => {
                if let Some(width @ (16 | 32 | 64)) = literal(0) {
                    scalars.insert(result, SpecType::Float { width });
                }
            }
            Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                let Some(&id) = spec_ids.get(&result) else {
                    continue;
                };
                let ty = inst.result_type.and_then(|t| scalars.get(&t).copied());
                let ty = ty.ok_or_else(|| {
                    ReflectError::Malformed(format!(
                        "specialization constant %{result} (SpecId {id}) is not of a scalar type"
                    ))
                })?;
                if out.insert(id, ty).is_some_and(|earlier| earlier != ty) {
                    return Err(ReflectError::Malformed(format!(
                        "SpecId {id} is declared with two types"
                    )));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Values for a module's specialization constants, by `SpecId`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Specialization {
    /// `(SpecId, bytes)`, each as [`SpecType::encode`] made it.
    pub values: Vec<(u32, Vec<u8>)>,
}

impl Specialization {
    /// Reads `ID=VALUE` settings against the module's `declared` constants.
    pub fn parse(
        settings: &[(String, String)],
        declared: &BTreeMap<u32, SpecType>,
    ) -> Result<Self, String> {
        let mut values: Vec<(u32, Vec<u8>)> = Vec::with_capacity(settings.len());
        for (key, value) in settings {
            let id: u32 = key.trim().parse().map_err(|_| {
                format!("`{key}`: a SPIR-V module's specialization constants are set by SpecId")
            })?;
            let ty = declared.get(&id).ok_or_else(|| {
                let ids: Vec<String> = declared.keys().map(u32::to_string).collect();
                format!(
                    "the module has no specialization constant with SpecId {id} (SpecIds: {})",
                    if ids.is_empty() {
                        "none".to_string()
                    } else {
                        ids.join(", ")
                    }
                )
            })?;
            if values.iter().any(|(i, _)| *i == id) {
                return Err(format!("SpecId {id} is set twice"));
            }
            let bytes = ty
                .encode(value)
                .map_err(|e| format!("SpecId {id} ({ty}): {e}"))?;
            values.push((id, bytes));
        }
        Ok(Specialization { values })
    }

    /// The map entries and data of `VkSpecializationInfo`.
    pub(crate) fn layout(&self) -> (Vec<ash::vk::SpecializationMapEntry>, Vec<u8>) {
        let mut data = Vec::new();
        let entries = self
            .values
            .iter()
            .map(|(id, bytes)| {
                let entry = ash::vk::SpecializationMapEntry {
                    constant_id: *id,
                    offset: data.len() as u32,
                    size: bytes.len(),
                };
                data.extend_from_slice(bytes);
                entry
            })
            .collect();
        (entries, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_by_type_and_width() {
        let u8t = SpecType::Int {
            width: 8,
            signed: false,
        };
        let i16t = SpecType::Int {
            width: 16,
            signed: true,
        };
        assert_eq!(u8t.encode("255"), Ok(vec![255]));
        assert!(u8t.encode("256").is_err());
        assert_eq!(i16t.encode("-2"), Ok(vec![0xfe, 0xff]));
        assert!(i16t.encode("40000").is_err());
        assert_eq!(SpecType::Bool.encode("true"), Ok(vec![1, 0, 0, 0]));
        assert!(SpecType::Bool.encode("1").is_err());
        assert_eq!(
            SpecType::Float { width: 32 }.encode("1.5"),
            Ok(1.5f32.to_le_bytes().to_vec())
        );
        assert_eq!(
            SpecType::Float { width: 16 }.encode("1.5"),
            Ok(vec![0x00, 0x3e])
        );
        assert!(SpecType::Float { width: 16 }.encode("70000").is_err());
        assert!(SpecType::Float { width: 32 }.encode("inf").is_err());
    }

    #[test]
    fn unknown_and_repeated_ids_are_refused() {
        let declared = BTreeMap::from([(
            7,
            SpecType::Int {
                width: 32,
                signed: false,
            },
        )]);
        let set = |pairs: &[(&str, &str)]| {
            let pairs: Vec<(String, String)> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            Specialization::parse(&pairs, &declared)
        };
        assert!(set(&[("8", "1")]).unwrap_err().contains("SpecIds: 7"));
        assert!(set(&[("7", "1"), ("7", "2")])
            .unwrap_err()
            .contains("twice"));
        assert!(set(&[("bias", "1")]).unwrap_err().contains("by SpecId"));
        let ok = set(&[("7", "5")]).unwrap();
        let (entries, data) = ok.layout();
        assert_eq!(
            (entries[0].constant_id, entries[0].offset, entries[0].size),
            (7, 0, 4)
        );
        assert_eq!(data, vec![5, 0, 0, 0]);
    }
}
