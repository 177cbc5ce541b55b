//! Shared checks of oxir's fuzz targets.
//!
//! Every target ends in the same oracles: each pass leaves a module that verifies, the
//! SPIR-V writer and the interpreter return errors rather than panic, and printed text
//! parses back. A failed oracle panics, which libFuzzer records as a crash.
//!
//! Two things are deliberately *not* fuzzed here:
//! - Resource exhaustion the interpreter does not yet refuse (huge workgroups, huge
//!   private arrays, huge buffers): modules beyond [`Limits`] are not executed, so the
//!   fuzzer spends its time on oxir's logic instead of reporting known out-of-memory.
//! - Panics inside naga's parsers and validator: [`contain_naga`] turns them into a
//!   skipped input and saves one reproducer per panic location under
//!   `fuzz/artifacts/naga-panics/TARGET/`, so the fuzzer keeps exploring oxir's code
//!   behind naga.

pub mod vulkan;

use arbitrary::{Arbitrary, Unstructured};
use oxir_interp::{Buffers, ErrorKind, Options};
use oxir_ir::printer::{print_module, View};
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::types::TypeData;
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::{FunctionKind, Module, Type};
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::{Mutex, Once, OnceLock};

/// What the fuzz targets execute at most: larger modules are compiled but not run.
pub struct Limits;

impl Limits {
    /// Invocations per workgroup.
    pub const INVOCATIONS: u64 = 256;
    /// Bytes of any one type or buffer.
    pub const BYTES: u64 = 1 << 16;
    /// Interpreter instructions of a reference run.
    pub const INSTRUCTIONS: u64 = 200_000;
    /// Interpreter instructions after a pipeline (passes may add loads and stores).
    pub const INSTRUCTIONS_AFTER: u64 = 2_000_000;
}

thread_local! {
    static IN_NAGA: Cell<bool> = const { Cell::new(false) };
    static NAGA_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();
static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Chains a panic hook that records the location of a panic inside [`contain_naga`] and
/// leaves every other panic to the previous hook (libFuzzer's, which aborts).
fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_NAGA.with(Cell::get) {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_else(|| "unknown".into());
                NAGA_PANIC.with(|p| *p.borrow_mut() = Some(at));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `naga_call` (naga's parse and validation, nothing of oxir's) and returns `None`
/// when it panics, saving `input` once per panic location.
/// With `OXIR_FUZZ_NAGA_UNCONTAINED` set, naga's panics are crashes like any other (so
/// `cargo fuzz tmin` can minimise a saved reproducer).
pub fn contain_naga<T>(target: &str, input: &[u8], naga_call: impl FnOnce() -> T) -> Option<T> {
    static UNCONTAINED: OnceLock<bool> = OnceLock::new();
    if *UNCONTAINED.get_or_init(|| std::env::var_os("OXIR_FUZZ_NAGA_UNCONTAINED").is_some()) {
        return Some(naga_call());
    }
    install_hook();
    IN_NAGA.with(|f| f.set(true));
    let result = catch_unwind(AssertUnwindSafe(naga_call));
    IN_NAGA.with(|f| f.set(false));
    match result {
        Ok(value) => Some(value),
        Err(_) => {
            let at = NAGA_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "unknown".into());
            // `…/naga-30.0.2/src/front/spv/mod.rs:2528`, without the registry path.
            let at = at.find("naga-").map_or(at.as_str(), |i| &at[i..]);
            record_naga_panic(target, at, input);
            None
        }
    }
}

fn record_naga_panic(target: &str, at: &str, input: &[u8]) {
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.get_or_insert_with(HashSet::new).insert(at.to_string()) {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("artifacts/naga-panics")
        .join(target);
    let file: String = at
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = dir.join(file);
    if std::fs::create_dir_all(&dir).is_ok() && !path.exists() {
        let _ = std::fs::write(&path, input);
    }
    eprintln!(
        "naga panic (contained) at {at}; input saved as {}",
        path.display()
    );
}

/// The default verifier, and a panic naming `context` when it rejects `module`.
pub fn assert_verifies(module: &Module, options: &VerifierOptions, context: &str) {
    let report = verify_module(module, options);
    assert!(
        report.succeeded(),
        "{context}: output does not verify:\n{report}\n{}",
        print_module(module, View::Flat)
    );
}

/// The printed module parses back and verifies again.
pub fn assert_round_trips(module: &Module, context: &str) {
    let text = print_module(module, View::Flat);
    match oxir_ir::parser::parse_module(&text) {
        Ok(parsed) => assert_verifies(&parsed, &VerifierOptions::default(), context),
        Err(e) => panic!("{context}: printed text does not parse back: {e}\n{text}"),
    }
}

/// A random module from the generator, its seed and configuration drawn from `u`.
pub fn random_module(u: &mut Unstructured<'_>) -> arbitrary::Result<Module> {
    let seed = u64::arbitrary(u)?;
    let config = GenConfig {
        structured: bool::arbitrary(u)?,
        plain: bool::arbitrary(u)?,
        max_depth: u.int_in_range(0..=5)?,
        max_insts: u.int_in_range(0..=300)?,
        merge_params: bool::arbitrary(u)?,
    };
    Ok(generate_module(seed, config))
}

/// A verified module from `data`: its first byte chooses the generator (even) or the
/// text parser (odd) for the rest. `None` when the text does not parse or verify.
pub fn module_from(data: &[u8]) -> Option<Module> {
    let (&mode, rest) = data.split_first()?;
    let module = if mode % 2 == 0 {
        random_module(&mut Unstructured::new(rest)).ok()?
    } else {
        oxir_ir::parser::parse_module(std::str::from_utf8(rest).ok()?).ok()?
    };
    verify_module(&module, &VerifierOptions::default())
        .succeeded()
        .then_some(module)
}

/// Each registered pass, alone on a copy of `module`: it refuses, or its output verifies.
pub fn every_pass_verifies(module: &Module) {
    for name in oxir_passes::registry::pass_names() {
        let Some(pass) = oxir_passes::registry::create(name) else {
            panic!("registered pass `{name}` cannot be created");
        };
        let mut copy = module.clone();
        if pass(&mut copy).failure.is_none() {
            assert_verifies(&copy, &VerifierOptions::default(), name);
        }
    }
}

/// The SPIR-V back-end's pipeline and writer on a copy of `module`; refusals are fine,
/// and written words disassemble.
pub fn write_spirv(module: &Module) {
    let mut copy = module.clone();
    if oxir_spirv::pipeline().run(&mut copy).error.is_some() {
        return;
    }
    if let Ok(words) = oxir_spirv::write_module(&copy, &oxir_spirv::Options::default()) {
        let _ = oxir_spirv::disassemble(&words);
    }
}

/// A saturating estimate of the bytes of `ty` (arrays multiply, structs add).
fn footprint(module: &Module, ty: Type, depth: u32) -> u64 {
    if depth > 64 {
        return u64::MAX;
    }
    match module.types.try_get(ty) {
        Some(TypeData::Array { elem, len, .. }) => {
            footprint(module, *elem, depth + 1).saturating_mul(u64::from(*len))
        }
        Some(TypeData::RuntimeArray { elem, .. }) => footprint(module, *elem, depth + 1),
        Some(TypeData::Struct(st)) => st
            .members
            .iter()
            .map(|m| {
                footprint(module, m.ty, depth + 1).saturating_add(m.offset.unwrap_or(0).into())
            })
            .fold(0, u64::saturating_add),
        Some(
            TypeData::Void
            | TypeData::Scalar(_)
            | TypeData::Vector { .. }
            | TypeData::Matrix { .. }
            | TypeData::Pointer { .. }
            | TypeData::Texture { .. }
            | TypeData::StorageTexture { .. }
            | TypeData::Sampler { .. }
            | TypeData::Opaque(_),
        )
        | None => 64,
    }
}

/// Whether the interpreter may run `module` within [`Limits`].
pub fn within_limits(module: &Module) -> bool {
    let small_types = module
        .types
        .iter()
        .all(|(ty, _)| footprint(module, ty, 0) <= Limits::BYTES);
    let small_groups = module.functions.values().all(|f| match f.kind {
        FunctionKind::Kernel { workgroup_size, .. } => {
            workgroup_size
                .iter()
                .map(|&n| u64::from(n))
                .fold(1, u64::saturating_mul)
                <= Limits::INVOCATIONS
        }
        FunctionKind::Callable
        | FunctionKind::Vertex
        | FunctionKind::Fragment
        | FunctionKind::External => true,
    });
    small_types && small_groups
}

/// Buffers for every binding of `module` (runtime-sized ones with 64 extra words),
/// filled from `seed`; `None` beyond [`Limits`] or when the bindings cannot be laid out.
pub fn random_buffers(module: &Module, seed: u64) -> Option<Buffers> {
    let bindings = oxir_interp::bindings(module).ok()?;
    let mut buffers = Buffers::new();
    for (index, (&key, info)) in bindings.iter().enumerate() {
        let size = info.min_size + if info.runtime_sized { 256 } else { 0 };
        if size > Limits::BYTES {
            return None;
        }
        let bytes = oxir_interp::random_bytes(size as usize, seed ^ index as u64);
        buffers.insert(key, bytes);
    }
    Some(buffers)
}

/// Every kernel of `module` run over two workgroups on `inputs`: the buffers, or the
/// error text, per run; `None` when a run ran out of its instruction budget.
pub fn run_kernels(
    module: &Module,
    inputs: &Buffers,
    limit: u64,
) -> Option<Vec<Result<Buffers, String>>> {
    let options = Options {
        max_instructions: limit,
        ..Options::default()
    };
    let mut out = Vec::new();
    for f in module.functions.values() {
        if let FunctionKind::Kernel { .. } = f.kind {
            let mut buffers = inputs.clone();
            match oxir_interp::dispatch(module, &f.name, [2, 1, 1], &mut buffers, &options) {
                Ok(_) => out.push(Ok(buffers)),
                Err(e) if matches!(e.kind, ErrorKind::InstructionLimit(_)) => return None,
                Err(e) => out.push(Err(e.to_string())),
            }
        }
    }
    Some(out)
}

/// Runs the kernels of `module` when it is within [`Limits`]; errors are fine.
pub fn interpret(module: &Module, seed: u64) {
    if !within_limits(module) {
        return;
    }
    if let Some(inputs) = random_buffers(module, seed) {
        let _ = run_kernels(module, &inputs, Limits::INSTRUCTIONS);
    }
}

/// A module a front-end produced: it round-trips through the text form, every pass
/// keeps it valid, the SPIR-V writer takes or refuses it, and the interpreter runs it.
pub fn check_lowered(module: &Module, context: &str) {
    assert_verifies(module, &oxir_naga::verifier_options(), context);
    assert_round_trips(module, context);
    write_spirv(module);
    interpret(module, 1);
}

/// `input` through `oxir_driver`: loaded (what `Target::Oxir` prints), compiled to
/// SPIR-V from the loaded module, then [`check_lowered`]. Driver errors are fine.
pub fn check_driver(input: oxir_driver::Input<'_>) {
    let options = oxir_driver::CompileOptions::default();
    let name = input.name.to_string();
    let Ok(module) = oxir_driver::load(input, &options) else {
        return;
    };
    let _ = oxir_driver::compile(
        oxir_driver::Input::module(&module),
        oxir_driver::Target::Spirv,
        &options,
    );
    check_lowered(&module, &name);
}
