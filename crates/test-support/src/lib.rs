//! Helpers shared by oxir's tests and benchmarks: where the repository and the shared
//! shader corpus are. Not published; a dev-dependency only.
//!
//! The corpus (third-party shaders, `OXIR_CORPUS_DIR`) is never copied into the
//! repository: tests read it in place and skip, with a message, when it is absent.
//!
//! [`spirv_duplicates`]: duplicate type and constant declarations in SPIR-V words;
//! [`spirv_val`]: running `spirv-val`; [`refusals`]: the README's table of refusal reasons.

pub mod refusals;
pub mod spirv_duplicates;
pub mod spirv_val;

use std::path::{Path, PathBuf};

/// The repository root (the workspace folder).
pub fn repo_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The shader corpus: `$OXIR_CORPUS_DIR` when set, else the first `shared/corpus` folder
/// found walking up from the repository root (`../shared/corpus` from a checkout; a git
/// worktree nested deeper finds the same folder further up). `None` when there is none.
pub fn corpus_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("OXIR_CORPUS_DIR") {
        let dir = PathBuf::from(dir);
        return dir.is_dir().then_some(dir);
    }
    repo_root()
        .ancestors()
        .map(|dir| dir.join("shared/corpus"))
        .find(|dir| dir.is_dir())
}

/// The files of `tests/shaders/` and of the corpus's `naga` and `wgpu-examples` folders
/// whose extension is one of `extensions`, sorted; a message on stderr when there is no
/// corpus (then `tests/shaders/` only).
pub fn shader_files(extensions: &[&str]) -> Vec<PathBuf> {
    let mut dirs = vec![repo_root().join("tests/shaders")];
    match corpus_dir() {
        Some(corpus) => dirs.extend(["naga", "wgpu-examples"].map(|sub| corpus.join(sub))),
        None => eprintln!("no shader corpus (OXIR_CORPUS_DIR): tests/shaders only"),
    }
    let mut files: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"), "{manifest}");
    }

    #[test]
    fn an_explicit_corpus_folder_must_exist() {
        // Only this test sets the variable, and it restores it.
        let before = std::env::var_os("OXIR_CORPUS_DIR");
        std::env::set_var("OXIR_CORPUS_DIR", repo_root().join("no-such-folder"));
        assert_eq!(corpus_dir(), None);
        std::env::set_var("OXIR_CORPUS_DIR", repo_root().join("tests"));
        assert_eq!(corpus_dir(), Some(repo_root().join("tests")));
        match before {
            Some(v) => std::env::set_var("OXIR_CORPUS_DIR", v),
            None => std::env::remove_var("OXIR_CORPUS_DIR"),
        }
    }
}
