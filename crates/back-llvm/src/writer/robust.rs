//! Robust memory access ([`crate::TargetDesc::robust_access`], the host target): what the
//! interpreter does under WGSL's robust buffer access, without control flow.
//!
//! - An `access` whose index is out of range for a sized array, vector or matrix gives
//!   `null` ([`null_unless`]).
//! - A load, store or atomic through `null`, or through a storage-buffer pointer whose
//!   whole value does not lie inside the binding (`offset + size <= bytes`), is redirected
//!   ([`checked`]): loads read `@oxir.zero` (zeros), stores and atomics write
//!   `@oxir.junk`, which nothing reads. Both module globals are as large as the largest
//!   value redirected ([`crate::writer::ModuleState::robust_bytes`]).
//!
//! Targets without robust access get the pointer unchanged.

use super::function::FnWriter;
use super::memory::root_global;
use crate::Error;
use oxir_ir::{AddressSpace, Type, Value};

/// What a checked pointer is used for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Use {
    /// A load: out of range reads zeros.
    Read,
    /// A store or atomic: out of range writes nothing anyone reads.
    Write,
}

/// `select` of `ptr` when every condition of `in_range` holds, else `null`; `ptr` itself
/// when there are none.
pub(crate) fn null_unless(
    w: &mut FnWriter<'_, '_>,
    pty: &str,
    ptr: &str,
    in_range: &[String],
) -> String {
    let Some((first, rest)) = in_range.split_first() else {
        return ptr.to_string();
    };
    let mut ok = first.clone();
    for c in rest {
        ok = w.assign(&format!("and i1 {ok}, {c}"));
    }
    w.assign(&format!("select i1 {ok}, {pty} {ptr}, {pty} null"))
}

/// The operand of pointer `p` to a `ty` in `space`, redirected when out of range (see the
/// module docs).
pub(crate) fn checked(
    w: &mut FnWriter<'_, '_>,
    p: Value,
    ty: Type,
    space: AddressSpace,
    usage: Use,
) -> Result<String, Error> {
    let ptr = w.op(p)?;
    if !w.state.target.robust_access {
        return Ok(ptr);
    }
    let pty = w.ptr_ty(space)?;
    let size = w.layout(ty, space)?.size;
    let mut ok = w.assign(&format!("icmp ne {pty} {ptr}, null"));
    if let AddressSpace::Storage(_) = space {
        let region = root_global(w, p)
            .ok()
            .and_then(|g| Some((w.globals.get(&g)?.clone(), w.bytes.get(&g)?.clone())));
        if let Some((base, bytes)) = region {
            let at = w.assign(&format!("ptrtoint {pty} {ptr} to i64"));
            let start = w.assign(&format!("ptrtoint {pty} {base} to i64"));
            let offset = w.assign(&format!("sub i64 {at}, {start}"));
            let end = w.assign(&format!("add i64 {offset}, {size}"));
            let inside = w.assign(&format!("icmp ule i64 {end}, {bytes}"));
            ok = w.assign(&format!("and i1 {ok}, {inside}"));
        }
    }
    w.state.robust_bytes = w.state.robust_bytes.max(size);
    let spare = match usage {
        Use::Read => "@oxir.zero",
        Use::Write => "@oxir.junk",
    };
    Ok(w.assign(&format!("select i1 {ok}, {pty} {ptr}, {pty} {spare}")))
}
