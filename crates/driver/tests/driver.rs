//! The driver against its layers: each target's artifact equals what the layers give when
//! composed by hand, every input form of one shader gives the same artifact, and each
//! layer's failure comes back as its own [`Error`] variant. (That the `oxir` command prints
//! exactly the artifact is checked by `crates/cli/tests/driver_api.rs`.)

use oxir_driver::{
    compile, load, reflect, target_pipeline, Artifact, CompileOptions, Error, GlslStage, Input,
    OptLevel, Target, TargetEnv,
};
use oxir_ir::printer::{print_module, View};
use oxir_test_support::repo_root;

fn read(relative: &str) -> String {
    std::fs::read_to_string(repo_root().join(relative)).unwrap()
}

const HISTOGRAM: &str = "tests/shaders/histogram.wgsl";

/// The lowered module of a WGSL file, through `oxir-naga` directly.
fn lowered(text: &str) -> oxir_ir::Module {
    let shader = oxir_naga::parse_wgsl(text, "x.wgsl").unwrap();
    oxir_naga::lower(&shader.module, &shader.info).unwrap()
}

#[test]
fn each_target_equals_the_layers_composed_by_hand() {
    let text = read(HISTOGRAM);
    let module = lowered(&text);
    let mut sizes = Vec::new();
    for env in TargetEnv::ALL {
        for debug_info in [false, true] {
            let options = CompileOptions {
                target_env: env,
                debug_info,
                ..CompileOptions::default()
            };
            let spirv_options = oxir_spirv::Options {
                target_env: env,
                debug_names: debug_info,
            };
            let words = oxir_spirv::compile(&module, &spirv_options).unwrap();
            let spirv = compile(Input::wgsl(HISTOGRAM, &text), Target::Spirv, &options).unwrap();
            assert_eq!(
                spirv,
                Artifact::Spirv(words.clone()),
                "{env:?} {debug_info}"
            );
            assert_eq!(spirv.to_bytes(), oxir_spirv::to_bytes(&words));
            let asm = compile(Input::wgsl(HISTOGRAM, &text), Target::SpirvAsm, &options).unwrap();
            let expected = format!("{}\n", oxir_spirv::disassemble(&words).unwrap());
            assert_eq!(asm.as_text(), Some(expected.as_str()), "{env:?}");
            assert_eq!(expected.contains("OpName"), debug_info, "{env:?}");
            sizes.push(words.len());
        }
    }
    // The debug names make every module longer.
    assert!(sizes.chunks(2).all(|pair| pair[0] < pair[1]), "{sizes:?}");
    for (structured, view) in [(false, View::Flat), (true, View::Structured)] {
        let options = CompileOptions {
            structured,
            ..CompileOptions::default()
        };
        let oxir = compile(Input::wgsl(HISTOGRAM, &text), Target::Oxir, &options).unwrap();
        assert_eq!(oxir, Artifact::Oxir(print_module(&module, view)));
    }
}

#[test]
fn o1_adds_the_optimiser() {
    let names = |target, level| {
        target_pipeline(target, level, Default::default(), Default::default())
            .map(|p| p.pass_names().join(","))
            .unwrap_or_default()
    };
    for target in [
        Target::Spirv,
        Target::SpirvAsm,
        Target::LlvmNvptx,
        Target::Ptx,
    ] {
        let (o0, o1) = (names(target, OptLevel::O0), names(target, OptLevel::O1));
        assert!(!o0.contains("gvn"), "{target:?}: {o0}");
        assert!(
            o1.contains("gvn") && o1.starts_with(&o0[..o0.find(",bounds-checks").unwrap()]),
            "{target:?}: {o1}"
        );
    }
    assert!(target_pipeline(
        Target::Oxir,
        OptLevel::O0,
        Default::default(),
        Default::default()
    )
    .is_none());
    assert!(names(Target::Oxir, OptLevel::O1).contains("gvn"));
    // The histogram kernel repeats access chains: -O gives fewer words.
    let text = read(HISTOGRAM);
    let words = |opt_level| {
        let options = CompileOptions {
            opt_level,
            ..CompileOptions::default()
        };
        match compile(Input::wgsl(HISTOGRAM, &text), Target::Spirv, &options).unwrap() {
            Artifact::Spirv(words) => words.len(),
            other => panic!("not SPIR-V: {other:?}"),
        }
    };
    let (o0, o1) = (words(OptLevel::O0), words(OptLevel::O1));
    assert!(o1 < o0, "-O0 {o0} words, -O {o1} words");
}

#[test]
fn every_input_form_of_a_module_gives_the_same_artifact() {
    let options = CompileOptions::default();
    let clamp_scale = read("examples/clamp_scale.wgsl");
    let words = compile(Input::wgsl("c.wgsl", &clamp_scale), Target::Spirv, &options).unwrap();
    let bytes = words.to_bytes();
    // SPIR-V in, as bytes and as words: the same module (naga reads both).
    let from_bytes = compile(Input::spirv_bytes("h.spv", &bytes), Target::Oxir, &options).unwrap();
    let from_words = compile(
        Input::spirv_words("h.spv", words.as_words().unwrap()),
        Target::Oxir,
        &options,
    )
    .unwrap();
    assert_eq!(from_bytes, from_words);
    assert!(
        from_bytes.as_text().unwrap().contains("kernel @main"),
        "{from_bytes:?}"
    );
    let text = read(HISTOGRAM);
    // A built module, and its text, give what the shader gives.
    let module = load(Input::wgsl(HISTOGRAM, &text), &options).unwrap();
    let printed = print_module(&module, View::Flat);
    for target in [Target::Oxir, Target::Spirv] {
        let want = compile(Input::wgsl(HISTOGRAM, &text), target, &options).unwrap();
        assert_eq!(
            compile(Input::module(&module), target, &options).unwrap(),
            want
        );
        assert_eq!(
            compile(Input::oxir_text("h.oxir", &printed), target, &options).unwrap(),
            want
        );
    }
    let glsl = read("tests/shaders/reduce.comp");
    let input = Input::glsl("reduce.comp", &glsl, GlslStage::Compute);
    let artifact = compile(input, Target::Oxir, &options).unwrap();
    assert!(
        artifact.as_text().unwrap().contains("kernel @main"),
        "{artifact:?}"
    );
}

fn compile_error(input: Input<'_>, target: Target, options: &CompileOptions) -> Error {
    match compile(input, target, options) {
        Ok(artifact) => panic!("compiled: {artifact:?}"),
        Err(error) => error,
    }
}

/// Refused by the front-end: quad operations (texture gathers, the earlier example,
/// lower since issue 15).
const QUAD: &str = "@group(0) @binding(0) var<storage, read_write> out: u32;\n\
    @compute @workgroup_size(4) fn main(@builtin(subgroup_invocation_id) lane: u32) {\n    out = quadBroadcast(lane, 1u);\n}\n";

#[test]
fn front_end_rejections_are_frontend_lower_and_entry_point_errors() {
    let options = CompileOptions::default();
    let broken = "fn main() {\n    let x = ;\n}\n";
    match compile_error(Input::wgsl("broken.wgsl", broken), Target::Oxir, &options) {
        Error::Frontend(e) => {
            assert_eq!(e.location, Some((2, 13)), "{e:?}");
            assert!(e.rendered.contains("broken.wgsl:2:13"), "{}", e.rendered);
        }
        other => panic!("{other:?}"),
    }
    let error = compile_error(Input::wgsl("quad.wgsl", QUAD), Target::Spirv, &options);
    assert_eq!(
        error.to_string(),
        "unsupported: quad operation (quadBroadcast, quadSwap*) at 3:11 (in `main`)"
    );
    let rendered = error.rendered().unwrap();
    assert!(
        rendered.starts_with(
            "quad.wgsl:3:11: error: unsupported: quad operation (quadBroadcast, quadSwap*) \
             (in `main`)\n"
        ),
        "{rendered}"
    );
    assert!(matches!(error, Error::Lower { .. }), "{error:?}");
    let options = CompileOptions {
        entry_point: Some("nope".into()),
        ..CompileOptions::default()
    };
    let error = compile_error(Input::wgsl("quad.wgsl", QUAD), Target::Oxir, &options);
    assert!(matches!(error, Error::NoSuchEntryPoint(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "no entry point `nope` (entry points: main)"
    );
    let error = compile_error(Input::oxir_text("x.oxir", ""), Target::Oxir, &options);
    assert!(matches!(error, Error::EntryFilterOnModule), "{error:?}");
}

#[test]
fn oxir_text_rejections_are_parse_and_verification_errors() {
    let options = CompileOptions::default();
    let bad = "callable @f() {\nblock0:\n    v0: i32 = frobnicate\n}\n";
    match compile_error(Input::oxir_text("bad.oxir", bad), Target::Oxir, &options) {
        Error::OxirParse(e) => assert_eq!((e.line, e.column), (3, 15), "{e:?}"),
        other => panic!("{other:?}"),
    }
    let mistyped = "const c0: f32 = 1.0\ncallable @f(i32) -> i32 {\nblock0(v0: i32):\n    v1: i32 = add v0, c0\n    return v1\n}\n";
    match compile_error(
        Input::oxir_text("t.oxir", mistyped),
        Target::Spirv,
        &options,
    ) {
        Error::Verification(report) => {
            assert!(!report.errors.is_empty());
            let text = report.to_string();
            assert!(text.contains("function @f, block0"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn pipeline_and_back_end_rejections_are_pass_and_unsupported_errors() {
    let options = CompileOptions::default();
    let irreducible = read("tests/filetests/passes/restructure-cfg/refuses_irreducible.oxir");
    let input = Input::oxir_text("irreducible.oxir", &irreducible);
    // The oxir target runs no pass: the module is printed as it is.
    assert!(compile(input.clone(), Target::Oxir, &options).is_ok());
    match compile_error(input, Target::Spirv, &options) {
        Error::PassRefused(e) => assert_eq!(e.pass, "restructure-cfg", "{e:?}"),
        other => panic!("{other:?}"),
    }
    let print = "const c0: u32 = 7\nkernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    print \"x = {}\", c0\n    return\n}\n";
    let error = compile_error(
        Input::oxir_text("print.oxir", print),
        Target::SpirvAsm,
        &options,
    );
    match &error {
        Error::Unsupported { location, .. } => {
            assert_eq!(location.to_string(), "@main, block0, inst0", "{error:?}")
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().starts_with("unsupported: "), "{error}");
    assert!(error.to_string().contains("print"), "{error}");
}

#[test]
fn reflection_reads_shaders_only() {
    let text = read(HISTOGRAM);
    let reflection = reflect(Input::wgsl(HISTOGRAM, &text)).unwrap();
    assert_eq!(reflection.entry_points.len(), 1);
    let module = lowered(&text);
    assert!(matches!(
        reflect(Input::module(&module)),
        Err(Error::NotAShader)
    ));
    assert!(matches!(
        reflect(Input::wgsl("broken.wgsl", "fn (")),
        Err(Error::Frontend(_))
    ));
}
