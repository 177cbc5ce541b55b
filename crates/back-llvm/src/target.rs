//! Target descriptions: everything the writer needs to know about one LLVM target, as
//! data, so that a second target (Apple AIR, the host CPU) reuses the whole writer.
//!
//! A [`TargetDesc`] names the triple and data layout, the pointer dialect (opaque `ptr` or
//! typed `T*`), the LLVM address space of each oxir address space, the intrinsic spelling
//! of barriers and special registers, the `syncscope` of atomics per address space, the
//! kernel calling convention, where precise elementary functions come from, and whether
//! subgroup collectives exist. The writer never tests which target it writes for; it
//! reads these fields.
//!
//! [`TargetDesc::nvptx`] and [`TargetDesc::host`] are the targets today. Only
//! [`PointerDialect::Opaque`] is written; the preflight refuses a typed-pointer
//! target rather than writing the wrong syntax.

use oxir_ir::AddressSpace;

/// How pointer types are spelled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PointerDialect {
    /// `ptr addrspace(N)` (LLVM 15 and later).
    Opaque,
    /// `T addrspace(N)*` (LLVM 14 and older, Apple AIR); not written yet.
    Typed,
}

/// Where precise elementary functions (`sin` … `pow`) come from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MathLibrary {
    /// NVIDIA libdevice (`__nv_sinf`, `__nv_sin`, ...), linked by the driver.
    Libdevice,
    /// The C library's libm (`sinf`, `sin`, ...), linked with the host object.
    Libm,
    /// None: the preflight refuses elementary functions, naming the op.
    Unavailable,
}

/// How subgroup collectives (ballots, votes, shuffles, reductions, scans) are written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Subgroups {
    /// NVIDIA warps of 32 lanes: the active lanes are `llvm.nvvm.activemask`, and the
    /// collectives are `llvm.nvvm.vote.*.sync` and `llvm.nvvm.shfl.sync.idx.i32` over that
    /// mask (see the writer's `subgroup` module). Needs PTX 6.2 (`llc` gives it from
    /// sm_75 on; older GPUs need `-mattr=+ptx62`, which the driver adds).
    Warp32,
    /// None: the preflight refuses every subgroup op, naming it (the host runs one
    /// invocation at a time, so no lane can see another's value).
    Unavailable,
}

/// Where an invocation's special registers, its workgroup memory and its barrier come
/// from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// Intrinsics: [`TargetDesc::sreg_prefix`] registers, [`TargetDesc::barrier`], and
    /// workgroup variables as globals in [`TargetDesc::workgroup_space`] (GPUs).
    Intrinsics,
    /// The host kernel ABI: every kernel takes a leading `ptr %ctx` to a
    /// [`crate::host_abi`] context that holds the registers, the base of the workgroup's
    /// memory and the barrier callback; a C-ABI entry `oxir.host.NAME(ctx, args)` unpacks
    /// the parameters from an array of 64-bit slots (see [`crate::host_abi`]).
    HostContext,
}

/// One LLVM target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetDesc {
    /// `target triple`.
    pub triple: &'static str,
    /// `target datalayout`.
    pub data_layout: &'static str,
    /// Pointer spelling.
    pub pointers: PointerDialect,
    /// LLVM address space of storage buffers.
    pub storage_space: u32,
    /// LLVM address space of workgroup memory.
    pub workgroup_space: u32,
    /// LLVM address space of function, private, uniform and push-constant memory (the
    /// latter two are by-value kernel parameters, reached through a generic pointer).
    pub generic_space: u32,
    /// The calling convention keyword of kernels (`ptx_kernel`), if any.
    pub kernel_cc: Option<&'static str>,
    /// The function attribute that states the exact workgroup size (`nvvm.reqntid`).
    pub reqntid_attr: Option<&'static str>,
    /// The workgroup control barrier: a `void` intrinsic and its argument list.
    pub barrier: (&'static str, &'static str),
    /// Special-register intrinsics: `{prefix}{name}.{x|y|z}` reads `tid`, `ctaid`, `ntid`,
    /// `nctaid`; `{prefix}laneid` and `{prefix}warpsize` the subgroup registers.
    pub sreg_prefix: &'static str,
    /// `syncscope` of atomics on storage buffers (device scope).
    pub device_scope: &'static str,
    /// `syncscope` of atomics on workgroup memory and of barrier fences (workgroup scope).
    pub workgroup_scope: &'static str,
    /// Elementary functions.
    pub math: MathLibrary,
    /// Registers, workgroup memory and barriers.
    pub invocation: Invocation,
    /// WGSL's robust access as the interpreter runs it: an out-of-range index or an
    /// access past a storage buffer's end reads zero and drops the store (see the
    /// writer's `robust` module). Off: such accesses are undefined, as on the GPU.
    pub robust_access: bool,
    /// Subgroup collectives.
    pub subgroups: Subgroups,
}

impl TargetDesc {
    /// NVIDIA GPUs through LLVM's NVPTX back-end (`llc -march=nvptx64`).
    pub fn nvptx() -> Self {
        TargetDesc {
            triple: "nvptx64-nvidia-cuda",
            data_layout: "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64",
            pointers: PointerDialect::Opaque,
            storage_space: 1,
            workgroup_space: 3,
            generic_space: 0,
            kernel_cc: Some("ptx_kernel"),
            reqntid_attr: Some("nvvm.reqntid"),
            barrier: ("llvm.nvvm.barrier.cta.sync.aligned.all", "i32 0"),
            sreg_prefix: "llvm.nvvm.read.ptx.sreg.",
            device_scope: "device",
            workgroup_scope: "block",
            math: MathLibrary::Libdevice,
            invocation: Invocation::Intrinsics,
            robust_access: false,
            subgroups: Subgroups::Warp32,
        }
    }

    /// This machine's CPU (x86-64 Linux, `llc -relocation-model=pic`) through the host
    /// kernel ABI ([`Invocation::HostContext`]): one address space, no `syncscope` (atomics
    /// are system-wide), libm for elementary functions.
    pub fn host() -> Self {
        TargetDesc {
            triple: "x86_64-unknown-linux-gnu",
            data_layout:
                "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
            pointers: PointerDialect::Opaque,
            storage_space: 0,
            workgroup_space: 0,
            generic_space: 0,
            kernel_cc: None,
            reqntid_attr: None,
            barrier: ("", ""),
            sreg_prefix: "",
            device_scope: "",
            workgroup_scope: "",
            math: MathLibrary::Libm,
            invocation: Invocation::HostContext,
            robust_access: true,
            subgroups: Subgroups::Unavailable,
        }
    }

    /// The LLVM address space of pointers into `space`; `None` for opaque resources
    /// (textures and samplers), which have no memory.
    pub fn address_space(&self, space: AddressSpace) -> Option<u32> {
        match space {
            AddressSpace::Storage(_) => Some(self.storage_space),
            AddressSpace::Workgroup => Some(self.workgroup_space),
            AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Uniform
            | AddressSpace::PushConstant => Some(self.generic_space),
            AddressSpace::Handle => None,
        }
    }

    /// The ` syncscope("...")` clause of an atomic on memory in `space` (with its leading
    /// space), or nothing where the target's scope is the default, system-wide one.
    pub fn syncscope(&self, space: AddressSpace) -> String {
        scope_clause(self.atomic_scope(space))
    }

    /// The `syncscope` of an atomic on memory in `space` (empty: system scope).
    pub fn atomic_scope(&self, space: AddressSpace) -> &'static str {
        match space {
            AddressSpace::Workgroup => self.workgroup_scope,
            AddressSpace::Storage(_)
            | AddressSpace::Function
            | AddressSpace::Private
            | AddressSpace::Uniform
            | AddressSpace::PushConstant
            | AddressSpace::Handle => self.device_scope,
        }
    }
}

/// ` syncscope("SCOPE")`, or nothing for the empty (system) scope.
pub(crate) fn scope_clause(scope: &str) -> String {
    if scope.is_empty() {
        String::new()
    } else {
        format!(" syncscope(\"{scope}\")")
    }
}
