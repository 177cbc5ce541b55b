//! Typed inputs and buffer comparison for `tests/vulkan.rs`: which words of a binding are
//! floats, integers or bools (from the oxir global's type and the layout engine),
//! deterministic inputs of those kinds, the JSON lines of `oxir run` parsed back, and a
//! comparison that is exact for integers and bounded in ULPs for floats.

use oxir_ir::data_layout::{layout_of, runtime_array_tail, LayoutRules};
use oxir_ir::types::TypeStore;
use oxir_ir::{AddressSpace, Module, ScalarKind, Type, TypeData};
use std::collections::BTreeMap;

/// What a 4-byte word of a buffer holds.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Word {
    Int,
    Float,
    /// Two `f16` halves.
    Half,
    Bool,
}

pub fn scalar_words(s: oxir_ir::Scalar, size: u32, base: u32, out: &mut BTreeMap<u32, Word>) {
    let kind = match s.kind {
        ScalarKind::Float if s.bits == 32 => Word::Float,
        ScalarKind::Float if s.bits == 16 => Word::Half,
        ScalarKind::Bool => Word::Bool,
        _ => Word::Int,
    };
    for w in 0..size.div_ceil(4) {
        out.insert(base / 4 + w, kind);
    }
}

/// Records the word kinds of `ty` placed at `base` into `out` (by word index).
pub fn word_kinds(
    types: &TypeStore,
    ty: Type,
    rules: LayoutRules,
    base: u32,
    out: &mut BTreeMap<u32, Word>,
) {
    let Ok(layout) = layout_of(types, ty, rules) else {
        return;
    };
    match types.get(ty) {
        TypeData::Scalar(s) => scalar_words(*s, layout.size, base, out),
        TypeData::Vector { elem, len } => {
            for i in 0..u32::from(*len) {
                scalar_words(*elem, elem.bytes(), base + i * elem.bytes(), out);
            }
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            let stride = layout.stride.unwrap_or(16);
            for c in 0..u32::from(*columns) {
                for r in 0..u32::from(*rows) {
                    scalar_words(
                        *elem,
                        elem.bytes(),
                        base + c * stride + r * elem.bytes(),
                        out,
                    );
                }
            }
        }
        TypeData::Array { elem, len, .. } => {
            let stride = layout.stride.unwrap_or(4);
            for i in 0..*len {
                word_kinds(types, *elem, rules, base + i * stride, out);
            }
        }
        TypeData::Struct(st) => {
            for (m, offset) in st.members.iter().zip(&layout.offsets) {
                word_kinds(types, m.ty, rules, base + offset, out);
            }
        }
        _ => {}
    }
}

/// splitmix64
pub fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A binding's test input and the kind of each of its words.
pub struct Input {
    pub bytes: Vec<u8>,
    pub kinds: BTreeMap<u32, Word>,
}

/// The integer words of the inputs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ints {
    /// 0..32: data-dependent indices stay in bounds.
    Small,
    /// Any 32-bit pattern: data-dependent indices go out of range.
    Any,
}

/// Typed deterministic inputs for every buffer binding of `module`.
pub fn inputs(module: &Module, seed: u64, ints: Ints) -> BTreeMap<(u32, u32), Input> {
    let mut out = BTreeMap::new();
    for (_, g) in module.globals.iter() {
        let Some(b) = g.binding else { continue };
        let rules = match g.space {
            AddressSpace::Uniform => module.layout_rules(AddressSpace::Uniform),
            AddressSpace::Storage(_) => LayoutRules::Std430,
            _ => continue,
        };
        let Ok(layout) = layout_of(&module.types, g.ty, rules) else {
            continue;
        };
        let mut kinds = BTreeMap::new();
        word_kinds(&module.types, g.ty, rules, 0, &mut kinds);
        let mut size = layout.size;
        if let Ok(Some((offset, stride))) = runtime_array_tail(&module.types, g.ty, rules) {
            let elem = match module.types.get(g.ty) {
                TypeData::RuntimeArray { elem, .. } => Some(*elem),
                TypeData::Struct(st) => match st.members.last().map(|m| module.types.get(m.ty)) {
                    Some(TypeData::RuntimeArray { elem, .. }) => Some(*elem),
                    _ => None,
                },
                _ => None,
            };
            let count = (512u32.saturating_sub(offset))
                .div_ceil(stride.max(1))
                .max(1);
            size = offset + count * stride;
            if let Some(elem) = elem {
                for i in 0..count {
                    word_kinds(&module.types, elem, rules, offset + i * stride, &mut kinds);
                }
            }
        }
        let mut state = seed ^ (u64::from(b.group) << 32 | u64::from(b.binding));
        let mut bytes = Vec::with_capacity(size as usize);
        for w in 0..size.div_ceil(4) {
            let r = next(&mut state);
            let word = match kinds.get(&w).copied().unwrap_or(Word::Int) {
                Word::Float => ((r % 512) as f32 / 64.0 - 4.0).to_bits(),
                // Both halves in -4..4 in steps of 1/64, exact in f16.
                Word::Half => {
                    let half = |bits: u64| {
                        let v = (bits % 512) as f32 / 64.0 - 4.0;
                        u32::from(half::f16::from_f32(v).to_bits())
                    };
                    half(r) | half(r >> 16) << 16
                }
                Word::Int => match ints {
                    Ints::Small => (r % 32) as u32,
                    Ints::Any => r as u32,
                },
                Word::Bool => (r % 2) as u32,
            };
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        bytes.truncate(size as usize);
        out.insert((b.group, b.binding), Input { bytes, kinds });
    }
    out
}

/// `group:binding` → hex of every JSON line.
pub fn parse_lines(text: &str) -> BTreeMap<(u32, u32), Vec<u8>> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let num = |key: &str| -> u32 {
            let at = line.find(key).unwrap() + key.len();
            line[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        let hex_at = line.find("\"hex\":\"").unwrap() + 7;
        let hex = &line[hex_at..hex_at + line[hex_at..].find('"').unwrap()];
        let bytes = (0..hex.len() / 2)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        out.insert((num("\"group\":"), num("\"binding\":")), bytes);
    }
    out
}

pub fn ulps(a: u32, b: u32) -> u32 {
    let key = |w: u32| -> i64 {
        let i = i64::from(w as i32);
        if i < 0 {
            i64::from(i32::MIN) - i
        } else {
            i
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::from(u32::MAX)) as u32
}

/// Compares two runs' buffers; returns the largest float difference in ULPs.
pub fn compare(
    what: &str,
    expected: &BTreeMap<(u32, u32), Vec<u8>>,
    got: &BTreeMap<(u32, u32), Vec<u8>>,
    inputs: &BTreeMap<(u32, u32), Input>,
    bound: u32,
) -> Result<u32, String> {
    let mut max = 0;
    for (key, want) in expected {
        let Some(have) = got.get(key) else {
            return Err(format!("{what}: binding {key:?} missing"));
        };
        if have.len() != want.len() {
            return Err(format!(
                "{what}: binding {key:?}: {} bytes, expected {}",
                have.len(),
                want.len()
            ));
        }
        for (i, (a, b)) in want.chunks(4).zip(have.chunks(4)).enumerate() {
            if a == b {
                continue;
            }
            let word = |c: &[u8]| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_le_bytes(w)
            };
            let (x, y) = (word(a), word(b));
            // Texture lines have no input: their words compare exactly.
            let float = inputs
                .get(key)
                .is_some_and(|input| input.kinds.get(&(i as u32)) == Some(&Word::Float));
            let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
            if float && fx.is_nan() && fy.is_nan() {
                continue;
            }
            let d = if float { ulps(x, y) } else { u32::MAX };
            if d > bound {
                return Err(format!(
                    "{what}: binding {key:?} word {i}: expected {x:#010x} ({fx:?}), got {y:#010x} ({fy:?})"
                ));
            }
            max = max.max(d);
        }
    }
    Ok(max)
}

/// Zeroes the words listed in `unstable` in both runs, so they are not compared.
pub fn mask(
    a: &mut BTreeMap<(u32, u32), Vec<u8>>,
    b: &mut BTreeMap<(u32, u32), Vec<u8>>,
    unstable: &BTreeMap<(u32, u32), Vec<usize>>,
) {
    for (key, words) in unstable {
        for map in [&mut *a, &mut *b] {
            if let Some(bytes) = map.get_mut(key) {
                for &w in words {
                    for byte in bytes.iter_mut().skip(4 * w).take(4) {
                        *byte = 0;
                    }
                }
            }
        }
    }
}
