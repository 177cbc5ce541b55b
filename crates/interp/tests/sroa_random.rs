//! `sroa` (then `mem2reg`) against the interpreter on random programs: a local struct
//! with vector, array and nested array-of-vector members, written and read through random
//! constant-index `access` chains, whole-object stores of `zero` and whole-object loads
//! followed by `extract`. Every program must give the same result before and after, the
//! local must be split, and (as nothing else touches memory) `mem2reg` must leave no
//! alloca behind.

use oxir_interp::{Buffers, Options, StageInputs, Val};
use oxir_ir::parser::parse_module;
use oxir_ir::printer::{print_module, View};
use oxir_ir::verifier::{verify_module, VerifierOptions};
use oxir_ir::Module;
use oxir_passes::{registry, PassPipeline};

/// Every scalar leaf of `%S { a: vec3<i32>, b: array<i32, 3>, c: i32, m: array<vec2<i32>, 2> }`.
const LEAVES: &[&[u32]] = &[
    &[0, 0],
    &[0, 1],
    &[0, 2],
    &[1, 0],
    &[1, 1],
    &[1, 2],
    &[2],
    &[3, 0, 0],
    &[3, 0, 1],
    &[3, 1, 0],
    &[3, 1, 1],
];

/// Objects above the leaves, with their types and `zero` constants (`c4`..`c8`).
const OBJECTS: &[(&[u32], &str, &str)] = &[
    (&[], "%S", "c4"),
    (&[0], "vec3<i32>", "c5"),
    (&[1], "array<i32, 3>", "c6"),
    (&[3], "array<vec2<i32>, 2>", "c7"),
    (&[3, 0], "vec2<i32>", "c8"),
    (&[3, 1], "vec2<i32>", "c8"),
];

struct Gen {
    state: u64,
    text: String,
    next_value: u32,
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        self.state = self
            .state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.state >> 33) % n as u64) as usize
    }

    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("v{}", self.next_value)
    }

    /// A pointer to the object at `path` (`v1` itself for the root), as one `access` or
    /// a chain of two.
    fn pointer(&mut self, path: &[u32], pointee: &str) -> String {
        if path.is_empty() {
            return "v1".into();
        }
        let mut base = "v1".to_string();
        let split = if path.len() > 1 && self.below(2) == 0 {
            1
        } else {
            0
        };
        if split == 1 {
            let ty = OBJECTS
                .iter()
                .find(|(p, _, _)| *p == &path[..1])
                .map(|(_, t, _)| *t)
                .unwrap();
            let v = self.value();
            self.text.push_str(&format!(
                "    {v}: ptr<function, {ty}> = access v1, c{}\n",
                path[0]
            ));
            base = v;
        }
        let indices: Vec<String> = path[split..].iter().map(|k| format!("c{k}")).collect();
        let v = self.value();
        self.text.push_str(&format!(
            "    {v}: ptr<function, {pointee}> = access {base}, {}\n",
            indices.join(", ")
        ));
        v
    }

    fn program(&mut self, ops: usize) -> String {
        self.text = String::from(
            "struct %S { a: vec3<i32>, b: array<i32, 3>, c: i32, m: array<vec2<i32>, 2> }\n\
             const c0: u32 = 0\nconst c1: u32 = 1\nconst c2: u32 = 2\nconst c3: u32 = 3\n\
             const c4: %S = zero\nconst c5: vec3<i32> = zero\nconst c6: array<i32, 3> = zero\n\
             const c7: array<vec2<i32>, 2> = zero\nconst c8: vec2<i32> = zero\n\n\
             callable @f(i32) -> i32 {\nblock0(v0: i32):\n\
             \x20   v1: ptr<function, %S> = alloca\n    store v1, c4\n",
        );
        self.next_value = 1;
        let mut sum = "v0".to_string();
        for _ in 0..ops {
            match self.below(4) {
                0 | 1 => {
                    let leaf = LEAVES[self.below(LEAVES.len())];
                    let p = self.pointer(leaf, "i32");
                    if self.below(2) == 0 {
                        let stored = if self.below(2) == 0 {
                            "v0".into()
                        } else {
                            sum.clone()
                        };
                        self.text.push_str(&format!("    store {p}, {stored}\n"));
                    } else {
                        let loaded = self.value();
                        self.text
                            .push_str(&format!("    {loaded}: i32 = load {p}\n"));
                        let next = self.value();
                        self.text
                            .push_str(&format!("    {next}: i32 = add {sum}, {loaded}\n"));
                        sum = next;
                    }
                }
                2 => {
                    let (path, ty, zero) = OBJECTS[self.below(OBJECTS.len())];
                    let p = self.pointer(path, ty);
                    self.text.push_str(&format!("    store {p}, {zero}\n"));
                }
                _ => {
                    let (path, ty, _) = OBJECTS[self.below(OBJECTS.len())];
                    let inside: Vec<&[u32]> = LEAVES
                        .iter()
                        .copied()
                        .filter(|l| l.starts_with(path))
                        .collect();
                    let leaf = inside[self.below(inside.len())];
                    let p = self.pointer(path, ty);
                    let whole = self.value();
                    self.text
                        .push_str(&format!("    {whole}: {ty} = load {p}\n"));
                    let rest: Vec<String> =
                        leaf[path.len()..].iter().map(|k| k.to_string()).collect();
                    let part = self.value();
                    self.text.push_str(&format!(
                        "    {part}: i32 = extract {whole}, {}\n",
                        rest.join(", ")
                    ));
                    let next = self.value();
                    self.text
                        .push_str(&format!("    {next}: i32 = add {sum}, {part}\n"));
                    sum = next;
                }
            }
        }
        self.text.push_str(&format!("    return {sum}\n}}\n"));
        std::mem::take(&mut self.text)
    }
}

fn run(module: &Module, arg: i32) -> Vec<Val> {
    let inputs = StageInputs {
        locations: vec![Val::S(u64::from(arg as u32))],
        ..StageInputs::default()
    };
    oxir_interp::run_single(
        module,
        "f",
        &inputs,
        &mut Buffers::new(),
        &Options::default(),
    )
    .expect("runs")
    .expect("returns")
}

#[test]
fn random_constant_index_programs_agree_with_the_interpreter() {
    let mut gen = Gen {
        state: 0x5eed,
        text: String::new(),
        next_value: 0,
    };
    for case in 0..300 {
        let ops = 1 + gen.below(12);
        let text = gen.program(ops);
        let before = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(
            verify_module(&before, &VerifierOptions::default()).succeeded(),
            "{text}"
        );
        let mut after = before.clone();
        let mut pipeline = PassPipeline::new();
        for name in ["sroa", "mem2reg"] {
            pipeline.add(name, registry::create(name).unwrap());
        }
        let stats = pipeline.run(&mut after);
        assert!(stats.succeeded(), "case {case}:\n{text}");
        let split = stats.records[0].report.get("split_alloca_count");
        let expected = u64::from(text.contains("access"));
        assert_eq!(split, Some(expected), "case {case}:\n{text}");
        let printed = print_module(&after, View::Flat);
        assert!(!printed.contains("alloca"), "case {case}:\n{printed}");
        for arg in [0, 7, -3, i32::MAX] {
            assert_eq!(
                run(&before, arg),
                run(&after, arg),
                "case {case}, argument {arg}:\n{text}\n{printed}"
            );
        }
    }
}
