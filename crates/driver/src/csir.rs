//! The CSIR targets: `csir` (the readable listing), `tgsi` (text for VirGL) and `csi`
//! (the binary format). One vertex or fragment entry point is lowered
//! ([`CompileOptions::entry_point`], or the module's only one), optimised, verified and
//! emitted; see `oxir_csir`.

use crate::{Artifact, CompileOptions, Error, Target};
use oxir_csir::lower::{entry_points, lower, LowerError};
use oxir_csir::Limits;
use oxir_ir::Module;

/// The entry point to lower: the requested one, or the only vertex / fragment one.
fn entry(module: &Module, options: &CompileOptions) -> Result<String, Error> {
    let entries = entry_points(module);
    if let Some(name) = &options.entry_point {
        return Ok(name.clone());
    }
    match entries.as_slice() {
        [(name, _)] => Ok(name.clone()),
        [] => Err(unsupported(
            "CSIR compiles vertex and fragment entry points; there is none".into(),
        )),
        many => {
            let names: Vec<&str> = many.iter().map(|(n, _)| n.as_str()).collect();
            Err(unsupported(format!(
                "CSIR compiles one entry point at a time: choose one of {} with --entry",
                names.join(", ")
            )))
        }
    }
}

fn unsupported(what: String) -> Error {
    Error::Unsupported {
        what,
        location: oxir_spirv::Location::default(),
    }
}

fn spirv_location(l: oxir_csir::lower::Location) -> oxir_spirv::Location {
    oxir_spirv::Location {
        function: l.function,
        block: l.block,
        instruction: l.instruction,
    }
}

/// Maps the lowering's error to the driver's layers.
fn from_lower(error: LowerError) -> Error {
    match error {
        LowerError::Unsupported { what, location } => Error::Unsupported {
            what,
            location: spirv_location(location),
        },
        LowerError::Pool {
            pool,
            limit,
            location,
        } => Error::Unsupported {
            what: format!("the CSIR {pool} pool overflows its {limit} entries"),
            location: spirv_location(location),
        },
        LowerError::NoSuchEntryPoint(name) => unsupported(format!(
            "`{name}` is not a vertex or fragment entry point (CSIR compiles those only)"
        )),
        LowerError::Pipeline(_) | LowerError::Internal(_) => Error::CsirInternal(error),
    }
}

/// Lowers, optimises and emits a module the CSIR pipeline prepared.
pub(crate) fn emit(
    module: &Module,
    target: Target,
    options: &CompileOptions,
) -> Result<Artifact, Error> {
    let limits = Limits::default();
    let name = entry(module, options)?;
    let mut shader = lower(module, &name, &limits).map_err(from_lower)?;
    let internal =
        |e: oxir_csir::VerifyError| Error::CsirInternal(LowerError::Internal(e.to_string()));
    oxir_csir::opt::optimize(&mut shader, &limits).map_err(internal)?;
    let verified = oxir_csir::verify(&shader, &limits).map_err(internal)?;
    match target {
        Target::Csir => Ok(Artifact::Csir(oxir_csir::dump::dump(&shader))),
        Target::Tgsi => Ok(Artifact::Tgsi(oxir_csir::tgsi::emit(&verified, None).text)),
        Target::Csi => Ok(Artifact::Csi(oxir_csir::binary::write(&shader))),
        Target::Oxir | Target::Spirv | Target::SpirvAsm | Target::LlvmNvptx | Target::Ptx => {
            Err(Error::CsirInternal(LowerError::Internal(format!(
                "{target:?} is not a CSIR target"
            ))))
        }
    }
}
