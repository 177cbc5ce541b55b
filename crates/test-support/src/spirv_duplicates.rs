//! Duplicate type and constant declarations in a SPIR-V binary, read from the words alone
//! (no SPIR-V library, so the check does not share code with the writer it checks).
//!
//! Two declarations are *the same* when they have the same opcode, the same operands (the
//! result type included, for constants) and the same decorations (`OpDecorate`,
//! `OpMemberDecorate`, `OpDecorateId`, `OpDecorateString` on the result id, compared as
//! sets). Declarations that differ only in their decorations are *layout variants*: an
//! `OpTypeStruct` with `Offset`s next to the same struct without (memory that needs an
//! explicit layout next to memory that must not have one), or `OpTypeArray` with two
//! `ArrayStride`s. They are counted apart, not reported.
//!
//! Ids are compared as written: a pointer to one of two duplicate structs and a pointer to
//! the other are distinct here (the duplicate structs are reported). Debug instructions
//! (`OpName`, `OpMemberName`) are not decorations and are ignored.
//! Not checked: specialisation constants (each has its own `SpecId`), `OpUndef`, and
//! anything inside functions.

use std::collections::{BTreeMap, HashMap};

/// The duplicates [`duplicates`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Duplicates {
    /// One line per redundant type declaration: `%ID duplicates %FIRST (OpTypeX ...)`.
    pub types: Vec<String>,
    /// One line per redundant constant declaration, in the same form.
    pub constants: Vec<String>,
    /// Type declarations that repeat an earlier one's opcode and operands with other
    /// decorations (legitimate: see the module docs).
    pub layout_variants: usize,
}

impl Duplicates {
    /// No redundant type or constant.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty() && self.constants.is_empty()
    }
}

const OP_DECORATE: u32 = 71;
const OP_MEMBER_DECORATE: u32 = 72;
const OP_DECORATE_ID: u32 = 332;
const OP_DECORATE_STRING: u32 = 5632;
const OP_FUNCTION: u32 = 54;

/// `OpTypeVoid` ..= `OpTypePipe` (19..=38), `OpTypePipeStorage`, `OpTypeNamedBarrier`,
/// `OpTypeRayQueryKHR`, `OpTypeAccelerationStructureKHR`: result id in word 1.
fn is_type(opcode: u32) -> bool {
    (19..=38).contains(&opcode) || matches!(opcode, 322 | 327 | 4472 | 5341)
}

/// `OpConstantTrue` ..= `OpConstantNull` (41..=46): result type in word 1, id in word 2.
fn is_constant(opcode: u32) -> bool {
    (41..=46).contains(&opcode)
}

/// The instructions of `words` (after the five-word header), each as its words; stops at
/// a malformed word count.
fn instructions(words: &[u32]) -> Vec<&[u32]> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 || at + count > words.len() {
            break;
        }
        out.push(&words[at..at + count]);
        at += count;
    }
    out
}

/// The duplicate module-level types and constants of the SPIR-V binary `words`.
pub fn duplicates(words: &[u32]) -> Duplicates {
    let insts = instructions(words);
    let mut decorations: HashMap<u32, Vec<Vec<u32>>> = HashMap::new();
    for inst in &insts {
        let opcode = inst[0] & 0xffff;
        if matches!(
            opcode,
            OP_DECORATE | OP_MEMBER_DECORATE | OP_DECORATE_ID | OP_DECORATE_STRING
        ) && inst.len() > 1
        {
            let mut key = vec![opcode];
            key.extend_from_slice(&inst[2..]);
            decorations.entry(inst[1]).or_default().push(key);
        }
    }
    for set in decorations.values_mut() {
        set.sort();
    }
    let mut out = Duplicates::default();
    // (opcode and operands) -> decorations -> first id.
    let mut seen: BTreeMap<Vec<u32>, BTreeMap<Vec<Vec<u32>>, u32>> = BTreeMap::new();
    for inst in &insts {
        let opcode = inst[0] & 0xffff;
        if opcode == OP_FUNCTION {
            break;
        }
        let (id, key) = if is_type(opcode) && inst.len() > 1 {
            let mut key = vec![opcode];
            key.extend_from_slice(&inst[2..]);
            (inst[1], key)
        } else if is_constant(opcode) && inst.len() > 2 {
            let mut key = vec![opcode, inst[1]];
            key.extend_from_slice(&inst[3..]);
            (inst[2], key)
        } else {
            continue;
        };
        let decos = decorations.get(&id).cloned().unwrap_or_default();
        let variants = seen.entry(key.clone()).or_default();
        if let Some(&first) = variants.get(&decos) {
            let line = format!("%{id} duplicates %{first} (opcode {opcode}, words {key:?})");
            if is_type(opcode) {
                out.types.push(line);
            } else {
                out.constants.push(line);
            }
        } else {
            if !variants.is_empty() {
                out.layout_variants += 1;
            }
            variants.insert(decos, id);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(opcode: u32, operands: &[u32]) -> Vec<u32> {
        let mut v = vec![((operands.len() as u32 + 1) << 16) | opcode];
        v.extend_from_slice(operands);
        v
    }

    fn module(insts: &[Vec<u32>]) -> Vec<u32> {
        let mut words = vec![0x0723_0203, 0x0001_0300, 0, 100, 0];
        for i in insts {
            words.extend_from_slice(i);
        }
        words
    }

    #[test]
    fn finds_repeated_types_and_constants() {
        let words = module(&[
            inst(21, &[1, 32, 0]),   // %1 = OpTypeInt 32 0
            inst(21, &[2, 32, 0]),   // %2 = OpTypeInt 32 0: a duplicate
            inst(43, &[1, 3, 7]),    // %3 = OpConstant %1 7
            inst(43, &[1, 4, 7]),    // %4 = OpConstant %1 7: a duplicate
            inst(43, &[2, 5, 7]),    // %5 = OpConstant %2 7: another type id
            inst(43, &[1, 6, 8]),    // %6 = OpConstant %1 8
            inst(22, &[7, 32]),      // %7 = OpTypeFloat 32
            inst(54, &[7, 8, 0, 9]), // OpFunction: the end of the declarations
            inst(22, &[9, 32]),      // not looked at
        ]);
        let d = duplicates(&words);
        assert_eq!(d.types.len(), 1, "{d:?}");
        assert!(d.types[0].starts_with("%2 duplicates %1"), "{d:?}");
        assert_eq!(d.constants.len(), 1, "{d:?}");
        assert!(d.constants[0].starts_with("%4 duplicates %3"), "{d:?}");
        assert!(!d.is_empty());
    }

    #[test]
    fn decorations_make_layout_variants() {
        let words = module(&[
            inst(OP_DECORATE, &[3, 6, 4]),            // %3 ArrayStride 4
            inst(OP_MEMBER_DECORATE, &[5, 0, 35, 0]), // %5 member 0 Offset 0
            inst(OP_MEMBER_DECORATE, &[6, 0, 35, 0]), // %6 member 0 Offset 0
            inst(22, &[1, 32]),                       // %1 = OpTypeFloat 32
            inst(28, &[2, 1, 9]),                     // %2 = OpTypeArray %1 %9
            inst(28, &[3, 1, 9]),                     // %3: the same with a stride
            inst(30, &[4, 1]),                        // %4 = OpTypeStruct %1
            inst(30, &[5, 1]),                        // %5: with offsets
            inst(30, &[6, 1]),                        // %6: the same as %5
        ]);
        let d = duplicates(&words);
        assert_eq!(d.layout_variants, 2, "{d:?}");
        assert_eq!(d.types.len(), 1, "{d:?}");
        assert!(d.types[0].starts_with("%6 duplicates %5"), "{d:?}");
        assert!(d.constants.is_empty());
    }
}
