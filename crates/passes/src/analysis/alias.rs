//! Alias analysis by provenance: may two pointers name overlapping memory?
//!
//! A pointer is decomposed ([`PointerPath::of`]) into its **root** — the object it was
//! derived from — and the **path** of `access` indices from that root. Roots:
//!
//! - an `alloca` (each execution is distinct memory; one SSA value names one allocation),
//! - a module global (distinct globals are distinct memory: WGSL forbids binding one
//!   buffer writable twice in a dispatch, and SPIR-V for Vulkan assumes memory object
//!   declarations without `Aliased` do not alias),
//! - anything else — a function or block parameter, a `select` of pointers, a call
//!   result: an **unknown** root, which may alias anything in its address space.
//!
//! [`alias`] answers from the two decompositions:
//!
//! | case | answer |
//! |---|---|
//! | different address spaces | `NoAlias` (distinct memories) |
//! | two distinct identified roots | `NoAlias` |
//! | an unknown root | `MayAlias` |
//! | same root, some common path position with two different constants | `NoAlias` |
//! | same root, equal paths (equal constants or the same index value) | `MustAlias` |
//! | otherwise (a dynamic index against a different one, a prefix of the other) | `MayAlias` |
//!
//! Two equal paths name the same object with the same type, so `MustAlias` means "the
//! same bytes": a store through one is what a load through the other reads.
//!
//! What it does not do: it does not reason about index ranges (`i` against `i + 1`), see
//! through `select`s or block parameters, track pointers through memory, or know that two
//! parameters of an entry point are distinct; each of those answers `MayAlias`. Queries
//! are linear in the path lengths and never panic on a malformed function (an index
//! whose definition cannot be read is treated as dynamic).

use oxir_ir::types::AddressSpace;
use oxir_ir::{Function, Global, Inst, Module, Opcode, TypeData, Value, ValueDef};
use smallvec::SmallVec;

/// The answer to "do these two pointers overlap?".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AliasResult {
    /// They never overlap.
    NoAlias,
    /// They may overlap.
    MayAlias,
    /// They name exactly the same object (same bytes, same type).
    MustAlias,
}

/// The object a pointer was derived from.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    /// The allocation of an `alloca` instruction.
    Alloca(Inst),
    /// A module global.
    Global(Global),
    /// A pointer of unknown provenance (parameter, `select`, call result, ...).
    Unknown(Value),
}

impl Root {
    /// Whether the root is a distinct, identified object (not [`Root::Unknown`]).
    pub fn is_identified(self) -> bool {
        match self {
            Root::Alloca(_) | Root::Global(_) => true,
            Root::Unknown(_) => false,
        }
    }
}

/// One `access` index on the way from the root.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathIndex {
    /// A constant index (its canonical bits).
    Const(u64),
    /// An index known only at run time, by its (alias-resolved) value.
    Dynamic(Value),
}

/// A pointer decomposed into its root, its address space and its access path.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PointerPath {
    /// The object the pointer was derived from.
    pub root: Root,
    /// The pointer's address space (`None` when its type is not a pointer).
    pub space: Option<AddressSpace>,
    /// The `access` indices from the root, outermost first.
    pub path: SmallVec<[PathIndex; 4]>,
}

/// Longest access chain followed; a longer one (only a malformed or absurd function has
/// one) makes the pointer's root unknown.
const MAX_CHAIN: usize = 256;

impl PointerPath {
    /// Decomposes `ptr` by following its `access` chain back to a root.
    pub fn of(module: &Module, func: &Function, ptr: Value) -> PointerPath {
        Self::of_with(module, func, ptr, &|v| v)
    }

    /// [`PointerPath::of`] with dynamic indices named by `canonical(index)`: a pass that
    /// knows two index values are equal (value numbering) makes their paths equal.
    pub fn of_with(
        module: &Module,
        func: &Function,
        ptr: Value,
        canonical: &dyn Fn(Value) -> Value,
    ) -> PointerPath {
        let ptr = func.dfg.resolve(ptr);
        let space = pointer_space(module, func, ptr);
        let mut reversed: SmallVec<[SmallVec<[PathIndex; 2]>; 4]> = SmallVec::new();
        let mut current = ptr;
        for _ in 0..MAX_CHAIN {
            match root_step(func, current) {
                Step::Root(root) => {
                    let path = reversed.into_iter().rev().flatten().collect();
                    return PointerPath { root, space, path };
                }
                Step::Access(inst) => {
                    let data = func.dfg.inst(inst);
                    let indices = data.args[1..]
                        .iter()
                        .map(|&v| path_index(module, func, v, canonical))
                        .collect();
                    reversed.push(indices);
                    current = func.dfg.resolve(data.args[0]);
                }
            }
        }
        PointerPath {
            root: Root::Unknown(ptr),
            space,
            path: SmallVec::new(),
        }
    }
}

enum Step {
    Root(Root),
    Access(Inst),
}

fn root_step(func: &Function, v: Value) -> Step {
    if !func.dfg.value_is_valid(v) {
        return Step::Root(Root::Unknown(v));
    }
    match func.dfg.value_def(v) {
        ValueDef::Global(g) => Step::Root(Root::Global(g)),
        ValueDef::Result(inst) if func.dfg.inst_is_valid(inst) => {
            let data = func.dfg.inst(inst);
            match data.opcode {
                Opcode::Alloca => Step::Root(Root::Alloca(inst)),
                Opcode::Access if !data.args.is_empty() => Step::Access(inst),
                // wildcard-ok: any other pointer-producing instruction hides its provenance
                _ => Step::Root(Root::Unknown(v)),
            }
        }
        ValueDef::Result(_)
        | ValueDef::Param(..)
        | ValueDef::Const(_)
        | ValueDef::Alias(_)
        | ValueDef::Detached => Step::Root(Root::Unknown(v)),
    }
}

fn path_index(
    module: &Module,
    func: &Function,
    v: Value,
    canonical: &dyn Fn(Value) -> Value,
) -> PathIndex {
    let v = func.dfg.resolve(v);
    if func.dfg.value_is_valid(v) {
        if let ValueDef::Const(c) = func.dfg.value_def(v) {
            if let Some((_, bits)) = module.const_scalar_value(c) {
                return PathIndex::Const(bits);
            }
        }
    }
    PathIndex::Dynamic(canonical(v))
}

fn pointer_space(module: &Module, func: &Function, ptr: Value) -> Option<AddressSpace> {
    if !func.dfg.value_is_valid(ptr) {
        return None;
    }
    match module.types.try_get(func.dfg.value_type(ptr)) {
        Some(TypeData::Pointer { space, .. }) => Some(*space),
        _ => None,
    }
}

/// Whether `a` and `b` may name overlapping memory (see the module docs for the rules).
pub fn alias(a: &PointerPath, b: &PointerPath) -> AliasResult {
    if let (Some(sa), Some(sb)) = (a.space, b.space) {
        if !same_memory(sa, sb) {
            return AliasResult::NoAlias;
        }
    }
    if !a.root.is_identified() || !b.root.is_identified() {
        return if a == b {
            AliasResult::MustAlias
        } else {
            AliasResult::MayAlias
        };
    }
    if a.root != b.root {
        return AliasResult::NoAlias;
    }
    for (x, y) in a.path.iter().zip(b.path.iter()) {
        match (x, y) {
            (PathIndex::Const(i), PathIndex::Const(j)) if i != j => return AliasResult::NoAlias,
            (PathIndex::Const(_), PathIndex::Const(_)) => {}
            (PathIndex::Dynamic(i), PathIndex::Dynamic(j)) if i == j => {}
            (PathIndex::Dynamic(_), PathIndex::Dynamic(_))
            | (PathIndex::Const(_), PathIndex::Dynamic(_))
            | (PathIndex::Dynamic(_), PathIndex::Const(_)) => return AliasResult::MayAlias,
        }
    }
    if a.path.len() == b.path.len() {
        AliasResult::MustAlias
    } else {
        AliasResult::MayAlias
    }
}

/// Whether two address spaces can hold the same bytes. Storage buffers alias one another
/// only through the same global, which the root comparison decides; the access mode is
/// not part of the memory.
fn same_memory(a: AddressSpace, b: AddressSpace) -> bool {
    match (a, b) {
        (AddressSpace::Storage(_), AddressSpace::Storage(_)) => true,
        (x, y) => x == y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;

    fn paths(text: &str, names: &[u32]) -> Vec<PointerPath> {
        let module = parse_module(text).unwrap();
        let (_, func) = module.functions.iter().next().unwrap();
        names
            .iter()
            .map(|&n| PointerPath::of(&module, func, Value::from_u32(n)))
            .collect()
    }

    const TEXT: &str = "
global @a: storage(read_write) array<vec4<f32>> binding(0, 0)
global @b: storage(read_write) array<vec4<f32>> binding(0, 1)
const c0: u32 = 0
const c1: u32 = 1
callable @f(u32, ptr<function, f32>) {
block0(v0: u32, v1: ptr<function, f32>):
    v2: ptr<storage(read_write), vec4<f32>> = access @a, v0
    v3: ptr<storage(read_write), f32> = access v2, c0
    v4: ptr<storage(read_write), f32> = access @a, v0, c0
    v5: ptr<storage(read_write), f32> = access @a, v0, c1
    v6: ptr<storage(read_write), f32> = access @b, v0, c0
    v7: ptr<storage(read_write), f32> = access @a, c1, c0
    v8: ptr<function, f32> = alloca
    v9: ptr<storage(read_write), vec4<f32>> = access @a, c1
    return
}";

    #[test]
    fn provenance_decides() {
        use AliasResult::*;
        let p = paths(TEXT, &[3, 4, 5, 6, 7, 8, 1, 2, 9]);
        let [v3, v4, v5, v6, v7, v8, v1, v2, v9] = &p[..] else {
            unreachable!()
        };
        assert_eq!(v3.path.len(), 2);
        assert_eq!(
            alias(v3, v4),
            MustAlias,
            "chained access equals the flat one"
        );
        assert_eq!(alias(v4, v5), NoAlias, "different constant members");
        assert_eq!(alias(v4, v6), NoAlias, "distinct globals");
        assert_eq!(
            alias(v4, v7),
            MayAlias,
            "dynamic row against a constant one"
        );
        assert_eq!(
            alias(v8, v1),
            MayAlias,
            "a parameter may point anywhere in its space"
        );
        assert_eq!(
            alias(v8, v4),
            NoAlias,
            "function memory is not storage memory"
        );
        assert_eq!(alias(v2, v4), MayAlias, "an object overlaps its member");
        assert_eq!(alias(v9, v7), MayAlias, "prefix");
        assert_eq!(alias(v1, v1), MustAlias, "the same unknown pointer");
    }
}
