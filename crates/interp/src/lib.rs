//! # oxir-interp — the reference interpreter
//!
//! Runs any valid oxir module — structured or plain, memory form or SSA — with the
//! semantics every back-end must reproduce. It is the execution oracle the pass tests
//! use (results before a pass equal results after it) and what `oxir run` executes.
//!
//! ```
//! use std::collections::BTreeMap;
//! let text = "
//! global @out: storage(read_write) array<u32> binding(0, 0)
//! const c0: u32 = 0
//! kernel @main() workgroup_size(4, 1, 1) {
//! block0:
//!     v0: vec3<u32> = dispatch_id
//!     v1: u32 = extract v0, 0
//!     v2: u32 = mul v1, v1
//!     v3: ptr<storage(read_write), u32> = access @out, v1
//!     store v3, v2
//!     return
//! }";
//! let module = oxir_ir::parser::parse_module(text).unwrap();
//! let mut buffers = BTreeMap::new();
//! buffers.insert((0, 0), vec![0u8; 32]);
//! oxir_interp::dispatch(&module, "main", [2, 1, 1], &mut buffers, &Default::default()).unwrap();
//! let out: Vec<u32> = buffers[&(0, 0)]
//!     .chunks(4)
//!     .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
//!     .collect();
//! assert_eq!(out, [0, 1, 4, 9, 16, 25, 36, 49]);
//! ```
//!
//! ## Semantics
//!
//! Every lane-wise operation is evaluated by [`scalar`] (`oxir_ir::scalar_semantics`),
//! the module constant folding uses too, so a folded value always equals the executed
//! one. In short:
//!
//! - **Integers** wrap (two's complement) at their width. Division: `x / 0 = x`,
//!   `INT_MIN / -1 = INT_MIN`; remainder: `x % 0 = 0`, `INT_MIN % -1 = 0`, the sign of
//!   the dividend otherwise (WGSL). Shift and rotate amounts are taken modulo the bit
//!   width; `shr` is arithmetic for signed, logical for unsigned operands. `abs(INT_MIN)
//!   = INT_MIN`. `count_leading_zeros(0)` and `count_trailing_zeros(0)` are the width.
//!   `extract_bits` / `insert_bits` clamp offset and count to the width as WGSL does.
//! - **Floats** are IEEE 754 with round-to-nearest-even: every f16/f32 operation is
//!   computed in f64 and rounded once to the type (exact for `+ - * / sqrt` and the
//!   conversions), `fma` is fused. f16 goes through the `half` crate. `min` / `max` are
//!   NaN-aware: with one NaN operand the other is returned (WGSL); `clamp(e, lo, hi) =
//!   min(max(e, lo), hi)`. `sign(NaN) = 0`. Transcendentals use the host libm (GPU
//!   precision is looser; tests compare them with a tolerance).
//! - **Conversions**: float → integer saturates to the target range and maps NaN to 0
//!   (WGSL); integer → float rounds to nearest; to `bool` compares with zero (so NaN →
//!   true); `bool` → number is 0 or 1; integer → integer truncates or sign/zero-extends by
//!   the source's signedness. `bitcast` reinterprets the little-endian bytes.
//! - **Derivatives** of a single invocation are 0 (there are no neighbours).
//! - **Memory** lives in bytes laid out by `oxir_ir::data_layout`: std430 for storage
//!   and push-constant buffers, std140 for uniform buffers, and std430 for workgroup,
//!   private and function memory (bool is 4 bytes). So bitcasts through memory, struct
//!   padding and runtime arrays behave as on a GPU. Function- and workgroup-space
//!   `alloca`s and workgroup and private globals start zeroed (or at their initializer).
//! - **Out-of-bounds** accesses ([`OutOfBounds`]): under `Robust` (the default, WGSL's
//!   robust buffer access) an out-of-range `access` index or a load past the end of its
//!   region reads zero and a store is dropped; a runtime-sized array's bound is its
//!   `array_length` (the whole elements its buffer holds), so an element the buffer ends
//!   inside of is out of range, as the bounds checks and Vulkan count it; under `Error`
//!   the first one stops the run
//!   with an error naming the instruction. `extract_dynamic` out of range gives zero,
//!   `insert_dynamic` out of range leaves the composite unchanged.
//! - **Control flow** follows executable edges only: `if` / `cond_br` take the then or
//!   else edge, `switch` / `switch_br` the matching case or the default, `loop` its
//!   prepare edge, `simple_loop` its body edge, `br` / `break` / `continue` their target.
//!   Structural roles are never consulted, so the structured and plain forms of a program
//!   run the same way.
//! - **Invocations** of a workgroup run one at a time in local-invocation-index order
//!   ([`Options::shuffle_seed`] shuffles the order each round, to expose races), each
//!   until it finishes or reaches a barrier (`workgroup_barrier`, `storage_barrier`,
//!   `workgroup_uniform_load`). When every invocation waits at the *same* barrier they all
//!   continue; when some finished or wait at another barrier the run stops with a
//!   divergent-barrier error (never a hang). Workgroups run one after another (x fastest,
//!   then y, then z). Atomics are therefore sequentially consistent.
//! - **Limits**: at most [`Options::max_instructions`] instructions per run; more is an
//!   error naming the instruction ("a runaway loop?"). A dispatch of more invocations than
//!   that budget (each executes at least its `return`) is refused before it starts
//!   ([`ErrorKind::DispatchTooLarge`]). At most [`Options::max_memory_bytes`] of
//!   private, workgroup and function variables per workgroup, checked before allocating
//!   ([`ErrorKind::MemoryLimit`]). Variable memory is one zeroed byte array per variable
//!   at its layout size: zero-initialized variables (no initializer, or `zero` / `undef`)
//!   are never built as values, so their pages are not touched until written. Not
//!   bounded: a single `load` or `store` of a whole huge array builds it as a value
//!   (about 50 bytes per element).
//! - **Subgroups** ([`Options::subgroup_size`], 32 by default, `oxir run
//!   --subgroup-size`) are consecutive local-invocation-index ranges of a workgroup
//!   (`subgroup_invocation_id = local_index % size`). An invocation that reaches a
//!   subgroup op waits there like at a barrier; once every invocation of the workgroup
//!   has stopped, the invocations of one subgroup waiting at the same instruction with
//!   the same call stack execute it together as its active lanes. Invocations that
//!   finished, wait at a barrier or at another instruction (another branch) are
//!   inactive. Reductions and scans combine the active lanes in lane order through the
//!   scalar semantics (f32 rounds after each lane); a shuffle or broadcast from an
//!   inactive or out-of-range lane gives zero. A vertex or fragment invocation run
//!   alone is the only active lane (id 0) of its subgroup. Details: `exec/subgroup.rs`.
//!
//! - **Textures** ([`texture`]): 1D, 2D and 2D-array textures with one mip level and
//!   multisampled 2D ones (colour and depth, [`Texture::samples`] per texel), nearest
//!   and linear filtering, clamp / repeat / mirror addressing, storage formats quantized
//!   on store. Textures and samplers come in [`Resources`] by binding; a missing texture
//!   is 1×1 zero (one sample), a missing sampler nearest / clamp-to-edge. Out-of-range
//!   loads (coordinate, layer, level, sample) read zero. 3D, cube and arrayed
//!   multisampled textures are an `unsupported:` error.
//!
//! ## Errors
//!
//! A run stops at the first failure with an [`Error`]: its [`ErrorKind`] says what went
//! wrong (out-of-bounds access, instruction limit, divergent barrier, failed `assert`,
//! `unreachable`, a call of an external function, an unsupported texture shape, an
//! operation the scalar semantics refuse, ...) and its [`Location`] names the function,
//! block, instruction and opcode. Nothing the interpreter cannot execute yields a
//! made-up value.

mod error;
mod exec;
mod linalg;
mod memory;
mod special;
pub mod texture;
pub mod value;
mod value_budget;

pub use error::{Error, ErrorKind, Location, MemoryOp};
use exec::{Machine, Regs, Status};
/// The scalar semantics the interpreter executes: [`oxir_ir::scalar_semantics`], shared
/// with constant folding.
pub use oxir_ir::scalar_semantics as scalar;
use oxir_ir::{FunctionKind, Module};
use std::collections::BTreeMap;
pub use texture::{AddressMode, Filter, Sampler, Texture};
pub use value::{Ptr, Region, Val};

/// What an out-of-bounds access does.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OutOfBounds {
    /// WGSL robust access: reads give zero, writes are dropped.
    #[default]
    Robust,
    /// Stop with an error naming the instruction.
    Error,
}

/// Interpreter options.
#[derive(Clone, Debug)]
pub struct Options {
    pub out_of_bounds: OutOfBounds,
    /// Instruction budget of one run (all invocations together).
    pub max_instructions: u64,
    /// Shuffle the invocation order of each scheduling round with this seed.
    pub shuffle_seed: Option<u64>,
    /// Memory budget of one workgroup, in bytes: its workgroup variables, and the private
    /// variables and live function variables (`alloca`s) of all its invocations together,
    /// at their layout sizes. Checked before each allocation
    /// ([`ErrorKind::MemoryLimit`]); buffers and textures are the caller's and not
    /// counted.
    pub max_memory_bytes: u64,
    /// Invocations per subgroup: a power of two in 1..=128 (32 by default). Subgroups
    /// are consecutive `local_invocation_index` ranges of a workgroup.
    pub subgroup_size: u32,
}

/// [`Options::subgroup_size`] by default.
pub const DEFAULT_SUBGROUP_SIZE: u32 = 32;

/// Whether `n` is a subgroup size the interpreter runs: a power of two in 1..=128.
pub fn valid_subgroup_size(n: u32) -> bool {
    n.is_power_of_two() && n <= 128
}

/// [`Options::max_memory_bytes`] by default: 1 GiB.
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1 << 30;

impl Default for Options {
    fn default() -> Self {
        Options {
            out_of_bounds: OutOfBounds::Robust,
            max_instructions: 100_000_000,
            shuffle_seed: None,
            max_memory_bytes: DEFAULT_MAX_MEMORY_BYTES,
            subgroup_size: DEFAULT_SUBGROUP_SIZE,
        }
    }
}

/// Inputs of a single vertex or fragment invocation.
#[derive(Clone, Debug, Default)]
pub struct StageInputs {
    pub frag_coord: [f32; 4],
    pub front_facing: bool,
    pub vertex_index: u32,
    pub instance_index: u32,
    /// Values of the entry point's non-built-in parameters, by parameter position
    /// (missing ones are zero).
    pub locations: Vec<Val>,
}

/// Refuses a module the verifier rejects: the executor relies on the verifier's
/// guarantees (result types, operand counts, defined values) and must never panic.
fn require_valid(module: &Module, options: &Options) -> Result<(), Error> {
    if !valid_subgroup_size(options.subgroup_size) {
        return Err(ErrorKind::InvalidSubgroupSize(options.subgroup_size).into());
    }
    let report =
        oxir_ir::verifier::verify_module(module, &oxir_ir::verifier::VerifierOptions::default());
    if !report.succeeded() {
        return Err(ErrorKind::InvalidModule(report.to_string()).into());
    }
    value_budget::check(module, options.max_memory_bytes).map_err(Error::from)
}

/// What a run reports besides its buffers.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Instructions executed.
    pub executed: u64,
    /// Lines produced by `print`.
    pub prints: Vec<String>,
}

/// Buffers by `(group, binding)`.
pub type Buffers = BTreeMap<(u32, u32), Vec<u8>>;

/// Textures and samplers by `(group, binding)`; textures written by the run come back.
#[derive(Clone, Debug, Default)]
pub struct Resources {
    pub textures: BTreeMap<(u32, u32), Texture>,
    pub samplers: BTreeMap<(u32, u32), Sampler>,
}

fn install_resources(m: &mut Machine<'_>, module: &Module, resources: &Resources) {
    for (g, gd) in module.globals.iter() {
        if let Some(b) = gd.binding {
            let key = (b.group, b.binding);
            m.textures[g] = resources.textures.get(&key).cloned();
            m.samplers[g] = resources.samplers.get(&key).copied();
        }
    }
}

fn collect_resources(m: &mut Machine<'_>, module: &Module, resources: &mut Resources) {
    for (g, gd) in module.globals.iter() {
        if let (Some(b), Some(t)) = (gd.binding, m.textures[g].take()) {
            resources.textures.insert((b.group, b.binding), t);
        }
    }
}

/// A buffer binding of a module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BindingInfo {
    /// The global's name.
    pub name: String,
    /// Minimum size in bytes (a runtime-sized array with no elements).
    pub min_size: u64,
    /// The bytes up to the end of the last scalar of the type (of the part before a
    /// runtime-sized array): `min_size` without trailing padding, which WGSL's own size
    /// of the type may leave out (a 12-byte struct is 16 bytes under std140).
    pub data_size: u64,
    /// Whether the binding ends in a runtime-sized array.
    pub runtime_sized: bool,
    /// Whether it is a storage buffer (the ones `oxir run` prints).
    pub storage: bool,
}

/// Every buffer binding of `module` (storage, uniform, push constant), by
/// `(group, binding)`.
pub fn bindings(module: &Module) -> Result<BTreeMap<(u32, u32), BindingInfo>, Error> {
    let mut m = Machine::new(module, Options::default());
    let mut out = BTreeMap::new();
    for (g, gd) in module.globals.iter() {
        if let Some(b) = gd.binding {
            if gd.space == oxir_ir::AddressSpace::Handle {
                continue;
            }
            let rules = module.layout_rules(gd.space);
            let runtime_sized =
                oxir_ir::data_layout::runtime_array_tail(&module.types, gd.ty, rules)
                    .map_err(|e| Error::new(ErrorKind::Layout(e.to_string())))?
                    .is_some();
            out.insert(
                (b.group, b.binding),
                BindingInfo {
                    name: gd.name.clone(),
                    min_size: m.global_size(g)?,
                    data_size: data_end(&module.types, gd.ty, rules)
                        .map_err(|e| Error::new(ErrorKind::Layout(e.to_string())))?,
                    runtime_sized,
                    storage: matches!(gd.space, oxir_ir::AddressSpace::Storage(_)),
                },
            );
        }
    }
    Ok(out)
}

/// The end of the last scalar of `ty` under `rules` (0 for a runtime-sized array).
fn data_end(
    types: &oxir_ir::types::TypeStore,
    ty: oxir_ir::Type,
    rules: oxir_ir::data_layout::LayoutRules,
) -> Result<u64, oxir_ir::data_layout::LayoutError> {
    use oxir_ir::TypeData;
    let layout = oxir_ir::data_layout::layout_of(types, ty, rules)?;
    let stride = u64::from(layout.stride.unwrap_or(0));
    Ok(match types.get(ty) {
        TypeData::Struct(st) => match (st.members.last(), layout.offsets.last()) {
            (Some(m), Some(&off)) => u64::from(off) + data_end(types, m.ty, rules)?,
            _ => 0,
        },
        TypeData::Array { elem, len, .. } => {
            u64::from(len.saturating_sub(1)) * stride + data_end(types, *elem, rules)?
        }
        TypeData::Matrix {
            elem,
            columns,
            rows,
        } => {
            u64::from(columns.saturating_sub(1)) * stride
                + u64::from(*rows) * u64::from(elem.bytes())
        }
        TypeData::RuntimeArray { .. } => 0,
        TypeData::Scalar(_)
        | TypeData::Vector { .. }
        | TypeData::Pointer { .. }
        | TypeData::Void
        | TypeData::Texture { .. }
        | TypeData::StorageTexture { .. }
        | TypeData::Sampler { .. }
        | TypeData::Opaque(_) => u64::from(layout.size),
    })
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `n` deterministic pseudo-random bytes from `seed` (splitmix64, little-endian words).
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut state = seed;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        out.extend_from_slice(&splitmix(&mut state).to_le_bytes());
    }
    out.truncate(n);
    out
}

fn install_buffers(
    m: &mut Machine<'_>,
    module: &Module,
    buffers: &mut Buffers,
) -> Result<(), Error> {
    for (g, gd) in module.globals.iter() {
        if let Some(b) = gd.binding {
            if gd.space == oxir_ir::AddressSpace::Handle {
                continue;
            }
            let key = (b.group, b.binding);
            let bytes = match buffers.get(&key) {
                Some(bytes) => bytes.clone(),
                None => {
                    let size = m.global_size(g)? as usize;
                    buffers.insert(key, vec![0u8; size]);
                    vec![0u8; size]
                }
            };
            m.buffers[g] = bytes;
        }
    }
    Ok(())
}

fn collect_buffers(m: &mut Machine<'_>, module: &Module, buffers: &mut Buffers) {
    for (g, gd) in module.globals.iter() {
        if let (Some(b), true) = (gd.binding, gd.space != oxir_ir::AddressSpace::Handle) {
            buffers.insert((b.group, b.binding), std::mem::take(&mut m.buffers[g]));
        }
    }
}

/// Runs kernel `entry` over `groups` workgroups. `buffers` holds the bytes of each
/// buffer binding; bindings it lacks are added zero-filled at their minimum size. On
/// success the buffers hold the results.
pub fn dispatch(
    module: &Module,
    entry: &str,
    groups: [u32; 3],
    buffers: &mut Buffers,
    options: &Options,
) -> Result<Report, Error> {
    dispatch_with_resources(
        module,
        entry,
        groups,
        buffers,
        &mut Resources::default(),
        options,
    )
}

/// [`dispatch`] with textures and samplers.
pub fn dispatch_with_resources(
    module: &Module,
    entry: &str,
    groups: [u32; 3],
    buffers: &mut Buffers,
    resources: &mut Resources,
    options: &Options,
) -> Result<Report, Error> {
    require_valid(module, options)?;
    let func = module
        .function_by_name(entry)
        .ok_or_else(|| ErrorKind::NoSuchFunction(entry.to_string()))?;
    // A specialisable size runs at its default (what a pipeline that sets nothing gets).
    let FunctionKind::Kernel {
        workgroup_size,
        workgroup_spec_ids: _,
    } = module.functions[func].kind
    else {
        return Err(ErrorKind::NotAKernel(entry.to_string()).into());
    };
    let mut m = Machine::new(module, options.clone());
    install_buffers(&mut m, module, buffers)?;
    install_resources(&mut m, module, resources);
    let n = workgroup_size
        .iter()
        .map(|&x| x as usize)
        .product::<usize>();
    let invocations = groups
        .iter()
        .chain(workgroup_size.iter())
        .fold(1u64, |total, &d| total.saturating_mul(u64::from(d)));
    if invocations > options.max_instructions {
        return Err(ErrorKind::DispatchTooLarge {
            invocations,
            limit: options.max_instructions,
        }
        .into());
    }
    let mut rng = options.shuffle_seed.unwrap_or(0);
    for gz in 0..groups[2] {
        for gy in 0..groups[1] {
            for gx in 0..groups[0] {
                let group_id = [gx, gy, gz];
                let located = |mut e: Error| {
                    e.workgroup = Some(group_id);
                    e
                };
                let mut group = m.new_group().map_err(located)?;
                let mut invs = Vec::with_capacity(n);
                for li in 0..n as u32 {
                    let [sx, sy, _] = workgroup_size;
                    let regs = Regs {
                        local_id: [li % sx, (li / sx) % sy, li / (sx * sy)],
                        group_id,
                        local_index: li,
                        wg_size: workgroup_size,
                        num_groups: groups,
                    };
                    let args = m.entry_args(func, &regs).map_err(located)?;
                    invs.push(m.new_invocation(func, regs, args).map_err(located)?);
                }
                let mut order: Vec<usize> = (0..n).collect();
                let mut release_barriers = false;
                loop {
                    if options.shuffle_seed.is_some() {
                        for i in (1..order.len()).rev() {
                            let j = (splitmix(&mut rng) % (i as u64 + 1)) as usize;
                            order.swap(i, j);
                        }
                    }
                    for &i in &order {
                        let runs = match invs[i].status {
                            Status::Running => true,
                            Status::Barrier(..) => release_barriers,
                            Status::Subgroup | Status::Done(_) | Status::Discarded => false,
                        };
                        if runs {
                            m.run(&mut group, &mut invs[i]).map_err(located)?;
                        }
                    }
                    release_barriers = false;
                    if m.resolve_subgroups(&mut invs).map_err(located)? {
                        continue;
                    }
                    let barriers: Vec<_> = invs
                        .iter()
                        .filter_map(|inv| match inv.status {
                            Status::Barrier(f, i) => Some((f, i)),
                            _ => None,
                        })
                        .collect();
                    if barriers.is_empty() {
                        break;
                    }
                    if barriers.len() != n || barriers.iter().any(|b| *b != barriers[0]) {
                        let (f, i) = barriers[0];
                        let fun = &module.functions[f];
                        return Err(located(Error::new(ErrorKind::DivergentBarrier {
                            waiting: barriers.iter().filter(|b| **b == barriers[0]).count(),
                            total: n,
                            opcode: fun.dfg.inst(i).opcode,
                            inst: i,
                            function: fun.name.clone(),
                        })));
                    }
                    release_barriers = true;
                }
            }
        }
    }
    collect_buffers(&mut m, module, buffers);
    collect_resources(&mut m, module, resources);
    Ok(Report {
        executed: m.executed,
        prints: std::mem::take(&mut m.prints),
    })
}

/// Runs one invocation of a vertex or fragment entry point (or a callable taking the
/// inputs as parameters) and returns its results; `None` when it discarded.
pub fn run_single(
    module: &Module,
    entry: &str,
    inputs: &StageInputs,
    buffers: &mut Buffers,
    options: &Options,
) -> Result<Option<Vec<Val>>, Error> {
    run_single_with_resources(
        module,
        entry,
        inputs,
        buffers,
        &mut Resources::default(),
        options,
    )
}

/// [`run_single`] with textures and samplers.
pub fn run_single_with_resources(
    module: &Module,
    entry: &str,
    inputs: &StageInputs,
    buffers: &mut Buffers,
    resources: &mut Resources,
    options: &Options,
) -> Result<Option<Vec<Val>>, Error> {
    require_valid(module, options)?;
    let func = module
        .function_by_name(entry)
        .ok_or_else(|| ErrorKind::NoSuchFunction(entry.to_string()))?;
    let mut m = Machine::new(module, options.clone());
    m.stage = inputs.clone();
    install_buffers(&mut m, module, buffers)?;
    install_resources(&mut m, module, resources);
    let regs = Regs {
        wg_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        ..Regs::default()
    };
    let args = m.entry_args(func, &regs)?;
    let mut group = m.new_group()?;
    let mut inv = m.new_invocation(func, regs, args)?;
    loop {
        m.run(&mut group, &mut inv)?;
        match std::mem::replace(&mut inv.status, Status::Running) {
            Status::Barrier(..) => continue,
            Status::Subgroup => {
                inv.status = Status::Subgroup;
                m.resolve_subgroups(std::slice::from_mut(&mut inv))?;
            }
            Status::Done(v) => {
                collect_buffers(&mut m, module, buffers);
                collect_resources(&mut m, module, resources);
                return Ok(Some(v));
            }
            Status::Discarded => {
                collect_buffers(&mut m, module, buffers);
                collect_resources(&mut m, module, resources);
                return Ok(None);
            }
            Status::Running => unreachable!(),
        }
    }
}
