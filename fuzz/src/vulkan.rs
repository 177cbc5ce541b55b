//! The `differential` target's Vulkan leg: the module the SPIR-V target's pipeline made
//! (at `-O0` or `-O`, default bounds checks), written to SPIR-V as `oxir_driver` writes
//! it and checked by `spirv-val`, runs on the first Vulkan device (lavapipe, with
//! `VK_DRIVER_FILES` naming its ICD) and must give the interpreter's bytes for that
//! module.
//!
//! - The dispatch is one workgroup, so workgroups that race on a word (the interpreter
//!   runs them one after another, a device in parallel) cannot differ. Words whose
//!   interpreter value changes when the invocation order is shuffled (seeds 1 and 2:
//!   races inside the workgroup, by design) are not compared; the shuffled runs are
//!   made only when the device differs (they tripled the leg's interpreter time).
//! - Skipped, not compared: a module the writer refuses, one with bindings other than
//!   buffers or with push constants, a kernel whose interpreter run fails or runs out of
//!   its budget, and a kernel that executes more than [`LOOP_CUTOFF`] instructions:
//!   lavapipe ends every loop after 65535 iterations without an error, so a longer
//!   loop would differ by the driver's choice, not oxir's.
//! - Floats: the inputs are the target's random bytes with every word that reads as an
//!   f32 infinity, NaN or subnormal changed into an ordinary number (exponent bit 30
//!   flipped; a subnormal becomes zero), since WGSL and Vulkan leave `min`/`max`/`clamp`
//!   of NaN indeterminate and let subnormals flush. In a binding whose oxir type holds
//!   a float, two words also agree when both read as zero or subnormal (the sign of
//!   zero from `min`/`max` is the driver's choice, as is flushing) or both as NaN. Other
//!   bindings compare bit for bit.
//! - Unspecified values: oxir leaves a `private` or `workgroup` global without an
//!   initializer, an `undef` constant and an `alloca` read before it is written
//!   unspecified, and the interpreter reads zero where SPIR-V and lavapipe give anything
//!   (this leg's first reports: a private flag set by half the invocations read 1 in
//!   all, a workgroup counter started at garbage, a function array read before it was
//!   written). Such globals get a zero initializer, and every function-space `alloca` a
//!   store of zero right after it, before the module is written and run, which changes
//!   nothing for the interpreter; a module with an `undef` constant (what `mem2reg`
//!   makes of a read before a write) is skipped.
//! - A module that reads `subgroup_size` or `subgroup_invocation_id` is skipped (the
//!   interpreter's subgroup is the whole workgroup, lavapipe's its SIMD width).
//! - A driver error from the device (pipeline creation, a timeout) skips the kernel;
//!   a lost device, a `spirv-val` rejection or different bytes panic (a crash for
//!   libFuzzer). A segfault inside the driver is a crash too.
//! - Without a Vulkan device (or without `spirv-val`) the leg is skipped, and says so
//!   once on stderr.

use oxir_driver::OptLevel;
use oxir_interp::{Buffers, Options};
use oxir_ir::constants::ConstKind;
use oxir_ir::printer::{print_module, View};
use oxir_ir::types::{TypeData, TypeStore};
use oxir_ir::{AddressSpace, FunctionKind, InstData, Module, Opcode, Type};
use oxir_vulkan::{BindingData, DeviceSelector, Error};
use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// Kernels compared on the device so far; printed at each power of two.
static COMPARED: AtomicU64 = AtomicU64::new(0);

/// Instructions above which a kernel may hold a loop of more than 65535 iterations (each
/// iteration executes at least its condition and its branch back).
pub const LOOP_CUTOFF: u64 = 2 * 65_535;

/// Whether a Vulkan device and `spirv-val` are available; the first call prints why the
/// leg is skipped when they are not.
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let why = match oxir_vulkan::list_devices() {
            Ok(d) if !d.is_empty() => match Command::new("spirv-val").arg("--version").output() {
                Ok(_) => {
                    eprintln!("differential: Vulkan leg on `{}`", d[0].name);
                    return true;
                }
                Err(e) => format!("spirv-val is not installed ({e})"),
            },
            Ok(_) => "the loader lists no device".to_string(),
            Err(e) => e.to_string(),
        };
        eprintln!("differential: SKIPPED the Vulkan leg: {why}");
        false
    })
}

/// `Err(message)` when `spirv-val` rejects `words`.
fn spirv_val(words: &[u32]) -> Result<(), String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let mut child = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spirv-val did not start: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&bytes)
            .map_err(|e| format!("writing to spirv-val: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("spirv-val: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// The interpreter's buffers for one workgroup of `entry` (invocations in order, or
/// shuffled with `shuffle_seed`); `None` when the run fails or is too long for the device.
fn interpret(
    module: &Module,
    entry: &str,
    inputs: &Buffers,
    shuffle_seed: Option<u64>,
) -> Option<Buffers> {
    let options = Options {
        max_instructions: crate::Limits::INSTRUCTIONS,
        shuffle_seed,
        ..Options::default()
    };
    let mut buffers = inputs.clone();
    let report = oxir_interp::dispatch(module, entry, [1, 1, 1], &mut buffers, &options).ok()?;
    (report.executed <= LOOP_CUTOFF).then_some(buffers)
}

/// A byte mask of `first`: 1 where every shuffled run of `entry` (seeds 1 and 2) agrees
/// with it. Only computed when the device differs, as it costs two more runs.
fn stable_bytes(module: &Module, entry: &str, inputs: &Buffers, first: &Buffers) -> Buffers {
    let shuffled: Vec<Option<Buffers>> = [1, 2]
        .into_iter()
        .map(|seed| interpret(module, entry, inputs, Some(seed)))
        .collect();
    first
        .iter()
        .map(|(key, bytes)| {
            let mask = (0..bytes.len())
                .map(|i| {
                    let same = |r: &Option<Buffers>| {
                        r.as_ref()
                            .is_some_and(|r| r.get(key).and_then(|b| b.get(i)) == bytes.get(i))
                    };
                    u8::from(shuffled.iter().all(same))
                })
                .collect();
            (*key, mask)
        })
        .collect()
}

/// Whether `module` reads the subgroup size or the invocation's place in its subgroup
/// (the device's choice: the interpreter's subgroup is the workgroup, lavapipe's its
/// SIMD width).
fn uses_subgroups(module: &Module) -> bool {
    module.functions.values().any(|f| {
        f.layout.blocks().any(|b| {
            f.layout.block_insts(b).any(|i| {
                matches!(
                    f.dfg.inst(i).opcode,
                    Opcode::SubgroupInvocationId | Opcode::SubgroupSize
                )
            })
        })
    })
}

/// `module` with a zero initializer on every `private` and `workgroup` global that has
/// none and a zeroed `alloca`; `None` when it holds an `undef` constant or uses
/// subgroups.
fn specified(module: &Module) -> Option<Module> {
    if uses_subgroups(module)
        || module
            .consts
            .iter()
            .any(|(_, c)| matches!(c.kind, ConstKind::Undef))
    {
        return None;
    }
    let mut out = module.clone();
    let open: Vec<_> = out
        .globals
        .iter()
        .filter(|(_, g)| {
            g.init.is_none() && matches!(g.space, AddressSpace::Private | AddressSpace::Workgroup)
        })
        .map(|(id, g)| (id, g.ty))
        .collect();
    for (id, ty) in open {
        let zero = out.const_zero(ty);
        out.globals[id].init = Some(zero);
    }
    zero_allocas(&mut out);
    Some(out)
}

/// A `store p, zero` right after every `p: ptr<function, T> = alloca`.
fn zero_allocas(module: &mut Module) {
    let funcs: Vec<_> = module.functions.keys().collect();
    for func in funcs {
        let f = &module.functions[func];
        let mut slots = Vec::new();
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                if f.dfg.inst(inst).opcode != Opcode::Alloca {
                    continue;
                }
                let Some(p) = f.dfg.inst_result(inst) else {
                    continue;
                };
                if let Some(TypeData::Pointer {
                    space: AddressSpace::Function,
                    pointee,
                }) = module.types.try_get(f.dfg.value_type(p))
                {
                    slots.push((inst, p, *pointee));
                }
            }
        }
        for (alloca, p, ty) in slots {
            let zero = module.const_zero(ty);
            let f = &mut module.functions[func];
            let z = f.dfg.const_value(zero, ty);
            let store = f.dfg.make_inst(InstData::new(Opcode::Store, &[p, z]));
            f.layout.insert_inst_after(store, alloca);
        }
    }
}

/// `inputs` with no word that reads as an f32 infinity, NaN or subnormal.
fn ordinary_floats(inputs: &Buffers) -> Buffers {
    let mut out = inputs.clone();
    for bytes in out.values_mut() {
        for word in bytes.chunks_exact_mut(4) {
            let w = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
            let exponent = (w >> 23) & 0xff;
            let w = match exponent {
                0xff => w ^ 0x4000_0000,
                0 => 0,
                _ => w,
            };
            word.copy_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// Whether `ty` holds a float anywhere.
fn has_float(types: &TypeStore, ty: Type, depth: u32) -> bool {
    if depth > 64 {
        return true;
    }
    match types.try_get(ty) {
        Some(TypeData::Scalar(s)) => s.is_float(),
        Some(TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. }) => elem.is_float(),
        Some(TypeData::Array { elem, .. } | TypeData::RuntimeArray { elem, .. }) => {
            has_float(types, *elem, depth + 1)
        }
        Some(TypeData::Struct(st)) => st.members.iter().any(|m| has_float(types, m.ty, depth + 1)),
        Some(
            TypeData::Void
            | TypeData::Pointer { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_),
        )
        | None => false,
    }
}

/// The bindings of `module` whose type holds a float.
fn float_bindings(module: &Module) -> Vec<(u32, u32)> {
    module
        .globals
        .values()
        .filter_map(|g| {
            let b = g.binding?;
            has_float(&module.types, g.ty, 0).then_some((b.group, b.binding))
        })
        .collect()
}

/// Whether two words of a float binding agree: equal, both zero or subnormal, or both NaN.
fn same_float(a: u32, b: u32) -> bool {
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    let tiny = |f: f32| f == 0.0 || f.is_subnormal();
    a == b || (tiny(fa) && tiny(fb)) || (fa.is_nan() && fb.is_nan())
}

/// The first word index at which `got` differs from `want` where `stable` (a byte mask)
/// is set, or the first byte when the lengths leave a partial word.
fn first_difference(want: &[u8], got: &[u8], stable: &[u8], float: bool) -> Option<usize> {
    (0..want.len().div_ceil(4)).find(|&w| {
        let range = 4 * w..(4 * w + 4).min(want.len());
        let masked = |bytes: &[u8]| -> Option<Vec<u8>> {
            range
                .clone()
                .map(|i| Some(if stable[i] == 1 { *bytes.get(i)? } else { 0 }))
                .collect()
        };
        let (Some(a), Some(b)) = (masked(want), masked(got)) else {
            return true;
        };
        if a == b {
            return false;
        }
        let whole = |v: &[u8]| <[u8; 4]>::try_from(v).ok().map(u32::from_le_bytes);
        match (float, whole(&a), whole(&b)) {
            (true, Some(x), Some(y)) => !same_float(x, y),
            _ => true,
        }
    })
}

/// Writes `module` (the output of the SPIR-V target's pipeline at `level`) to SPIR-V,
/// runs every kernel on the device from `inputs` and panics when a stable word differs
/// from the interpreter's run of `module`. The differential target compares that module
/// with its input on the interpreter, so the two checks chain the device to the input.
pub fn check(module: &Module, inputs: &Buffers, level: OptLevel) {
    let Some(module) = specified(module) else {
        return;
    };
    let module = &module;
    let Ok(words) = oxir_spirv::write_module(module, &oxir_spirv::Options::default()) else {
        return;
    };
    if let Err(message) = spirv_val(&words) {
        panic!(
            "spirv-val rejects oxir's SPIR-V ({level:?}):\n{message}\n{}",
            print_module(module, View::Flat)
        );
    }
    let Ok(interface) = oxir_vulkan::reflect(&words) else {
        return;
    };
    if interface.push_constants || interface.bindings.values().any(|b| !b.kind.is_buffer()) {
        return;
    }
    let inputs = ordinary_floats(inputs);
    let Some(data) = interface
        .bindings
        .iter()
        .map(|(&(set, binding), b)| {
            let bytes = inputs.get(&(set, binding))?.clone();
            Some(BindingData::buffer(set, binding, b.kind, bytes))
        })
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let run = Run {
        module,
        inputs: &inputs,
        words: &words,
        interface: &interface,
        data: &data,
        level,
        floats: float_bindings(module),
    };
    for f in module.functions.values() {
        if let FunctionKind::Kernel { .. } = f.kind {
            run.kernel(&f.name);
        }
    }
}

/// One module's device run, shared by its kernels.
struct Run<'a> {
    module: &'a Module,
    inputs: &'a Buffers,
    words: &'a [u32],
    interface: &'a oxir_vulkan::Interface,
    data: &'a [BindingData],
    level: OptLevel,
    floats: Vec<(u32, u32)>,
}

impl Run<'_> {
    fn kernel(&self, entry: &str) {
        let Some(expected) = interpret(self.module, entry, self.inputs, None) else {
            return;
        };
        let level = self.level;
        let out = match oxir_vulkan::run_compute(
            self.words,
            self.interface,
            entry,
            [1, 1, 1],
            self.data,
            &DeviceSelector::First,
        ) {
            Ok(out) => out,
            Err(Error::DeviceLost) => panic!(
                "the device was lost running `{entry}` ({level:?}):\n{}",
                print_module(self.module, View::Flat)
            ),
            Err(_) => return,
        };
        let n = COMPARED.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_power_of_two() {
            eprintln!("differential: {n} kernels compared on Vulkan");
        }
        let all = |b: &[u8]| vec![1u8; b.len()];
        let differs = |stable: Option<&Buffers>| {
            self.data.iter().zip(&out).find_map(|(d, got)| {
                let key = (d.set, d.binding);
                let want = &expected[&key];
                let mask = stable.map_or_else(|| all(want), |s| s[&key].clone());
                let float = self.floats.contains(&key);
                first_difference(want, got, &mask, float).map(|w| (d, got, w))
            })
        };
        if differs(None).is_none() {
            return;
        }
        let stable = stable_bytes(self.module, entry, self.inputs, &expected);
        if let Some((d, got, w)) = differs(Some(&stable)) {
            let key = (d.set, d.binding);
            let want = &expected[&key];
            let word = |b: &[u8]| format!("{:02x?}", b.get(4 * w..(4 * w + 4).min(b.len())));
            panic!(
                "Vulkan ({level:?}) differs from the interpreter in binding {}:{} of \
                 `{entry}` at word {w}: interpreter {}, vulkan {}\ninput: {:02x?}\n{}",
                d.set,
                d.binding,
                word(want),
                word(got),
                self.inputs.get(&key),
                print_module(self.module, View::Flat)
            );
        }
    }
}
