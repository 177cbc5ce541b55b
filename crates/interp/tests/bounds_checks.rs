//! The `bounds-checks` pass against the interpreter's robust mode, on random modules
//! (`oxir-ir/random`): after `normalize` (which ends in the pass, default policy) every
//! module verifies, its run under `OutOfBounds::Error` never reports an out-of-bounds
//! access, and its buffers equal the robust run of the input. Buffers are given random
//! sizes, many shorter than the workgroup, so the kernels' stores through
//! `local_invocation_index` do go out of range.

use oxir_interp::{Buffers, ErrorKind, Options, OutOfBounds};
use oxir_ir::random_modules::{generate_module, GenConfig};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_passes::passes::bounds_checks::{BoundsPolicy, Policy};

fn run(
    module: &oxir_ir::Module,
    input: &Buffers,
    mode: OutOfBounds,
) -> Result<Buffers, oxir_interp::Error> {
    let mut buffers = input.clone();
    let options = Options {
        out_of_bounds: mode,
        max_instructions: 2_000_000,
        ..Options::default()
    };
    oxir_interp::dispatch(module, "main", [2, 1, 1], &mut buffers, &options).map(|_| buffers)
}

fn is_out_of_bounds(e: &oxir_interp::Error) -> bool {
    matches!(e.kind, ErrorKind::OutOfBounds { .. })
}

#[test]
fn checked_random_modules_never_go_out_of_bounds_and_match_robust_runs() {
    let (mut compared, mut out_of_range_inputs) = (0, 0);
    for seed in 0..80u64 {
        let module = generate_module(seed, GenConfig::default());
        let mut checked = module.clone();
        let stats = oxir_passes::pipelines::normalize().run(&mut checked);
        assert!(
            stats.succeeded(),
            "seed {seed}: normalize failed:\n{}",
            stats.log("normalize")
        );
        let report = verify_module(&checked, &VerifierOptions::default());
        assert!(
            report.succeeded(),
            "seed {seed}: checked module does not verify:\n{report}"
        );
        for words in [0usize, 3, 17, 64, 200] {
            let mut input = Buffers::new();
            input.insert(
                (0, 0),
                oxir_interp::random_bytes(4 * words, seed * 131 + words as u64),
            );
            let Ok(reference) = run(&module, &input, OutOfBounds::Robust) else {
                continue; // instruction budget, or another run-time error before the pass
            };
            if run(&module, &input, OutOfBounds::Error).is_err_and(|e| is_out_of_bounds(&e)) {
                out_of_range_inputs += 1;
            }
            match run(&checked, &input, OutOfBounds::Error) {
                Ok(after) => assert_eq!(after, reference, "seed {seed}, {words} words"),
                Err(e) => panic!("seed {seed}, {words} words: checked module failed: {e}"),
            }
            compared += 1;
        }
    }
    eprintln!(
        "{compared} runs compared, {out_of_range_inputs} of them out of range before the checks"
    );
    assert!(compared >= 200, "only {compared} runs compared");
    assert!(
        out_of_range_inputs >= 50,
        "only {out_of_range_inputs} runs went out of range"
    );
}

#[test]
fn restrict_never_goes_out_of_bounds_on_random_modules() {
    for seed in 0..40u64 {
        let mut checked = generate_module(seed, GenConfig::default());
        let policy = BoundsPolicy::uniform(Policy::Restrict);
        let stats = oxir_passes::pipelines::normalize_with(policy).run(&mut checked);
        assert!(
            stats.succeeded(),
            "seed {seed}:\n{}",
            stats.log("normalize")
        );
        for words in [0usize, 5, 64] {
            let mut input = Buffers::new();
            input.insert(
                (0, 0),
                oxir_interp::random_bytes(4 * words, seed + words as u64),
            );
            if let Err(e) = run(&checked, &input, OutOfBounds::Error) {
                assert!(!is_out_of_bounds(&e), "seed {seed}, {words} words: {e}");
            }
        }
    }
}

/// A checked pointer that reaches its store through a block parameter (the guard is
/// placed by following the store's pointer to its `access`): with a fixed-size array
/// under `restrict` the clamp at the access is complete, and over random indices the
/// checked kernel never goes out of bounds; under the default policy, and for a
/// runtime-sized array under `restrict` (empty when the buffer is), the pass refuses the
/// module instead of emitting an unguarded store.
#[test]
fn pointers_through_block_parameters_are_clamped_or_refused() {
    let kernel = |target: &str| {
        let name = if target == "workgroup" { "tile" } else { "idx" };
        format!(
            "const c0: u32 = 0\nconst c1: u32 = 1\n\
             global @idx: storage(read_write) array<u32> binding(0, 0)\n\
             global @tile: workgroup array<u32, 4>\n\
             kernel @main() workgroup_size(4, 1, 1) {{\nblock0:\n\
             v0: ptr<storage(read_write), u32> = access @idx, c0\n\
             v1: u32 = load v0\n\
             v2: ptr<{target}, u32> = access @{name}, v1\n\
             v4: ptr<{target}, u32> = access @{name}, c0\n\
             v5: u32 = and v1, c1\n\
             v6: bool = ne v5, c0\n\
             cond_br v6, block2, block3\n\
             block2:\nbr block1(v2)\nblock3:\nbr block1(v4)\n\
             block1(v3: ptr<{target}, u32>):\n\
             store v3, c1\n\
             return\n}}\n",
        )
    };
    let fixed = oxir_ir::parser::parse_module(&kernel("workgroup")).expect("parses");
    let runtime = oxir_ir::parser::parse_module(&kernel("storage(read_write)")).expect("parses");
    let refuses = |module: &oxir_ir::Module, policy: BoundsPolicy| {
        let mut m = module.clone();
        let stats = oxir_passes::pipelines::normalize_with(policy).run(&mut m);
        stats.error.is_some()
    };
    assert!(refuses(&fixed, BoundsPolicy::default()));
    assert!(refuses(&runtime, BoundsPolicy::default()));
    assert!(refuses(&runtime, BoundsPolicy::uniform(Policy::Restrict)));
    let mut checked = fixed.clone();
    let stats = oxir_passes::pipelines::normalize_with(BoundsPolicy::uniform(Policy::Restrict))
        .run(&mut checked);
    assert!(stats.succeeded(), "{}", stats.log("normalize"));
    let mut out_of_range = 0;
    for seed in 0..64u64 {
        let mut input = Buffers::new();
        input.insert((0, 0), oxir_interp::random_bytes(16, seed));
        if run(&fixed, &input, OutOfBounds::Error).is_err_and(|e| is_out_of_bounds(&e)) {
            out_of_range += 1;
        }
        if let Err(e) = run(&checked, &input, OutOfBounds::Error) {
            assert!(!is_out_of_bounds(&e), "seed {seed}: {e}");
        }
    }
    assert!(
        out_of_range >= 32,
        "only {out_of_range} inputs went out of range"
    );
}

/// Each of 4 invocations copies `@inp[i].a` to `@out[i]` and writes 7 to `@inp[i].a`;
/// `@out[4]` gets `array_length @inp`. `%P` is 8 bytes, so a 20-byte `@inp` holds two
/// whole elements and ends 4 bytes into the third.
const PARTIAL_ELEMENT: &str = "\
struct %P { a: u32, b: u32 }

const c0: u32 = 0
const c4: u32 = 4
const c7: u32 = 7

global @inp: storage(read_write) array<%P> binding(0, 0)
global @out: storage(read_write) array<u32> binding(0, 1)

kernel @main() workgroup_size(4, 1, 1) {
block0:
    v0: u32 = local_invocation_index
    v1: ptr<storage(read_write), u32> = access @inp, v0, c0
    v2: u32 = load v1
    v3: ptr<storage(read_write), u32> = access @out, v0
    store v3, v2
    store v1, c7
    v4: u32 = array_length @inp
    v5: ptr<storage(read_write), u32> = access @out, c4
    store v5, v4
    return
}
";

fn words(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// One workgroup (the kernel writes what it reads, so a second one would see the first's
/// stores).
fn run_one_group(m: &oxir_ir::Module, input: &Buffers, mode: OutOfBounds) -> Option<Buffers> {
    let mut buffers = input.clone();
    let options = Options {
        out_of_bounds: mode,
        ..Options::default()
    };
    oxir_interp::dispatch(m, "main", [1, 1, 1], &mut buffers, &options)
        .ok()
        .map(|_| buffers)
}

/// A buffer that ends inside an element of its runtime-sized array: that element is out
/// of range for the interpreter exactly as for `array_length` (and the bounds checks and
/// Vulkan that use it), so its first member, whose bytes the buffer does hold, reads zero
/// and is not written. Before, the interpreter's bound was the buffer's byte length: it
/// read 15 there and wrote 7, where the checked module read zero.
#[test]
fn a_buffer_ending_inside_an_element_is_bounded_by_array_length() {
    let module = oxir_ir::parser::parse_module(PARTIAL_ELEMENT).expect("parses");
    let mut checked = module.clone();
    assert!(oxir_passes::pipelines::normalize()
        .run(&mut checked)
        .succeeded());
    let mut input = Buffers::new();
    input.insert((0, 0), words(&[11, 12, 13, 14, 15]));
    input.insert((0, 1), words(&[0; 5]));
    let mut expected = Buffers::new();
    expected.insert((0, 0), words(&[7, 12, 7, 14, 15]));
    expected.insert((0, 1), words(&[11, 13, 0, 0, 2]));
    for (name, m) in [("input", &module), ("checked", &checked)] {
        let robust = run_one_group(m, &input, OutOfBounds::Robust);
        assert_eq!(robust, Some(expected.clone()), "{name} module");
    }
    let strict = run(&module, &input, OutOfBounds::Error);
    assert!(
        strict.as_ref().is_err_and(is_out_of_bounds),
        "the third element is out of bounds: {strict:?}"
    );
    let checked_strict = run_one_group(&checked, &input, OutOfBounds::Error);
    assert_eq!(checked_strict, Some(expected));
}
