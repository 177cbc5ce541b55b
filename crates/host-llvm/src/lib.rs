//! # oxir-host — the host-CPU engine of the LLVM back-end
//!
//! Runs a whole compute dispatch of a kernel that `oxir_driver::compile_host` compiled for
//! this machine (the LLVM writer's host target; the ABI is `oxir_llvm::host_abi`):
//!
//! - **Invocations**: one OS thread per invocation of a workgroup, spawned once per
//!   dispatch; workgroups run one after another, in x, then y, then z order, as the
//!   interpreter runs them.
//! - **Barriers** really synchronise: the context's barrier callback returns when every
//!   invocation of the workgroup has reached a barrier or finished the kernel (an
//!   invocation that has returned counts as arrived, so an early `return` cannot hang the
//!   others).
//! - **Workgroup memory**: one block ([`oxir_llvm::host_abi::HostKernel::workgroup_bytes`])
//!   shared by the workgroup's invocations, zeroed before each workgroup.
//! - **Buffers** hold the bytes the interpreter lays out (`oxir_ir::data_layout`); they
//!   are copied into 16-byte-aligned memory of atomics for the run (kernels access them
//!   from many threads) and the storage buffers copied back.
//!
//! - **Time**: a dispatch that has not finished by its timeout is an error; its threads
//!   cannot be stopped, so they keep the library and the memory alive and run on until
//!   the process exits (the CLI exits at once).
//!
//! What it does NOT do: count what a kernel executes (the interpreter's instruction limit
//! has no counterpart; the timeout stands in for it), subgroup operations, textures,
//! graphics stages (the writer refuses them before anything runs).

#![warn(missing_docs)]

mod memory;
mod sync;

use memory::AlignedMemory;
use oxir_llvm::host_abi::HostKernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use sync::{Gate, WorkgroupSync};

/// The most workgroup memory one dispatch may allocate.
pub const MAX_WORKGROUP_BYTES: u64 = 1 << 30;

/// Stack of each invocation's thread.
const STACK_BYTES: usize = 4 << 20;

/// Why a dispatch could not run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The shared object could not be loaded, or lacks the kernel's entry.
    #[error("cannot load {}: {message}", path.display())]
    Load {
        /// The shared object.
        path: PathBuf,
        /// The loader's message.
        message: String,
    },
    /// A parameter of the kernel has no buffer.
    #[error("the kernel's binding {}:{} has no buffer", .0.0, .0.1)]
    MissingBuffer((u32, u32)),
    /// The workgroup memory block is larger than [`MAX_WORKGROUP_BYTES`].
    #[error("the kernel's workgroup memory ({0} bytes) exceeds {MAX_WORKGROUP_BYTES} bytes")]
    WorkgroupMemory(u64),
    /// The dispatch did not finish in time.
    #[error("the dispatch did not finish within {} ms", .0.as_millis())]
    Timeout(Duration),
    /// An invocation's thread could not be started.
    #[error("cannot start an invocation thread: {0}")]
    Thread(std::io::Error),
}

/// The context of one invocation: `oxir_llvm::host_abi`'s C struct, field for field.
#[repr(C)]
pub(crate) struct HostContext {
    local_id: [u32; 3],
    workgroup_id: [u32; 3],
    num_workgroups: [u32; 3],
    subgroup_invocation: u32,
    subgroup_size: u32,
    padding: u32,
    /// The address of the workgroup memory block.
    workgroup_memory: usize,
    barrier: extern "C" fn(*mut HostContext),
}

/// The C-ABI entry of a kernel (`oxir.host.NAME`).
type Entry = unsafe extern "C" fn(*mut HostContext, *const u64);

/// The memory a dispatch's threads use, kept alive by every thread (a timed-out
/// dispatch's threads keep running until the process ends).
struct Shared {
    /// One address or size per parameter word of the entry.
    slots: Vec<u64>,
    /// The buffers the addresses in `slots` point to.
    buffers: Vec<((u32, u32), bool, AlignedMemory)>,
    workgroup: AlignedMemory,
    sync: Arc<WorkgroupSync>,
    gate: Gate,
}

/// Runs `groups` workgroups of `kernel` from the shared object at `library` on
/// `buffers` (by `(group, binding)`); storage buffers hold the results afterwards. A
/// dispatch still running after `timeout` is [`Error::Timeout`]: its threads cannot be
/// stopped, so the library stays loaded and they run on until the process exits.
pub fn run(
    library: &Path,
    kernel: &HostKernel,
    groups: [u32; 3],
    buffers: &mut BTreeMap<(u32, u32), Vec<u8>>,
    timeout: Duration,
) -> Result<(), Error> {
    if kernel.workgroup_bytes > MAX_WORKGROUP_BYTES {
        return Err(Error::WorkgroupMemory(kernel.workgroup_bytes));
    }
    let mut bound = Vec::new();
    let mut slots = Vec::new();
    for p in &kernel.params {
        let bytes = buffers
            .get(&p.binding)
            .ok_or(Error::MissingBuffer(p.binding))?;
        let memory = AlignedMemory::from_bytes(bytes);
        slots.push(memory.address());
        if p.storage {
            slots.push(bytes.len() as u64);
        }
        bound.push((p.binding, p.storage, memory));
    }
    let load_error = |message: String| Error::Load {
        path: library.to_path_buf(),
        message,
    };
    // SAFETY: the library is the shared object `compile_host` linked from the LLVM
    // writer's module: its initialisers are the C runtime's, nothing of the kernel runs.
    let lib =
        unsafe { libloading::Library::new(library) }.map_err(|e| load_error(e.to_string()))?;
    // SAFETY: `oxir.host.NAME` has the type `Entry` (the host ABI's entry, written by the
    // LLVM writer for every kernel); the pointer is used only while `lib` is loaded.
    let entry: Entry = *unsafe { lib.get::<Entry>(kernel.entry.as_bytes()) }
        .map_err(|e| load_error(e.to_string()))?;
    let size = kernel.workgroup_size;
    let invocations = size.iter().map(|&n| n as usize).product::<usize>();
    let shared = Arc::new(Shared {
        slots,
        buffers: bound,
        workgroup: AlignedMemory::zeroed(kernel.workgroup_bytes as usize),
        sync: Arc::new(WorkgroupSync::new(invocations)),
        gate: Gate::default(),
    });
    if let Err(e) = dispatch(entry, size, groups, &shared, timeout) {
        if let Error::Timeout(_) = e {
            // The threads still run the kernel's code.
            std::mem::forget(lib);
        }
        return Err(e);
    }
    drop(lib);
    for (key, storage, memory) in &shared.buffers {
        if *storage {
            if let Some(bytes) = buffers.get_mut(key) {
                memory.copy_to(bytes);
            }
        }
    }
    Ok(())
}

/// Runs every workgroup: one thread per invocation; returns when all have finished, or
/// at the deadline.
fn dispatch(
    entry: Entry,
    size: [u32; 3],
    groups: [u32; 3],
    shared: &Arc<Shared>,
    timeout: Duration,
) -> Result<(), Error> {
    let invocations = size.iter().map(|&n| n as usize).product::<usize>();
    let (done, finished) = std::sync::mpsc::channel();
    for index in 0..invocations {
        let (mine, done) = (Arc::clone(shared), done.clone());
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_BYTES)
            .spawn(move || {
                if mine.gate.wait_open() {
                    invocation(entry, index, size, groups, &mine);
                }
                let _ = done.send(());
            });
        if let Err(e) = spawned {
            shared.gate.set(false);
            return Err(Error::Thread(e));
        }
    }
    shared.gate.set(true);
    let deadline = Instant::now() + timeout;
    for _ in 0..invocations {
        let left = deadline.saturating_duration_since(Instant::now());
        if finished.recv_timeout(left).is_err() {
            return Err(Error::Timeout(timeout));
        }
    }
    Ok(())
}

/// The local id of local invocation index `index` in a workgroup of `size`.
fn local_id(index: usize, size: [u32; 3]) -> [u32; 3] {
    let [x, y, _] = size.map(|n| n as usize);
    [index % x, index / x % y, index / (x * y)].map(|n| n as u32)
}

/// One invocation's thread: the kernel in every workgroup, in order.
fn invocation(entry: Entry, index: usize, size: [u32; 3], groups: [u32; 3], shared: &Shared) {
    let sync = &shared.sync;
    sync::enter(Arc::clone(sync));
    let mut ctx = HostContext {
        local_id: local_id(index, size),
        workgroup_id: [0; 3],
        num_workgroups: groups,
        subgroup_invocation: (index % 32) as u32,
        subgroup_size: 32,
        padding: 0,
        workgroup_memory: shared.workgroup.address() as usize,
        barrier: sync::barrier_callback,
    };
    for z in 0..groups[2] {
        for y in 0..groups[1] {
            for x in 0..groups[0] {
                ctx.workgroup_id = [x, y, z];
                // SAFETY: `entry` is the kernel's host entry (see `run`); `ctx` is a
                // valid context the kernel only reads, `slots` holds one address or size
                // per parameter word of its entry, and every address points to live,
                // 16-byte-aligned memory of the size the slot after it (or the layout)
                // says, owned by `shared`, which this thread keeps alive.
                unsafe { entry(&mut ctx, shared.slots.as_ptr()) };
                sync.finish();
                sync.end_workgroup(|| shared.workgroup.zero());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{local_id, HostContext};
    use oxir_llvm::host_abi as abi;
    use std::mem::offset_of;

    #[test]
    fn the_context_matches_the_abi() {
        assert_eq!(offset_of!(HostContext, local_id) as u64, abi::LOCAL_ID);
        assert_eq!(
            offset_of!(HostContext, workgroup_id) as u64,
            abi::WORKGROUP_ID
        );
        assert_eq!(
            offset_of!(HostContext, num_workgroups) as u64,
            abi::NUM_WORKGROUPS
        );
        assert_eq!(
            offset_of!(HostContext, subgroup_invocation) as u64,
            abi::SUBGROUP_INVOCATION
        );
        assert_eq!(
            offset_of!(HostContext, subgroup_size) as u64,
            abi::SUBGROUP_SIZE
        );
        assert_eq!(
            offset_of!(HostContext, workgroup_memory) as u64,
            abi::WORKGROUP_MEMORY
        );
        assert_eq!(offset_of!(HostContext, barrier) as u64, abi::BARRIER);
    }

    #[test]
    fn local_ids_follow_the_local_index() {
        assert_eq!(local_id(0, [4, 2, 2]), [0, 0, 0]);
        assert_eq!(local_id(5, [4, 2, 2]), [1, 1, 0]);
        assert_eq!(local_id(15, [4, 2, 2]), [3, 1, 1]);
    }
}
