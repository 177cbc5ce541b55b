//! One shader per feature class oxir refuses: naga accepts each, and lowering refuses it
//! with `unsupported: FEATURE`, the line and column of the construct, and (through
//! `LowerError::render`) the `FILE:LINE:COLUMN: error: unsupported: ...` line the `oxir`
//! command prints before exiting with status 1. Never a panic, never a module.

use oxir_naga::{CompileError, LowerOptions, ShaderSource, SourcePosition};

/// Compiles `source`; asserts the refusal names `feature` at `line` (1-based).
fn assert_refused(source: &str, feature: &str, line: u32) {
    let result = oxir_naga::compile(
        ShaderSource::Wgsl(source),
        "refused.wgsl",
        &LowerOptions::default(),
    );
    let error = match result {
        Ok(module) => panic!(
            "expected a refusal of {feature}, got a module:\n{}",
            oxir_ir::printer::print_module(&module, oxir_ir::printer::View::Flat)
        ),
        Err(CompileError::Frontend(e)) => panic!("naga rejects the test shader:\n{}", e.rendered),
        Err(CompileError::Override(e)) => panic!("the overrides are refused: {e}"),
        Err(CompileError::Lower(e)) => e,
    };
    assert!(error.is_unsupported(), "not a refusal: {error}");
    let message = error.to_string();
    assert!(message.starts_with("unsupported: "), "{message}");
    // Every refusal is one the README lists.
    oxir_test_support::refusals::check_listed(&message).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        message.contains(feature),
        "`{message}` does not name `{feature}`"
    );
    match error.position() {
        SourcePosition::LineColumn { line: got, column } => {
            assert_eq!(*got, line, "{message}");
            assert!(*column >= 1, "{message}");
            assert!(
                message.contains(&format!(" at {line}:{column}")),
                "{message}"
            );
            let rendered = error.render("refused.wgsl", Some(source));
            let head = format!("refused.wgsl:{line}:{column}: error: unsupported: ");
            assert!(rendered.starts_with(&head), "{rendered}");
            assert!(rendered.contains("not supported by oxir"), "{rendered}");
        }
        other => panic!("no line and column for `{message}`: {other:?}"),
    }
}

#[test]
fn ray_queries() {
    assert_refused(
        "enable wgpu_ray_query;
@group(0) @binding(0) var acc: acceleration_structure;
@group(0) @binding(1) var<storage, read_write> out: u32;
@compute @workgroup_size(1) fn main() {
    var rq: ray_query;
    rayQueryInitialize(&rq, acc, RayDesc(0u, 0xffu, 0.1, 100.0, vec3<f32>(0.0), vec3<f32>(0.0, 0.0, 1.0)));
    rayQueryProceed(&rq);
    out = rayQueryGetCommittedIntersection(&rq).kind;
}",
        "acceleration structure",
        2,
    );
}

/// Subgroup operations lower (see `tests/shaders/subgroups.wgsl`); quad operations do
/// not.
#[test]
fn quad_operations() {
    assert_refused(
        "@group(0) @binding(0) var<storage, read_write> out: u32;
@compute @workgroup_size(64) fn main(@builtin(subgroup_invocation_id) lane: u32) {
    out = quadBroadcast(lane, 1u);
}",
        "quad operation",
        3,
    );
}

#[test]
fn mesh_and_task_shaders() {
    assert_refused(
        "enable wgpu_mesh_shader;
struct TaskPayload { x: u32 }
var<task_payload> payload: TaskPayload;
@task @payload(payload) @workgroup_size(1)
fn ts_main() -> @builtin(mesh_task_size) vec3<u32> {
    payload.x = 1u;
    return vec3<u32>(1u, 1u, 1u);
}",
        "task payload",
        3,
    );
}

#[test]
fn binding_arrays() {
    assert_refused(
        "enable wgpu_binding_array;
@group(0) @binding(0) var textures: binding_array<texture_2d<f32>, 4>;
@group(0) @binding(1) var<storage, read_write> out: vec4<f32>;
@compute @workgroup_size(1) fn main() {
    out = textureLoad(textures[2], vec2<i32>(0, 0), 0);
}",
        "binding array",
        2,
    );
}

/// `compile` applies overrides (at their defaults here); `lower` on a module whose
/// overrides were not applied (`oxir_naga::apply_overrides`) refuses each use of one.
#[test]
fn pipeline_overridable_constants_not_applied() {
    let cases = [
        (
            "override scale: f32 = 2.0;
@group(0) @binding(0) var<storage, read_write> out: f32;
@compute @workgroup_size(1) fn main() {
    out = out * scale;
}",
            "pipeline-overridable constant",
        ),
        (
            "override wg: u32 = 2u;
@compute @workgroup_size(wg) fn main() {}",
            "workgroup size set by a pipeline-overridable constant",
        ),
        (
            "override n: u32 = 2u;
override m: u32 = n + 1u;
var<workgroup> a: array<u32, m>;
@compute @workgroup_size(1) fn main() { a[0] = 1u; }",
            "array sized by a pipeline-overridable constant whose value was not applied",
        ),
    ];
    for (source, feature) in cases {
        let module = oxir_naga::compile(
            ShaderSource::Wgsl(source),
            "applied.wgsl",
            &LowerOptions::default(),
        );
        assert!(module.is_ok(), "{source}: {:?}", module.err());
        let shader = oxir_naga::parse_wgsl(source, "raw.wgsl").unwrap();
        let error = oxir_naga::lower(&shader.module, &shader.info)
            .expect_err(source)
            .located(Some(source));
        assert!(error.is_unsupported(), "{error}");
        let message = error.to_string();
        assert!(
            message.contains(feature),
            "`{message}` does not name `{feature}`"
        );
    }
}

#[test]
fn floating_point_atomics() {
    assert_refused(
        "@group(0) @binding(0) var<storage, read_write> total: atomic<f32>;
@compute @workgroup_size(1) fn main() {
    atomicAdd(&total, 1.5);
}",
        "floating-point atomic",
        3,
    );
}

#[test]
fn texture_atomics() {
    assert_refused(
        "@group(0) @binding(0) var img: texture_storage_2d<r32uint, atomic>;
@compute @workgroup_size(1) fn main() {
    textureAtomicMax(img, vec2<i32>(0, 0), 1u);
}",
        "texture atomic",
        3,
    );
}

#[test]
fn early_depth_test() {
    assert_refused(
        "@fragment @early_depth_test(force) fn main() -> @location(0) vec4<f32> {
    return vec4<f32>(1.0);
}",
        "`@early_depth_test`",
        2,
    );
}

#[test]
fn dual_source_blending() {
    assert_refused(
        "enable dual_source_blending;
struct Out { @location(0) @blend_src(0) a: vec4<f32>, @location(0) @blend_src(1) b: vec4<f32> }
@fragment fn main() -> Out {
    return Out(vec4<f32>(1.0), vec4<f32>(0.5));
}",
        "dual-source blending",
        4,
    );
}

#[test]
fn builtins_without_an_oxir_counterpart() {
    assert_refused(
        "enable clip_distances;
struct Out { @builtin(position) p: vec4<f32>, @builtin(clip_distances) d: array<f32, 1> }
@vertex fn main() -> Out {
    return Out(vec4<f32>(1.0), array<f32, 1>(0.5));
}",
        "built-in output `clip_distances`",
        4,
    );
}

#[test]
fn external_textures() {
    assert_refused(
        "@group(0) @binding(0) var t: texture_external;
@group(0) @binding(1) var<storage, read_write> out: vec4<f32>;
@compute @workgroup_size(1) fn main() {
    out = textureLoad(t, vec2<u32>(0u, 0u));
}",
        "external texture",
        1,
    );
}

#[test]
fn storage_texture_formats_oxir_lacks() {
    assert_refused(
        "@group(0) @binding(0) var img: texture_storage_2d<rg11b10ufloat, write>;
@compute @workgroup_size(1) fn main() {
    textureStore(img, vec2<i32>(0, 0), vec4<f32>(1.0));
}",
        "storage texture format `rg11b10ufloat`",
        1,
    );
}

#[test]
fn uniform_mat2x2_makes_the_module_lay_out_uniform_buffers_by_std430() {
    // WGSL places a `mat2x2<f32>`'s columns 8 bytes apart; std140 cannot, so the module
    // declares std430 for its uniform buffers (and `f` lands at 16, not std140's 32).
    let source = "struct U { m: mat2x2<f32>, f: f32 }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: vec2<f32>;
@compute @workgroup_size(1) fn main() {
    out = u.m[0] * u.f;
}";
    let module = oxir_naga::compile(
        ShaderSource::Wgsl(source),
        "m.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        module.layouts.uniform,
        oxir_ir::data_layout::LayoutRules::Std430
    );
    let text = oxir_ir::printer::print_module(&module, oxir_ir::printer::View::Flat);
    assert!(text.starts_with("layout uniform std430\n"), "{text}");
    assert!(text.contains("m: mat2x2<f32> @ 0, f: f32 @ 16"), "{text}");
    // A uniform buffer std140 lays out as naga does keeps the default rules.
    let plain = "struct U { m: mat4x4<f32> }
@group(0) @binding(0) var<uniform> u: U;
@group(0) @binding(1) var<storage, read_write> out: vec4<f32>;
@compute @workgroup_size(1) fn main() { out = u.m[0]; }";
    let module = oxir_naga::compile(
        ShaderSource::Wgsl(plain),
        "p.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        module.layouts.uniform,
        oxir_ir::data_layout::LayoutRules::Std140
    );
}

#[test]
fn unused_unsupported_declarations_do_not_refuse() {
    let source = "override unused_scale: f32 = 2.0;
@group(0) @binding(0) var unused: texture_external;
@group(0) @binding(1) var<storage, read_write> out: f32;
@compute @workgroup_size(1) fn main() { out = 1.0; }";
    let module = oxir_naga::compile(
        ShaderSource::Wgsl(source),
        "unused.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.globals.len(), 1);
}

#[test]
fn push_constants_are_supported() {
    let source = "struct Push { scale: f32 }
var<immediate> push: Push;
@group(0) @binding(0) var<storage, read_write> out: f32;
@compute @workgroup_size(1) fn main() { out = out * push.scale; }";
    let module = oxir_naga::compile(
        ShaderSource::Wgsl(source),
        "push.wgsl",
        &LowerOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let text = oxir_ir::printer::print_module(&module, oxir_ir::printer::View::Flat);
    assert!(text.contains("global @push: push_constant %Push"), "{text}");
}

#[test]
fn memory_only_barriers() {
    let source = "var<workgroup> tile: array<u32, 4>;
@compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
    tile[i] = i;
    workgroupBarrier();
    tile[i] = tile[3u - i];
}";
    let mut shader = oxir_naga::parse_wgsl(source, "barrier.wgsl").unwrap();
    let body = &mut shader.module.entry_points[0].function.body;
    let mut rebuilt = naga::Block::new();
    for (statement, span) in std::mem::take(body).span_into_iter() {
        match statement {
            naga::Statement::ControlBarrier(_) => rebuilt.push(
                naga::Statement::MemoryBarrier(naga::Barrier::WORK_GROUP),
                span,
            ),
            other => rebuilt.push(other, span),
        }
    }
    *body = rebuilt;
    let shader = oxir_naga::validate(shader.module, "barrier.wgsl", Some(source)).unwrap();
    let error = oxir_naga::lower(&shader.module, &shader.info)
        .unwrap_err()
        .located(Some(source));
    let message = error.to_string();
    assert!(
        message.starts_with("unsupported: memory barrier without an execution barrier at 4:5"),
        "{message}"
    );
}

/// The message text of every `unsupported(...)` call in the front-end's source whose
/// feature is written there (a literal or a `format!`), with each `{...}` placeholder as
/// `x`, and the file it is in.
fn refusal_messages_in_the_source() -> Vec<(String, String)> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        for (at, _) in text.match_indices("unsupported(") {
            if text[..at].ends_with("fn ") || text[..at].ends_with("is_") {
                continue;
            }
            let rest = text[at + "unsupported(".len()..].trim_start();
            let rest = rest.strip_prefix("format!(").unwrap_or(rest).trim_start();
            if let Some(literal) = rest.strip_prefix('"') {
                out.push((name.clone(), message_of_literal(literal)));
            }
        }
    }
    out
}

/// A Rust string literal's text up to its closing quote: `\` line continuations joined,
/// `{...}` placeholders as `x`.
fn message_of_literal(literal: &str) -> String {
    let mut message = String::new();
    let mut chars = literal.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' if chars.peek() == Some(&'\n') => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            '{' => {
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
                message.push('x');
            }
            c => message.push(c),
        }
    }
    message
}

/// Every refusal the front-end can write is one the README's "What oxir refuses" table
/// lists — also those no test provokes.
#[test]
fn every_refusal_in_the_source_is_listed_in_the_readme() {
    let messages = refusal_messages_in_the_source();
    // The scan finds the calls (so this test cannot pass by finding none).
    assert!(messages.len() >= 30, "{messages:?}");
    let unlisted: Vec<String> = messages
        .iter()
        .filter_map(|(file, m)| {
            oxir_test_support::refusals::check_listed(m)
                .err()
                .map(|_| format!("{file}: `{m}`"))
        })
        .collect();
    assert!(
        unlisted.is_empty(),
        "refusals missing from the README's table:\n{}",
        unlisted.join("\n")
    );
}

#[test]
fn literal_messages_join_continuations_and_mark_placeholders() {
    assert_eq!(
        message_of_literal("workgroup size {}x{} (the \\\n     limit)\", span"),
        "workgroup size xxx (the limit)"
    );
}
