//! The host kernel ABI ([`crate::Invocation::HostContext`], [`crate::TargetDesc::host`]):
//! how a host runtime calls a kernel the writer compiled for this machine's CPU.
//!
//! **Entry.** For every kernel `NAME` (its legalised symbol, see [`kernel_symbols`]) the
//! module defines a C-ABI function
//!
//! ```text
//! void oxir.host.NAME(OxirHostContext *ctx, const uint64_t *args);
//! ```
//!
//! that calls the kernel once for one invocation. `args` holds one 64-bit slot per
//! [`crate::KernelParam`] word, in `(group, binding)` order: a storage buffer takes two
//! slots, its address and its byte size (what `array_length` reads); a uniform or
//! push-constant block one slot, the address of its bytes (copied by the callee,
//! `byval`). Buffers are laid out by `oxir_ir::data_layout` (std430, uniforms std140), as
//! the interpreter's; every access is aligned as that layout says, so buffer and workgroup
//! memory must be aligned to [`MEMORY_ALIGN`] bytes.
//!
//! **Context.** `ctx` points to this C struct (offsets in bytes, the constants below):
//!
//! | offset | field | |
//! |---|---|---|
//! | 0 | `uint32_t local_id[3]` | `tid` |
//! | 12 | `uint32_t workgroup_id[3]` | `ctaid` |
//! | 24 | `uint32_t num_workgroups[3]` | `nctaid` |
//! | 36 | `uint32_t subgroup_invocation` | the interpreter's: local index mod 32 |
//! | 40 | `uint32_t subgroup_size` | 32 |
//! | 48 | `uint8_t *workgroup_memory` | the workgroup's variables, [`WorkgroupLayout`] |
//! | 56 | `void (*barrier)(OxirHostContext *)` | returns when every invocation of the workgroup has called it (or finished) |
//!
//! The workgroup size is a constant of the kernel. Workgroup variables are not globals
//! of the object: each is `workgroup_memory + offset`, so the runtime decides how memory
//! is shared (one block per workgroup, zeroed before it starts). The kernel reads the
//! context and never writes it.
//!
//! What this ABI does NOT do: subgroup operations beyond the two registers; limits on
//! what the kernel executes (a kernel that loops forever runs forever).

use oxir_ir::data_layout::{layout_of, LayoutRules};
use oxir_ir::{AddressSpace, FunctionKind, Global, Module};

/// Offset of `local_id`.
pub const LOCAL_ID: u64 = 0;
/// Offset of `workgroup_id`.
pub const WORKGROUP_ID: u64 = 12;
/// Offset of `num_workgroups`.
pub const NUM_WORKGROUPS: u64 = 24;
/// Offset of `subgroup_invocation`.
pub const SUBGROUP_INVOCATION: u64 = 36;
/// Offset of `subgroup_size`.
pub const SUBGROUP_SIZE: u64 = 40;
/// Offset of `workgroup_memory`.
pub const WORKGROUP_MEMORY: u64 = 48;
/// Offset of `barrier`.
pub const BARRIER: u64 = 56;
/// The alignment buffers and workgroup memory must have.
pub const MEMORY_ALIGN: u64 = 16;

/// The prefix of the C-ABI entry of each kernel (`oxir.host.NAME`); legalised symbols
/// never contain `.`, so it cannot collide.
pub const ENTRY_PREFIX: &str = "oxir.host.";

/// The context offset of special register `name` (`tid.x`, `ctaid.y`, `nctaid.z`,
/// `laneid`, `warpsize`: the writer's register names).
pub(crate) fn register_offset(name: &str) -> Option<u64> {
    let (base, lane) = match name.split_once('.') {
        Some((base, lane)) => (base, lane),
        None => (name, ""),
    };
    let start = match base {
        "tid" => LOCAL_ID,
        "ctaid" => WORKGROUP_ID,
        "nctaid" => NUM_WORKGROUPS,
        "laneid" if lane.is_empty() => return Some(SUBGROUP_INVOCATION),
        "warpsize" if lane.is_empty() => return Some(SUBGROUP_SIZE),
        _ => return None,
    };
    let k = match lane {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return None,
    };
    Some(start + 4 * k)
}

/// Where each workgroup variable lives in the workgroup's memory block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkgroupLayout {
    /// Byte offset of each workgroup global, in module order.
    pub offsets: Vec<(Global, u64)>,
    /// The block's size in bytes.
    pub size: u64,
}

/// The workgroup memory block of `module`: its workgroup globals in module order, each at
/// the next offset its std430 alignment allows.
pub fn workgroup_layout(module: &Module) -> Result<WorkgroupLayout, String> {
    let mut out = WorkgroupLayout::default();
    for (g, data) in module.globals.iter() {
        if data.space != AddressSpace::Workgroup {
            continue;
        }
        let layout =
            layout_of(&module.types, data.ty, LayoutRules::Std430).map_err(|e| e.to_string())?;
        let align = u64::from(layout.align.max(1));
        let offset = out.size.div_ceil(align) * align;
        out.offsets.push((g, offset));
        out.size = offset + u64::from(layout.size);
    }
    Ok(out)
}

/// The legalised symbol of every kernel, `(oxir name, LLVM symbol)` in module order: the
/// names the writer gives them (workgroup variables are named first).
pub fn kernel_symbols(module: &Module) -> Vec<(String, String)> {
    let mut symbols = crate::writer::Symbols::default();
    for (_, data) in module.globals.iter() {
        if data.space == AddressSpace::Workgroup {
            symbols.legalise(&data.name);
        }
    }
    let mut out = Vec::new();
    for (_, func) in module.functions.iter() {
        if let FunctionKind::Kernel { .. } = func.kind {
            out.push((func.name.clone(), symbols.legalise(&func.name)));
        }
    }
    out
}

/// The symbol of the C-ABI entry of kernel `name` (its oxir name), if `module` has it.
pub fn entry_symbol(module: &Module, name: &str) -> Option<String> {
    kernel_symbols(module)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, sym)| format!("{ENTRY_PREFIX}{sym}"))
}

/// One parameter of a kernel's host entry, in slot order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostParam {
    /// `(group, binding)`.
    pub binding: (u32, u32),
    /// A storage buffer (two slots: address, byte size); else a uniform or push-constant
    /// block (one slot: address).
    pub storage: bool,
}

/// What a host runtime needs to call one kernel of a module written for
/// [`crate::TargetDesc::host`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostKernel {
    /// The C-ABI entry's symbol (`oxir.host.NAME`).
    pub entry: String,
    /// The entry's parameters, in slot order.
    pub params: Vec<HostParam>,
    /// The kernel's workgroup size.
    pub workgroup_size: [u32; 3],
    /// The workgroup memory block's size in bytes.
    pub workgroup_bytes: u64,
}

/// The host interface of kernel `name` of `module` (the module as written: after
/// [`crate::prepare`]).
pub fn host_kernel(module: &Module, name: &str) -> Result<HostKernel, String> {
    let func = module
        .functions
        .values()
        .find(|f| f.name == name)
        .ok_or_else(|| format!("no kernel named `{name}`"))?;
    // Specialisable sizes are refused by the preflight.
    let FunctionKind::Kernel { workgroup_size, .. } = func.kind else {
        return Err(format!("@{name} is not a kernel"));
    };
    let entry = entry_symbol(module, name).ok_or_else(|| format!("no kernel named `{name}`"))?;
    let params = crate::kernel_params(module, &crate::TargetDesc::host())?
        .into_iter()
        .filter_map(|p| {
            let data = &module.globals[p.global];
            data.binding.map(|b| HostParam {
                binding: (b.group, b.binding),
                storage: p.bytes.is_some(),
            })
        })
        .collect();
    Ok(HostKernel {
        entry,
        params,
        workgroup_size,
        workgroup_bytes: workgroup_layout(module)?.size,
    })
}

#[cfg(test)]
mod tests {
    use super::register_offset;

    #[test]
    fn registers_have_their_offsets() {
        assert_eq!(register_offset("tid.x"), Some(0));
        assert_eq!(register_offset("ctaid.z"), Some(20));
        assert_eq!(register_offset("nctaid.y"), Some(28));
        assert_eq!(register_offset("laneid"), Some(36));
        assert_eq!(register_offset("warpsize"), Some(40));
        assert_eq!(register_offset("tid"), None);
        assert_eq!(register_offset("laneid.x"), None);
    }
}
