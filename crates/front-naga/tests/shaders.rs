//! The project's own shaders (`tests/shaders/`): each is parsed, validated, its overrides
//! applied at their defaults, and lowered, the
//! module verifies with oxir-naga's verifier options and survives the text round trip
//! (print → parse → print). Together they must exercise every naga statement and
//! expression kind the front-end lowers, and the lowered modules every oxir op those map
//! to; both are checked here so a shader edit cannot silently drop coverage.
//!
//! Execution checks (the interpreter running each kernel against the shader's meaning)
//! belong here once the interpreter exists (issue 5).

use naga::{Expression, Statement};
use oxir_ir::printer::{print_module, View};
use oxir_ir::{Module, Opcode};
use oxir_naga::{GlslStage, LowerOptions, ShaderSource, Validated};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn shader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shaders")
}

fn shader_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(shader_dir())
        .expect("tests/shaders exists")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("wgsl" | "vert" | "frag" | "comp")
            )
        })
        .collect();
    files.sort();
    files
}

/// Parses, validates, lowers and verifies one shader; panics with the diagnostic.
fn lower_file(path: &Path) -> (Validated, Module) {
    let text = std::fs::read_to_string(path).expect("shader is readable");
    let name = path.display().to_string();
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let source = match GlslStage::from_extension(extension) {
        Some(stage) => ShaderSource::Glsl(&text, stage),
        None => ShaderSource::Wgsl(&text),
    };
    let shader = source
        .parse(&name)
        .unwrap_or_else(|e| panic!("naga rejects {name}:\n{}", e.rendered));
    // Overrides (pipeline_overrides.wgsl) at their defaults.
    let resolved = oxir_naga::apply_overrides(&shader.module, &shader.info, None, &[], &name)
        .unwrap_or_else(|e| panic!("{}", e.render(&name, Some(&text))));
    let module =
        oxir_naga::lower_with_options(&resolved.module, &resolved.info, &LowerOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.render(&name, Some(&text))));
    let report = oxir_ir::verifier::verify_module(&module, &oxir_naga::verifier_options());
    assert!(
        report.succeeded(),
        "{name} does not verify:\n{:#?}",
        report.errors
    );
    (shader, module)
}

#[test]
fn every_project_shader_lowers_verifies_and_round_trips() {
    let files = shader_files();
    assert!(
        files.len() >= 8,
        "expected the project's shaders, found {files:?}"
    );
    for path in &files {
        let (_, module) = lower_file(path);
        for view in [View::Flat, View::Structured] {
            let text = print_module(&module, view);
            let reparsed = oxir_ir::parser::parse_module(&text)
                .unwrap_or_else(|e| panic!("{}: {e:?}\n{text}", path.display()));
            assert_eq!(
                print_module(&reparsed, view),
                text,
                "{} round trip",
                path.display()
            );
        }
    }
}

fn statement_name(statement: &Statement) -> &'static str {
    match statement {
        Statement::Emit(_) => "Emit",
        Statement::Block(_) => "Block",
        Statement::If { .. } => "If",
        Statement::Switch { cases, .. } => {
            if cases.iter().any(|c| c.fall_through && !c.body.is_empty()) {
                "Switch with fall-through"
            } else {
                "Switch"
            }
        }
        Statement::Loop {
            break_if,
            continuing,
            ..
        } => match (break_if, continuing.is_empty()) {
            (Some(_), _) => "Loop with break_if",
            (None, false) => "Loop with continuing",
            (None, true) => "Loop",
        },
        Statement::Break => "Break",
        Statement::Continue => "Continue",
        Statement::Return { .. } => "Return",
        Statement::Kill => "Kill",
        Statement::ControlBarrier(_) => "ControlBarrier",
        Statement::MemoryBarrier(_) => "MemoryBarrier",
        Statement::Store { .. } => "Store",
        Statement::ImageStore { .. } => "ImageStore",
        Statement::Atomic { fun, .. } => match fun {
            naga::AtomicFunction::Exchange { compare: Some(_) } => "Atomic compare-exchange",
            _ => "Atomic",
        },
        Statement::WorkGroupUniformLoad { .. } => "WorkGroupUniformLoad",
        Statement::Call { .. } => "Call",
        _ => "other",
    }
}

fn walk(block: &naga::Block, seen: &mut BTreeSet<&'static str>) {
    for statement in block.iter() {
        seen.insert(statement_name(statement));
        match statement {
            Statement::Block(inner) => walk(inner, seen),
            Statement::If { accept, reject, .. } => {
                walk(accept, seen);
                walk(reject, seen);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| walk(&c.body, seen)),
            Statement::Loop {
                body, continuing, ..
            } => {
                walk(body, seen);
                walk(continuing, seen);
            }
            _ => {}
        }
    }
}

fn expression_name(expression: &Expression) -> &'static str {
    match expression {
        Expression::Literal(_) => "Literal",
        Expression::Constant(_) => "Constant",
        Expression::ZeroValue(_) => "ZeroValue",
        Expression::Compose { .. } => "Compose",
        Expression::Access { .. } => "Access",
        Expression::AccessIndex { .. } => "AccessIndex",
        Expression::Splat { .. } => "Splat",
        Expression::Swizzle { .. } => "Swizzle",
        Expression::FunctionArgument(_) => "FunctionArgument",
        Expression::GlobalVariable(_) => "GlobalVariable",
        Expression::LocalVariable(_) => "LocalVariable",
        Expression::Load { .. } => "Load",
        Expression::ImageSample { .. } => "ImageSample",
        Expression::ImageLoad { .. } => "ImageLoad",
        Expression::ImageQuery { .. } => "ImageQuery",
        Expression::Unary { .. } => "Unary",
        Expression::Binary { .. } => "Binary",
        Expression::Select { .. } => "Select",
        Expression::Derivative { .. } => "Derivative",
        Expression::Relational { .. } => "Relational",
        Expression::Math { .. } => "Math",
        Expression::As {
            convert: Some(_), ..
        } => "As (convert)",
        Expression::As { convert: None, .. } => "As (bitcast)",
        Expression::CallResult(_) => "CallResult",
        Expression::AtomicResult { .. } => "AtomicResult",
        Expression::WorkGroupUniformLoadResult { .. } => "WorkGroupUniformLoadResult",
        Expression::ArrayLength(_) => "ArrayLength",
        _ => "other",
    }
}

#[test]
fn project_shaders_cover_every_statement_and_expression_kind() {
    let mut statements = BTreeSet::new();
    let mut expressions = BTreeSet::new();
    let mut math = BTreeSet::new();
    let mut opcodes = BTreeSet::new();
    for path in shader_files() {
        let (shader, module) = lower_file(&path);
        let functions = shader
            .module
            .functions
            .iter()
            .map(|(_, f)| f)
            .chain(shader.module.entry_points.iter().map(|e| &e.function));
        for function in functions {
            walk(&function.body, &mut statements);
            for (_, expression) in function.expressions.iter() {
                expressions.insert(expression_name(expression));
                if let Expression::Math { fun, .. } = expression {
                    math.insert(format!("{fun:?}"));
                }
            }
        }
        for function in module.functions.values() {
            for block in function.layout.blocks() {
                for inst in function.layout.block_insts(block) {
                    opcodes.insert(function.dfg.inst(inst).opcode);
                }
            }
        }
    }
    let wanted_statements = [
        "Emit",
        "Block",
        "If",
        "Switch",
        "Switch with fall-through",
        "Loop",
        "Loop with continuing",
        "Loop with break_if",
        "Break",
        "Continue",
        "Return",
        "Kill",
        "ControlBarrier",
        "Store",
        "ImageStore",
        "Atomic",
        "Atomic compare-exchange",
        "WorkGroupUniformLoad",
        "Call",
    ];
    let missing: Vec<_> = wanted_statements
        .iter()
        .filter(|s| !statements.contains(*s))
        .collect();
    assert!(
        missing.is_empty(),
        "statement kinds not covered: {missing:?}"
    );
    let wanted_expressions = [
        "Literal",
        "Constant",
        "ZeroValue",
        "Compose",
        "Access",
        "AccessIndex",
        "Splat",
        "Swizzle",
        "FunctionArgument",
        "GlobalVariable",
        "LocalVariable",
        "Load",
        "ImageSample",
        "ImageLoad",
        "ImageQuery",
        "Unary",
        "Binary",
        "Select",
        "Derivative",
        "Relational",
        "Math",
        "As (convert)",
        "As (bitcast)",
        "CallResult",
        "AtomicResult",
        "WorkGroupUniformLoadResult",
        "ArrayLength",
    ];
    let missing: Vec<_> = wanted_expressions
        .iter()
        .filter(|s| !expressions.contains(*s))
        .collect();
    assert!(
        missing.is_empty(),
        "expression kinds not covered: {missing:?}"
    );
    // Every naga math function but the GLSL-only `Outer` and `Inverse`, which `lit.frag`
    // covers in part.
    assert!(
        math.len() >= 70,
        "math functions covered: {}: {math:?}",
        math.len()
    );
    let wanted_ops = [
        Opcode::If,
        Opcode::Loop,
        Opcode::Switch,
        Opcode::Break,
        Opcode::Continue,
        Opcode::CondBr,
        Opcode::Return,
        Opcode::Discard,
        Opcode::Unreachable,
        Opcode::Alloca,
        Opcode::Load,
        Opcode::Store,
        Opcode::Access,
        Opcode::ArrayLength,
        Opcode::Extract,
        Opcode::ExtractDynamic,
        Opcode::Shuffle,
        Opcode::Splat,
        Opcode::Construct,
        Opcode::Convert,
        Opcode::Bitcast,
        Opcode::Select,
        Opcode::Call,
        Opcode::AtomicLoad,
        Opcode::AtomicStore,
        Opcode::AtomicAdd,
        Opcode::AtomicSub,
        Opcode::AtomicAnd,
        Opcode::AtomicOr,
        Opcode::AtomicXor,
        Opcode::AtomicMin,
        Opcode::AtomicMax,
        Opcode::AtomicExchange,
        Opcode::AtomicCompareExchange,
        Opcode::WorkgroupBarrier,
        Opcode::StorageBarrier,
        Opcode::WorkgroupUniformLoad,
        Opcode::DispatchId,
        Opcode::ThreadId,
        Opcode::LocalInvocationIndex,
        Opcode::WorkgroupId,
        Opcode::NumWorkgroups,
        Opcode::FragCoord,
        Opcode::FrontFacing,
        Opcode::VertexIndex,
        Opcode::InstanceIndex,
        Opcode::SampleIndex,
        Opcode::TextureSample,
        Opcode::TextureSampleLevel,
        Opcode::TextureSampleBias,
        Opcode::TextureSampleGrad,
        Opcode::TextureSampleCompare,
        Opcode::TextureSampleCompareLevel,
        Opcode::TextureGather,
        Opcode::TextureGatherCompare,
        Opcode::TextureLoad,
        Opcode::TextureStore,
        Opcode::TextureDimensions,
        Opcode::TextureNumLevels,
        Opcode::TextureNumLayers,
        Opcode::TextureNumSamples,
        Opcode::Dpdx,
        Opcode::Dpdy,
        Opcode::Fwidth,
        Opcode::DpdxCoarse,
        Opcode::DpdyFine,
        Opcode::MatrixTimesMatrix,
        Opcode::MatrixTimesVector,
        Opcode::VectorTimesMatrix,
        Opcode::MatrixTimesScalar,
        Opcode::Transpose,
        Opcode::Determinant,
        Opcode::Inverse,
        Opcode::Shl,
        Opcode::Shr,
        Opcode::Not,
        Opcode::Neg,
        Opcode::Rem,
        Opcode::Any,
        Opcode::All,
        Opcode::InsertBits,
        Opcode::ExtractBits,
        Opcode::RoundEven,
    ];
    let missing: Vec<_> = wanted_ops
        .iter()
        .filter(|op| !opcodes.contains(*op))
        .collect();
    assert!(missing.is_empty(), "oxir ops not produced: {missing:?}");
}

/// Spot checks of the mapping on small inputs, in the printed text.
fn lower_wgsl(source: &str) -> String {
    let shader =
        oxir_naga::parse_wgsl(source, "inline.wgsl").unwrap_or_else(|e| panic!("{}", e.rendered));
    let module = oxir_naga::lower(&shader.module, &shader.info).unwrap_or_else(|e| panic!("{e}"));
    let report = oxir_ir::verifier::verify_module(&module, &oxir_naga::verifier_options());
    assert!(report.succeeded(), "{:#?}", report.errors);
    print_module(&module, View::Flat)
}

#[test]
fn break_if_becomes_a_prepare_block_parameter() {
    let text = lower_wgsl(
        "@compute @workgroup_size(1) fn main() {
            var i = 0u;
            loop { i += 1u; continuing { break if i > 3u; } }
        }",
    );
    assert!(text.contains("loop prepare block1(c"), "{text}");
    assert!(text.contains("block1(v"), "{text}");
    assert!(text.contains(": bool = not v"), "{text}");
    assert!(text.contains("br block1(v"), "{text}");
}

#[test]
fn loops_without_break_if_test_true() {
    let text = lower_wgsl(
        "@compute @workgroup_size(1) fn main() {
            var i = 0u;
            loop { if i > 3u { break; } i += 1u; }
        }",
    );
    assert!(
        text.contains("const c2: bool = true") || text.contains(": bool = true"),
        "{text}"
    );
    assert!(text.contains("cond_br c"), "{text}");
}

#[test]
fn builtins_become_registers_and_struct_results_flatten() {
    let text = lower_wgsl(
        "struct Out { @builtin(position) p: vec4<f32>, @location(0) c: vec2<f32> }
         @vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
            return Out(vec4<f32>(f32(i)), vec2<f32>(1.0));
         }",
    );
    assert!(
        text.contains("vertex @vs() -> (vec4<f32> builtin(position), vec2<f32> location(0, perspective, center))"),
        "{text}"
    );
    assert!(text.contains("= vertex_index"), "{text}");
    assert!(text.contains("return v"), "{text}");
}

#[test]
fn invariant_position_sets_the_result_flag() {
    let text = lower_wgsl(
        "struct Out { @builtin(position) @invariant p: vec4<f32>, @location(0) c: vec2<f32> }
         @vertex fn vs(@builtin(vertex_index) i: u32) -> Out {
            return Out(vec4<f32>(f32(i)), vec2<f32>(1.0));
         }",
    );
    assert!(
        text.contains("-> (vec4<f32> builtin(position) invariant, vec2<f32> location(0, perspective, center))"),
        "{text}"
    );
}

#[test]
fn float_decomposition_builds_the_result_structs() {
    let text = lower_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<vec2<f32>, 4>;
         @compute @workgroup_size(1) fn main() {
            let f = frexp(out[0]);
            out[1] = modf(out[2]).fract + ldexp(f.fract, f.exp);
         }",
    );
    assert!(text.contains(" = frexp v"), "{text}");
    assert!(text.contains(" = modf v"), "{text}");
    assert!(text.contains(": vec2<f32> = ldexp v"), "{text}");
}

#[test]
fn compare_exchange_builds_the_result_struct() {
    let text = lower_wgsl(
        "@group(0) @binding(0) var<storage, read_write> a: atomic<u32>;
         @group(0) @binding(1) var<storage, read_write> ok: u32;
         @compute @workgroup_size(1) fn main() {
            let r = atomicCompareExchangeWeak(&a, 1u, 2u);
            ok = select(0u, r.old_value, r.exchanged);
         }",
    );
    assert!(text.contains("= atomic_compare_exchange @a, c"), "{text}");
    assert!(text.contains("bool = eq v"), "{text}");
    assert!(text.contains("= construct v"), "{text}");
}

#[test]
fn naga_names_are_kept() {
    let text = lower_wgsl(
        "var<private> main_1: f32;
         fn main_2() -> f32 { return main_1; }
         @compute @workgroup_size(1) fn main() { main_1 = main_2(); }",
    );
    assert!(text.contains("kernel @main()"), "{text}");
    assert!(text.contains("callable @main_2()"), "{text}");
}

#[test]
fn a_continue_before_a_value_continuing_reads_spills_the_value() {
    // WGSL forbids this program, naga accepts it: the `continue` skips `x`, which the
    // `continuing` block reads. The value goes through a slot, so the module verifies.
    let text = lower_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: u32;
         @compute @workgroup_size(1) fn main() {
            var i = 0u;
            loop {
                if out > 3u { continue; }
                let x = i * 2u;
                continuing { i += x; break if x > 10u; }
            }
         }",
    );
    assert!(text.contains("ptr<function, u32> = alloca\n"), "{text}");
}

/// Parses `source` and replaces each `workgroupBarrier()` of its first entry point by
/// `replacement` (naga's WGSL front-end makes no memory-only barriers; SPIR-V does).
fn with_barriers_replaced(source: &str, replacement: &[naga::Statement]) -> Validated {
    let mut shader = oxir_naga::parse_wgsl(source, "barrier.wgsl").unwrap();
    let body = &mut shader.module.entry_points[0].function.body;
    let mut rebuilt = naga::Block::new();
    for (statement, span) in std::mem::take(body).span_into_iter() {
        match statement {
            Statement::ControlBarrier(_) => {
                for new in replacement {
                    rebuilt.push(new.clone(), span);
                }
            }
            other => rebuilt.push(other, span),
        }
    }
    *body = rebuilt;
    oxir_naga::validate(shader.module, "barrier.wgsl", Some(source)).unwrap()
}

#[test]
fn a_memory_barrier_before_a_covering_control_barrier_is_absorbed() {
    let shader = with_barriers_replaced(
        "var<workgroup> tile: array<u32, 4>;
         @compute @workgroup_size(4) fn main(@builtin(local_invocation_index) i: u32) {
            tile[i] = i;
            workgroupBarrier();
            tile[i] = tile[3u - i];
         }",
        &[
            Statement::MemoryBarrier(naga::Barrier::WORK_GROUP),
            Statement::ControlBarrier(naga::Barrier::WORK_GROUP),
        ],
    );
    let module = oxir_naga::lower(&shader.module, &shader.info).unwrap();
    let text = print_module(&module, View::Flat);
    assert_eq!(text.matches("workgroup_barrier").count(), 1, "{text}");
}
