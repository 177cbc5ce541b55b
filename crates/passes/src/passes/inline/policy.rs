//! The decision of `inline-when-smaller`: which callees a back-end with calls but with
//! SPIR-V's logical addressing must have inlined, and which it is smaller to inline.
//!
//! **Required** ([`requires_inlining`]): a callee whose parameters or results carry a
//! pointer or a resource (texture, sampler, opaque) — logical addressing allows neither as
//! an argument of an arbitrary call (SPIR-V only takes pointers to whole variables, and
//! oxir's pointers are access chains) —, that returns more than one value, or whose body
//! reads a stage register (`local_id`, `frag_coord`, ...) or ends the invocation
//! (`discard`): those belong to the entry point's interface, which a kept function does
//! not have.
//!
//! **Smaller** ([`inlining_is_smaller`]): a size model in instructions. Keeping a callee
//! of `size` placed instructions with `params` parameters called from `sites` call sites
//! costs its body, [`KeepOptions::function_overhead`] (`OpFunction`, `OpLabel`,
//! `OpFunctionEnd`), one `OpFunctionParameter` per parameter and one call per site;
//! inlining costs one copy of the body without its `return` per site. Inlining wins ties
//! (the copies are then open to the caller's optimiser: constant arguments fold). A
//! callee with one call site is therefore always inlined.
//!
//! What it does not do: no estimate of what the optimiser removes from a copy (constant
//! arguments, dead results), no profitability by execution count (a kept call costs a few
//! instructions per execution on the interpreter), and the call-site count is taken once,
//! before the run (calls copied out of inlined callers are not recounted).

use oxir_ir::{Function, Module, TerminatorOp};

/// The size model of `inline-when-smaller`, in instructions.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct KeepOptions {
    /// What a kept function costs besides its body and parameters.
    pub function_overhead: usize,
}

impl Default for KeepOptions {
    fn default() -> Self {
        KeepOptions {
            function_overhead: 3,
        }
    }
}

/// Whether a back-end with logical addressing cannot keep `callee` as a function (module
/// doc).
pub fn requires_inlining(module: &Module, callee: &Function) -> bool {
    let signature = &callee.signature;
    if signature.returns.len() > 1 {
        return true;
    }
    let abi_types = signature.params.iter().chain(&signature.returns);
    if abi_types
        .map(|p| p.ty)
        .any(|ty| module.types.holds_reference(ty))
    {
        return true;
    }
    callee.layout.blocks().any(|block| {
        callee.layout.block_insts(block).any(|inst| {
            let opcode = callee.dfg.inst(inst).opcode;
            opcode.is_special_register() || opcode.terminator_op() == Some(TerminatorOp::Discard)
        })
    })
}

/// Whether `sites` copies of a body of `size` instructions (its `return` included) are no
/// larger than keeping the function (module doc).
pub fn inlining_is_smaller(
    size: usize,
    params: usize,
    sites: usize,
    options: &KeepOptions,
) -> bool {
    let inlined = sites.saturating_mul(size.saturating_sub(1));
    let kept = size
        .saturating_add(options.function_overhead)
        .saturating_add(params)
        .saturating_add(sites);
    inlined <= kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_call_site_always_inlines_and_large_shared_bodies_stay() {
        let o = KeepOptions::default();
        assert!(inlining_is_smaller(10_000, 0, 1, &o));
        // Two sites of a 5-instruction body: 8 inlined vs 5 + 3 + 1 + 2 = 11 kept.
        assert!(inlining_is_smaller(5, 1, 2, &o));
        // Two sites of a 20-instruction body: 38 inlined vs 26 kept.
        assert!(!inlining_is_smaller(20, 1, 2, &o));
        // Ties inline: 3 sites of 4 instructions: 9 inlined vs 4 + 3 + 0 + 3 = 10 kept.
        assert!(inlining_is_smaller(4, 0, 3, &o));
        assert!(!inlining_is_smaller(1 << 40, 0, 2, &o));
    }
}
