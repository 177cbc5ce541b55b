//! `oxir run INPUT --engine vulkan [--device NAME|INDEX]`: the dispatch on a Vulkan device
//! (`oxir-vulkan`), with the same buffer arguments and the same JSON lines as
//! `--engine interp`.
//!
//! - A shader or `.oxir` INPUT is compiled with `oxir-spirv` exactly as `oxir compile
//!   --target spirv` does (`-O0` and `-O` both run the SPIR-V driver pipeline, which
//!   normalises and structurizes), for the default target environment, or for Vulkan 1.2
//!   when the module lays out uniform buffers by std430 (`layout uniform std430`, WGSL's
//!   `matCx2` matrices), which needs the `uniformBufferStandardLayout` feature the
//!   runner enables wherever the device has it. Its bindings,
//!   their sizes and which ones are printed come from the oxir module, as for the
//!   interpreter, so both engines print the same lines for the same arguments. A binding
//!   the SPIR-V pipeline removed (unused) is not bound and is printed unchanged.
//! - A `.spv` INPUT (by extension, or by the SPIR-V magic number) runs as it is; its
//!   bindings and their minimum sizes come from `oxir_vulkan::reflect`. `-O` and
//!   `--stage` do not apply to it; `--override ID=VALUE` sets its specialization
//!   constant `SpecId ID` when the pipeline is created (`oxir compile --spec-constants`
//!   keeps a shader's overrides as such), VALUE read by the constant's type; an unknown
//!   id, a bad value, an id set twice or one the workgroup size reads exits 1.
//! - Textures and samplers as `run_textures` describes (the same sizes, the same zero or
//!   seeded texels (`run_texdata`) and nearest / clamp-to-edge samplers as the
//!   interpreter); each storage texture's texels
//!   are read back from the device and printed. A texture binding the SPIR-V pipeline
//!   removed is printed as zeros.
//! - `--shuffle`, `--max-instructions`, `--strict-bounds` and `--max-memory` are
//!   interpreter options: with
//!   `--engine vulkan` they are usage errors (exit 2).
//! - A missing Vulkan loader or device, an unknown `--device`, malformed SPIR-V, or a
//!   driver error exits 1 with the reason on stderr.

use crate::args::RunOptLevelArg;
use crate::diagnostics::Failure;
use crate::run::{
    choose_kernel, initial_buffers, interp_slots, parse_request, print_buffers,
    refuse_interpreter_options, usage, RunArgs, Slot,
};
use crate::run_textures::TexOut;
use oxir_vulkan::{BindingData, DescriptorKind, DeviceSelector, Interface};
use std::collections::BTreeMap;

fn rejected(name: &str, message: impl std::fmt::Display) -> Failure {
    eprintln!("{name}: error: {message}");
    Failure::Rejected
}

pub fn run(args: RunArgs) -> Result<(), Failure> {
    refuse_interpreter_options(&args, "vulkan")?;
    let mut request = parse_request(&args)?;
    let name = args.input.display().to_string();
    let device = args
        .device
        .as_deref()
        .map(DeviceSelector::parse)
        .unwrap_or_default();
    let is_spv = args.input.extension().and_then(|e| e.to_str()) == Some("spv")
        || std::fs::read(&args.input)
            .map(|b| oxir_vulkan::reflect::has_magic(&b))
            .unwrap_or(false);

    let mut specialization = oxir_vulkan::Specialization::default();
    let (words, slots, tex_slots, entry) = if is_spv {
        if args.opt.is_some() || args.stage.is_some() {
            return Err(usage(
                "-O and --stage do not apply to a .spv input with --engine vulkan (its bytes run as they are)",
            ));
        }
        let bytes =
            std::fs::read(&args.input).map_err(|e| usage(format!("cannot read {name}: {e}")))?;
        let words = oxir_vulkan::words_from_bytes(&bytes).map_err(|e| rejected(&name, e))?;
        let interface = oxir_vulkan::reflect(&words).map_err(|e| rejected(&name, e))?;
        let settings: Vec<(String, String)> = args
            .overrides
            .iter()
            .map(|s| (s.key.clone(), s.value.clone()))
            .collect();
        specialization = oxir_vulkan::Specialization::parse(&settings, &interface.spec_constants)
            .map_err(|e| rejected(&name, e))?;
        let entry = interface
            .compute_entry(args.entry.as_deref())
            .map_err(|e| rejected(&name, e))?
            .name
            .clone();
        let slots: BTreeMap<(u32, u32), Slot> = interface
            .bindings
            .iter()
            .filter(|(_, b)| b.kind.is_buffer())
            .map(|(k, b)| {
                (
                    *k,
                    Slot {
                        name: String::new(),
                        min_size: b.min_size,
                        data_size: b.min_size,
                        runtime_sized: b.runtime_sized,
                        storage: b.kind == DescriptorKind::StorageBuffer,
                    },
                )
            })
            .collect();
        let tex_slots = crate::run_textures::spv_textures(&interface);
        (words, slots, tex_slots, entry)
    } else {
        if let Some(level @ (RunOptLevelArg::O2 | RunOptLevelArg::O3)) = args.opt {
            return Err(usage(format!(
                "unknown optimisation level -O{}; expected -O0 or -O",
                level.spelling()
            )));
        }
        let is_oxir = args.input.extension().and_then(|e| e.to_str()) == Some("oxir");
        let lower_entry = if is_oxir { None } else { args.entry.clone() };
        let module = crate::shaders::load(&args.input, lower_entry, args.stage, &args.overrides)?;
        let entry = choose_kernel(&module, args.entry.as_deref(), &name)?;
        let slots = interp_slots(&module, &name)?;
        let tex_slots = crate::run_textures::module_textures(&module);
        let spirv = oxir_driver::compile(
            oxir_driver::Input::module(&module),
            oxir_driver::Target::Spirv,
            &oxir_driver::CompileOptions {
                opt_level: match args.opt {
                    Some(RunOptLevelArg::O1) => oxir_driver::OptLevel::O1,
                    Some(RunOptLevelArg::O0 | RunOptLevelArg::O2 | RunOptLevelArg::O3) | None => {
                        oxir_driver::OptLevel::O0
                    }
                },
                bounds_checks: args.bounds_checks.unwrap_or_default(),
                fast_math: args.fast_math,
                target_env: if module.layouts.uniform == oxir_ir::data_layout::LayoutRules::Std430 {
                    oxir_driver::TargetEnv::Vulkan1_2
                } else {
                    oxir_driver::TargetEnv::default()
                },
                ..oxir_driver::CompileOptions::default()
            },
        )
        .map_err(|e| rejected(&name, e))?;
        let words = spirv.as_words().unwrap_or_default().to_vec();
        (words, slots, tex_slots, entry)
    };

    let interface = oxir_vulkan::reflect(&words).map_err(|e| rejected(&name, e))?;
    let mut buffers = initial_buffers(&mut request, &slots, args.default_size, &name)?;
    let extents =
        crate::run_textures::extents(&request.textures, &tex_slots, request.buffer_cap, &name)?;
    let data = bound_data(&interface, &buffers, &extents, &tex_slots, &name)?;
    let out = oxir_vulkan::run_compute_specialized(
        &words,
        &interface,
        &entry,
        request.groups,
        &data,
        &device,
        &specialization,
    )
    .map_err(|e| rejected(&name, e))?;
    let mut read_back = BTreeMap::new();
    for (d, bytes) in data.iter().zip(out) {
        if d.kind.is_buffer() {
            buffers.insert((d.set, d.binding), bytes);
        } else {
            read_back.insert((d.set, d.binding), bytes);
        }
    }
    let mut textures = BTreeMap::new();
    for (key, slot) in &tex_slots {
        let Some(format) = slot.storage else {
            continue;
        };
        let texel = format.layout().bytes();
        let extent = extents[key].extent;
        let bytes = read_back.remove(key).unwrap_or_else(|| {
            let texels: u64 = extent.iter().map(|&e| u64::from(e)).product();
            vec![0; (texels * u64::from(texel)) as usize]
        });
        textures.insert(
            *key,
            TexOut {
                extent,
                format: format.name(),
                bytes,
            },
        );
    }
    print_buffers(&slots, &buffers, &request.views, &textures);
    Ok(())
}

/// The buffers, textures and samplers the module declares, with the descriptor kind its
/// SPIR-V gives them.
fn bound_data(
    interface: &Interface,
    buffers: &oxir_interp::Buffers,
    extents: &BTreeMap<(u32, u32), crate::run_textures::TexSize>,
    tex_slots: &BTreeMap<(u32, u32), crate::run_textures::TexSlot>,
    name: &str,
) -> Result<Vec<BindingData>, Failure> {
    let mut data = Vec::new();
    for (key, b) in &interface.bindings {
        if !b.kind.is_buffer() {
            let size = extents.get(key).copied();
            if b.kind.is_image() && size.is_none() {
                return Err(rejected(
                    name,
                    format!(
                        "the SPIR-V declares image binding {}:{} that the module does not",
                        key.0, key.1
                    ),
                ));
            }
            // Seeded texels (one texel for a multisampled image, which the runner clears to
            // it); none for zero.
            let bytes = match (size, tex_slots.get(key)) {
                (Some(size), Some(slot)) => crate::run_texdata::contents(slot, size).1,
                _ => Vec::new(),
            };
            data.push(BindingData {
                set: key.0,
                binding: key.1,
                kind: b.kind,
                bytes,
                extent: size.map(|s| s.extent),
                samples: size.map_or(1, |s| s.samples),
            });
            continue;
        }
        let Some(bytes) = buffers.get(key) else {
            return Err(rejected(
                name,
                format!(
                    "the SPIR-V declares binding {}:{} that the module does not",
                    key.0, key.1
                ),
            ));
        };
        data.push(BindingData {
            set: key.0,
            binding: key.1,
            kind: b.kind,
            bytes: bytes.clone(),
            extent: None,
            samples: 1,
        });
    }
    Ok(data)
}
