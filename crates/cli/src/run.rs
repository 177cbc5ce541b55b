//! `oxir run`: execute a kernel with the reference interpreter (`oxir-interp`), on a
//! Vulkan device with `--engine vulkan` (see `run_vulkan`), or on this machine's CPU
//! through the LLVM back-end with `--engine llvm` (see `run_llvm`); same arguments and
//! output.
//!
//! `oxir run INPUT --dispatch X[,Y[,Z]] [--entry NAME] [-O0|-O] [--engine interp|vulkan|llvm]
//! [--device NAME|INDEX] [--buffer G:B=SPEC]... [--view G:B=TYPE]...
//! [--texture G:B=WxH[xL][sN][:seed=S]]...
//! [--default-size BYTES] [--max-instructions N] [--strict-bounds] [--shuffle SEED]
//! [--max-buffer-size BYTES] [--max-memory BYTES] [--override NAME=VALUE]... [--subgroup-size N]`
//!
//! Sizes are checked before anything is allocated (`run_limits`): buffers, `@FILE`
//! inputs, `--default-size` and textures against the buffer cap (`--max-buffer-size`,
//! `OXIR_MAX_BUFFER_BYTES`, default 256 MiB), workgroup counts against 65535 per
//! dimension; a `--buffer` shorter than its binding's data is refused (`initial_buffers`);
//! `--max-memory` is the interpreter's variable-memory budget per workgroup;
//! `--subgroup-size` its invocations per subgroup (a power of two in 1..=128, default 32;
//! anything else is a usage error).
//!
//! SPEC: `zero:BYTES`, `random:BYTES[:SEED]` (splitmix64 bytes), `@FILE` (raw bytes) or
//! `TYPE:v1,v2,...` with TYPE one of u32, i32, f32. Bindings not given are zero-filled at
//! their minimum size, or at `--default-size` (default 1024) when they end in a
//! runtime-sized array. Output: one JSON object per line per storage buffer binding,
//! `{"group":G,"binding":B,"size":N,"hex":"..."}`, plus `"values":[...]` with `--view`.
//! `-O` runs the `normalize` pipeline first; `-O0` (the default) runs the front-end
//! output as is.
//!
//! Textures (`run_textures`): every texture is 1×1×1 (cubes 1×1×6) unless
//! `--texture G:B=WxH[xL][sN][:seed=S]` gives its size; a multisampled texture has 4
//! samples per texel unless `sN` gives `N` (2..=64, a power of two; a sample count on any
//! other texture is a usage error). Texels start at zero, or with `:seed=S` at values of a
//! splitmix64 generator seeded with `S` (`run_texdata`: raw words for 32-bit integer
//! channels, multiples of 1/64 in [-4, 4) for float ones, multiples of 1/256 in [0, 1] for
//! depth, values the format stores exactly for 8- and 16-bit storage formats), the same
//! bits on both engines; a multisampled texture's contents are uniform (one drawn texel in
//! every sample). Samplers are nearest / clamp-to-edge. Each
//! storage texture is printed after the run as one more JSON line,
//! `{"group":G,"binding":B,"texture":[W,H,L],"format":"rgba8unorm","hex":"..."}` (texels
//! packed in the storage format); buffer and texture lines come in `(group, binding)`
//! order. Sampled textures are not printed.
//!
//! Exit codes: 0 success, 1 rejected input or a run-time error (named on stderr), 2 usage
//! or I/O error.

use crate::args::{EngineArg, RunOptLevelArg, StageArg};
use crate::diagnostics::Failure;
use crate::json::{self, BufferLine, ViewValue};
use crate::run_limits::check_bytes;
use crate::run_textures::{texture_line, TexOut};
use oxir_interp::{Buffers, Options, OutOfBounds, Resources};
use oxir_ir::{FunctionKind, TypeData};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Arguments of `oxir run`.
#[derive(clap::Args)]
pub struct RunArgs {
    pub input: PathBuf,
    /// Workgroup counts: X[,Y[,Z]] (required, except with `--engine csir`).
    #[arg(long, value_name = "X[,Y[,Z]]")]
    pub dispatch: Option<String>,
    /// `--engine csir`: the value of attribute (vertex) or varying (fragment) slot N.
    #[arg(long = "location", value_name = "N=X,Y,Z,W")]
    pub locations: Vec<String>,
    /// `--engine csir`: the value of uniform vec4 slot N.
    #[arg(long = "uniform-slot", value_name = "N=X,Y,Z,W")]
    pub uniform_slots: Vec<String>,
    /// `--engine csir`: gl_FragCoord.
    #[arg(long, value_name = "X,Y,Z,W")]
    pub frag_coord: Option<String>,
    /// The kernel to run (default: the only kernel).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// The stage of a GLSL input.
    #[arg(long)]
    pub stage: Option<StageArg>,
    /// Optimisation level: `-O0` (front-end output as is, the default) or `-O` / `-O1`
    /// (on the interpreter: `normalize` and `ssa-optimization` first, what
    /// `oxir compile --target oxir -O` prints).
    #[arg(short = 'O', value_name = "LEVEL", num_args = 0..=1, default_missing_value = "1")]
    pub opt: Option<RunOptLevelArg>,
    /// The executor (with `vulkan`, a `.spv` INPUT runs as it is).
    #[arg(long, value_enum, default_value_t = EngineArg::Interp)]
    pub engine: EngineArg,
    /// The Vulkan device (`--engine vulkan`): an index, or text its name contains
    /// (default: the first device).
    #[arg(long, value_name = "NAME|INDEX")]
    pub device: Option<String>,
    /// Initial contents of a binding: G:B=SPEC (repeatable).
    #[arg(long = "buffer", value_name = "G:B=SPEC")]
    pub buffers: Vec<String>,
    /// The size and contents of a texture binding: G:B=WxH[xL][sN][:seed=S] (layers of
    /// arrays and cubes, depth of 3D textures; default 1x1x1, cubes 1x1x6; N samples per
    /// texel of a multisampled texture, default 4); its texels start at zero, or at
    /// splitmix64 values from seed S, the same on both engines (a multisampled texture
    /// holds one value in every sample) (repeatable).
    #[arg(long = "texture", value_name = "G:B=WxH[xL][sN][:seed=S]")]
    pub textures: Vec<String>,
    /// Print a binding's values as a scalar type: G:B=TYPE (u32, i32, f32).
    #[arg(long = "view", value_name = "G:B=TYPE")]
    pub views: Vec<String>,
    /// Size of bindings ending in a runtime-sized array when no --buffer gives them.
    #[arg(long, value_name = "BYTES", default_value_t = 1024)]
    pub default_size: u64,
    /// Instruction budget of the run (interp only; default 100000000).
    #[arg(long, value_name = "N")]
    pub max_instructions: Option<u64>,
    /// Out-of-bounds accesses are errors instead of WGSL robust access.
    #[arg(long)]
    pub strict_bounds: bool,
    /// Print the number of IR instructions the interpreter executed on stderr
    /// (`executed N instructions`; interp only): the deterministic measure of run-time
    /// work, to compare `-O0` with `-O`.
    #[arg(long)]
    pub count: bool,
    /// Shuffle the invocation order within workgroups with this seed.
    #[arg(long, value_name = "SEED")]
    pub shuffle: Option<u64>,
    /// The largest buffer, `@FILE`, `--default-size` and texture the run accepts (default:
    /// `OXIR_MAX_BUFFER_BYTES`, else 268435456, 256 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_buffer_size: Option<u64>,
    /// Interpreter memory for private, workgroup and function variables of one workgroup
    /// (interp only; default 1073741824, 1 GiB).
    #[arg(long, value_name = "BYTES")]
    pub max_memory: Option<u64>,
    /// Invocations per subgroup: a power of two from 1 to 128 (interp only; default 32).
    /// Subgroups are consecutive local-invocation-index ranges of a workgroup.
    #[arg(long, value_name = "N", value_parser = crate::args::parse_subgroup_size)]
    pub subgroup_size: Option<u32>,
    /// Bounds checks of the compiled code (`--engine vulkan`, and `-O` on the interpreter): `read-zero-skip-write` (default: out-of-range loads read zero,
    /// stores are skipped, as the interpreter does), `restrict` (clamp to the last
    /// element) or `unchecked` (UNSAFE: out-of-range indices are undefined behaviour on the
    /// GPU); per class with `buffers=P,memory=P,values=P,textures=P` (memory: workgroup,
    /// private and function variables; values: dynamic indices into arrays, vectors and
    /// matrices; textures: coordinates, layers, levels and samples of loads and stores).
    #[arg(long, value_name = "POLICY", value_parser = crate::args::parse_bounds_checks)]
    pub bounds_checks: Option<oxir_driver::BoundsPolicy>,
    /// With `-O`: let the optimiser rewrite float arithmetic as if NaN, infinities and
    /// signed zeros never occurred (interp and llvm engines).
    #[arg(long)]
    pub fast_math: bool,
    /// Set a pipeline-overridable constant (repeatable): NAME=VALUE, or ID=VALUE for one
    /// declared with `@id(ID)`. VALUE is read as the override's type (true/false,
    /// integers, finite floats); overrides not given take their defaults. Unknown names,
    /// bad values, an override set twice, or one without a default left unset: exit 1.
    /// For a `.spv` run on `--engine vulkan`: ID=VALUE sets the specialization constant
    /// `SpecId ID` when the pipeline is created.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = crate::args::parse_override)]
    pub overrides: Vec<oxir_driver::OverrideSetting>,
}

pub(crate) fn usage(message: impl Into<String>) -> Failure {
    Failure::Usage(message.into())
}

fn parse_binding(text: &str) -> Result<(u32, u32), Failure> {
    let (g, b) = text
        .split_once(':')
        .ok_or_else(|| usage(format!("`{text}`: expected GROUP:BINDING")))?;
    let num = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|_| usage(format!("`{text}`: expected GROUP:BINDING numbers")))
    };
    Ok((num(g)?, num(b)?))
}

/// A byte count of a SPEC, at most `cap` (`what` names the `--buffer` in messages).
fn parse_size(text: &str, what: &str, cap: u64) -> Result<usize, Failure> {
    let bytes = text
        .parse::<u64>()
        .map_err(|_| usage(format!("`{text}` is not a byte count")))?;
    check_bytes(what, bytes, cap)
}

/// The bytes a SPEC describes, at most `cap` of them (see `run_limits`); `what` names the
/// option in messages.
pub fn parse_spec(spec: &str, what: &str, cap: u64) -> Result<Vec<u8>, Failure> {
    if let Some(file) = spec.strip_prefix('@') {
        return crate::run_limits::read_file(std::path::Path::new(file), what, cap);
    }
    let (kind, rest) = spec.split_once(':').ok_or_else(|| {
        usage(format!(
            "`{spec}`: expected zero:, random:, @FILE or TYPE:values"
        ))
    })?;
    match kind {
        "zero" => Ok(vec![0; parse_size(rest, what, cap)?]),
        "random" => {
            let (size, seed) = match rest.split_once(':') {
                Some((size, seed)) => (
                    parse_size(size, what, cap)?,
                    seed.parse::<u64>()
                        .map_err(|_| usage(format!("`{seed}` is not a seed")))?,
                ),
                None => (parse_size(rest, what, cap)?, 0),
            };
            Ok(oxir_interp::random_bytes(size, seed))
        }
        "u32" | "i32" | "f32" => {
            let mut out = Vec::new();
            let values = rest.split(',').map(str::trim).filter(|v| !v.is_empty());
            // Values come from the command line, so they are bounded by its length; the
            // cap still applies to what they make.
            check_bytes(what, 4 * values.clone().count() as u64, cap)?;
            for v in values {
                let bad = || usage(format!("`{v}` is not a {kind}"));
                let bits = match kind {
                    "u32" => v.parse::<u32>().map_err(|_| bad())?,
                    "i32" => v.parse::<i32>().map_err(|_| bad())? as u32,
                    _ => v.parse::<f32>().map_err(|_| bad())?.to_bits(),
                };
                out.extend_from_slice(&bits.to_le_bytes());
            }
            Ok(out)
        }
        other => Err(usage(format!(
            "unknown buffer spec `{other}`; expected zero, random, @FILE, u32, i32 or f32"
        ))),
    }
}

/// The words of `bytes` as `--view` type `ty` (u32, i32 or f32) reads them.
fn view_values(bytes: &[u8], ty: &str) -> Vec<ViewValue> {
    bytes
        .chunks_exact(4)
        .map(|c| {
            let w = u32::from_le_bytes(c.try_into().unwrap());
            match ty {
                "i32" => ViewValue::I32(w as i32),
                "f32" => ViewValue::F32(f32::from_bits(w)),
                _ => ViewValue::U32(w),
            }
        })
        .collect()
}

/// What both engines share: the parsed dispatch, buffer and view arguments.
pub(crate) struct Request {
    pub optimize: bool,
    pub groups: [u32; 3],
    pub given: BTreeMap<(u32, u32), Vec<u8>>,
    pub views: BTreeMap<(u32, u32), String>,
    /// `--texture` sizes and seeds.
    pub textures: BTreeMap<(u32, u32), crate::run_textures::TextureGiven>,
    /// The buffer cap (`run_limits`).
    pub buffer_cap: u64,
}

pub(crate) fn parse_request(args: &RunArgs) -> Result<Request, Failure> {
    let optimize = match args.opt {
        None | Some(RunOptLevelArg::O0) => false,
        Some(RunOptLevelArg::O1 | RunOptLevelArg::O2 | RunOptLevelArg::O3) => true,
    };
    if args.fast_math && !optimize {
        return Err(usage("--fast-math applies with -O"));
    }
    let mut groups = [1u32; 3];
    let dispatch = args
        .dispatch
        .as_deref()
        .ok_or_else(|| usage("--dispatch X[,Y[,Z]] is required (except with --engine csir)"))?;
    let parts: Vec<&str> = dispatch.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(usage("--dispatch takes X[,Y[,Z]]"));
    }
    for (i, p) in parts.iter().enumerate() {
        groups[i] = p
            .trim()
            .parse()
            .map_err(|_| usage(format!("--dispatch: `{p}` is not a count")))?;
    }
    crate::run_limits::check_dispatch(groups)?;
    let buffer_cap = crate::run_limits::buffer_cap(args.max_buffer_size)?;
    check_bytes(
        &format!("--default-size {}", args.default_size),
        args.default_size,
        buffer_cap,
    )?;
    let mut given = BTreeMap::new();
    for b in &args.buffers {
        let (binding, spec) = b
            .split_once('=')
            .ok_or_else(|| usage(format!("--buffer `{b}`: expected G:B=SPEC")))?;
        let what = format!("--buffer {b}");
        given.insert(
            parse_binding(binding)?,
            parse_spec(spec, &what, buffer_cap)?,
        );
    }
    let mut views = BTreeMap::new();
    for v in &args.views {
        let (binding, ty) = v
            .split_once('=')
            .ok_or_else(|| usage(format!("--view `{v}`: expected G:B=TYPE")))?;
        if !matches!(ty, "u32" | "i32" | "f32") {
            return Err(usage(format!(
                "--view type `{ty}`: expected u32, i32 or f32"
            )));
        }
        views.insert(parse_binding(binding)?, ty.to_string());
    }
    let mut textures = BTreeMap::new();
    for t in &args.textures {
        let (key, given) = crate::run_textures::parse_texture(t)?;
        textures.insert(key, given);
    }
    Ok(Request {
        optimize,
        groups,
        given,
        views,
        textures,
        buffer_cap,
    })
}

/// The kernel to run: `--entry`, or the only kernel of `module`.
pub(crate) fn choose_kernel(
    module: &oxir_ir::Module,
    entry: Option<&str>,
    name: &str,
) -> Result<String, Failure> {
    let kernels: Vec<String> = module
        .functions
        .values()
        .filter(|f| matches!(f.kind, FunctionKind::Kernel { .. }))
        .map(|f| f.name.clone())
        .collect();
    match entry {
        Some(e) => {
            if !kernels.iter().any(|k| k == e) {
                return Err(usage(format!(
                    "{name}: no kernel named `{e}`; kernels: {}",
                    kernels.join(", ")
                )));
            }
            Ok(e.to_string())
        }
        None => match kernels.as_slice() {
            [one] => Ok(one.clone()),
            [] => {
                eprintln!("{name}: error: no compute entry point to run");
                Err(Failure::Rejected)
            }
            many => Err(usage(format!(
                "{name}: several kernels ({}); choose one with --entry",
                many.join(", ")
            ))),
        },
    }
}

/// A binding as both engines report it.
pub(crate) struct Slot {
    /// The global's name (empty for a `.spv` input's bindings).
    pub name: String,
    pub min_size: u64,
    /// The least a `--buffer` must hold: `min_size` without trailing padding.
    pub data_size: u64,
    pub runtime_sized: bool,
    pub storage: bool,
}

/// The initial bytes of every binding: `--buffer` data, or zeros at the minimum size
/// (`--default-size` for runtime-sized ones). Every `--buffer` and `--view` must name a
/// binding. A `--buffer` that does not reach its binding's last scalar (of the whole type,
/// or of the part before a runtime-sized array; trailing padding may be left out) is
/// refused, naming both sizes: the run would otherwise read zeros past its end without
/// saying so. A shorter `--buffer` that covers the data is zero-padded to the minimum
/// size. A minimum size over the buffer cap
/// is refused before it is allocated.
pub(crate) fn initial_buffers(
    request: &mut Request,
    slots: &BTreeMap<(u32, u32), Slot>,
    default_size: u64,
    name: &str,
) -> Result<Buffers, Failure> {
    for key in request.given.keys().chain(request.views.keys()) {
        if !slots.contains_key(key) {
            return Err(usage(format!(
                "{name}: no buffer binding {}:{}",
                key.0, key.1
            )));
        }
    }
    let mut buffers = Buffers::new();
    for (key, info) in slots {
        let binding = format!("binding {}:{} {}", key.0, key.1, info.name);
        let bytes = match request.given.remove(key) {
            Some(bytes) if (bytes.len() as u64) < info.data_size => {
                return Err(crate::run_limits::exceeded(format!(
                    "{name}: {} needs at least {} bytes{}, --buffer {}:{} gives {}",
                    binding.trim_end(),
                    info.data_size,
                    if info.runtime_sized {
                        " (the part before its runtime-sized array)"
                    } else {
                        ""
                    },
                    key.0,
                    key.1,
                    bytes.len()
                )))
            }
            Some(mut bytes) => {
                if (bytes.len() as u64) < info.min_size {
                    bytes.resize(info.min_size as usize, 0);
                }
                bytes
            }
            None => {
                let size = if info.runtime_sized {
                    info.min_size.max(default_size)
                } else {
                    info.min_size
                };
                vec![
                    0;
                    check_bytes(
                        &format!("{name}: {}", binding.trim_end()),
                        size,
                        request.buffer_cap
                    )?
                ]
            }
        };
        buffers.insert(*key, bytes);
    }
    Ok(buffers)
}

/// Prints every storage buffer and storage texture as one JSON line, in `(group, binding)`
/// order.
pub(crate) fn print_buffers(
    slots: &BTreeMap<(u32, u32), Slot>,
    buffers: &Buffers,
    views: &BTreeMap<(u32, u32), String>,
    textures: &BTreeMap<(u32, u32), TexOut>,
) {
    let mut keys: Vec<(u32, u32)> = slots
        .iter()
        .filter(|(_, s)| s.storage)
        .map(|(k, _)| *k)
        .chain(textures.keys().copied())
        .collect();
    keys.sort();
    keys.dedup();
    for key in &keys {
        if let Some(t) = textures.get(key) {
            println!("{}", texture_line(*key, t));
            continue;
        }
        let bytes = &buffers[key];
        let line = BufferLine {
            group: key.0,
            binding: key.1,
            size: bytes.len(),
            hex: &json::hex(bytes),
            values: views.get(key).map(|ty| view_values(bytes, ty)),
        };
        println!("{}", json::line(&line));
    }
}

/// The interpreter's options are usage errors on `--engine ENGINE`.
pub(crate) fn refuse_interpreter_options(args: &RunArgs, engine: &str) -> Result<(), Failure> {
    for (given, option) in [
        (args.shuffle.is_some(), "--shuffle"),
        (args.max_instructions.is_some(), "--max-instructions"),
        (args.strict_bounds, "--strict-bounds"),
        (args.max_memory.is_some(), "--max-memory"),
        (args.subgroup_size.is_some(), "--subgroup-size"),
        (args.count, "--count"),
    ] {
        if given {
            return Err(usage(format!(
                "{option} is an interpreter option; it does not apply to --engine {engine}"
            )));
        }
    }
    Ok(())
}

pub fn run(args: RunArgs) -> Result<(), Failure> {
    match args.engine {
        EngineArg::Interp => {
            if args.device.is_some() {
                return Err(usage("--device applies to --engine vulkan"));
            }
            run_interp(args)
        }
        EngineArg::Vulkan => crate::run_vulkan::run(args),
        EngineArg::Llvm => crate::run_llvm::run(args),
        EngineArg::Csir => crate::csir::run(args),
    }
}

fn run_interp(args: RunArgs) -> Result<(), Failure> {
    let mut request = parse_request(&args)?;
    let is_oxir = args.input.extension().and_then(|e| e.to_str()) == Some("oxir");
    let lower_entry = if is_oxir { None } else { args.entry.clone() };
    let mut module = crate::shaders::load(&args.input, lower_entry, args.stage, &args.overrides)?;
    let name = args.input.display().to_string();
    if request.optimize {
        let bounds = args.bounds_checks.unwrap_or_default();
        let pipeline = oxir_driver::target_pipeline(
            oxir_driver::Target::Oxir,
            oxir_driver::OptLevel::O1,
            bounds,
            oxir_driver::Optimizer {
                fast_math: args.fast_math,
            },
        );
        if let Some(error) = pipeline.and_then(|p| p.run(&mut module).error) {
            eprintln!("{name}: error: pass {error}");
            return Err(Failure::Rejected);
        }
    }
    let entry = choose_kernel(&module, args.entry.as_deref(), &name)?;
    let slots = interp_slots(&module, &name)?;
    let mut buffers = initial_buffers(&mut request, &slots, args.default_size, &name)?;
    let defaults = Options::default();
    let options = Options {
        max_memory_bytes: args.max_memory.unwrap_or(defaults.max_memory_bytes),
        out_of_bounds: if args.strict_bounds {
            OutOfBounds::Error
        } else {
            OutOfBounds::Robust
        },
        max_instructions: args.max_instructions.unwrap_or(defaults.max_instructions),
        shuffle_seed: args.shuffle,
        subgroup_size: args.subgroup_size.unwrap_or(defaults.subgroup_size),
    };
    let tex_slots = crate::run_textures::module_textures(&module);
    let extents =
        crate::run_textures::extents(&request.textures, &tex_slots, request.buffer_cap, &name)?;
    let mut resources = Resources::default();
    for (key, size) in &extents {
        resources.textures.insert(
            *key,
            crate::run_textures::interp_texture(&tex_slots[key], *size),
        );
    }
    let report = oxir_interp::dispatch_with_resources(
        &module,
        &entry,
        request.groups,
        &mut buffers,
        &mut resources,
        &options,
    )
    .map_err(|e| {
        eprintln!("{name}: error: {e}");
        Failure::Rejected
    })?;
    for line in &report.prints {
        eprintln!("{line}");
    }
    if args.count {
        eprintln!("executed {} instructions", report.executed);
    }
    let mut textures = BTreeMap::new();
    for (_, g) in module.globals.iter() {
        let (Some(b), TypeData::StorageTexture { format, .. }) =
            (g.binding, module.types.get(g.ty))
        else {
            continue;
        };
        let key = (b.group, b.binding);
        let texture = resources.textures.get(&key).cloned().unwrap_or_else(|| {
            crate::run_textures::interp_texture(&tex_slots[&key], extents[&key])
        });
        textures.insert(
            key,
            TexOut {
                extent: [texture.width, texture.height, texture.layers],
                format: format.name(),
                bytes: crate::run_textures::encode(*format, &texture),
            },
        );
    }
    print_buffers(&slots, &buffers, &request.views, &textures);
    Ok(())
}

/// The module's buffer bindings as the interpreter lays them out.
pub(crate) fn interp_slots(
    module: &oxir_ir::Module,
    name: &str,
) -> Result<BTreeMap<(u32, u32), Slot>, Failure> {
    let bindings = oxir_interp::bindings(module).map_err(|e| {
        eprintln!("{name}: error: {e}");
        Failure::Rejected
    })?;
    Ok(bindings
        .into_iter()
        .map(|(k, b)| {
            (
                k,
                Slot {
                    name: format!("(`{}`)", b.name),
                    min_size: b.min_size,
                    data_size: b.data_size,
                    runtime_sized: b.runtime_sized,
                    storage: b.storage,
                },
            )
        })
        .collect())
}
