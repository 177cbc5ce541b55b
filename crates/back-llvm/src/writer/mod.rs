//! The LLVM IR text writer: module header, workgroup variables, kernels with the entry
//! ABI, and the control flow of each function (block parameters as `phi`).
//!
//! ## Invariants
//!
//! - The output is a function of the module and the target only: values are named
//!   `%vN` after their oxir number, blocks `bbN`, temporaries `%tN` in order of emission,
//!   intrinsic declarations are sorted; the same input gives the same bytes.
//! - Every CFG edge gets its own `phi` entry: a terminator with several edges to one
//!   block passes each edge's arguments in its own entry when they agree, and routes the
//!   edges through split blocks (`bbN.eK`) when they do not, so no predecessor needs two
//!   different values.
//! - Constants are literals, global addresses are the kernel parameters, module
//!   variables or entry allocas that hold them, so print order never matters.
//!
//! The writer runs only on modules the preflight accepted; anything it meets that the
//! preflight should have refused comes back as [`Error::Internal`].

mod arith;
mod composite;
mod function;
mod matrix;
mod memory;
mod robust;
mod subgroup;

use crate::target::{Invocation, TargetDesc};
use crate::types;
use crate::{Error, Location};
use oxir_ir::data_layout::layout_of;
use oxir_ir::{AddressSpace, ConstKind, FunctionKind, Module};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

pub use function::{kernel_params, KernelParam};

/// Symbol names legal in PTX (`[A-Za-z_][A-Za-z0-9_]*`), unique, assigned in module
/// order: an illegal character becomes `_`, a leading digit or libdevice's `__nv_` prefix
/// gets a `_` in front, and a name already taken gets `_N`. Kernel parameters are
/// `%g.NAME`, apart from the writer's `%vN` / `%tN` values.
#[derive(Default)]
pub(crate) struct Symbols {
    taken: BTreeSet<String>,
}

impl Symbols {
    pub(crate) fn legalise(&mut self, name: &str) -> String {
        let mut base: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        // A leading digit is not a PTX identifier; `__nv_` names belong to libdevice.
        if base.is_empty()
            || base.starts_with(|c: char| c.is_ascii_digit())
            || base.starts_with("__nv_")
        {
            base.insert(0, '_');
        }
        let mut candidate = base.clone();
        let mut n = 1;
        while !self.taken.insert(candidate.clone()) {
            candidate = format!("{base}_{n}");
            n += 1;
        }
        candidate
    }
}

/// Module-wide state: the declarations functions ask for and the global symbols.
pub(crate) struct ModuleState<'a> {
    pub(crate) module: &'a Module,
    pub(crate) target: &'a TargetDesc,
    pub(crate) declarations: BTreeSet<String>,
    /// Workgroup globals' symbols (`@name`).
    pub(crate) workgroup: BTreeMap<oxir_ir::Global, String>,
    /// The largest value a robust access redirected (`robust`): the size of
    /// `@oxir.zero` and `@oxir.junk`.
    pub(crate) robust_bytes: u32,
}

fn internal(message: impl Into<String>) -> Error {
    Error::Internal {
        location: Location::default(),
        message: message.into(),
    }
}

/// Writes `module` for `target` (already verified and preflighted).
pub(crate) fn write(module: &Module, target: &TargetDesc) -> Result<String, Error> {
    let mut symbols = Symbols::default();
    let mut state = ModuleState {
        module,
        target,
        declarations: BTreeSet::new(),
        workgroup: BTreeMap::new(),
        robust_bytes: 0,
    };
    let mut out = String::new();
    let _ = writeln!(out, "; oxir module");
    let _ = writeln!(out, "target datalayout = \"{}\"", target.data_layout);
    let _ = writeln!(out, "target triple = \"{}\"", target.triple);
    let mut globals = String::new();
    for (g, data) in module.globals.iter() {
        if data.space != AddressSpace::Workgroup {
            continue;
        }
        let name = symbols.legalise(&data.name);
        state.workgroup.insert(g, name.clone());
        if target.invocation == Invocation::HostContext {
            // Host: the context's workgroup memory block (`host_abi`), no global.
            continue;
        }
        let rules = module.layout_rules(data.space);
        let mem = types::mem(&module.types, data.ty, rules).map_err(internal)?;
        let align = layout_of(&module.types, data.ty, rules)
            .map_err(|e| internal(e.to_string()))?
            .align;
        let init = match data.init.map(|c| &module.consts.get(c).kind) {
            Some(ConstKind::Zero) => "zeroinitializer",
            None | Some(ConstKind::Undef) => "undef",
            Some(ConstKind::Scalar(_) | ConstKind::Composite(_)) => {
                return Err(internal("initialised workgroup variable"))
            }
        };
        let _ = writeln!(
            globals,
            "@{name} = internal addrspace({}) global {mem} {init}, align {align}",
            target.workgroup_space
        );
    }
    let mut bodies = String::new();
    let mut kernels = Vec::new();
    for (_, func) in module.functions.iter() {
        match func.kind {
            // Specialisable sizes are refused by the preflight.
            FunctionKind::Kernel { workgroup_size, .. } => {
                let name = symbols.legalise(&func.name);
                let text = function::write_kernel(&mut state, func, &name, workgroup_size)?;
                bodies.push_str(&text);
                if target.invocation == Invocation::HostContext {
                    bodies.push_str(&function::write_host_entry(module, target, &name)?);
                }
                kernels.push(name);
            }
            FunctionKind::Vertex
            | FunctionKind::Fragment
            | FunctionKind::Callable
            | FunctionKind::External => {
                return Err(internal(format!(
                    "function @{} of kind {}",
                    func.name,
                    func.kind.keyword()
                )))
            }
        }
    }
    if state.robust_bytes > 0 {
        let n = state.robust_bytes;
        let space = target.generic_space;
        let _ = write!(
            globals,
            "@oxir.zero = internal addrspace({space}) constant [{n} x i8] zeroinitializer, align 16\n\
             @oxir.junk = internal addrspace({space}) global [{n} x i8] zeroinitializer, align 16\n"
        );
    }
    if !globals.is_empty() {
        out.push('\n');
        out.push_str(&globals);
    }
    out.push_str(&bodies);
    if !state.declarations.is_empty() {
        out.push('\n');
        for d in &state.declarations {
            let _ = writeln!(out, "{d}");
        }
    }
    let _ = writeln!(out, "\nattributes #0 = {{ convergent nounwind }}");
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::Symbols;

    #[test]
    fn symbols_are_legal_unique_and_deterministic() {
        let mut s = Symbols::default();
        assert_eq!(s.legalise("main"), "main");
        assert_eq!(s.legalise("main"), "main_1");
        assert_eq!(s.legalise("a.b-c"), "a_b_c");
        assert_eq!(s.legalise("a_b_c"), "a_b_c_1");
        assert_eq!(s.legalise("9lives"), "_9lives");
        assert_eq!(s.legalise("__nv_sinf"), "___nv_sinf");
        assert_eq!(s.legalise(""), "_");
    }
}
