//! The loop passes against the interpreter on random loop kernels: WGSL programs with
//! nested counted loops (trip counts 0, 1, 2, a few, many and data-dependent ones, up
//! and down), early exits (`break`) and loops with barriers (only where every invocation
//! of the workgroup runs the same trip count, as WGSL requires), normalised to plain SSA.
//! Every pass sequence must keep each module valid and every kernel's buffers the same
//! on three random inputs; the unroller must have unrolled loops fully and partially and
//! copied barriers, so a pass that silently does nothing fails the test.

mod common;
use common::*;
use oxir_ir::random_modules::{generate_module, GenConfig, Rng};
use oxir_ir::{Module, Opcode};
use oxir_passes::passes::{self, loop_unroll};

const LIMIT: u64 = 4_000_000;

/// The pass sequences checked, each on a fresh copy of the normalised module.
const SEQUENCES: &[&[&str]] = &[
    &["loop-unroll"],
    &["loop-unroll", "sccp", "simplify-cfg", "phi-cleanup", "dce"],
    &["licm", "loop-unroll", "gvn", "dce"],
    &["loop-rotation"],
    &["loop-rotation", "licm", "simplify-cfg", "dce"],
    &["indvar-simplify"],
    &["indvar-simplify", "adce", "dce"],
    &["loop-unswitch"],
    &["loop-fusion"],
    &["loop-fusion", "loop-unroll", "sccp", "dce"],
    &["loop-unswitch", "simplify-cfg", "dce", "loop-unroll"],
    &[
        "indvar-simplify",
        "loop-unswitch",
        "loop-unroll",
        "loop-rotation",
        "sccp",
        "simplify-cfg",
        "dce",
    ],
];

struct Gen {
    rng: Rng,
    out: String,
    loops: u32,
}

impl Gen {
    fn line(&mut self, depth: usize, text: &str) {
        self.out.push_str(&"    ".repeat(depth + 1));
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// A statement list at `depth`; `uniform`: every invocation runs it the same number
    /// of times (no enclosing data-dependent bound, `break` or `if`).
    fn stmts(&mut self, depth: usize, uniform: bool, loop_var: Option<&str>) {
        let count = 1 + self.rng.below(3);
        for _ in 0..count {
            let var = loop_var.map(str::to_string);
            match self.rng.below(6) {
                0 | 1 if depth < 3 => self.for_loop(depth, uniform),
                2 if depth == 0 => self.fusable_pair(),
                2 if loop_var.is_some() => {
                    let v = var.unwrap_or_default();
                    self.line(
                        depth,
                        &format!("if (((acc + {v}) % 7u) == 3u) {{ break; }}"),
                    );
                }
                3 => self.line(depth, "if ((acc & 1u) == 0u) { acc = acc ^ 0x55u; }"),
                5 if loop_var.is_some() => self.line(
                    depth,
                    "if (flag) { acc = acc + 5u; } else { acc = acc ^ 3u; }",
                ),
                4 if uniform && loop_var.is_some() => {
                    self.line(depth, "tile[lid] = acc;");
                    self.line(depth, "workgroupBarrier();");
                    self.line(depth, "acc = acc + tile[(lid + 1u) % 4u];");
                    self.line(depth, "workgroupBarrier();");
                }
                _ => {
                    let v = var.unwrap_or_else(|| "7u".into());
                    self.line(depth, &format!("acc = acc * 3u + {v} * 4u;"));
                }
            }
        }
    }

    /// Two loops with the same trip count writing different local arrays: fusable.
    fn fusable_pair(&mut self) {
        self.loops += 1;
        let (a, b, n) = (
            format!("fa{}", self.loops),
            format!("fb{}", self.loops),
            2 + self.rng.below(5),
        );
        self.line(
            0,
            &format!(
                "for (var {a}: u32 = 0u; {a} < {n}u; {a} = {a} + 1u) {{ pa[{a}] = gid.x + {a}; }}"
            ),
        );
        self.line(
            0,
            &format!(
                "for (var {b}: u32 = 0u; {b} < {n}u; {b} = {b} + 1u) {{ pb[{b}] = acc * {b}; }}"
            ),
        );
        self.line(0, "acc = acc + pa[acc % 8u] + pb[(acc + 1u) % 8u];");
    }

    fn for_loop(&mut self, depth: usize, uniform: bool) {
        self.loops += 1;
        let name = format!("i{}", self.loops);
        // A dynamic bound is not the same for every invocation; a `break` the body may
        // take is decided per invocation too, so its siblings get no barrier either
        // (`body_uniform` below).
        let dynamic = self.rng.chance(30);
        let bound = if dynamic {
            let load = format!(
                "let n{name} = buf[(gid.x + {}u) % 64u] & 15u;",
                self.rng.below(64)
            );
            self.line(depth, &load);
            format!("n{name}")
        } else {
            ["0u", "1u", "2u", "3u", "5u", "40u"][self.rng.below(6)].to_string()
        };
        let step = ["1u", "1u", "2u"][self.rng.below(3)];
        let start = ["0u", "0u", "1u"][self.rng.below(3)];
        let down = self.rng.chance(25);
        let body_uniform = uniform && !dynamic && self.rng.chance(60);
        if !down && self.rng.chance(30) {
            // A `loop` whose counter lives on after it.
            self.line(depth, &format!("var {name}: u32 = {start};"));
            self.line(depth, "loop {");
            self.line(depth + 1, &format!("if ({name} >= {bound}) {{ break; }}"));
            self.stmts(depth + 1, body_uniform, Some(&name));
            self.line(
                depth + 1,
                &format!("continuing {{ {name} = {name} + {step}; }}"),
            );
            self.line(depth, "}");
            self.line(depth, &format!("acc = acc + {name} * 5u;"));
            return;
        }
        if down {
            self.line(
                depth,
                &format!("for (var {name}: u32 = {bound} + 4u; {name} > {start}; {name} = {name} - {step}) {{"),
            );
        } else {
            self.line(
                depth,
                &format!("for (var {name}: u32 = {start}; {name} < {bound}; {name} = {name} + {step}) {{"),
            );
        }
        self.stmts(depth + 1, body_uniform, Some(&name));
        self.line(depth, "}");
    }
}

/// A random loop kernel.
fn loop_kernel(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng::new(seed),
        out: String::new(),
        loops: 0,
    };
    g.stmts(0, true, None);
    format!(
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
var<workgroup> tile: array<u32, 4>;
@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(global_invocation_id) gid: vec3<u32>) {{
    var acc: u32 = buf[gid.x];
    let flag = (buf[(gid.x + 7u) % 64u] & 1u) == 1u;
    var pa: array<u32, 8>;
    var pb: array<u32, 8>;
{}    buf[gid.x + 64u] = acc;
}}
",
        g.out
    )
}

fn barriers(m: &Module) -> usize {
    m.functions
        .values()
        .flat_map(|f| {
            f.layout
                .blocks()
                .flat_map(move |b| f.layout.block_insts(b).map(move |i| f.dfg.inst(i).opcode))
        })
        .filter(|&op| op == Opcode::WorkgroupBarrier)
        .count()
}

fn check(
    seed: u64,
    module: &Module,
    inputs: &[oxir_interp::Buffers],
    failures: &mut Vec<String>,
) -> bool {
    check_sequences(seed, module, inputs, SEQUENCES, LIMIT, failures)
}

#[test]
fn random_loop_kernels_run_the_same_after_the_loop_passes() {
    let mut failures = Vec::new();
    let (mut ran, mut full, mut partial, mut barrier_copies) = (0, 0, 0, 0);
    let (mut rotated, mut unswitched, mut indvars, mut fused) = (0, 0, 0, 0);
    for seed in 0..60u64 {
        let source = loop_kernel(seed);
        let module = normalized(&compile_wgsl(&source));
        let inputs = random_inputs(seed);
        if !check(seed, &module, &inputs, &mut failures) {
            continue;
        }
        ran += 1;
        let mut probe = module.clone();
        let info = loop_unroll::run_on_module(&mut probe);
        full += info.fully_unrolled_loop_count;
        partial += info.partially_unrolled_loop_count;
        barrier_copies += barriers(&probe).saturating_sub(barriers(&module));
        let mut probe = module.clone();
        rotated += passes::loop_rotation::run_on_module(&mut probe).rotated_loop_count;
        let mut probe = module.clone();
        unswitched += passes::loop_unswitch::run_on_module(&mut probe).unswitched_loop_count;
        let mut probe = module.clone();
        let info = passes::indvar_simplify::run_on_module(&mut probe);
        indvars += info.replaced_exit_value_count + info.strength_reduced_count;
        let mut probe = module.clone();
        fused += passes::loop_fusion::run_on_module(&mut probe).fused_loop_count;
    }
    eprintln!("fused {fused}");
    assert!(fused > 3, "fused {fused}");
    eprintln!(
        "rotated {rotated}, unswitched {unswitched}, induction variables simplified {indvars}"
    );
    assert!(
        rotated > 10 && unswitched > 3 && indvars > 3,
        "rotated {rotated}, unswitched {unswitched}, indvars {indvars}"
    );
    eprintln!("{ran} loop kernels ran; {full} loops unrolled fully, {partial} partially; {barrier_copies} barriers copied");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 40, "only {ran} of 60 kernels ran");
    assert!(full > 10 && partial > 3, "full {full}, partial {partial}");
    assert!(barrier_copies > 0, "no loop with a barrier was unrolled");
}

#[test]
fn random_modules_run_the_same_after_the_loop_passes() {
    let mut failures = Vec::new();
    let mut ran = 0;
    let mut unrolled = 0;
    for seed in 0..30u64 {
        let module = normalized(&generate_module(seed, GenConfig::default()));
        let inputs = random_inputs(seed);
        if !check(seed, &module, &inputs, &mut failures) {
            continue;
        }
        ran += 1;
        let mut probe = module.clone();
        let info = loop_unroll::run_on_module(&mut probe);
        unrolled += info.fully_unrolled_loop_count + info.partially_unrolled_loop_count;
    }
    eprintln!("{ran} random modules ran; {unrolled} loops unrolled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 15, "only {ran} of 30 modules ran");
    assert!(unrolled > 0, "nothing unrolled in {ran} random modules");
}
