//! What the driver reads: a named source in one of oxir's input languages, or a module
//! already built in memory.
//!
//! The name is used in diagnostics only (naga's snippets and the lowering's
//! `NAME:LINE:COLUMN` lines); nothing is read from disk.

use oxir_ir::Module;
use oxir_naga::GlslStage;
use std::borrow::Cow;

/// A named input of [`crate::compile`].
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// How diagnostics name the input (a file name, typically).
    pub name: &'a str,
    /// The input and its language.
    pub source: Source<'a>,
}

/// An input with its language.
#[derive(Clone, Debug)]
pub enum Source<'a> {
    /// WGSL text.
    Wgsl(&'a str),
    /// GLSL text of one stage.
    Glsl(&'a str, GlslStage),
    /// A SPIR-V binary (the `.spv` file's bytes, little-endian words).
    SpirvBytes(&'a [u8]),
    /// A SPIR-V binary as words.
    SpirvWords(&'a [u32]),
    /// oxir text (the format `oxir_ir::printer` writes).
    OxirText(&'a str),
    /// A module already built (by `oxir_ir::builder`, say); used as it is, never modified.
    Module(&'a Module),
}

impl<'a> Input<'a> {
    /// WGSL text named `name`.
    pub fn wgsl(name: &'a str, text: &'a str) -> Self {
        Input {
            name,
            source: Source::Wgsl(text),
        }
    }

    /// GLSL text of one stage, named `name`.
    pub fn glsl(name: &'a str, text: &'a str, stage: GlslStage) -> Self {
        Input {
            name,
            source: Source::Glsl(text, stage),
        }
    }

    /// A SPIR-V binary as the bytes of a `.spv` file, named `name`.
    pub fn spirv_bytes(name: &'a str, bytes: &'a [u8]) -> Self {
        Input {
            name,
            source: Source::SpirvBytes(bytes),
        }
    }

    /// A SPIR-V binary as words, named `name`.
    pub fn spirv_words(name: &'a str, words: &'a [u32]) -> Self {
        Input {
            name,
            source: Source::SpirvWords(words),
        }
    }

    /// oxir text, named `name`.
    pub fn oxir_text(name: &'a str, text: &'a str) -> Self {
        Input {
            name,
            source: Source::OxirText(text),
        }
    }

    /// A built module, named `module` in diagnostics.
    pub fn module(module: &'a Module) -> Self {
        Input {
            name: "module",
            source: Source::Module(module),
        }
    }
}

/// A shader for naga, with the bytes of a SPIR-V input made contiguous.
pub(crate) enum Shader<'a> {
    Text(&'a str, Option<GlslStage>),
    Binary(Cow<'a, [u8]>),
}

/// What an input is, once: a shader for naga, oxir text, or a built module.
pub(crate) enum Classified<'a> {
    Shader(Shader<'a>),
    OxirText(&'a str),
    Module(&'a Module),
}

impl<'a> Classified<'a> {
    /// Classifies `source`.
    pub(crate) fn of(source: &Source<'a>) -> Self {
        match *source {
            Source::Wgsl(text) => Classified::Shader(Shader::Text(text, None)),
            Source::Glsl(text, stage) => Classified::Shader(Shader::Text(text, Some(stage))),
            Source::SpirvBytes(bytes) => Classified::Shader(Shader::Binary(Cow::Borrowed(bytes))),
            Source::SpirvWords(words) => Classified::Shader(Shader::Binary(Cow::Owned(
                words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            ))),
            Source::OxirText(text) => Classified::OxirText(text),
            Source::Module(module) => Classified::Module(module),
        }
    }
}

impl<'a> Shader<'a> {
    pub(crate) fn naga_source(&self) -> oxir_naga::ShaderSource<'_> {
        match self {
            Shader::Text(text, None) => oxir_naga::ShaderSource::Wgsl(text),
            Shader::Text(text, Some(stage)) => oxir_naga::ShaderSource::Glsl(text, *stage),
            Shader::Binary(bytes) => oxir_naga::ShaderSource::SpirV(bytes),
        }
    }
}
