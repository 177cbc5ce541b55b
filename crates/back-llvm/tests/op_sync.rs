//! Preflight ↔ writer sync, op by op, for the NVPTX and the host targets.
//!
//! For every opcode, small kernels that use it are built: generic ops from every operand
//! type combination of a pool that the builder's type rules accept (a few per op), the
//! others from text. Each goes to the preflight and:
//!
//! - when the preflight accepts it, `write_module` must succeed, twice with the same
//!   bytes, and the module must pass `opt-22 -passes=verify` and `llc-22` (`-march=nvptx64`; for the host `-filetype=obj -relocation-model=pic`);
//! - when the op table refuses the opcode, the preflight must refuse it, naming the op;
//! - every opcode the table marks written must be accepted (and checked) at least once.

mod tools;

use oxir_ir::builder::FunctionBuilder;
use oxir_ir::ops::{EffectClass, Format, TypeRule};
use oxir_ir::types::TypeData;
use oxir_ir::{
    AddressSpace, FunctionKind, GlobalData, Module, Opcode, Payload, ResourceBinding, Scalar,
    Signature, StorageAccess, Type, Value,
};
use oxir_llvm::{opcode_support, preflight, write_module, Error, Subgroups, Support, TargetDesc};
use std::collections::BTreeMap;

/// Operand types the generic instances draw from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum T {
    S(Scalar),
    V(Scalar, u8),
    M(u8, u8),
    A4,
}

const POOL: &[T] = &[
    T::S(Scalar::F32),
    T::V(Scalar::F32, 3),
    T::V(Scalar::F32, 4),
    T::S(Scalar::I32),
    T::V(Scalar::I32, 2),
    T::S(Scalar::U32),
    T::V(Scalar::U32, 4),
    T::S(Scalar::BOOL),
    T::V(Scalar::BOOL, 3),
    T::S(Scalar::F64),
    T::S(Scalar::F16),
    T::S(Scalar::I64),
    T::S(Scalar::U64),
    T::S(Scalar::U16),
    T::M(3, 3),
    T::M(2, 3),
    T::A4,
];

fn intern(m: &mut Module, t: T) -> Type {
    match t {
        T::S(s) => m.types.scalar(s),
        T::V(s, n) => m.types.vector(s, n),
        T::M(c, r) => m.types.matrix(Scalar::F32, c, r),
        T::A4 => {
            let f = m.types.f32();
            m.types.array(f, 4)
        }
    }
}

/// A kernel under construction, positioned in its entry block.
struct Kernel {
    m: Module,
    func: oxir_ir::Func,
    bindings: u32,
}

impl Kernel {
    fn new() -> Self {
        let mut m = Module::new();
        let kind = FunctionKind::kernel([4, 1, 1]);
        let func = FunctionBuilder::create_function(&mut m, "main", kind, Signature::default());
        Kernel {
            m,
            func,
            bindings: 0,
        }
    }

    fn builder(&mut self) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(&mut self.m, self.func);
        let entry = b.entry_block().unwrap();
        b.switch_to_block(entry);
        b
    }

    /// Element 0 of a fresh storage buffer of `ty`: a pointer no pass could fold.
    fn slot(&mut self, ty: Type) -> Value {
        let array = self.m.types.runtime_array(ty);
        let binding = self.bindings;
        self.bindings += 1;
        let g = self.m.add_global(GlobalData {
            name: format!("b{binding}"),
            space: AddressSpace::Storage(StorageAccess::ReadWrite),
            ty: array,
            init: None,
            binding: Some(ResourceBinding { group: 0, binding }),
        });
        let mut b = self.builder();
        let base = b.global_addr(g);
        let zero = b.uconst(Scalar::U32, 0);
        b.access(base, &[zero])
    }

    /// A value of type `t` read from a buffer (bools converted from `u32` lanes).
    fn input(&mut self, t: T) -> Value {
        let ty = intern(&mut self.m, t);
        let stored = match t {
            T::S(s) if s == Scalar::BOOL => T::S(Scalar::U32),
            T::V(s, n) if s == Scalar::BOOL => T::V(Scalar::U32, n),
            other => other,
        };
        let sty = intern(&mut self.m, stored);
        let p = self.slot(sty);
        let mut b = self.builder();
        let v = b.load(p);
        if sty == ty {
            v
        } else {
            b.convert(v, ty)
        }
    }

    /// Stores `v` to a fresh buffer (bools as `u32` lanes).
    fn output(&mut self, v: Value) {
        let ty = self.m.functions[self.func].dfg.value_type(v);
        let as_u32 = match self.m.types.get(ty).clone() {
            TypeData::Scalar(s) if s == Scalar::BOOL => Some(self.m.types.u32()),
            TypeData::Vector { elem, len } if elem == Scalar::BOOL => {
                Some(self.m.types.vector(Scalar::U32, len))
            }
            _ => None,
        };
        let (v, ty) = match as_u32 {
            Some(u) => (self.builder().convert(v, u), u),
            None => (v, ty),
        };
        let p = self.slot(ty);
        self.builder().store(p, v);
    }

    fn finish(mut self) -> Module {
        self.builder().ret(&[]);
        self.m
    }
}

/// Ops the generic generator builds: pure, typed by their operands.
fn generic(op: Opcode) -> bool {
    let info = op.info();
    info.effect == EffectClass::Pure
        && !matches!(
            info.rule,
            TypeRule::SpecialRegister(_)
                | TypeRule::Alloca
                | TypeRule::Access
                | TypeRule::ArrayLength
                | TypeRule::Texture(_)
        )
}

fn instance(op: Opcode, args: &[T], result: Option<T>, indices: Option<&[u32]>) -> Option<Module> {
    let mut k = Kernel::new();
    let vals: Vec<Value> = args.iter().map(|&t| k.input(t)).collect();
    let rt = result.map(|t| intern(&mut k.m, t));
    let payload = indices.map_or(Payload::None, |ix| Payload::Indices(ix.into()));
    let (_, r) = k.builder().try_ins(op, &vals, payload, rt).ok()?;
    if let Some(r) = r {
        k.output(r);
    }
    Some(k.finish())
}

/// Up to `limit` generic instances of `op`, with distinct first-operand types.
fn generic_instances(op: Opcode, limit: usize) -> Vec<(String, Module)> {
    let info = op.info();
    let mut lists: Vec<Vec<T>> = Vec::new();
    for n in (1..=4).filter(|&n| info.arity.accepts(n)) {
        for &a in POOL {
            match n {
                1 => lists.push(vec![a]),
                2 => lists.extend(POOL.iter().map(|&b| vec![a, b])),
                3 => {
                    lists.push(vec![a, a, a]);
                    lists.extend(POOL.iter().map(|&b| vec![b, a, a]));
                    lists.push(vec![a, T::S(Scalar::F32), T::S(Scalar::F32)]);
                }
                _ => {
                    lists.push(vec![a, a, a, a]);
                    lists.extend(POOL.iter().map(|&b| vec![a, a, b, b]));
                }
            }
        }
    }
    let results: Vec<Option<T>> = match info.rule {
        TypeRule::Convert | TypeRule::Bitcast | TypeRule::Construct | TypeRule::Splat => {
            POOL.iter().map(|&t| Some(t)).collect()
        }
        _ => vec![None],
    };
    let indices: Vec<Option<&[u32]>> = match info.format {
        Format::Indices => vec![Some(&[1]), Some(&[0, 1]), Some(&[1, 0, 2])],
        _ => vec![None],
    };
    let mut out = Vec::new();
    let mut seen: Vec<(T, Option<T>)> = Vec::new();
    for args in &lists {
        for &result in &results {
            for &ix in &indices {
                if out.len() >= limit || seen.contains(&(args[0], result)) {
                    continue;
                }
                if let Some(m) = instance(op, args, result, ix) {
                    seen.push((args[0], result));
                    out.push((format!("{op} {args:?} -> {result:?} {ix:?}"), m));
                }
            }
        }
    }
    out
}

const BUFFERS: &str = "const c0: u32 = 0\nconst c1: u32 = 1\nconst c2: i32 = 1\nconst c3: f32 = 0.5\nconst c9: u64 = 1\n\
    global @u: storage(read_write) array<u32> binding(0, 0)\n\
    global @i: storage(read_write) array<i32> binding(0, 1)\n\
    global @f: storage(read_write) array<f32> binding(0, 2)\n\
    global @w: workgroup array<u32, 4>\n\
    struct %S { n: u32, data: array<f32> }\n\
    global @s: storage(read_write) %S binding(0, 3)\n\
    global @big: storage(read_write) array<u64> binding(0, 4)\n";

fn kernel_text(body: &str) -> String {
    format!("{BUFFERS}kernel @main() workgroup_size(4, 1, 1) {{\nblock0:\n{body}    return\n}}\n")
}

/// Hand-written kernels for memory, atomics, barriers, registers and control flow.
fn text_instances() -> Vec<(String, String)> {
    let mut v = vec![
        (
            "alloca/load/store/access".to_string(),
            kernel_text(
                "    v0: ptr<function, array<f32, 4>> = alloca\n    v1: u32 = local_invocation_index\n\
                 \x20   v2: ptr<function, f32> = access v0, v1\n    store v2, c3\n\
                 \x20   v3: ptr<function, f32> = access v0, c0\n    v4: f32 = load v3\n\
                 \x20   v5: ptr<storage(read_write), f32> = access @f, v1\n    store v5, v4\n",
            ),
        ),
        (
            "array_length".to_string(),
            kernel_text(
                "    v0: u32 = array_length @u\n    v1: ptr<storage(read_write), array<f32>> = access @s, c1\n\
                 \x20   v2: u32 = array_length v1\n    v3: u32 = add v0, v2\n\
                 \x20   v4: ptr<storage(read_write), u32> = access @u, c0\n    store v4, v3\n",
            ),
        ),
        (
            "barriers".to_string(),
            kernel_text(
                "    workgroup_barrier\n    storage_barrier\n    v0: ptr<workgroup, u32> = access @w, c0\n\
                 \x20   v1: u32 = workgroup_uniform_load v0\n    v2: ptr<storage(read_write), u32> = access @u, c0\n    store v2, v1\n",
            ),
        ),
    ];
    for (name, values, ty, buf) in [
        ("atomic_load", 0, "u32", "@u"),
        ("atomic_store", 1, "u32", "@u"),
        ("atomic_exchange", 1, "i32", "@i"),
        ("atomic_compare_exchange", 2, "u32", "@u"),
        ("atomic_add", 1, "u32", "@u"),
        ("atomic_sub", 1, "i32", "@i"),
        ("atomic_and", 1, "u32", "@u"),
        ("atomic_or", 1, "u32", "@u"),
        ("atomic_xor", 1, "u32", "@u"),
        ("atomic_min", 1, "i32", "@i"),
        ("atomic_max", 1, "u32", "@w"),
        ("atomic_add", 1, "u64", "@big"),
    ] {
        let space = if buf == "@w" {
            "workgroup"
        } else {
            "storage(read_write)"
        };
        let value = match ty {
            "i32" => "c2",
            "u64" => "c9",
            _ => "c1",
        };
        let args: String = std::iter::repeat_n(format!(", {value}"), values).collect();
        let body = if name == "atomic_store" {
            format!("    v0: ptr<{space}, {ty}> = access {buf}, c0\n    {name} v0{args}\n")
        } else {
            format!(
                "    v0: ptr<{space}, {ty}> = access {buf}, c0\n    v1: {ty} = {name} v0{args}\n\
                 \x20   v2: ptr<{space}, {ty}> = access {buf}, c1\n    store v2, v1\n"
            )
        };
        v.push((format!("{name} {ty} {buf}"), kernel_text(&body)));
    }
    for (reg, ty) in [
        ("thread_id", "vec3<u32>"),
        ("workgroup_id", "vec3<u32>"),
        ("dispatch_id", "vec3<u32>"),
        ("local_invocation_index", "u32"),
        ("workgroup_size", "vec3<u32>"),
        ("num_workgroups", "vec3<u32>"),
        ("dispatch_size", "vec3<u32>"),
        ("subgroup_invocation_id", "u32"),
        ("subgroup_size", "u32"),
        ("subgroup_id", "u32"),
        ("num_subgroups", "u32"),
        ("frag_coord", "vec4<f32>"),
        ("front_facing", "bool"),
        ("sample_index", "u32"),
        ("primitive_id", "u32"),
        ("vertex_index", "u32"),
        ("instance_index", "u32"),
        ("base_instance", "u32"),
    ] {
        let (sty, conv) = if ty == "bool" {
            ("u32", "convert")
        } else {
            (ty, "bitcast")
        };
        let body = format!("    v0: {ty} = {reg}\n    v1: {sty} = {conv} v0\n    store @r, v1\n");
        let text = kernel_text(&body).replace(
            "kernel @main",
            &format!("global @r: storage(read_write) {sty} binding(1, 0)\nkernel @main"),
        );
        v.push((reg.to_string(), text));
    }
    let flow = "    v0: u32 = local_invocation_index\n    v1: bool = lt v0, c1\n    cond_br v1, block1(c0), block1(c1)\n\
        block1(v2: u32):\n    switch_br v2, [0: block2, 1: block3(c1), 7: block3(c0)], default block3(c1)\n\
        block2:\n    br block3(v0)\nblock3(v4: u32):\n    v3: ptr<storage(read_write), u32> = access @u, c0\n    store v3, v4\n";
    v.push(("cond_br/switch_br/phi".to_string(), kernel_text(flow)));
    let structured = "    v0: u32 = local_invocation_index\n    v1: bool = lt v0, c1\n    if v1, then block1, else block2, merge block3\n\
        block1:\n    br block3\nblock2:\n    br block3\n\
        block3:\n    loop prepare block4, body block5, update block6, merge block7\n\
        block4:\n    v2: bool = lt v0, c1\n    cond_br v2, block5, block7\n\
        block5:\n    continue block6\nblock6:\n    br block4\n\
        block7:\n    simple_loop body block8, merge block9\nblock8:\n    break block9\n\
        block9:\n    switch v0, [0: block10], default block11, merge block11\n\
        block10:\n    break block11\nblock11:\n";
    v.push((
        "structured control flow".to_string(),
        kernel_text(structured),
    ));
    // The subgroup ops the generic generator cannot build: `elect` has no operand, and
    // `broadcast` needs a constant lane.
    let elect = "    v0: bool = subgroup_elect\n    v1: u32 = convert v0\n\
        \x20   v2: ptr<storage(read_write), u32> = access @u, c0\n    store v2, v1\n";
    v.push(("subgroup_elect".to_string(), kernel_text(elect)));
    let broadcast =
        "    v0: u32 = local_invocation_index\n    v1: u32 = subgroup_broadcast v0, c1\n\
        \x20   v2: ptr<storage(read_write), u32> = access @u, c0\n    store v2, v1\n";
    v.push(("subgroup_broadcast".to_string(), kernel_text(broadcast)));
    let trap = "    v0: u32 = local_invocation_index\n    v1: bool = lt v0, c1\n    cond_br v1, block1, block2\n\
        block1:\n    unreachable \"never\"\nblock2:\n";
    v.push(("unreachable".to_string(), kernel_text(trap)));
    v
}

/// The opcodes a module uses.
fn opcodes(m: &Module) -> Vec<Opcode> {
    let mut out = Vec::new();
    for (_, f) in m.functions.iter() {
        for b in f.layout.blocks() {
            for i in f.layout.block_insts(b) {
                out.push(f.dfg.inst(i).opcode);
            }
        }
    }
    out
}

#[test]
fn preflight_and_writer_agree_on_every_opcode() {
    agree_on_every_opcode(&TargetDesc::nvptx(), |llc, ll| {
        tools::ptx(llc, ll, "sm_80").map(|_| ())
    });
}

/// The same modules for the host CPU, through `llc -filetype=obj -relocation-model=pic`.
#[test]
fn preflight_and_writer_agree_on_every_opcode_for_the_host() {
    agree_on_every_opcode(&TargetDesc::host(), tools::host_object);
}

fn agree_on_every_opcode(target: &TargetDesc, codegen: impl Fn(&str, &str) -> Result<(), String>) {
    let tools = match (tools::opt(), tools::llc()) {
        (Some(o), Some(l)) => Some((o, l)),
        _ => None,
    };
    let mut instances: Vec<(String, Module)> = Vec::new();
    for &op in Opcode::ALL.iter().filter(|op| generic(**op)) {
        instances.extend(generic_instances(op, 3));
    }
    for (label, text) in text_instances() {
        match oxir_ir::parser::parse_module(&text) {
            Ok(m) => instances.push((label, m)),
            Err(e) => panic!("{label}: {e}\n{text}"),
        }
    }
    let mut accepted: BTreeMap<Opcode, u32> = BTreeMap::new();
    let mut refused_seen: BTreeMap<Opcode, u32> = BTreeMap::new();
    // Written ops the preflight refused by name for this target (subgroups on the host).
    let mut target_refused: BTreeMap<Opcode, u32> = BTreeMap::new();
    let mut failures = Vec::new();
    for (label, m) in &instances {
        let ops = opcodes(m);
        match preflight(m, target) {
            Err(Error::Unsupported { what, .. }) => {
                let culprit = ops.iter().find(|op| what.starts_with(&format!("{op}:")));
                let refused_op = ops
                    .iter()
                    .find(|op| matches!(opcode_support(**op), Support::Refused(_)));
                match (refused_op, culprit) {
                    (Some(op), Some(c)) if op == c => *refused_seen.entry(*op).or_default() += 1,
                    (Some(op), _) => {
                        failures.push(format!("{label}: refused op {op} not named: {what}"))
                    }
                    (None, Some(c)) => *target_refused.entry(*c).or_default() += 1,
                    (None, None) => {} // a type-dependent refusal of a written op
                }
            }
            Err(e) => failures.push(format!("{label}: preflight: {e}")),
            Ok(()) => {
                if let Some(op) = ops
                    .iter()
                    .find(|op| matches!(opcode_support(**op), Support::Refused(_)))
                {
                    failures.push(format!("{label}: the preflight accepted refused op {op}"));
                    continue;
                }
                let ll = match write_module(m, target) {
                    Ok(ll) => ll,
                    Err(e) => {
                        failures.push(format!("{label}: {e}"));
                        continue;
                    }
                };
                if write_module(m, target).as_ref() != Ok(&ll) {
                    failures.push(format!("{label}: output is not deterministic"));
                }
                if let Some((opt, llc)) = &tools {
                    let checked = tools::verify(opt, &ll).and_then(|_| codegen(llc, &ll));
                    if let Err(e) = checked {
                        failures.push(format!("{label}: {e}\n{ll}"));
                        continue;
                    }
                }
                for op in ops {
                    *accepted.entry(op).or_default() += 1;
                }
            }
        }
    }
    for &op in Opcode::ALL {
        let target_refuses = op.is_subgroup() && target.subgroups == Subgroups::Unavailable;
        match opcode_support(op) {
            Support::Written if target_refuses => {
                if accepted.contains_key(&op) || !target_refused.contains_key(&op) {
                    failures.push(format!(
                        "{op}: this target has no subgroups, but it was not refused by name"
                    ))
                }
            }
            Support::Written if !accepted.contains_key(&op) => failures.push(format!(
                "{op}: written by the table, but no instance was accepted"
            )),
            Support::Written | Support::Refused(_) => {}
        }
    }
    let written = Opcode::ALL
        .iter()
        .filter(|op| opcode_support(**op) == Support::Written)
        .count();
    eprintln!(
        "{}: {} opcodes: {written} written ({} accepted instances checked), {} refused ({} seen refused by name); {} instances",
        target.triple,
        Opcode::ALL.len(),
        accepted.values().sum::<u32>(),
        Opcode::ALL.len() - written,
        refused_seen.len(),
        instances.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
