//! The CSIR commands. `oxir link VS.csi FS.csi` loads two CSI files (the loader checks
//! the format and runs the CSIR verifier), links the fragment inputs to the vertex
//! outputs by name and type, and prints the remapped interface, one varying a line.
//! `oxir run INPUT --engine csir` runs one vertex or fragment invocation of a `.csi`
//! file (or of a shader compiled through CSIR) with `--location N=X,Y,Z,W` (attribute
//! or varying slots), `--uniform-slot N=X,Y,Z,W` and `--frag-coord X,Y,Z,W` (missing
//! values are zero) and `--texture G:B=WxH[:seed=S]` (the 2D float texture at group G,
//! binding B that a sampler slot reads: W×H texels, zero or drawn from seed S as
//! `oxir run` draws a sampled float texture's texels; a texture not given reads zero) and
//! prints its outputs as one JSON line.

use crate::diagnostics::Failure;
use crate::run::{usage, RunArgs};
use std::collections::BTreeMap;
use std::path::Path;

fn load(path: &Path) -> Result<oxir_csir::Shader, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
    oxir_csir::binary::read(&bytes, &oxir_csir::Limits::default()).map_err(|e| {
        eprintln!("error: {}: {e}", path.display());
        Failure::Rejected
    })
}

/// Links `vs` and `fs` and prints the remap (exit 1 when they do not link).
pub fn link(vs: &Path, fs: &Path) -> Result<(), Failure> {
    let (v, f) = (load(vs)?, load(fs)?);
    let link = oxir_csir::link::link(&v, &f).map_err(|e| {
        eprintln!("error: {} + {}: {e}", vs.display(), fs.display());
        Failure::Rejected
    })?;
    println!(
        "link {} ({}) + {} ({})",
        v.name,
        vs.display(),
        f.name,
        fs.display()
    );
    for r in &link.varyings {
        println!(
            "varying {} {}: fragment slot {} <- vertex slot {}",
            r.ty, r.name, r.fragment_slot, r.vertex_slot
        );
    }
    for name in &link.unused_outputs {
        println!("unused vertex output {name}");
    }
    Ok(())
}

fn lanes(spec: &str, what: &str) -> Result<[f32; 4], Failure> {
    let mut out = [0f32; 4];
    let parts: Vec<&str> = spec.split(',').collect();
    if parts.len() > 4 {
        return Err(usage(format!("{what} takes at most four values: {spec}")));
    }
    for (slot, part) in out.iter_mut().zip(parts) {
        *slot = part
            .trim()
            .parse()
            .map_err(|_| usage(format!("{what}: `{part}` is not a number")))?;
    }
    Ok(out)
}

fn slots(specs: &[String], what: &str) -> Result<BTreeMap<u16, [f32; 4]>, Failure> {
    let mut out = BTreeMap::new();
    for spec in specs {
        let Some((n, values)) = spec.split_once('=') else {
            return Err(usage(format!("{what} takes N=X,Y,Z,W: {spec}")));
        };
        let n: u16 = n
            .trim()
            .parse()
            .map_err(|_| usage(format!("{what}: bad slot `{n}`")))?;
        out.insert(n, lanes(values, what)?);
    }
    Ok(out)
}

/// The textures of `--texture G:B=WxH[:seed=S]` by the sampler slots that read them.
fn textures(
    shader: &oxir_csir::Shader,
    args: &RunArgs,
) -> Result<BTreeMap<u16, oxir_csir::exec::Texture>, Failure> {
    let cap = crate::run_limits::buffer_cap(args.max_buffer_size)?;
    let mut out = BTreeMap::new();
    for spec in &args.textures {
        let (key, given) = crate::run_textures::parse_texture(spec)?;
        let [w, h, layers] = given.extent;
        if layers != 1 || given.samples.is_some() {
            return Err(usage(format!(
                "--texture `{spec}`: CSIR samples 2D textures (WxH, one layer, one sample)"
            )));
        }
        crate::run_limits::check_texture(&format!("--texture `{spec}`"), given.extent, 1, cap)?;
        let slots: Vec<u16> = shader
            .interface
            .samplers
            .iter()
            .filter(|s| s.texture == key)
            .map(|s| s.slot)
            .collect();
        if slots.is_empty() {
            return Err(usage(format!(
                "--texture `{spec}`: no sampler of {} reads the texture at group {}, binding {}",
                shader.name, key.0, key.1
            )));
        }
        let texels = crate::run_texdata::float_texels(given.seed, w as usize * h as usize);
        for slot in slots {
            let texture = oxir_csir::exec::Texture {
                width: w,
                height: h,
                texels: texels.clone(),
            };
            if out.insert(slot, texture).is_some() {
                return Err(usage(format!(
                    "--texture `{spec}`: that texture is given twice"
                )));
            }
        }
    }
    Ok(out)
}

/// `oxir run INPUT --engine csir ...`.
pub fn run(args: RunArgs) -> Result<(), Failure> {
    if args.dispatch.is_some() || args.device.is_some() || !args.buffers.is_empty() {
        return Err(usage(
            "--engine csir runs one invocation: no --dispatch, --device or --buffer",
        ));
    }
    let is_csi = args.input.extension().and_then(|e| e.to_str()) == Some("csi");
    let shader = if is_csi {
        load(&args.input)?
    } else {
        let target = oxir_driver::Target::Csi;
        let artifact = crate::shaders::compile_artifact(
            &args.input,
            args.entry.clone(),
            args.stage,
            target,
            &args.overrides,
        )?;
        let bytes = artifact.to_bytes();
        oxir_csir::binary::read(&bytes, &oxir_csir::Limits::default()).map_err(|e| {
            usage(format!(
                "internal error: the CSI just written does not load: {e}"
            ))
        })?
    };
    let locations = slots(&args.locations, "--location")?;
    let uniforms = slots(&args.uniform_slots, "--uniform-slot")?;
    let mut inputs = oxir_csir::exec::Inputs::default();
    match shader.stage {
        oxir_csir::Stage::Vertex => inputs.attributes = locations,
        oxir_csir::Stage::Fragment => inputs.varyings = locations,
    }
    let n = uniforms
        .keys()
        .next_back()
        .map_or(0, |k| usize::from(*k) + 1);
    inputs.uniforms = (0..n)
        .map(|k| uniforms.get(&(k as u16)).copied().unwrap_or_default())
        .collect();
    if let Some(spec) = &args.frag_coord {
        inputs.frag_coord = lanes(spec, "--frag-coord")?;
    }
    inputs.textures = textures(&shader, &args)?;
    let limits = oxir_csir::Limits::default();
    let verified =
        oxir_csir::verify(&shader, &limits).map_err(|e| usage(format!("internal error: {e}")))?;
    let out = oxir_csir::exec::run(&verified, &inputs).map_err(|e| usage(e.to_string()))?;
    let line = serde_json::json!({
        "entry": shader.name,
        "stage": shader.stage.name(),
        "discarded": out.discarded,
        "position": out.position,
        "varyings": out.varyings,
        "colors": out.colors,
        "executed": out.executed,
    });
    println!("{line}");
    Ok(())
}
