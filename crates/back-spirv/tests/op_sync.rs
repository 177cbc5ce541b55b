//! Preflight ↔ writer sync, op by op.
//!
//! For every opcode this builds small modules that use it (generic ops: every argument
//! type combination from a pool that the builder's type rules accept, up to a few per op;
//! memory, atomics, registers, textures and control flow: hand-written modules), gives
//! each to the writer (`write_module`: verify, preflight, write) and:
//!
//! - when the preflight accepts the module, the writer must succeed and `spirv-val
//!   --target-env vulkan1.1` must accept the result, which declares no type or constant
//!   twice (`oxir_test_support::spirv_duplicates`);
//! - when the op table refuses the opcode, the preflight must refuse the module, naming
//!   the opcode, so nothing is emitted;
//! - every opcode the table marks written must be accepted and validated at least once.
//!
//! The modules are built directly in the writer's input form (single-block entry points
//! or structured text), so no pass folds the op away. Failures name the opcode.

use oxir_ir::builder::FunctionBuilder;
use oxir_ir::types::TypeData;
use oxir_ir::{
    AddressSpace, FunctionKind, GlobalData, Module, Opcode, Payload, ResourceBinding, Scalar,
    Signature, StorageAccess, Type, Value,
};
use oxir_spirv::{opcode_support, preflight, write_module, Options, Support, TargetEnv};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// A type of the candidate pool.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum T {
    S(Scalar),
    V(Scalar, u8),
    M(u8, u8),
    Arr4F32,
    /// `struct { a: lanes of the first scalar, b: as many lanes of the second }` (the
    /// results of `frexp` and `modf`; not in the pool of operand types).
    Pair(Scalar, u8, Scalar),
}

/// The declared results tried for `frexp` and `modf`: their structs for f32, vec3<f32>,
/// f16 and vec2<f64> operands.
const DECOMPOSITIONS: &[T] = &[
    T::Pair(Scalar::F32, 1, Scalar::I32),
    T::Pair(Scalar::F32, 3, Scalar::I32),
    T::Pair(Scalar::F16, 1, Scalar::I32),
    T::Pair(Scalar::F64, 2, Scalar::I32),
    T::Pair(Scalar::F32, 1, Scalar::F32),
    T::Pair(Scalar::F32, 3, Scalar::F32),
    T::Pair(Scalar::F16, 1, Scalar::F16),
    T::Pair(Scalar::F64, 2, Scalar::F64),
];

const POOL: &[T] = &[
    T::S(Scalar::F32),
    T::V(Scalar::F32, 3),
    T::V(Scalar::F32, 4),
    T::S(Scalar::I32),
    T::V(Scalar::I32, 2),
    T::S(Scalar::U32),
    T::V(Scalar::U32, 4),
    T::V(Scalar::U32, 3),
    T::S(Scalar::BOOL),
    T::V(Scalar::BOOL, 3),
    T::S(Scalar::F64),
    T::V(Scalar::F64, 2),
    T::S(Scalar::F16),
    T::S(Scalar::I64),
    T::S(Scalar::U64),
    T::S(Scalar::I8),
    T::S(Scalar::U16),
    T::M(3, 3),
    T::M(4, 4),
    T::M(2, 3),
    T::M(3, 2),
    T::Arr4F32,
];

fn intern(m: &mut Module, t: T) -> Type {
    match t {
        T::S(s) => m.types.scalar(s),
        T::V(s, n) => m.types.vector(s, n),
        T::M(c, r) => m.types.matrix(Scalar::F32, c, r),
        T::Arr4F32 => {
            let f = m.types.f32();
            m.types.array(f, 4)
        }
        T::Pair(a, n, b) => {
            let lanes = |m: &mut Module, s: Scalar| match n {
                1 => m.types.scalar(s),
                _ => m.types.vector(s, n),
            };
            let (a_ty, b_ty) = (lanes(m, a), lanes(m, b));
            let member = |name: &str, ty| oxir_ir::types::StructMember {
                name: name.into(),
                ty,
                offset: None,
            };
            m.types.declare_struct(oxir_ir::types::StructType {
                name: format!("pair_{}x{n}_{}", a.name(), b.name()),
                members: vec![member("a", a_ty), member("b", b_ty)],
                align: None,
            })
        }
    }
}

/// A fresh module with one entry point of `kind`, positioned in its entry block.
struct Harness {
    m: Module,
    func: oxir_ir::Func,
    next_binding: u32,
}

impl Harness {
    fn new(fragment: bool) -> Self {
        let mut m = Module::new();
        let kind = if fragment {
            FunctionKind::Fragment
        } else {
            FunctionKind::kernel([1, 1, 1])
        };
        let func = FunctionBuilder::create_function(&mut m, "main", kind, Signature::default());
        Harness {
            m,
            func,
            next_binding: 0,
        }
    }

    fn builder(&mut self) -> FunctionBuilder<'_> {
        let mut b = FunctionBuilder::new(&mut self.m, self.func);
        let entry = b.entry_block().unwrap();
        b.switch_to_block(entry);
        b
    }

    fn buffer(&mut self, elem: Type) -> oxir_ir::Global {
        let ty = self.m.types.runtime_array(elem);
        let binding = self.next_binding;
        self.next_binding += 1;
        self.m.add_global(GlobalData {
            name: format!("b{binding}"),
            space: AddressSpace::Storage(StorageAccess::ReadWrite),
            ty,
            init: None,
            binding: Some(ResourceBinding { group: 0, binding }),
        })
    }

    /// A value of type `t` that no pass could fold: loaded from a buffer (bools: converted
    /// from loaded `u32` lanes).
    fn input(&mut self, t: T) -> Value {
        let (load_t, to_bool) = match t {
            T::S(s) if s == Scalar::BOOL => (T::S(Scalar::U32), true),
            T::V(s, n) if s == Scalar::BOOL => (T::V(Scalar::U32, n), true),
            other => (other, false),
        };
        let lt = intern(&mut self.m, load_t);
        let g = self.buffer(lt);
        let bt = intern(&mut self.m, t);
        let mut b = self.builder();
        let base = b.global_addr(g);
        let zero = b.uconst(Scalar::U32, 0);
        let p = b.access(base, &[zero]);
        let v = b.load(p);
        if to_bool {
            b.convert(v, bt)
        } else {
            v
        }
    }

    /// Stores `v` to a fresh buffer (bools as `u32` lanes; pointers are loaded first).
    fn output(&mut self, v: Value) {
        let f = &self.m.functions[self.func];
        let mut ty = f.dfg.value_type(v);
        let mut v = v;
        if let TypeData::Pointer { pointee, .. } = self.m.types.get(ty) {
            ty = *pointee;
            v = self.builder().load(v);
        }
        let store_ty = match self.m.types.get(ty).clone() {
            TypeData::Scalar(s) if s == Scalar::BOOL => Some(self.m.types.u32()),
            TypeData::Vector { elem, len } if elem == Scalar::BOOL => {
                Some(self.m.types.vector(Scalar::U32, len))
            }
            _ => None,
        };
        if let Some(st) = store_ty {
            v = self.builder().convert(v, st);
            ty = st;
        }
        let g = self.buffer(ty);
        let mut b = self.builder();
        let base = b.global_addr(g);
        let zero = b.uconst(Scalar::U32, 0);
        let p = b.access(base, &[zero]);
        b.store(p, v);
    }

    fn finish(mut self) -> Module {
        self.builder().ret(&[]);
        self.m
    }
}

/// Ops whose instances are built by the generic generator (pure, typed by their operands,
/// with an optional declared result type or index payload).
fn generic(op: Opcode) -> bool {
    use oxir_ir::ops::{EffectClass, TypeRule};
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

/// Ops only fragment shaders may use (implicit derivatives).
fn fragment_only(op: Opcode) -> bool {
    op.is_convergent() && op.info().effect == oxir_ir::ops::EffectClass::Pure
}

/// One generic instance: the op applied to inputs of `args` (with `result` as declared
/// result type, `indices` as payload); `None` when the builder rejects the combination.
fn generic_instance(
    op: Opcode,
    args: &[T],
    result: Option<T>,
    indices: Option<&[u32]>,
) -> Option<Module> {
    let mut h = Harness::new(fragment_only(op));
    let vals: Vec<Value> = args.iter().map(|&t| h.input(t)).collect();
    let rt = result.map(|t| intern(&mut h.m, t));
    let payload = match indices {
        Some(ix) => Payload::Indices(ix.into()),
        None => Payload::None,
    };
    let (_, r) = h.builder().try_ins(op, &vals, payload, rt).ok()?;
    if let Some(r) = r {
        h.output(r);
    }
    Some(h.finish())
}

/// Up to `limit` generic instances of `op`, with distinct first-argument types first.
fn generic_instances(op: Opcode, limit: usize) -> Vec<(String, Module)> {
    use oxir_ir::ops::{Format, TypeRule};
    let info = op.info();
    let mut arg_lists: Vec<Vec<T>> = Vec::new();
    let arities: Vec<usize> = (1..=4).filter(|&n| info.arity.accepts(n)).collect();
    for &n in &arities {
        match n {
            1 => arg_lists.extend(POOL.iter().map(|&t| vec![t])),
            2 => {
                for &a in POOL {
                    for &b in POOL {
                        arg_lists.push(vec![a, b]);
                    }
                }
            }
            3 => {
                for &a in POOL {
                    for &b in POOL {
                        for &c in POOL {
                            if (a == b || b == c || a == c) || op == Opcode::Construct {
                                arg_lists.push(vec![a, b, c]);
                            }
                        }
                    }
                }
            }
            _ => {
                for &a in POOL {
                    for &b in POOL {
                        arg_lists.push(vec![a, a, b, b]);
                        arg_lists.push(vec![a, a, a, a]);
                    }
                }
            }
        }
    }
    let results: Vec<Option<T>> = match info.rule {
        TypeRule::Convert | TypeRule::Bitcast | TypeRule::Construct | TypeRule::Splat => {
            POOL.iter().map(|&t| Some(t)).collect()
        }
        TypeRule::Frexp | TypeRule::Modf => DECOMPOSITIONS.iter().map(|&t| Some(t)).collect(),
        _ => vec![None],
    };
    let indices: Vec<Option<&[u32]>> = match info.format {
        Format::Indices => vec![Some(&[1]), Some(&[0, 1]), Some(&[1, 0, 2])],
        _ => vec![None],
    };
    let mut out = Vec::new();
    let mut seen_first: BTreeSet<(T, Option<T>)> = BTreeSet::new();
    'outer: for args in &arg_lists {
        for &result in &results {
            for &ix in &indices {
                let key = (args[0], result);
                if seen_first.contains(&key) {
                    continue;
                }
                if let Some(m) = generic_instance(op, args, result, ix) {
                    seen_first.insert(key);
                    out.push((format!("{op} {args:?} -> {result:?} {ix:?}"), m));
                    if out.len() >= limit {
                        break 'outer;
                    }
                }
            }
        }
    }
    out
}

/// Hand-written instances (text form) for memory, atomics, barriers, registers, textures
/// and control flow; the key is a label.
fn text_instances() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = Vec::new();
    let mut add = |label: &str, text: String| v.push((label.to_string(), text));
    let kernel = |globals: &str, body: &str| {
        format!(
            "const c0: u32 = 0\nconst c1: u32 = 1\nconst c2: i32 = 1\nconst c3: f32 = 0.5\n{globals}\n\
             kernel @main() workgroup_size(4, 1, 1) {{\nblock0:\n{body}    return\n}}\n"
        )
    };
    let buffers = "global @u: storage(read_write) array<u32> binding(0, 0)\n\
                   global @i: storage(read_write) array<i32> binding(0, 1)\n\
                   global @f: storage(read_write) array<f32> binding(0, 2)\n\
                   global @w: workgroup array<u32, 4>\n\
                   struct %S { n: u32, data: array<f32> }\n\
                   global @s: storage(read_write) %S binding(0, 3)\n\
                   global @big: storage(read_write) array<u64> binding(0, 4)";
    add(
        "alloca/load/store/access",
        kernel(
            buffers,
            "    v0: ptr<function, array<f32, 4>> = alloca\n\
             \x20   v1: u32 = local_invocation_index\n\
             \x20   v2: ptr<function, f32> = access v0, v1\n\
             \x20   store v2, c3\n\
             \x20   v3: ptr<function, f32> = access v0, c0\n\
             \x20   v4: f32 = load v3\n\
             \x20   v5: ptr<storage(read_write), f32> = access @f, v1\n\
             \x20   store v5, v4\n",
        ),
    );
    add(
        "array_length",
        kernel(
            buffers,
            "    v0: u32 = array_length @u\n\
             \x20   v1: ptr<storage(read_write), array<f32>> = access @s, c1\n\
             \x20   v2: u32 = array_length v1\n\
             \x20   v3: u32 = add v0, v2\n\
             \x20   v4: ptr<storage(read_write), u32> = access @u, c0\n\
             \x20   store v4, v3\n",
        ),
    );
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
        ("atomic_max", 1, "u32", "@u"),
        ("atomic_max", 1, "u32", "@w"),
        ("atomic_add", 1, "u64", "@big"),
    ] {
        let space = if buf == "@w" {
            "workgroup"
        } else {
            "storage(read_write)"
        };
        let value = if ty == "i32" {
            "c2"
        } else if ty == "u64" {
            "c9"
        } else {
            "c1"
        };
        let args = std::iter::repeat_n(format!(", {value}"), values).collect::<String>();
        let body = if values == 1 && name == "atomic_store" {
            format!("    v0: ptr<{space}, {ty}> = access {buf}, c0\n    {name} v0{args}\n")
        } else {
            format!(
                "    v0: ptr<{space}, {ty}> = access {buf}, c0\n\
                 \x20   v1: {ty} = {name} v0{args}\n\
                 \x20   v2: ptr<{space}, {ty}> = access {buf}, c1\n\
                 \x20   store v2, v1\n"
            )
        };
        add(
            &format!("{name} {ty} {buf}"),
            kernel(&format!("{buffers}\nconst c9: u64 = 1"), &body),
        );
    }
    add(
        "barriers",
        kernel(
            buffers,
            "    workgroup_barrier\n    storage_barrier\n\
             \x20   v0: ptr<workgroup, u32> = access @w, c0\n\
             \x20   v1: u32 = workgroup_uniform_load v0\n\
             \x20   v2: ptr<storage(read_write), u32> = access @u, c0\n\
             \x20   store v2, v1\n",
        ),
    );
    // The subgroup ops the generic generator cannot build: `subgroup_elect` has no
    // operand, `subgroup_broadcast` needs a constant lane.
    add(
        "subgroup elect and broadcast",
        kernel(
            buffers,
            "    v0: u32 = local_invocation_index\n\
             \x20   v1: bool = subgroup_elect\n\
             \x20   v2: u32 = convert v1\n\
             \x20   v3: u32 = subgroup_broadcast v0, c1\n\
             \x20   v4: f32 = convert v0\n\
             \x20   v5: f32 = subgroup_broadcast v4, c0\n\
             \x20   v6: ptr<storage(read_write), u32> = access @u, v0\n\
             \x20   v7: u32 = add v2, v3\n\
             \x20   store v6, v7\n\
             \x20   v8: ptr<storage(read_write), f32> = access @f, v0\n\
             \x20   store v8, v5\n",
        ),
    );
    add(
        "spec_constant",
        "const c0: u32 = 7\nconst c1: f32 = 1.5\nconst c2: bool = true\n\
         global @u: storage(read_write) array<u32> binding(0, 0)\n\
         global @f: storage(read_write) array<f32> binding(0, 1)\n\
         kernel @main() workgroup_size(4, 1, 1) {\nblock0:\n\
         \x20   v0: u32 = spec_constant c0, 3\n\
         \x20   v1: f32 = spec_constant c1, 4\n\
         \x20   v2: bool = spec_constant c2, 5\n\
         \x20   v3: u32 = select v2, v0, c0\n\
         \x20   v4: ptr<storage(read_write), u32> = access @u, v0\n\
         \x20   store v4, v3\n\
         \x20   v5: ptr<storage(read_write), f32> = access @f, v0\n\
         \x20   store v5, v1\n    return\n}\n"
            .to_string(),
    );
    for (reg, ty, stage) in [
        ("thread_id", "vec3<u32>", "kernel"),
        ("workgroup_id", "vec3<u32>", "kernel"),
        ("dispatch_id", "vec3<u32>", "kernel"),
        ("local_invocation_index", "u32", "kernel"),
        ("workgroup_size", "vec3<u32>", "kernel"),
        ("num_workgroups", "vec3<u32>", "kernel"),
        ("dispatch_size", "vec3<u32>", "kernel"),
        ("subgroup_invocation_id", "u32", "kernel"),
        ("subgroup_size", "u32", "fragment"),
        ("subgroup_id", "u32", "kernel"),
        ("num_subgroups", "u32", "kernel"),
        ("frag_coord", "vec4<f32>", "fragment"),
        ("front_facing", "bool", "fragment"),
        ("sample_index", "u32", "fragment"),
        ("primitive_id", "u32", "fragment"),
        ("vertex_index", "u32", "vertex"),
        ("instance_index", "u32", "vertex"),
        ("base_instance", "u32", "vertex"),
    ] {
        let (store_ty, conv) = match ty {
            "bool" => ("u32", "    v9: u32 = convert v0\n"),
            _ => (ty, "    v9: TY = bitcast v0\n"),
        };
        let conv = conv.replace("TY", ty);
        let head = match stage {
            "kernel" => "kernel @main() workgroup_size(4, 1, 1)",
            "fragment" => "fragment @main()",
            _ => "vertex @main() -> vec4<f32> builtin(position)",
        };
        let ret = if stage == "vertex" {
            "return c5"
        } else {
            "return"
        };
        add(
            reg,
            format!(
                "const c0: u32 = 0\nconst c5: vec4<f32> = zero\n\
                 global @out: storage(read_write) array<{store_ty}> binding(0, 0)\n\
                 {head} {{\nblock0:\n    v0: {ty} = {reg}\n{conv}\
                 \x20   v1: ptr<storage(read_write), {store_ty}> = access @out, c0\n\
                 \x20   store v1, v9\n    {ret}\n}}\n"
            ),
        );
    }
    // Textures: one fragment shader per op and shape.
    let tex_globals = "global @t2: handle texture_2d<f32> binding(0, 0)\n\
                       global @ta: handle texture_2d_array<f32> binding(0, 1)\n\
                       global @t3: handle texture_3d<f32> binding(0, 2)\n\
                       global @tc: handle texture_cube<f32> binding(0, 3)\n\
                       global @td: handle texture_2d<depth> binding(0, 4)\n\
                       global @tm: handle texture_ms_2d<f32> binding(0, 5)\n\
                       global @t1: handle texture_1d<u32> binding(0, 6)\n\
                       global @s: handle sampler binding(0, 7)\n\
                       global @sc: handle sampler_comparison binding(0, 8)\n\
                       global @st: handle texture_storage_2d<r32uint, read_write> binding(0, 9)\n\
                       global @sa: handle texture_storage_2d_array<rgba32float, write> binding(0, 10)\n\
                       global @tca: handle texture_cube_array<i32> binding(0, 11)\n\
                       global @tda: handle texture_2d_array<depth> binding(0, 12)\n\
                       global @out: storage(read_write) array<vec4<f32>> binding(1, 0)\n\
                       global @outu: storage(read_write) array<u32> binding(1, 1)\n\
                       global @uv: storage(read_write) array<vec2<f32>> binding(1, 2)";
    let tex = |body: &str| {
        format!(
            "const c0: u32 = 0\nconst c1: i32 = 1\nconst c2: f32 = 0.5\nconst c3: vec2<i32> = zero\n\
             const c4: vec3<f32> = zero\nconst c5: vec2<u32> = zero\nconst c6: vec4<f32> = zero\n\
             {tex_globals}\nfragment @main() {{\nblock0:\n\
             \x20   v90: ptr<storage(read_write), vec2<f32>> = access @uv, c0\n\
             \x20   v91: vec2<f32> = load v90\n\
             \x20   v92: ptr<storage(read_write), vec4<f32>> = access @out, c0\n\
             \x20   v93: ptr<storage(read_write), u32> = access @outu, c0\n\
             \x20   v80: texture_2d<f32> = load @t2\n\
             \x20   v81: sampler = load @s\n{body}    return\n}}\n"
        )
    };
    let v4 = "    store v92, v1\n";
    let u1 = "    store v93, v1\n";
    add(
        "texture_sample",
        tex(&format!(
            "    v1: vec4<f32> = texture_sample v80, v81, v91\n{v4}"
        )),
    );
    add(
        "texture_sample_bias",
        tex(&format!(
            "    v0: texture_2d_array<f32> = load @ta\n    v1: vec4<f32> = texture_sample_bias v0, v81, v91, c1, c2\n{v4}"
        )),
    );
    add(
        "texture_sample_level",
        tex(&format!(
            "    v0: texture_3d<f32> = load @t3\n    v1: vec4<f32> = texture_sample_level v0, v81, c4, c2\n{v4}"
        )),
    );
    add(
        "texture_sample_level depth",
        tex("    v0: texture_2d<depth> = load @td\n    v1: f32 = texture_sample_level v0, v81, v91, c1\n    v2: vec4<f32> = splat v1\n    store v92, v2\n"),
    );
    add(
        "texture_sample_grad",
        tex(&format!(
            "    v0: texture_cube<f32> = load @tc\n    v1: vec4<f32> = texture_sample_grad v0, v81, c4, c4, c4\n{v4}"
        )),
    );
    add(
        "texture_sample_grad cube array",
        tex("    v0: texture_cube_array<i32> = load @tca\n    v1: vec4<i32> = texture_sample_grad v0, v81, c4, c1, c4, c4\n    v2: vec4<f32> = convert v1\n    store v92, v2\n"),
    );
    add(
        "texture_sample_compare",
        tex("    v0: texture_2d<depth> = load @td\n    v3: sampler_comparison = load @sc\n    v1: f32 = texture_sample_compare v0, v3, v91, c2\n    v2: vec4<f32> = splat v1\n    store v92, v2\n"),
    );
    add(
        "texture_sample_compare_level",
        tex("    v0: texture_2d_array<depth> = load @tda\n    v3: sampler_comparison = load @sc\n    v1: f32 = texture_sample_compare_level v0, v3, v91, c1, c2, c3\n    v2: vec4<f32> = splat v1\n    store v92, v2\n"),
    );
    add(
        "texture_sample with an offset",
        tex(&format!(
            "    v1: vec4<f32> = texture_sample_level v80, v81, v91, c2, c3\n{v4}"
        )),
    );
    add(
        "texture_gather",
        tex(&format!(
            "    v1: vec4<f32> = texture_gather v80, v81, v91, c0, c3\n{v4}"
        )),
    );
    add(
        "texture_gather depth",
        tex("    v0: texture_2d<depth> = load @td\n    v1: vec4<f32> = texture_gather v0, v81, v91\n    store v92, v1\n"),
    );
    add(
        "texture_gather_compare",
        tex("    v0: texture_2d<depth> = load @td\n    v3: sampler_comparison = load @sc\n    v1: vec4<f32> = texture_gather_compare v0, v3, v91, c2\n    store v92, v1\n"),
    );
    add(
        "texture_load",
        tex(&format!(
            "    v1: vec4<f32> = texture_load v80, c3, c1\n{v4}"
        )),
    );
    add(
        "texture_load ms",
        tex(&format!(
            "    v0: texture_ms_2d<f32> = load @tm\n    v1: vec4<f32> = texture_load v0, c5, c1\n{v4}"
        )),
    );
    add(
        "texture_load 1d",
        tex("    v0: texture_1d<u32> = load @t1\n    v2: vec4<u32> = texture_load v0, c1, c1\n    v1: u32 = extract v2, 0\n    store v93, v1\n"),
    );
    add(
        "texture_load storage",
        tex("    v0: texture_storage_2d<r32uint, read_write> = load @st\n    v2: vec4<u32> = texture_load v0, c3\n    v1: u32 = extract v2, 0\n    store v93, v1\n"),
    );
    add(
        "texture_store",
        tex("    v0: texture_storage_2d_array<rgba32float, write> = load @sa\n    texture_store v0, c3, c1, c6\n"),
    );
    add(
        "texture_dimensions",
        tex("    v0: texture_2d_array<f32> = load @ta\n    v2: vec2<u32> = texture_dimensions v0, c1\n    v1: u32 = extract v2, 1\n    store v93, v1\n"),
    );
    add(
        "texture_dimensions storage",
        tex("    v0: texture_storage_2d<r32uint, read_write> = load @st\n    v2: vec2<u32> = texture_dimensions v0\n    v1: u32 = extract v2, 1\n    store v93, v1\n"),
    );
    add(
        "texture_num_levels",
        tex(&format!("    v1: u32 = texture_num_levels v80\n{u1}")),
    );
    add(
        "texture_num_layers",
        tex(&format!(
            "    v0: texture_2d_array<f32> = load @ta\n    v1: u32 = texture_num_layers v0\n{u1}"
        )),
    );
    add(
        "texture_num_samples",
        tex(&format!(
            "    v0: texture_ms_2d<f32> = load @tm\n    v1: u32 = texture_num_samples v0\n{u1}"
        )),
    );
    // Control flow: the structured fixture, plus discard and unreachable.
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/filetests/ir/control_structured.oxir");
    add(
        "control_structured.oxir",
        std::fs::read_to_string(fixture).unwrap(),
    );
    add(
        "discard and unreachable",
        "const c0: u32 = 0\nconst c9: vec4<f32> = zero\nglobal @u: storage(read_write) array<u32> binding(0, 0)\n\
         fragment @main() -> vec4<f32> location(0) {\nblock0:\n\
         \x20   v0: ptr<storage(read_write), u32> = access @u, c0\n\
         \x20   v1: u32 = load v0\n    v2: bool = eq v1, c0\n\
         \x20   if v2, then block1, else block2, merge block3 {\n\
         \x20       block1:\n            discard\n\
         \x20       block2:\n            unreachable \"never\"\n    }\n\
         block3:\n    return c9\n}\n"
            .to_string(),
    );
    // A workgroup initializer in a module without a `u32` type (the zero-init prologue
    // reads LocalInvocationIndex all the same).
    add(
        "workgroup initializer without u32",
        "const c0: f32 = 1.5\nconst c1: i32 = 0\nglobal @w: workgroup f32 = c0\n\
         global @f: storage(read_write) array<f32> binding(0, 0)\n\
         kernel @main() workgroup_size(2, 1, 1) {\nblock0:\n\
         \x20   v0: f32 = load @w\n\
         \x20   v1: ptr<storage(read_write), f32> = access @f, c1\n\
         \x20   store v1, v0\n    return\n}\n"
            .to_string(),
    );
    // Refused ops: nothing the writer can express.
    add("print", kernel(buffers, "    print \"{}\", c0\n"));
    add(
        "assert",
        kernel(buffers, "    v0: bool = eq c0, c1\n    assert \"no\", v0\n"),
    );
    add(
        "clock",
        kernel(
            buffers,
            "    v0: u64 = clock\n    v1: ptr<storage(read_write), u64> = access @big, c0\n    store v1, v0\n",
        ),
    );
    add(
        "call",
        "callable @f(u32) -> u32 {\nblock0(v0: u32):\n    return v0\n}\n\
         const c0: u32 = 0\nglobal @u: storage(read_write) array<u32> binding(0, 0)\n\
         kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n\
         \x20   v0: ptr<storage(read_write), u32> = access @u, c0\n\
         \x20   v1: u32 = load v0\n    v2: u32 = call @f(v1)\n    store v0, v2\n    return\n}\n"
            .to_string(),
    );
    add(
        "switch_br",
        "const c0: u32 = 0\nglobal @u: storage(read_write) array<u32> binding(0, 0)\n\
         kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n\
         \x20   v0: ptr<storage(read_write), u32> = access @u, c0\n\
         \x20   v1: u32 = load v0\n    switch_br v1, [0: block1], default block2\n\
         block1:\n    return\nblock2:\n    return\n}\n"
            .to_string(),
    );
    v
}

fn spirv_val(words: &[u32], env: TargetEnv) -> Result<(), String> {
    oxir_test_support::spirv_val::spirv_val(words, env.name())
}

/// Every opcode used in `m`.
fn opcodes(m: &Module) -> BTreeSet<Opcode> {
    let mut ops = BTreeSet::new();
    for f in m.functions.values() {
        for block in f.layout.blocks() {
            for inst in f.layout.block_insts(block) {
                ops.insert(f.dfg.inst(inst).opcode);
            }
        }
    }
    ops
}

#[test]
fn every_opcode_the_preflight_accepts_is_written_and_valid_and_every_refusal_names_it() {
    let validate = Command::new("spirv-val").arg("--version").output().is_ok();
    if !validate {
        eprintln!(
            "SKIPPED spirv-val checks: spirv-val is not installed (apt-get install spirv-tools)"
        );
    }
    for env in TargetEnv::ALL {
        check_env(env, validate);
    }
}

/// The sync check for one environment (the SPIR-V version changes some lowerings).
/// Every module of the sync check: generated instances of each generic opcode, narrow
/// integer and f16 arithmetic, composite `select`s and the hand-written text instances.
fn all_instances() -> Vec<(String, Module)> {
    let mut modules: Vec<(String, Module)> = Vec::new();
    for &op in Opcode::ALL {
        if generic(op) {
            modules.extend(generic_instances(op, 5));
        }
    }
    // 8- and 16-bit values in buffers and their arithmetic.
    for t in [
        T::S(Scalar::I8),
        T::S(Scalar::U16),
        T::S(Scalar::I16),
        T::V(Scalar::U8, 4),
        T::S(Scalar::F16),
        T::V(Scalar::F16, 4),
    ] {
        for op in [
            Opcode::Add,
            Opcode::Div,
            Opcode::Rem,
            Opcode::Shr,
            Opcode::Max,
        ] {
            if let Some(m) = generic_instance(op, &[t, t], None, None) {
                modules.push((format!("{op} {t:?}"), m));
            }
        }
        for to in [T::S(Scalar::I32), T::S(Scalar::F32), T::S(Scalar::U8)] {
            if let Some(m) = generic_instance(Opcode::Convert, &[t], Some(to), None) {
                modules.push((format!("convert {t:?} -> {to:?}"), m));
            }
        }
    }
    // Composites the first-argument spread does not reach: `select` of matrices, arrays.
    for t in [T::M(3, 3), T::Arr4F32, T::V(Scalar::F32, 3)] {
        let args = [T::S(Scalar::BOOL), t, t];
        let m = generic_instance(Opcode::Select, &args, None, None).expect("select builds");
        modules.push((format!("select {args:?}"), m));
    }
    for (label, text) in text_instances() {
        let m =
            oxir_ir::parser::parse_module(&text).unwrap_or_else(|e| panic!("{label}: {e}\n{text}"));
        modules.push((label, m));
    }
    modules
}

fn check_env(env: TargetEnv, validate: bool) {
    let options = Options {
        target_env: env,
        ..Options::default()
    };
    let modules = all_instances();
    let mut failures = Vec::new();
    let mut validated: BTreeSet<Opcode> = BTreeSet::new();
    let mut refused_by: BTreeMap<Opcode, String> = BTreeMap::new();
    let mut reasons: BTreeMap<String, u32> = BTreeMap::new();
    let (mut written, mut refused) = (0, 0);
    for (label, m) in &modules {
        let used = opcodes(m);
        match preflight(m, &options) {
            Ok(()) => {
                for &op in &used {
                    if let Support::Refused(why) = opcode_support(op) {
                        failures.push(format!(
                            "{op}: the op table refuses it ({why}) but the preflight accepted `{label}`"
                        ));
                    }
                }
                match write_module(m, &options) {
                    Ok(words) => {
                        written += 1;
                        let dups = oxir_test_support::spirv_duplicates::duplicates(&words);
                        if !dups.is_empty() {
                            failures.push(format!("{label} ({}): {dups:?}", env.name()));
                        }
                        if validate {
                            if let Err(msg) = spirv_val(&words, env) {
                                failures
                                    .push(format!("{label} ({}): spirv-val: {msg}", env.name()));
                                continue;
                            }
                        }
                        validated.extend(used);
                    }
                    Err(e) => failures.push(format!(
                        "{label}: the preflight accepted it but the writer failed: {e}"
                    )),
                }
            }
            Err(error) => {
                let oxir_spirv::Error::Unsupported { what: why, .. } = error else {
                    panic!("{label}: the preflight failed with other than a refusal: {error}");
                };
                refused += 1;
                *reasons.entry(why.clone()).or_default() += 1;
                assert!(
                    matches!(
                        write_module(m, &options),
                        Err(oxir_spirv::Error::Unsupported { .. })
                            | Err(oxir_spirv::Error::Invalid(_))
                    ),
                    "{label}: the preflight refused but write_module did not"
                );
                for &op in &used {
                    if matches!(opcode_support(op), Support::Refused(_)) {
                        if !why.contains(op.mnemonic()) {
                            failures.push(format!(
                                "{op}: refused for `{label}` with a reason that does not name it: {why}"
                            ));
                        }
                        refused_by.insert(op, why.clone());
                    }
                }
            }
        }
    }
    for &op in Opcode::ALL {
        match opcode_support(op) {
            // vulkan1.0 (SPIR-V 1.0) refuses the subgroup ops; the others must show all.
            Support::Written if !validated.contains(&op) && env != TargetEnv::Vulkan1_0 => failures
                .push(format!(
                    "{op}: the op table says written, but no module using it was accepted{}",
                    if validate { " and validated" } else { "" }
                )),
            Support::Refused(_) if !refused_by.contains_key(&op) => failures.push(format!(
                "{op}: the op table refuses it, but no test module showed the preflight refusing it"
            )),
            _ => {}
        }
    }
    println!(
        "{}: {} modules: {written} written, {refused} refused by the preflight; {} opcodes validated",
        env.name(),
        modules.len(),
        validated.len()
    );
    for (why, n) in &reasons {
        println!("  refused: {why}: {n}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The interpreter is the oracle the back-ends are judged by, so it must never make up a
/// value: every module of the sync check (every opcode, generated from the op table's
/// type rules, plus the hand-written memory, atomic, barrier, register, texture and
/// control-flow instances) runs to completion with seeded random buffer contents, or
/// stops with a typed error that is not "malformed" (the verifier admits these modules,
/// so a malformed-operand error would be an interpreter bug). Every opcode of the table
/// must be executed by at least one module.
#[test]
fn every_opcode_evaluates_in_the_interpreter_or_reports_a_typed_error() {
    use oxir_interp::{ErrorKind, Options as RunOptions, StageInputs};
    let mut failures = Vec::new();
    let mut executed: BTreeSet<Opcode> = BTreeSet::new();
    let mut refusals: BTreeMap<String, u32> = BTreeMap::new();
    let (mut ran, mut refused) = (0, 0);
    for (seed, (label, m)) in all_instances().iter().enumerate() {
        let mut buffers = oxir_interp::Buffers::new();
        let bindings = oxir_interp::bindings(m).unwrap_or_else(|e| panic!("{label}: {e}"));
        for (key, info) in &bindings {
            let size = info.min_size.max(64) as usize;
            buffers.insert(*key, oxir_interp::random_bytes(size, seed as u64));
        }
        let options = RunOptions::default();
        let Some(entry) = m.functions.values().find(|f| f.kind.is_entry_point()) else {
            panic!("{label}: no entry point");
        };
        let name = entry.name.as_str();
        let result = match entry.kind {
            FunctionKind::Kernel { .. } => {
                oxir_interp::dispatch(m, name, [1, 1, 1], &mut buffers, &options).map(|_| ())
            }
            _ => oxir_interp::run_single(m, name, &StageInputs::default(), &mut buffers, &options)
                .map(|_| ()),
        };
        match result {
            Ok(()) => {
                ran += 1;
                executed.extend(opcodes(m));
            }
            Err(error) => match &error.kind {
                // A verified module reaching a malformed-operand error, or the scalar
                // semantics refusing an op the verifier admitted (a dispatch that sends an
                // op to the wrong lane helper), is an interpreter bug.
                ErrorKind::Malformed(_)
                | ErrorKind::MalformedTerminator(_)
                | ErrorKind::InvalidModule(_)
                | ErrorKind::Scalar(_) => failures.push(format!(
                    "{label}: the interpreter calls a valid module malformed: {error}"
                )),
                other => {
                    refused += 1;
                    *refusals.entry(format!("{other}")).or_default() += 1;
                    executed.extend(opcodes(m));
                }
            },
        }
    }
    let missing: Vec<Opcode> = Opcode::ALL
        .iter()
        .copied()
        .filter(|op| !executed.contains(op))
        .collect();
    println!("interpreter: {ran} modules ran, {refused} stopped with a typed error: {refusals:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        missing.is_empty(),
        "opcodes no instance executed in the interpreter: {missing:?}"
    );
}
