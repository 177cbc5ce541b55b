//! Errors of the naga front-end and how they are shown to a user.
//!
//! Two layers, one enum each:
//! - [`FrontendError`]: naga rejected the input (parse or validation). Its message is
//!   rendered by naga itself (`emit_to_string_with_path`): file, line, column and a
//!   source snippet.
//! - [`LowerError`]: naga accepted the input but oxir cannot (or, for
//!   [`LowerError::Internal`], the lowering has a bug). `Unsupported` names the feature
//!   and carries naga's span; [`LowerError::located`] resolves it to a line and column
//!   against the source text and [`LowerError::render`] draws the snippet with naga's
//!   span renderer ([`naga::WithSpan`]).

use naga::Span;
use std::fmt;

/// Which naga stage rejected the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrontendStage {
    /// The WGSL, GLSL or SPIR-V parser.
    Parse,
    /// `naga::valid::Validator`.
    Validate,
    /// oxir's nesting bound ([`crate::MAX_NESTING`]) refused the text before naga read it.
    Limit,
    /// naga panicked on the input (a bug in naga, contained by `catch_unwind`), or
    /// its thread could not be started.
    Panic,
}

/// naga rejected the input. `rendered` is naga's own diagnostic text (with the snippet);
/// `summary` is its one-line message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{rendered}")]
pub struct FrontendError {
    pub stage: FrontendStage,
    /// One-line message, without location.
    pub summary: String,
    /// 1-based line and column of the first span, when naga gave one and the input is text.
    pub location: Option<(u32, u32)>,
    /// naga's diagnostic, rendered with the file name and a source snippet.
    pub rendered: String,
}

/// Where a [`LowerError`] happened in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourcePosition {
    /// Not resolved yet, or naga had no span (`Span::UNDEFINED`).
    Unknown,
    /// 1-based line and column in a text input (WGSL, GLSL).
    LineColumn { line: u32, column: u32 },
    /// Byte offset in a binary input (SPIR-V).
    ByteOffset(u32),
}

impl fmt::Display for SourcePosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourcePosition::Unknown => f.write_str("unknown location"),
            SourcePosition::LineColumn { line, column } => write!(f, "{line}:{column}"),
            SourcePosition::ByteOffset(offset) => write!(f, "byte offset {offset}"),
        }
    }
}

/// Why a validated naga module could not be lowered.
#[derive(Clone, Debug, PartialEq)]
pub enum LowerError {
    /// The shader uses something oxir cannot represent yet. Displays as
    /// `unsupported: FEATURE at LINE:COLUMN (in function F)`.
    Unsupported {
        /// What is unsupported, in the words of the shader language.
        feature: String,
        /// naga's span of the construct (`Span::UNDEFINED` when it has none).
        span: Span,
        /// Resolved by [`LowerError::located`].
        position: SourcePosition,
        /// The naga function or entry point being lowered, when there is one.
        function: Option<String>,
    },
    /// A bug in the lowering: it built something oxir's builder or verifier rejects.
    Internal {
        message: String,
        span: Span,
        position: SourcePosition,
        function: Option<String>,
    },
    /// [`crate::LowerOptions::entry_point`] names no entry point of the module.
    NoSuchEntryPoint {
        name: String,
        /// The entry points the module has.
        available: Vec<String>,
    },
}

impl LowerError {
    pub(crate) fn unsupported(feature: impl Into<String>, span: Span) -> Self {
        LowerError::Unsupported {
            feature: feature.into(),
            span,
            position: SourcePosition::Unknown,
            function: None,
        }
    }

    pub(crate) fn internal(message: impl Into<String>, span: Span) -> Self {
        LowerError::Internal {
            message: message.into(),
            span,
            position: SourcePosition::Unknown,
            function: None,
        }
    }

    /// Whether this is an `unsupported:` refusal (as opposed to an internal error).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, LowerError::Unsupported { .. })
    }

    /// The unsupported feature's name, for tallies.
    pub fn feature(&self) -> Option<&str> {
        match self {
            LowerError::Unsupported { feature, .. } => Some(feature),
            LowerError::Internal { .. } | LowerError::NoSuchEntryPoint { .. } => None,
        }
    }

    /// Span, position and function of the errors that have them.
    fn place_mut(&mut self) -> Option<(&mut Span, &mut SourcePosition, &mut Option<String>)> {
        match self {
            LowerError::Unsupported {
                span,
                position,
                function,
                ..
            }
            | LowerError::Internal {
                span,
                position,
                function,
                ..
            } => Some((span, position, function)),
            LowerError::NoSuchEntryPoint { .. } => None,
        }
    }

    pub fn span(&self) -> Span {
        match self {
            LowerError::Unsupported { span, .. } | LowerError::Internal { span, .. } => *span,
            LowerError::NoSuchEntryPoint { .. } => Span::UNDEFINED,
        }
    }

    pub fn position(&self) -> &SourcePosition {
        match self {
            LowerError::Unsupported { position, .. } | LowerError::Internal { position, .. } => {
                position
            }
            LowerError::NoSuchEntryPoint { .. } => &SourcePosition::Unknown,
        }
    }

    /// Names the function the error happened in, unless an inner function already did.
    pub(crate) fn in_function(mut self, name: &str) -> Self {
        if let Some((_, _, function)) = self.place_mut() {
            function.get_or_insert_with(|| name.to_string());
        }
        self
    }

    /// Gives a span to an error that has none yet.
    pub(crate) fn or_span(mut self, fallback: Span) -> Self {
        if let Some((span, _, _)) = self.place_mut() {
            if !span.is_defined() {
                *span = fallback;
            }
        }
        self
    }

    /// Resolves the span to a line and column in `source` (text inputs) or a byte offset
    /// (binary inputs: pass `None`).
    pub fn located(mut self, source: Option<&str>) -> Self {
        let resolved = position_of(self.span(), source);
        if let Some((_, position, _)) = self.place_mut() {
            *position = resolved;
        }
        self
    }

    fn unlocated(mut self) -> Self {
        if let Some((_, position, _)) = self.place_mut() {
            *position = SourcePosition::Unknown;
        }
        self
    }

    /// `PATH:LINE:COLUMN: <message>` followed by naga's rendering of the span with a source
    /// snippet (text inputs with a known span), or just the first line otherwise.
    pub fn render(&self, path: &str, source: Option<&str>) -> String {
        let located = self.clone().located(source);
        let mut out = match located.position() {
            SourcePosition::LineColumn { line, column } => {
                let message = self.clone().unlocated();
                format!("{path}:{line}:{column}: error: {message}\n")
            }
            _ => format!("{path}: error: {located}\n"),
        };
        if let Some((text, span)) = source.and_then(|t| span_in(self.span(), t).map(|s| (t, s))) {
            let label = match self {
                LowerError::Unsupported { .. } => "not supported by oxir",
                LowerError::Internal { .. } | LowerError::NoSuchEntryPoint { .. } => {
                    "while lowering this"
                }
            };
            // The snippet's header says where; its message need not.
            let message = self.clone().unlocated().to_string();
            let with_span = naga::WithSpan::new(Message(message)).with_span(span, label);
            out.push_str(&with_span.emit_to_string_with_path(text, path));
        }
        out
    }
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (prefix, what, position, function) = match self {
            LowerError::NoSuchEntryPoint { name, available } => {
                let available = match available.is_empty() {
                    true => "none".to_string(),
                    false => available.join(", "),
                };
                return write!(f, "no entry point `{name}` (entry points: {available})");
            }
            LowerError::Unsupported {
                feature,
                position,
                function,
                ..
            } => ("unsupported", feature, position, function),
            LowerError::Internal {
                message,
                position,
                function,
                ..
            } => ("internal error", message, position, function),
        };
        write!(f, "{prefix}: {what}")?;
        match position {
            SourcePosition::Unknown => {}
            known => write!(f, " at {known}")?,
        }
        if let Some(name) = function {
            write!(f, " (in `{name}`)")?;
        }
        Ok(())
    }
}

impl std::error::Error for LowerError {}

/// Where `span` is: a line and column in `source` (text inputs), a byte offset (binary
/// inputs: `None`), or unknown when the span is undefined or does not fit the text.
pub(crate) fn position_of(span: Span, source: Option<&str>) -> SourcePosition {
    match (source, span.to_range()) {
        (_, None) => SourcePosition::Unknown,
        (Some(text), Some(_)) => match span_in(span, text) {
            Some(span) => {
                let location = span.location(text);
                SourcePosition::LineColumn {
                    line: location.line_number,
                    column: location.line_position,
                }
            }
            None => SourcePosition::Unknown,
        },
        (None, Some(range)) => SourcePosition::ByteOffset(range.start as u32),
    }
}

/// `span` when it is defined and lies within `text` on character boundaries (naga's
/// `Span::location` slices the text and would panic otherwise).
pub(crate) fn span_in(span: Span, text: &str) -> Option<Span> {
    let range = span.to_range()?;
    let fits = range.start <= range.end
        && range.end <= text.len()
        && text.is_char_boundary(range.start)
        && text.is_char_boundary(range.end);
    fits.then_some(span)
}

/// A plain message, so naga's `WithSpan` can render oxir's errors.
#[derive(Debug)]
pub(crate) struct Message(pub(crate) String);

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Message {}

/// Any failure of the whole pipeline (parse, validate, overrides, lower).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error(transparent)]
    Frontend(#[from] FrontendError),
    #[error(transparent)]
    Override(#[from] crate::overrides::OverrideError),
    #[error(transparent)]
    Lower(#[from] LowerError),
}

pub type Result<T, E = LowerError> = std::result::Result<T, E>;
