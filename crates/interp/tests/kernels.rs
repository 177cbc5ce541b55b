//! Known-answer tests on real kernels; answers are computed independently in Rust.

mod common;
use common::*;
use oxir_interp::{Buffers, ErrorKind, MemoryOp, Options};
use oxir_ir::Opcode;

fn collatz(mut n: u32) -> u32 {
    let mut i = 0;
    while n > 1 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            n.wrapping_mul(3).wrapping_add(1)
        };
        i += 1;
    }
    i
}

#[test]
fn collatz_corpus_kernel() {
    let Some(dir) = corpus_dir() else {
        eprintln!("skipping: no shared/corpus directory above the repository");
        return;
    };
    let path = dir.join("naga/collatz.wgsl");
    if !path.exists() {
        eprintln!("skipping: {} is absent", path.display());
        return;
    }
    let module = compile_file(&path);
    let input: Vec<u32> = (1..=40).chain([27, 97, 871, 6171]).collect();
    let expected: Vec<u32> = input.iter().map(|&n| collatz(n)).collect();
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), from_u32s(&input));
        run(&m, "main", [input.len() as u32, 1, 1], &mut buffers);
        assert_eq!(u32s(&buffers[&(0, 0)]), expected);
    }
}

#[test]
fn prefix_sum_with_workgroup_memory_and_barriers() {
    let module = compile_file(&repo_root().join("tests/shaders/prefix_sum.wgsl"));
    let input: Vec<u32> = oxir_interp::random_bytes(4 * 256, 7)
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) % 1000)
        .collect();
    let mut expected = input.clone();
    for block in expected.chunks_mut(64) {
        for i in 1..block.len() {
            block[i] += block[i - 1];
        }
    }
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        for seed in [None, Some(1), Some(99)] {
            let mut buffers = Buffers::new();
            buffers.insert((0, 0), from_u32s(&input));
            let options = Options {
                shuffle_seed: seed,
                ..Options::default()
            };
            oxir_interp::dispatch(&m, "main", [4, 1, 1], &mut buffers, &options).unwrap();
            assert_eq!(u32s(&buffers[&(0, 0)]), expected, "seed {seed:?}");
        }
    }
}

#[test]
fn atomic_histogram() {
    let module = compile_file(&repo_root().join("tests/shaders/histogram.wgsl"));
    let input: Vec<u32> = oxir_interp::random_bytes(4 * 100, 3)
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let mut expected = [0u32; 16];
    for x in &input {
        expected[(x & 15) as usize] += 1;
    }
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), from_u32s(&input));
        let options = Options {
            shuffle_seed: Some(5),
            ..Options::default()
        };
        oxir_interp::dispatch(&m, "main", [4, 1, 1], &mut buffers, &options).unwrap();
        assert_eq!(u32s(&buffers[&(0, 1)]), expected);
    }
}

#[test]
fn clamp_scale_example_with_uniform_buffer() {
    let module = compile_file(&repo_root().join("examples/clamp_scale.wgsl"));
    let data: Vec<f32> = (0..100).map(|i| i as f32 - 20.0).collect();
    let (scale, count, limit) = (1.5f32, 90u32, 100.0f32);
    let mut params = Vec::new();
    params.extend(scale.to_le_bytes());
    params.extend(count.to_le_bytes());
    params.extend(limit.to_le_bytes());
    params.extend([0u8; 4]);
    let expected: Vec<f32> = data
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            if (i as u32) < count {
                (x * scale).max(0.0).min(limit)
            } else {
                x
            }
        })
        .collect();
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), params.clone());
        buffers.insert((0, 1), from_f32s(&data));
        run(&m, "main", [2, 1, 1], &mut buffers);
        assert_eq!(f32s(&buffers[&(0, 1)]), expected);
    }
}

#[test]
fn divergent_barrier_is_an_error_not_a_hang() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(4)
         fn main(@builtin(local_invocation_index) li: u32) {
             if li < 2u { workgroupBarrier(); }
             out[li] = li;
         }",
    );
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), vec![0; 16]);
    let e = oxir_interp::dispatch(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::DivergentBarrier { .. }),
        "{e:?}"
    );
    assert!(e.to_string().starts_with("divergent barrier: "), "{e}");
}

#[test]
fn runaway_loop_hits_the_instruction_limit() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1)
         fn main() { var i = 0u; loop { i = i + 1u; if i == 0u { break; } out[0] = i; } }",
    );
    let mut buffers = Buffers::new();
    let options = Options {
        max_instructions: 10_000,
        ..Options::default()
    };
    let e = oxir_interp::dispatch(&module, "main", [1, 1, 1], &mut buffers, &options).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InstructionLimit(10_000), "{e}");
    assert!(e.location.is_some());
    assert!(
        e.to_string()
            .starts_with("instruction limit of 10000 reached (a runaway loop?) (at @main, block"),
        "{e}"
    );
}

#[test]
fn variable_memory_is_budgeted_before_allocating() {
    // 16 invocations, each with a 64 KiB private array and a 4 KiB function array, and a
    // 64 KiB workgroup array: 64 Ki + 16 * (64 Ki + 4 Ki) = 1,179,648 bytes per workgroup.
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         var<private> p: array<u32, 16384>;
         var<workgroup> w: array<u32, 16384>;
         @compute @workgroup_size(16)
         fn main(@builtin(local_invocation_index) i: u32) {
             var f: array<u32, 1024>;
             f[i] = i; p[i] = f[i] + 1u; w[i] = p[i];
             workgroupBarrier();
             out[i] = w[15u - i];
         }",
    );
    let with_budget = |max_memory_bytes| Options {
        max_memory_bytes,
        ..Options::default()
    };
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), vec![0; 64]);
    oxir_interp::dispatch(
        &module,
        "main",
        [2, 1, 1],
        &mut buffers,
        &with_budget(1_179_648),
    )
    .unwrap();
    assert_eq!(
        u32s(&buffers[&(0, 0)]),
        (1..=16).rev().collect::<Vec<u32>>()
    );
    let e = oxir_interp::dispatch(
        &module,
        "main",
        [2, 1, 1],
        &mut buffers,
        &with_budget(1_179_647),
    )
    .unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::MemoryLimit {
                limit: 1_179_647,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("--max-memory"), "{e}");
}

#[test]
fn a_dispatch_larger_than_the_instruction_budget_is_refused_up_front() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(64) fn main() { out[0] = 1u; }",
    );
    let mut buffers = Buffers::new();
    let options = Options {
        max_instructions: 100_000,
        ..Options::default()
    };
    let e =
        oxir_interp::dispatch(&module, "main", [1600, 1, 1], &mut buffers, &options).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::DispatchTooLarge {
            invocations: 102_400,
            limit: 100_000
        }
    );
    oxir_interp::dispatch(&module, "main", [2, 1, 1], &mut buffers, &options).unwrap();
}

#[test]
fn out_of_bounds_robust_and_error_modes() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(1)
         fn main() { out[0] = out[7] + 5u; out[9] = 1u; }",
    );
    let mut buffers = Buffers::new();
    buffers.insert((0, 0), vec![1; 8]);
    oxir_interp::dispatch(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &Options::default(),
    )
    .unwrap();
    assert_eq!(u32s(&buffers[&(0, 0)]), [5, 0x0101_0101]);
    let options = Options {
        out_of_bounds: oxir_interp::OutOfBounds::Error,
        ..Options::default()
    };
    let e = oxir_interp::dispatch(&module, "main", [1, 1, 1], &mut buffers, &options).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::OutOfBounds {
                op: MemoryOp::Load,
                offset: 28,
                ..
            }
        ),
        "{e:?}"
    );
    let location = e.location.as_ref().expect("a located error");
    assert_eq!(location.function, "main");
    assert_eq!(location.inst.map(|(_, op)| op), Some(Opcode::Load), "{e}");
    assert!(
        e.to_string()
            .starts_with("out-of-bounds load at byte offset 28 of Buffer(0) (at @main, block"),
        "{e}"
    );
    assert!(
        e.to_string()
            .ends_with(" (load), local invocation 0, workgroup [0, 0, 0])"),
        "{e}"
    );
}

#[test]
fn seeded_shuffle_exposes_a_race() {
    // Every invocation writes its index to the same word: the result is the index of the
    // invocation that ran last, which only the invocation order decides.
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         @compute @workgroup_size(16)
         fn main(@builtin(local_invocation_index) li: u32) { out[0] = li; }",
    );
    let last = |seed: Option<u64>| {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![0; 4]);
        let options = Options {
            shuffle_seed: seed,
            ..Options::default()
        };
        oxir_interp::dispatch(&module, "main", [1, 1, 1], &mut buffers, &options).unwrap();
        u32s(&buffers[&(0, 0)])[0]
    };
    assert_eq!(
        last(None),
        15,
        "ascending local invocation index by default"
    );
    assert_eq!(last(Some(3)), last(Some(3)), "a seed is deterministic");
    let results: std::collections::BTreeSet<u32> = (0..8).map(|s| last(Some(s))).collect();
    assert!(
        results.len() > 1,
        "shuffling changes the winner: {results:?}"
    );
}

#[test]
fn workgroup_uniform_load_and_storage_barrier() {
    let module = compile_wgsl(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
         var<workgroup> shared_max: atomic<u32>;
         var<workgroup> flag: u32;
         @compute @workgroup_size(8)
         fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
             atomicMax(&shared_max, li * 3u + wg.x);
             if li == 7u { flag = 40u + wg.x; }
             let f = workgroupUniformLoad(&flag);
             storageBarrier();
             out[wg.x * 8u + li] = atomicLoad(&shared_max) + f;
         }",
    );
    for m in [module.clone(), normalized(&module), structurized(&module)] {
        let mut buffers = Buffers::new();
        buffers.insert((0, 0), vec![0; 4 * 16]);
        run(&m, "main", [2, 1, 1], &mut buffers);
        let out = u32s(&buffers[&(0, 0)]);
        assert_eq!(&out[..8], &[21 + 40; 8]);
        assert_eq!(&out[8..], &[22 + 41; 8]);
    }
}
