//! `oxir link VS.csi FS.csi`: loads two CSI files (the loader checks the format and runs
//! the CSIR verifier), links the fragment inputs to the vertex outputs by name and type,
//! and prints the remapped interface, one varying a line.

use crate::diagnostics::Failure;
use std::path::Path;

fn load(path: &Path) -> Result<oxir_csir::Shader, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::Usage(format!("cannot read {}: {e}", path.display())))?;
    oxir_csir::binary::read(&bytes, &oxir_csir::Limits::default()).map_err(|e| {
        eprintln!("error: {}: {e}", path.display());
        Failure::Rejected
    })
}

/// Links `vs` and `fs` and prints the remap (exit 1 when they do not link).
pub fn link(vs: &Path, fs: &Path) -> Result<(), Failure> {
    let (v, f) = (load(vs)?, load(fs)?);
    let link = oxir_csir::link::link(&v, &f).map_err(|e| {
        eprintln!("error: {} + {}: {e}", vs.display(), fs.display());
        Failure::Rejected
    })?;
    println!(
        "link {} ({}) + {} ({})",
        v.name,
        vs.display(),
        f.name,
        fs.display()
    );
    for r in &link.varyings {
        println!(
            "varying {} {}: fragment slot {} <- vertex slot {}",
            r.ty, r.name, r.fragment_slot, r.vertex_slot
        );
    }
    for name in &link.unused_outputs {
        println!("unused vertex output {name}");
    }
    Ok(())
}
