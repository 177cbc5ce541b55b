//! `oxir compile --target csir | tgsi | csi` and `oxir link`.

mod common;

use common::{assert_exit, oxir, path, stdout};

const SCENE: &str = "tests/shaders/csir_scene.wgsl";

#[test]
fn tgsi_and_listing_of_one_entry() {
    let scene = path(SCENE);
    let out = oxir(&["compile", &scene, "--entry", "fs_main", "--target", "tgsi"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("FRAG\n"), "{text}");
    assert!(text.ends_with("END\n"), "{text}");
    assert!(
        text.contains("TEX TEMP[") && text.contains("KILL"),
        "{text}"
    );
    assert!(!text.contains("SUB ") && !text.contains("ABS "), "{text}");
    let listing = oxir(&["compile", &scene, "--entry", "vs_main", "--target", "csir"]);
    assert!(
        stdout(&listing).starts_with("vertex shader vs_main"),
        "{}",
        stdout(&listing)
    );
    assert!(stdout(&listing).contains("uniform mat4 scene.model slot 0"));
}

#[test]
fn choices_and_refusals() {
    let scene = path(SCENE);
    assert_exit(
        &oxir(&["compile", &scene, "--target", "tgsi"]),
        1,
        "choose one of vs_main, fs_main with --entry",
    );
    let transform = path("tests/shaders/transform.vert");
    assert_exit(
        &oxir(&["compile", &transform, "--target", "tgsi"]),
        1,
        "instance_index",
    );
    assert_exit(
        &oxir(&["compile", &transform, "--target", "tgsi"]),
        1,
        "(at @main, block0",
    );
    assert_exit(
        &oxir(&["compile", &scene, "--entry", "fs_main", "--target", "csi"]),
        2,
        "give -o OUT.csi",
    );
}

#[test]
fn csi_files_link_and_corruption_is_rejected() {
    let dir = std::env::temp_dir().join(format!("oxir-csir-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (vs, fs) = (dir.join("vs.csi"), dir.join("fs.csi"));
    let scene = path(SCENE);
    for (entry, file) in [("vs_main", &vs), ("fs_main", &fs)] {
        let out = oxir(&[
            "compile",
            &scene,
            "--entry",
            entry,
            "--target",
            "csi",
            "-o",
            file.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    }
    let (v, f) = (vs.to_str().unwrap(), fs.to_str().unwrap());
    let linked = oxir(&["link", v, f]);
    assert_eq!(linked.status.code(), Some(0), "{}", common::stderr(&linked));
    assert!(stdout(&linked).contains("varying vec2 location_1: fragment slot 1 <- vertex slot 1"));
    assert_exit(
        &oxir(&["link", f, v]),
        1,
        "a vertex shader and a fragment shader",
    );
    let mut bytes = std::fs::read(&fs).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x20;
    std::fs::write(&fs, &bytes).unwrap();
    assert_exit(&oxir(&["link", v, f]), 1, "hash mismatch");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One vertex invocation: model = identity, view_projection = diag(2, 2, 2, 1),
/// position (1, 0, 0), normal (0, 1, 0), light (0, 0, 1): clip (2, 0, 0, 1), normal
/// (0, 1, 0), uv 0 * 0.5 + 0.25, shade 0 (worked out by hand from csir_scene.wgsl).
#[test]
fn run_one_vertex_invocation() {
    let scene = path(SCENE);
    let mut args = vec!["run", &scene, "--engine", "csir", "--entry", "vs_main"];
    let slots = [
        "0=1,0,0,0",
        "1=0,1,0,0",
        "2=0,0,1,0",
        "3=0,0,0,1",
        "4=2,0,0,0",
        "5=0,2,0,0",
        "6=0,0,2,0",
        "7=0,0,0,1",
        "8=0,0,1,0",
    ];
    for s in &slots {
        args.extend(["--uniform-slot", s]);
    }
    args.extend(["--location", "0=1,0,0", "--location", "3=0,1,0"]);
    let out = oxir(&args);
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let line = stdout(&out);
    assert!(line.contains(r#""position":[2.0,0.0,0.0,1.0]"#), "{line}");
    assert!(line.contains(r#""0":[0.0,1.0,0.0,0.0]"#), "{line}");
    assert!(line.contains(r#""1":[0.25,0.25,0.0,0.0]"#), "{line}");
    assert!(line.contains(r#""2":[0.0,0.0,0.0,0.0]"#), "{line}");
    assert_exit(
        &oxir(&[
            "run",
            &scene,
            "--engine",
            "csir",
            "--entry",
            "vs_main",
            "--dispatch",
            "1",
        ]),
        2,
        "one invocation",
    );
}

/// `--texture G:B=WxH:seed=S` with `--engine csir`: the sampler reads the seeded texels
/// of the documented generator (written out here from the documentation, not the code:
/// splitmix64 from `S`, four draws per texel in row order, `((v & 511) - 256) / 64`),
/// nearest with clamp-to-edge; a texture no sampler reads, layers and oversized sides
/// are refused.
#[test]
fn run_one_fragment_invocation_with_a_seeded_texture() {
    let dir = std::env::temp_dir().join(format!("oxir-csir-texture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sample.wgsl");
    std::fs::write(
        &file,
        "@group(0) @binding(1) var img: texture_2d<f32>;
         @group(0) @binding(2) var smp: sampler;
         @fragment fn main(@location(0) uv: vec2<f32>) -> @location(0) vec4<f32> {
             return textureSample(img, smp, uv);
         }",
    )
    .unwrap();
    let file = file.to_str().unwrap().to_string();
    let mut state = 7u64;
    let mut draw = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let v = z ^ (z >> 31);
        ((v & 511) as i32 - 256) as f32 / 64.0
    };
    let texels: Vec<[f32; 4]> = (0..4).map(|_| [draw(), draw(), draw(), draw()]).collect();
    assert!(texels.windows(2).any(|w| w[0] != w[1]), "{texels:?}");
    let run = |uv: &str, texture: &str| {
        oxir(&[
            "run",
            &file,
            "--engine",
            "csir",
            "--location",
            uv,
            "--texture",
            texture,
        ])
    };
    // Texel centres, then a coordinate outside [0, 1] (clamped to texel (1, 0)).
    let cases = [
        ("0=0.25,0.25", 0),
        ("0=0.75,0.25", 1),
        ("0=0.25,0.75", 2),
        ("0=0.75,0.75", 3),
        ("0=1.5,-1", 1),
    ];
    for (uv, texel) in cases {
        let out = run(uv, "0:1=2x2:seed=7");
        assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
        let [r, g, b, a] = texels[texel];
        let want = format!(r#""0":[{r:?},{g:?},{b:?},{a:?}]"#);
        assert!(
            stdout(&out).contains(&want),
            "{uv}: {} lacks {want}",
            stdout(&out)
        );
    }
    assert_exit(&run("0=0,0", "0:3=2x2"), 2, "no sampler of main reads");
    assert_exit(&run("0=0,0", "0:1=2x2x2"), 2, "one layer");
    assert_exit(&run("0=0,0", "0:1=9000x2"), 1, "MAX_TEXTURE_SIDE");
    let _ = std::fs::remove_dir_all(&dir);
}
