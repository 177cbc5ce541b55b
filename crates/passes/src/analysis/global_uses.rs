//! How each function uses the module's globals: which values point into a global, and
//! what each use of such a value does.
//!
//! A value *points into* global `g` when it is defined as `g`'s address
//! (`ValueDef::Global`) or is the result of a placed `access` whose base points into `g`.
//! Every operand and edge argument of a placed instruction that (after alias resolution)
//! points into a global is classified as one of
//! - the address (operand 0) of a `load`;
//! - the address (operand 0) of a `store`;
//! - the base (operand 0) of an `access` (its result then points into the same global);
//! - an *escape*: anything else — the stored value of a `store`, an `access` index, an
//!   atomic, `workgroup_uniform_load`, `array_length`, `select`, a call argument, an edge
//!   argument, a returned value.
//!
//! Instructions not placed in a block of the layout are ignored: they never run. The
//! analysis is a snapshot, linear in the size of the function; recompute it after changing
//! the function. It does not follow pointers through memory, block parameters or calls (a
//! pointer that takes such a path is an escape where it leaves).

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use oxir_ir::{Function, Global, Inst, Metadata, Opcode, Value, ValueDef};
use smallvec::SmallVec;

/// The uses of one global by one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GlobalUse {
    /// The values defined as the global's address (usually one), in value order.
    pub roots: SmallVec<[Value; 1]>,
    /// Placed loads whose address points into the global.
    pub loads: Vec<Inst>,
    /// Placed stores whose address points into the global.
    pub stores: Vec<Inst>,
    /// Placed `access`es whose base points into the global.
    pub accesses: Vec<Inst>,
    /// Uses of a pointer into the global that are none of the above.
    pub escapes: u32,
    /// Loads, stores and accesses among the above that carry semantic metadata.
    pub annotated: u32,
}

impl GlobalUse {
    /// Whether a placed instruction uses a pointer into the global at all.
    pub fn is_referenced(&self) -> bool {
        !(self.loads.is_empty() && self.stores.is_empty() && self.accesses.is_empty())
            || self.escapes > 0
    }

    /// Whether every use is a store's address or an access base: nothing reads the memory
    /// and no pointer leaves the function's view.
    pub fn is_write_only(&self) -> bool {
        self.loads.is_empty() && self.escapes == 0 && self.annotated == 0
    }
}

/// The uses of every global by one function.
#[derive(Clone, Debug, Default)]
pub struct FunctionGlobalUses {
    /// Per global; globals the function never names have the empty default.
    pub uses: SecondaryMap<Global, GlobalUse>,
    /// The global each alias-resolved value points into; none for every other value.
    pub points_into: SecondaryMap<Value, PackedOption<Global>>,
}

impl FunctionGlobalUses {
    /// The uses of `g`.
    pub fn of(&self, g: Global) -> &GlobalUse {
        &self.uses[g]
    }
}

/// The global uses of `function` (empty for a declaration).
pub fn function_global_uses(function: &Function) -> FunctionGlobalUses {
    let dfg = &function.dfg;
    let layout = &function.layout;
    let mut result = FunctionGlobalUses::default();
    let mut worklist: Vec<Value> = Vec::new();
    for (v, data) in dfg.values.iter() {
        if let ValueDef::Global(g) = data.def {
            result.points_into[v] = g.into();
            result.uses[g].roots.push(v);
            worklist.push(v);
        }
    }
    if worklist.is_empty() {
        return result;
    }
    let placed = || {
        layout
            .blocks()
            .flat_map(move |block| layout.block_insts(block))
    };
    // The accesses on each base, so that chains are followed whatever their layout order.
    let mut accesses_on: SecondaryMap<Value, SmallVec<[Inst; 1]>> =
        crate::util::dense_map(dfg.values.len());
    for inst in placed() {
        let data = dfg.inst(inst);
        if data.opcode == Opcode::Access {
            if let Some(&base) = data.args.first() {
                accesses_on[dfg.resolve(base)].push(inst);
            }
        }
    }
    while let Some(base) = worklist.pop() {
        let Some(g) = result.points_into[base].expand() else {
            continue;
        };
        for &access in &accesses_on[base] {
            if let Some(r) = dfg.inst_result(access) {
                if result.points_into[r].is_none() {
                    result.points_into[r] = g.into();
                    worklist.push(r);
                }
            }
        }
    }
    for inst in placed() {
        classify_inst(function, inst, &mut result);
    }
    result
}

/// Records the uses `inst` makes of pointers into globals.
fn classify_inst(function: &Function, inst: Inst, result: &mut FunctionGlobalUses) {
    let dfg = &function.dfg;
    let data = dfg.inst(inst);
    let annotated = dfg.metadata(inst).is_some_and(Metadata::is_annotated);
    for (k, &v) in data.args.iter().enumerate() {
        let Some(g) = result.points_into[dfg.resolve(v)].expand() else {
            continue;
        };
        let uses = &mut result.uses[g];
        let list = match (data.opcode, k) {
            (Opcode::Load, 0) => Some(&mut uses.loads),
            (Opcode::Store, 0) => Some(&mut uses.stores),
            (Opcode::Access, 0) => Some(&mut uses.accesses),
            // wildcard-ok: three named (op, operand) pairs; every other use escapes.
            _ => None,
        };
        match list {
            Some(list) => {
                list.push(inst);
                uses.annotated += u32::from(annotated);
            }
            None => uses.escapes += 1,
        }
    }
    for edge in data.payload.edges() {
        for &v in &edge.args {
            if let Some(g) = result.points_into[dfg.resolve(v)].expand() {
                result.uses[g].escapes += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxir_ir::parser::parse_module;

    #[test]
    fn chains_are_followed_and_other_uses_escape() {
        let m = parse_module(
            "
const c0: u32 = 0
const c1: i32 = 7
global @a: private array<i32, 4>
global @b: private i32
global @unused: private i32
kernel @k() workgroup_size(1, 1, 1) {
block0:
    br block2
block1:
    v2: i32 = load v1
    store @b, v2
    return
block2:
    v1: ptr<private, i32> = access @a, c0
    store v1, c1
    br block3(@b)
block3(v3: ptr<private, i32>):
    br block1
}
",
        )
        .unwrap();
        let k = m.function_by_name("k").unwrap();
        let uses = function_global_uses(&m.functions[k]);
        let [a, b, unused] = ["a", "b", "unused"].map(|n| m.global_by_name(n).unwrap());
        let ua = uses.of(a);
        assert_eq!(
            (ua.loads.len(), ua.stores.len(), ua.accesses.len()),
            (1, 1, 1)
        );
        assert_eq!(ua.escapes, 0);
        assert!(!ua.is_write_only());
        let ub = uses.of(b);
        assert_eq!((ub.loads.len(), ub.stores.len(), ub.escapes), (0, 1, 1));
        assert!(!ub.is_write_only(), "an edge argument escapes");
        assert!(!uses.of(unused).is_referenced());
    }
}
