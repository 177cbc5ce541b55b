//! `oxir_naga::apply_overrides` and `compile_with_overrides` as a library: the values
//! reach the lowered module, errors are typed and located, naga's own refusals (an
//! initializer dividing by zero, a workgroup size of zero) are errors, not panics.

use oxir_naga::{
    apply_overrides, compile_with_overrides, CompileError, LowerOptions, OverrideProblem,
    OverrideSetting, OverrideValue, ShaderSource, SourcePosition,
};

const SOURCE: &str = "override d: u32 = 2u;
override q: u32 = 12u / d;
@id(3) override on: bool = true;
@group(0) @binding(0) var<storage, read_write> out: u32;
@compute @workgroup_size(1) fn main() { out = select(0u, q, on); }";

fn set(key: &str, value: &str) -> OverrideSetting {
    OverrideSetting::parse(&format!("{key}={value}")).unwrap()
}

fn compile(settings: &[OverrideSetting]) -> Result<String, CompileError> {
    let options = LowerOptions::default();
    compile_with_overrides(ShaderSource::Wgsl(SOURCE), "o.wgsl", &options, settings)
        .map(|m| oxir_ir::printer::print_module(&m, oxir_ir::printer::View::Flat))
}

fn problem(settings: &[OverrideSetting]) -> (OverrideProblem, SourcePosition) {
    match compile(settings) {
        Err(CompileError::Override(e)) => (e.problem, e.position),
        other => panic!("expected an override error, got {other:?}"),
    }
}

#[test]
fn values_reach_the_module_and_are_reported() {
    // q = 12 / 3 = 4; 12 / 2 = 6 by default.
    let text = compile(&[set("d", "3")]).unwrap();
    assert!(text.contains("u32 = 4"), "{text}");
    let shader = oxir_naga::parse_wgsl(SOURCE, "o.wgsl").unwrap();
    let resolved = apply_overrides(
        &shader.module,
        &shader.info,
        None,
        &[set("3", "false")],
        "o",
    )
    .unwrap();
    let report: Vec<_> = resolved
        .overrides
        .iter()
        .map(|o| (o.name.as_deref(), o.id, o.ty.as_str(), o.default, o.value))
        .collect();
    assert_eq!(
        report,
        [
            (
                Some("d"),
                None,
                "u32",
                Some(OverrideValue::U32(2)),
                Some(OverrideValue::U32(2))
            ),
            (
                Some("q"),
                None,
                "u32",
                Some(OverrideValue::U32(6)),
                Some(OverrideValue::U32(6))
            ),
            (
                Some("on"),
                Some(3),
                "bool",
                Some(OverrideValue::Bool(true)),
                Some(OverrideValue::Bool(false))
            ),
        ]
    );
    assert!(resolved
        .module
        .overrides
        .iter()
        .all(|(_, o)| o.init.is_some()));
}

#[test]
fn errors_are_typed_and_located() {
    let (p, at) = problem(&[set("d", "two")]);
    assert!(
        matches!(p, OverrideProblem::BadValue { ty: "u32", .. }),
        "{p}"
    );
    assert_eq!(at, SourcePosition::LineColumn { line: 1, column: 1 });
    let (p, at) = problem(&[set("on", "true"), set("3", "false")]);
    assert!(matches!(p, OverrideProblem::Duplicate { .. }), "{p}");
    assert_eq!(at, SourcePosition::LineColumn { line: 3, column: 8 });
    let (p, _) = problem(&[set("x", "1")]);
    assert_eq!(
        p.to_string(),
        "no pipeline-overridable constant `x` (overrides: d, q, on @id(3))"
    );
}

#[test]
fn naga_refusals_are_errors() {
    // 12 / 0 in q's initializer: naga's constant evaluator refuses it.
    let (p, _) = problem(&[set("d", "0")]);
    assert!(matches!(p, OverrideProblem::Naga { .. }), "{p}");
    let source = "override wg: u32 = 1u;
@compute @workgroup_size(wg) fn main() {}";
    let error = compile_with_overrides(
        ShaderSource::Wgsl(source),
        "wg.wgsl",
        &LowerOptions::default(),
        &[set("wg", "0")],
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("workgroup_size override isn't strictly positive"),
        "{error}"
    );
}

#[test]
fn settings_parse() {
    assert_eq!(
        OverrideSetting::parse("a=b=c").unwrap(),
        OverrideSetting {
            key: "a".into(),
            value: "b=c".into()
        }
    );
    assert!(OverrideSetting::parse("a").is_err());
    assert!(OverrideSetting::parse("=1").is_err());
}

/// `compile_with_spec_constants`: the overrides a function reads become `spec_constant`
/// with their ids and defaults; `q`, initialised from `d`, needs a value.
#[test]
fn spec_constants_keep_the_overrides_with_ids_and_defaults() {
    let keep = |settings: &[OverrideSetting]| {
        let options = LowerOptions::default();
        oxir_naga::compile_with_spec_constants(
            ShaderSource::Wgsl(SOURCE),
            "o.wgsl",
            &options,
            settings,
        )
        .map(|m| oxir_ir::printer::print_module(&m, oxir_ir::printer::View::Flat))
    };
    match keep(&[]) {
        Err(CompileError::Override(e)) => {
            assert_eq!(
                e.problem,
                OverrideProblem::DerivedDefault { name: "q".into() }
            );
            assert_eq!(
                e.position,
                SourcePosition::LineColumn { line: 2, column: 1 }
            );
        }
        other => panic!("expected the derived-default refusal, got {other:?}"),
    }
    let text = keep(&[set("q", "5")]).unwrap();
    // Ids: `on` has @id(3); d takes 0, q takes 1. Only q and on are read by main.
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("spec_constant"))
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(", 1") && l.contains(": u32 =")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(", 3") && l.contains(": bool =")),
        "{text}"
    );
    assert!(text.contains("u32 = 5\n"), "q's default: {text}");
    let ids = oxir_naga::spec_ids(&oxir_naga::parse_wgsl(SOURCE, "o.wgsl").unwrap().module);
    assert_eq!(ids, vec![0, 1, 3]);
}
