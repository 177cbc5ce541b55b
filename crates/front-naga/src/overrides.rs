//! Pipeline-overridable constants (WGSL `override`, and the specialization constants naga
//! reads from SPIR-V): their values are fixed before lowering.
//!
//! [`apply_overrides`] takes a validated naga module and the settings given for it
//! (`NAME=VALUE`, or `ID=VALUE` for an override declared with `@id(ID)`), and returns the
//! module with every override replaced by a constant: naga's own
//! `naga::back::pipeline_constants::process_overrides` does the replacement, evaluates
//! the expressions that depended on overrides, resolves workgroup sizes and
//! override-sized array lengths, and revalidates the result. The lowering then sees an
//! ordinary module (it refuses a module whose overrides were not applied).
//!
//! What is checked before naga runs, each a located [`OverrideError`] (the override's
//! declaration is the location):
//!
//! - every setting names an override, by name or by `@id` (a number; WGSL names cannot
//!   start with a digit, so the two never clash); an override that has an `@id` may be
//!   set either way ([`OverrideProblem::Unknown`]);
//! - no override is set twice, under the same or another spelling
//!   ([`OverrideProblem::Duplicate`]): an error rather than "last wins", so that a
//!   script's mistake is not silently half-applied;
//! - every value reads as the override's type (`override_values.rs`;
//!   [`OverrideProblem::BadValue`]);
//! - every override without an initializer is given a value, whether or not the entry
//!   point uses it ([`OverrideProblem::Missing`]).
//!
//! Overrides take their initializer's value when not set (an initializer may use other
//! overrides; naga evaluates it with their final values). naga runs contained
//! (`contain.rs`): a panic in it, or its own error (a workgroup size of zero, an array
//! length that is not positive, a division by zero in an initializer, revalidation
//! failures), is [`OverrideProblem::Naga`].
//!
//! A module without overrides is returned as it is, without naga's compaction. A module
//! with overrides comes back compacted by naga: only the entry point asked for (all of
//! them when none is) and what it reaches remain, named overrides aside.
//!
//! [`OverrideInfo`] reports, per override, its name, id, type, default (the
//! initializer's value with every override that has an initializer at its default) and
//! the value used; `oxir reflect` prints them.

use crate::contain::contained;
use crate::error::{position_of, span_in, Message, SourcePosition};
use crate::override_values::{OverrideType, OverrideValue};
use naga::back::PipelineConstants;
use naga::valid::ModuleInfo;
use naga::{Expression, Handle, Module, Override, Span};
use serde::Serialize;
use std::borrow::Cow;
use std::fmt;

/// One setting as given: `KEY=VALUE`, where KEY is an override's name or its `@id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrideSetting {
    pub key: String,
    pub value: String,
}

impl OverrideSetting {
    /// Splits `NAME=VALUE` at its first `=`; the error says what was expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => Ok(OverrideSetting {
                key: key.trim().to_string(),
                value: value.to_string(),
            }),
            Some(_) | None => Err(format!("`{text}`: expected NAME=VALUE or ID=VALUE")),
        }
    }
}

/// One override of a module, as [`apply_overrides`] resolved it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OverrideInfo {
    /// `None` for a SPIR-V specialization constant without a name.
    pub name: Option<String>,
    /// The `@id`, when it has one.
    pub id: Option<u16>,
    /// The `SpecId` `--spec-constants` gives it: the `@id`, else the lowest free id
    /// ([`crate::spec_ids`]).
    pub spec_id: u32,
    /// `bool`, `i32`, `u32`, `f32` or `f16`.
    #[serde(rename = "type")]
    pub ty: String,
    /// The initializer's value (with the other overrides at their defaults); `None`
    /// without an initializer, or when naga could not evaluate it so.
    pub default: Option<OverrideValue>,
    /// The value the module was compiled with; for an override no entry point uses
    /// (naga drops it), the value given, else the default. `None` only when neither is
    /// known.
    pub value: Option<OverrideValue>,
}

/// A module with its overrides applied.
#[derive(Debug)]
pub struct Resolved<'a> {
    pub module: Cow<'a, Module>,
    pub info: Cow<'a, ModuleInfo>,
    /// Every override of the input, in declaration order.
    pub overrides: Vec<OverrideInfo>,
}

/// What is wrong with the overrides' settings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OverrideProblem {
    #[error("no pipeline-overridable constant {} (overrides: {})", key_text(.key), list(.available))]
    Unknown { key: String, available: Vec<String> },
    #[error("override `{name}` is set twice (as `{first}` and as `{second}`)")]
    Duplicate {
        name: String,
        first: String,
        second: String,
    },
    #[error("override `{name}`: `{value}` is not a valid {ty} ({reason})")]
    BadValue {
        name: String,
        ty: &'static str,
        value: String,
        reason: String,
    },
    #[error("override `{name}` has no default and no value was given for it")]
    Missing { name: String },
    #[error("override `{name}` has type {ty}; oxir sets bool, i32, u32, f32 and f16 only")]
    UnsupportedType { name: String, ty: String },
    #[error(
        "override `{name}` is initialised from other overrides, and a specialization \
         constant's default is one value: give it with --override {name}=VALUE"
    )]
    DerivedDefault { name: String },
    #[error(
        "the workgroup size of entry point `{entry}` is computed from overrides, which \
         --spec-constants cannot keep (a dimension may be one override): give the values \
         with --override and drop --spec-constants"
    )]
    SpecWorkgroupSize { entry: String },
    #[error("naga could not apply the overrides: {message}")]
    Naga { message: String },
}

/// `` `name` `` or, for a number, `with @id(N)`.
fn key_text(key: &str) -> String {
    match key.parse::<u16>() {
        Ok(id) => format!("with @id({id})"),
        Err(_) => format!("`{key}`"),
    }
}

fn list(names: &[String]) -> String {
    match names.is_empty() {
        true => "none".to_string(),
        false => names.join(", "),
    }
}

/// An [`OverrideProblem`] with the span of the override it is about (or of naga's
/// error), resolved by [`OverrideError::located`].
#[derive(Clone, Debug, PartialEq)]
pub struct OverrideError {
    pub problem: OverrideProblem,
    pub span: Span,
    pub position: SourcePosition,
}

impl OverrideError {
    pub(crate) fn new(problem: OverrideProblem, span: Span) -> Self {
        OverrideError {
            problem,
            span,
            position: SourcePosition::Unknown,
        }
    }

    /// Resolves the span to a line and column in `source` (text inputs) or a byte offset
    /// (binary inputs: pass `None`).
    pub fn located(mut self, source: Option<&str>) -> Self {
        self.position = position_of(self.span, source);
        self
    }

    /// `PATH:LINE:COLUMN: error: MESSAGE` and naga's snippet of the declaration (text
    /// inputs with a known span), or `PATH: error: MESSAGE`.
    pub fn render(&self, path: &str, source: Option<&str>) -> String {
        let message = self.problem.to_string();
        let mut out = match position_of(self.span, source) {
            SourcePosition::LineColumn { line, column } => {
                format!("{path}:{line}:{column}: error: {message}\n")
            }
            SourcePosition::ByteOffset(offset) => {
                format!("{path}: error: {message} at byte offset {offset}\n")
            }
            SourcePosition::Unknown => format!("{path}: error: {message}\n"),
        };
        if let Some((text, span)) = source.and_then(|t| span_in(self.span, t).map(|s| (t, s))) {
            let snippet = naga::WithSpan::new(Message(message)).with_span(span, "declared here");
            out.push_str(&snippet.emit_to_string_with_path(text, path));
        }
        out
    }
}

impl fmt::Display for OverrideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.problem)?;
        match &self.position {
            SourcePosition::Unknown => Ok(()),
            known => write!(f, " at {known}"),
        }
    }
}

impl std::error::Error for OverrideError {}

/// Applies `settings` to the overrides of `module` (see the module docs). `entry_point`
/// keeps only that entry point when the module has it; `path` names the input in the
/// error of a contained naga panic.
pub fn apply_overrides<'a>(
    module: &'a Module,
    info: &'a ModuleInfo,
    entry_point: Option<&str>,
    settings: &[OverrideSetting],
    path: &str,
) -> Result<Resolved<'a>, OverrideError> {
    if module.overrides.is_empty() {
        if let Some(first) = settings.first() {
            return Err(unknown(module, &first.key));
        }
        return Ok(Resolved {
            module: Cow::Borrowed(module),
            info: Cow::Borrowed(info),
            overrides: Vec::new(),
        });
    }
    let chosen = match_settings(module, settings)?;
    check_missing(module, &chosen)?;
    let entry = entry_point.and_then(|name| {
        let entry = module.entry_points.iter().find(|e| e.name == name)?;
        Some((entry.stage, name))
    });
    let (new_module, new_info) = process(module, info, entry, &constants(module, &chosen), path)?;
    let overrides = describe(module, info, &new_module, &chosen, path);
    Ok(Resolved {
        module: new_module,
        info: new_info,
        overrides,
    })
}

/// How messages name an override: its name, else `@id(N)`.
pub(crate) fn label(o: &Override) -> String {
    match (&o.name, o.id) {
        (Some(name), _) => name.clone(),
        (None, Some(id)) => format!("@id({id})"),
        (None, None) => "(unnamed)".to_string(),
    }
}

fn unknown(module: &Module, key: &str) -> OverrideError {
    let available = module
        .overrides
        .iter()
        .map(|(_, o)| match (&o.name, o.id) {
            (Some(name), Some(id)) => format!("{name} @id({id})"),
            (Some(_), None) | (None, Some(_)) | (None, None) => label(o),
        })
        .collect();
    let key = key.to_string();
    OverrideError::new(OverrideProblem::Unknown { key, available }, Span::UNDEFINED)
}

/// The override a setting's key names: an `@id` when the key is a number, else a name.
fn find(module: &Module, key: &str) -> Option<Handle<Override>> {
    let id = key.parse::<u16>().ok();
    module
        .overrides
        .iter()
        .find(|(_, o)| match id {
            Some(id) => o.id == Some(id),
            None => o.name.as_deref() == Some(key),
        })
        .map(|(handle, _)| handle)
}

/// A setting matched to its override, with the value read.
pub(crate) struct Chosen {
    pub handle: Handle<Override>,
    key: String,
    pub value: OverrideValue,
}

pub(crate) fn match_settings(
    module: &Module,
    settings: &[OverrideSetting],
) -> Result<Vec<Chosen>, OverrideError> {
    let mut chosen: Vec<Chosen> = Vec::with_capacity(settings.len());
    for setting in settings {
        let handle = find(module, &setting.key).ok_or_else(|| unknown(module, &setting.key))?;
        let span = module.overrides.get_span(handle);
        let o = &module.overrides[handle];
        if let Some(first) = chosen.iter().find(|c| c.handle == handle) {
            let problem = OverrideProblem::Duplicate {
                name: label(o),
                first: first.key.clone(),
                second: setting.key.clone(),
            };
            return Err(OverrideError::new(problem, span));
        }
        let ty = override_type(module, o).map_err(|problem| OverrideError::new(problem, span))?;
        let value = ty.parse(&setting.value).map_err(|reason| {
            let problem = OverrideProblem::BadValue {
                name: label(o),
                ty: ty.name(),
                value: setting.value.clone(),
                reason,
            };
            OverrideError::new(problem, span)
        })?;
        chosen.push(Chosen {
            handle,
            key: setting.key.clone(),
            value,
        });
    }
    Ok(chosen)
}

/// The type of override `o`, when oxir can set it.
fn override_type(module: &Module, o: &Override) -> Result<OverrideType, OverrideProblem> {
    let inner = module.types.get_handle(o.ty).map(|t| &t.inner);
    let scalar = inner.ok().and_then(|inner| inner.scalar());
    scalar.and_then(OverrideType::of_scalar).ok_or_else(|| {
        let ty = inner.map_or_else(|_| "(unknown)".to_string(), |i| format!("{i:?}"));
        OverrideProblem::UnsupportedType { name: label(o), ty }
    })
}

fn check_missing(module: &Module, chosen: &[Chosen]) -> Result<(), OverrideError> {
    for (handle, o) in module.overrides.iter() {
        if o.init.is_none() && !chosen.iter().any(|c| c.handle == handle) {
            let problem = OverrideProblem::Missing { name: label(o) };
            return Err(OverrideError::new(
                problem,
                module.overrides.get_span(handle),
            ));
        }
    }
    Ok(())
}

/// naga's table: the key is the `@id` when the override has one, else its name.
fn constants(module: &Module, chosen: &[Chosen]) -> PipelineConstants {
    let mut table = PipelineConstants::default();
    for c in chosen {
        let o = &module.overrides[c.handle];
        let key = match (o.id, &o.name) {
            (Some(id), _) => id.to_string(),
            (None, Some(name)) => name.clone(),
            (None, None) => continue,
        };
        table.insert(key, c.value.to_f64());
    }
    table
}

type Processed<'a> = (Cow<'a, Module>, Cow<'a, ModuleInfo>);

/// naga's `process_overrides`, contained.
fn process<'a>(
    module: &'a Module,
    info: &'a ModuleInfo,
    entry: Option<(naga::ShaderStage, &str)>,
    table: &PipelineConstants,
    path: &str,
) -> Result<Processed<'a>, OverrideError> {
    let outcome = contained(path, || {
        Ok(
            naga::back::pipeline_constants::process_overrides(module, info, entry, table).map_err(
                |error| {
                    let span = first_span(&error);
                    (crate::parse::error_chain(&error), span)
                },
            ),
        )
    });
    match outcome {
        Ok(Ok(processed)) => Ok(processed),
        Ok(Err((message, span))) => {
            Err(OverrideError::new(OverrideProblem::Naga { message }, span))
        }
        Err(panic) => Err(OverrideError::new(
            OverrideProblem::Naga {
                message: panic.summary,
            },
            Span::UNDEFINED,
        )),
    }
}

fn first_span(error: &naga::back::pipeline_constants::PipelineConstantError) -> Span {
    use naga::back::pipeline_constants::PipelineConstantError as E;
    match error {
        E::ValidationError(with_span) => with_span.spans().next().map_or(Span::UNDEFINED, |s| s.0),
        E::MissingValue(_)
        | E::NotFound(_)
        | E::SrcNeedsToBeFinite
        | E::DstRangeTooSmall
        | E::ConstantEvaluatorError(_)
        | E::NegativeWorkgroupSize
        | E::NegativeMeshOutputMax => Span::UNDEFINED,
    }
}

/// The value of global expression `expr` of `module`, through constants, when it is a
/// literal of an override type.
pub(crate) fn literal_value(module: &Module, expr: Handle<Expression>) -> Option<OverrideValue> {
    let mut handle = expr;
    for _ in 0..=module.constants.len() {
        let expression = module.global_expressions.try_get(handle).ok()?;
        if let Expression::Literal(literal) = expression {
            return OverrideValue::of_literal(*literal);
        }
        let Expression::Constant(c) = expression else {
            return None;
        };
        handle = module.constants.try_get(*c).ok()?.init;
    }
    None
}

/// The value override `o` (of the input) has in `processed`.
fn value_in(processed: &Module, o: &Override) -> Option<OverrideValue> {
    let (_, same) = processed
        .overrides
        .iter()
        .find(|(_, p)| p.name == o.name && p.id == o.id)?;
    literal_value(processed, same.init?)
}

/// Every override of `module` with its default and the value it has in `processed`.
fn describe(
    module: &Module,
    info: &ModuleInfo,
    processed: &Module,
    chosen: &[Chosen],
    path: &str,
) -> Vec<OverrideInfo> {
    let mut defaults_run: Option<Option<Processed<'_>>> = None;
    let spec_ids = crate::spec_ids(module);
    module
        .overrides
        .iter()
        .zip(spec_ids)
        .map(|((handle, o), spec_id)| {
            let default = o.init.and_then(|init| {
                literal_value(module, init).or_else(|| {
                    let run = defaults_run
                        .get_or_insert_with(|| with_defaults(module, info, chosen, path));
                    run.as_ref().and_then(|(m, _)| value_in(m, o))
                })
            });
            // An override no entry point uses is not in the processed module: report the
            // value given, else the default.
            let given = chosen.iter().find(|c| c.handle == handle);
            let value = value_in(processed, o)
                .or_else(|| given.map(|c| c.value))
                .or(default);
            OverrideInfo {
                name: o.name.clone(),
                id: o.id,
                spec_id,
                ty: override_type(module, o)
                    .map_or_else(|_| "?".to_string(), |t| t.name().to_string()),
                default,
                value,
            }
        })
        .collect()
}

/// The module with only the overrides that have no initializer set (to their given
/// values): every other override at its default. `None` when naga refuses it.
fn with_defaults<'a>(
    module: &'a Module,
    info: &'a ModuleInfo,
    chosen: &[Chosen],
    path: &str,
) -> Option<Processed<'a>> {
    let needed: Vec<Chosen> = chosen
        .iter()
        .filter(|c| module.overrides[c.handle].init.is_none())
        .map(|c| Chosen {
            handle: c.handle,
            key: c.key.clone(),
            value: c.value,
        })
        .collect();
    process(module, info, None, &constants(module, &needed), path).ok()
}
