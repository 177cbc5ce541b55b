//! Execution equality: for every vertex and fragment entry point CSIR accepts (the
//! project's shaders and the corpus), the CSIR interpreter and oxir's interpreter give
//! the same outputs on seeded inputs, before and after the CSIR optimiser, within the float-lane bound documented in
//! `oxir_csir::exec` (relative 1e-4 plus absolute 1e-5; NaN equals NaN).

mod common;

use common::Rng;
use oxir_csir::exec::{self, Inputs, Texture};
use oxir_csir::{verify, Limits, Shader, Stage};
use oxir_interp::{Resources, StageInputs, Val};
use oxir_ir::types::TypeData;
use oxir_ir::{Builtin, Module, StageBinding};
use std::collections::BTreeMap;

fn val_of(lanes: &[f32]) -> Val {
    match lanes {
        [x] => Val::S(u64::from(x.to_bits())),
        _ => Val::V(lanes.iter().map(|x| u64::from(x.to_bits())).collect()),
    }
}

fn lanes_of(v: &Val) -> Vec<f32> {
    match v {
        Val::S(b) => vec![f32::from_bits(*b as u32)],
        Val::V(l) => l.iter().map(|b| f32::from_bits(*b as u32)).collect(),
        other => panic!("unexpected result {other:?}"),
    }
}

fn close(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-4 * a.abs().max(b.abs()) + 1e-5
}

/// Both interpreters' inputs for one seed.
struct Case {
    oxir: StageInputs,
    buffers: BTreeMap<(u32, u32), Vec<u8>>,
    resources: Resources,
    csir: Inputs,
}

fn textures(module: &Module, rng: &mut Rng) -> BTreeMap<(u32, u32), Texture> {
    let mut out = BTreeMap::new();
    for g in module.globals.values() {
        if let (Some(b), Some(TypeData::Texture { .. })) = (g.binding, module.types.try_get(g.ty)) {
            let texels = (0..16).map(|_| rng.lanes()).collect();
            out.insert(
                (b.group, b.binding),
                Texture {
                    width: 4,
                    height: 4,
                    texels,
                },
            );
        }
    }
    out
}

fn case(module: &Module, entry: &str, shader: &Shader, seed: u64) -> Case {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let func = &module.functions[module.function_by_name(entry).unwrap()];
    let mut oxir = StageInputs {
        frag_coord: [0.0; 4],
        ..StageInputs::default()
    };
    let mut csir = Inputs::default();
    oxir.frag_coord = [
        rng.float() * 100.0,
        rng.float() * 100.0,
        rng.float().abs(),
        1.0 + rng.float().abs(),
    ];
    csir.frag_coord = oxir.frag_coord;
    for p in &func.signature.params {
        let rows = match module.types.try_get(p.ty) {
            Some(TypeData::Vector { len, .. }) => usize::from(*len),
            _ => 1,
        };
        let lanes = rng.lanes();
        oxir.locations.push(val_of(&lanes[..rows]));
        if let Some(StageBinding::Location { location, .. }) = p.binding {
            let table = match shader.stage {
                Stage::Vertex => &mut csir.attributes,
                Stage::Fragment => &mut csir.varyings,
            };
            table.insert(location as u16, lanes);
        }
    }
    let mut buffers = BTreeMap::new();
    for (key, info) in oxir_interp::bindings(module).unwrap() {
        let bytes: Vec<u8> = (0..info.min_size / 4)
            .flat_map(|_| rng.float().to_le_bytes())
            .collect();
        buffers.insert(key, bytes);
    }
    csir.uniforms = vec![[0.0; 4]; shader.interface.uniform_slots() as usize];
    for u in &shader.interface.uniforms {
        let bytes = &buffers[&(u.group, u.binding)];
        for c in 0..u32::from(u.ty.cols) {
            for r in 0..u32::from(u.ty.rows) {
                let at = (u.offset + c * u.column_stride + 4 * r) as usize;
                let f = f32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
                csir.uniforms[(u32::from(u.slot) + c) as usize][r as usize] = f;
            }
        }
    }
    let texs = textures(module, &mut rng);
    let mut resources = Resources::default();
    for (k, t) in &texs {
        resources.textures.insert(
            *k,
            oxir_interp::Texture::from_f32(t.width, t.height, &t.texels),
        );
    }
    for s in &shader.interface.samplers {
        csir.textures.insert(s.slot, texs[&s.texture].clone());
    }
    Case {
        oxir,
        buffers,
        resources,
        csir,
    }
}

/// Compares one invocation; `Err` describes the first difference.
fn compare(module: &Module, entry: &str, shader: &Shader, seed: u64) -> Result<(), String> {
    let mut c = case(module, entry, shader, seed);
    let expected = oxir_interp::run_single_with_resources(
        module,
        entry,
        &c.oxir,
        &mut c.buffers,
        &mut c.resources,
        &oxir_interp::Options::default(),
    )
    .map_err(|e| format!("oxir interpreter: {e}"))?;
    let verified = verify(shader, &Limits::default()).map_err(|e| e.to_string())?;
    let got = exec::run(&verified, &c.csir).map_err(|e| e.to_string())?;
    let Some(expected) = expected else {
        return if got.discarded {
            Ok(())
        } else {
            Err("oxir discarded, CSIR did not".into())
        };
    };
    if got.discarded {
        return Err("CSIR discarded, oxir did not".into());
    }
    let func = &module.functions[module.function_by_name(entry).unwrap()];
    for (abi, value) in func.signature.returns.iter().zip(&expected) {
        let want = lanes_of(value);
        let have = match abi.binding {
            Some(StageBinding::Builtin(Builtin::Position)) => got.position,
            Some(StageBinding::Location { location, .. }) => match shader.stage {
                Stage::Vertex => got.varyings.get(&(location as u16)).copied(),
                Stage::Fragment => got.colors.get(&(location as u16)).copied(),
            },
            other => return Err(format!("unexpected output {other:?}")),
        }
        .ok_or_else(|| format!("CSIR did not write {:?}", abi.binding))?;
        if !want.iter().zip(&have).all(|(a, b)| close(*a, *b)) {
            return Err(format!("{:?}: oxir {want:?}, CSIR {have:?}", abi.binding));
        }
    }
    Ok(())
}

#[test]
fn csir_interpreter_equals_oxir_interpreter() {
    let entries = common::all_entries();
    let mut compared = 0;
    let mut failures = Vec::new();
    for e in &entries {
        let Ok(shader) = &e.csir else { continue };
        let label = e.label();
        let (optimized, _) = common::optimized(shader);
        for seed in 0..16 {
            compared += 1;
            let result = compare(&e.module, &e.name, shader, seed).and_then(|()| {
                compare(&e.module, &e.name, &optimized, seed).map_err(|w| format!("optimised: {w}"))
            });
            if let Err(why) = result {
                failures.push(format!("{label} seed {seed}: {why}"));
                break;
            }
        }
    }
    eprintln!(
        "{compared} invocations compared, {} entries differ",
        failures.len()
    );
    assert!(compared >= 32, "only {compared} invocations");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A test of the test: a wrong CSIR program is caught.
#[test]
fn a_wrong_lowering_is_caught() {
    let entries =
        common::entries(&[oxir_test_support::repo_root().join("tests/shaders/csir_scene.wgsl")]);
    let e = entries.iter().find(|e| e.name == "vs_main").unwrap();
    let mut shader = e.csir.clone().unwrap();
    let add = shader
        .records
        .iter()
        .position(|r| r.op == oxir_csir::Op::Add as u8)
        .unwrap();
    shader.records[add].op = oxir_csir::Op::Sub as u8;
    assert!((0..4).any(|seed| compare(&e.module, &e.name, &shader, seed).is_err()));
}
