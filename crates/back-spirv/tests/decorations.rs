//! Unit tests of what the writer declares: stage-interface decorations (Location,
//! interpolation, built-ins, Flat on integer fragment inputs), resource bindings on images
//! and samplers, execution modes, entry-point interface lists per SPIR-V version,
//! capabilities only when used, and declarations shared unless their layout differs.

use oxir_spirv::{write_module, Options, TargetEnv};
use rspirv::dr::{Module, Operand};
use rspirv::spirv::{BuiltIn, Capability, Decoration, ExecutionMode, Op, StorageClass};
use std::collections::BTreeSet;

fn compile(text: &str, env: TargetEnv) -> Module {
    let m = oxir_ir::parser::parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let words = write_module(
        &m,
        // The tests find variables by their names.
        &Options {
            target_env: env,
            debug_names: true,
        },
    )
    .unwrap_or_else(|e| panic!("{e}"));
    rspirv::dr::load_words(&words).unwrap()
}

/// Every decoration of `id`, with its literal operands.
fn decorations(m: &Module, id: u32) -> Vec<(Decoration, Vec<Operand>)> {
    m.annotations
        .iter()
        .filter(|i| i.class.opcode == Op::Decorate && i.operands[0] == Operand::IdRef(id))
        .map(|i| {
            let Operand::Decoration(d) = i.operands[1] else {
                panic!()
            };
            (d, i.operands[2..].to_vec())
        })
        .collect()
}

fn has(m: &Module, id: u32, d: Decoration) -> bool {
    decorations(m, id).iter().any(|(x, _)| *x == d)
}

/// The variable decorated with `d` and literal `value`.
fn var_with(m: &Module, d: Decoration, value: Operand) -> u32 {
    m.annotations
        .iter()
        .find(|i| {
            i.class.opcode == Op::Decorate
                && i.operands[1] == Operand::Decoration(d)
                && i.operands.get(2) == Some(&value)
        })
        .and_then(|i| match i.operands[0] {
            Operand::IdRef(id) => Some(id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no variable with {d:?} {value:?}"))
}

fn location(m: &Module, loc: u32, class: StorageClass) -> u32 {
    let ids: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| {
            i.operands[1] == Operand::Decoration(Decoration::Location)
                && i.operands[2] == Operand::LiteralBit32(loc)
        })
        .filter_map(|i| match i.operands[0] {
            Operand::IdRef(id) => Some(id),
            _ => None,
        })
        .collect();
    *ids.iter()
        .find(|&&id| storage_class(m, id) == Some(class))
        .unwrap_or_else(|| panic!("no {class:?} variable at location {loc}"))
}

fn builtin(m: &Module, b: BuiltIn) -> u32 {
    var_with(m, Decoration::BuiltIn, Operand::BuiltIn(b))
}

fn storage_class(m: &Module, id: u32) -> Option<StorageClass> {
    m.types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::Variable && i.result_id == Some(id))
        .and_then(|i| match i.operands[0] {
            Operand::StorageClass(c) => Some(c),
            _ => None,
        })
}

fn named(m: &Module, name: &str) -> u32 {
    m.debug_names
        .iter()
        .find(|i| i.operands.get(1) == Some(&Operand::LiteralString(name.into())))
        .and_then(|i| match i.operands[0] {
            Operand::IdRef(id) => Some(id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no OpName {name}"))
}

fn capabilities(m: &Module) -> BTreeSet<Capability> {
    m.capabilities
        .iter()
        .map(|i| match i.operands[0] {
            Operand::Capability(c) => c,
            _ => panic!(),
        })
        .collect()
}

fn modes(m: &Module) -> Vec<ExecutionMode> {
    m.execution_modes
        .iter()
        .map(|i| match i.operands[1] {
            Operand::ExecutionMode(e) => e,
            _ => panic!(),
        })
        .collect()
}

/// The interface ids of the entry point named `name`.
fn interface(m: &Module, name: &str) -> Vec<u32> {
    let ep = m
        .entry_points
        .iter()
        .find(|i| i.operands[2] == Operand::LiteralString(name.into()))
        .unwrap();
    ep.operands[3..]
        .iter()
        .map(|o| match o {
            Operand::IdRef(id) => *id,
            _ => panic!(),
        })
        .collect()
}

const VERTEX: &str = "\
const c0: vec4<f32> = zero
const c1: i32 = 1
const c2: f32 = 0.5
vertex @vs(vec3<f32> location(0), u32 location(1)) -> (vec4<f32> builtin(position), i32 location(0, flat, center), f32 location(1, linear, centroid), vec2<f32> location(2, perspective, sample)) {
block0(v0: vec3<f32>, v1: u32):
    v2: u32 = vertex_index
    v3: vec2<f32> = splat c2
    v4: u32 = add v1, v2
    v5: i32 = bitcast v4
    v6: f32 = extract v0, 0
    return c0, v5, v6, v3
}
";

#[test]
fn vertex_locations_interpolation_and_builtins() {
    let m = compile(VERTEX, TargetEnv::Vulkan1_1);
    // Outputs carry their interpolation.
    let flat = location(&m, 0, StorageClass::Output);
    assert!(has(&m, flat, Decoration::Flat));
    let linear = location(&m, 1, StorageClass::Output);
    assert!(has(&m, linear, Decoration::NoPerspective));
    assert!(has(&m, linear, Decoration::Centroid));
    assert!(!has(&m, linear, Decoration::Flat));
    let sample = location(&m, 2, StorageClass::Output);
    assert!(has(&m, sample, Decoration::Sample));
    assert!(!has(&m, sample, Decoration::NoPerspective));
    assert!(capabilities(&m).contains(&Capability::SampleRateShading));
    // Vertex inputs never carry interpolation, integer or not.
    for loc in [0, 1] {
        let input = location(&m, loc, StorageClass::Input);
        let ds: Vec<Decoration> = decorations(&m, input).into_iter().map(|d| d.0).collect();
        assert_eq!(ds, vec![Decoration::Location], "input {loc}");
    }
    let pos = builtin(&m, BuiltIn::Position);
    assert_eq!(storage_class(&m, pos), Some(StorageClass::Output));
    assert!(!has(&m, pos, Decoration::Invariant));
    let vi = builtin(&m, BuiltIn::VertexIndex);
    assert_eq!(storage_class(&m, vi), Some(StorageClass::Input));
    assert!(modes(&m).is_empty(), "{:?}", modes(&m));
    assert_eq!(
        m.entry_points[0].operands[0],
        Operand::ExecutionModel(rspirv::spirv::ExecutionModel::Vertex)
    );
}

const FRAGMENT: &str = "\
const c0: u32 = 0
global @out: storage(read_write) array<u32> binding(0, 3)
fragment @fs(i32 location(0), f32 location(1, linear, center), vec2<u32> location(2, flat, center)) -> (vec4<f32> location(0), f32 builtin(frag_depth)) {
block0(v0: i32, v1: f32, v2: vec2<u32>):
    v3: vec4<f32> = frag_coord
    v4: bool = front_facing
    v5: u32 = sample_index
    v6: ptr<storage(read_write), u32> = access @out, c0
    store v6, v5
    v7: f32 = extract v3, 0
    v8: f32 = convert v0
    v9: f32 = add v7, v8
    v10: f32 = add v9, v1
    v11: u32 = extract v2, 1
    v12: u32 = select v4, v11, c0
    v13: ptr<storage(read_write), u32> = access @out, v12
    store v13, v5
    return v3, v10
}
";

#[test]
fn fragment_flat_integers_builtins_and_modes() {
    let m = compile(FRAGMENT, TargetEnv::Vulkan1_1);
    // An integer fragment input without interpolation is still Flat (Vulkan requires it).
    let int_in = location(&m, 0, StorageClass::Input);
    assert!(has(&m, int_in, Decoration::Flat));
    let lin = location(&m, 1, StorageClass::Input);
    assert!(has(&m, lin, Decoration::NoPerspective));
    assert!(!has(&m, lin, Decoration::Flat));
    assert!(has(
        &m,
        location(&m, 2, StorageClass::Input),
        Decoration::Flat
    ));
    // Fragment outputs carry no interpolation.
    let out = location(&m, 0, StorageClass::Output);
    assert!(!has(&m, out, Decoration::Flat) && !has(&m, out, Decoration::NoPerspective));
    let coord = builtin(&m, BuiltIn::FragCoord);
    assert_eq!(storage_class(&m, coord), Some(StorageClass::Input));
    assert!(!has(&m, coord, Decoration::Flat));
    let _ = builtin(&m, BuiltIn::FrontFacing);
    let sample = builtin(&m, BuiltIn::SampleId);
    assert!(
        has(&m, sample, Decoration::Flat),
        "integer built-in input is Flat"
    );
    let depth = builtin(&m, BuiltIn::FragDepth);
    assert_eq!(storage_class(&m, depth), Some(StorageClass::Output));
    let modes = modes(&m);
    assert!(modes.contains(&ExecutionMode::OriginUpperLeft));
    assert!(modes.contains(&ExecutionMode::DepthReplacing));
    assert!(capabilities(&m).contains(&Capability::SampleRateShading));
}

#[test]
fn depth_replacing_only_when_frag_depth_is_written() {
    let text = "fragment @fs(vec4<f32> location(0)) -> vec4<f32> location(0) {\nblock0(v0: vec4<f32>):\n    return v0\n}\n";
    let m = compile(text, TargetEnv::Vulkan1_1);
    assert_eq!(modes(&m), vec![ExecutionMode::OriginUpperLeft]);
    assert_eq!(capabilities(&m), BTreeSet::from([Capability::Shader]));
}

const TEXTURES: &str = "\
const c0: u32 = 0
const c1: i32 = 0
global @t: handle texture_1d<f32> binding(2, 5)
global @s: handle sampler binding(2, 6)
global @w: handle texture_storage_2d<rgba8unorm, write> binding(3, 0)
global @out: storage(read_write) array<u32> binding(0, 0)
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: texture_1d<f32> = load @t
    v1: u32 = texture_dimensions v0
    v2: ptr<storage(read_write), u32> = access @out, c0
    store v2, v1
    v3: sampler = load @s
    v4: f32 = convert c1
    v5: vec4<f32> = texture_sample_level v0, v3, v4, v4
    v6: texture_storage_2d<rgba8unorm, write> = load @w
    v7: vec2<i32> = splat c1
    texture_store v6, v7, v5
    return
}
";

#[test]
fn images_get_bindings_and_their_capabilities() {
    let m = compile(TEXTURES, TargetEnv::Vulkan1_1);
    for (name, set, binding) in [("t", 2, 5), ("s", 2, 6), ("w", 3, 0)] {
        let id = named(&m, name);
        assert_eq!(
            storage_class(&m, id),
            Some(StorageClass::UniformConstant),
            "{name}"
        );
        let ds = decorations(&m, id);
        assert!(
            ds.contains(&(Decoration::DescriptorSet, vec![Operand::LiteralBit32(set)])),
            "{name}: {ds:?}"
        );
        assert!(
            ds.contains(&(Decoration::Binding, vec![Operand::LiteralBit32(binding)])),
            "{name}: {ds:?}"
        );
    }
    assert!(has(&m, named(&m, "w"), Decoration::NonReadable));
    let caps = capabilities(&m);
    assert!(caps.contains(&Capability::ImageQuery), "{caps:?}");
    assert!(caps.contains(&Capability::Sampled1D), "{caps:?}");
    assert!(
        !caps.contains(&Capability::StorageImageWriteWithoutFormat),
        "the format is known"
    );
}

/// A kernel with one storage texture of `format` and `access`: it loads a texel when the
/// texture is readable and stores zero when it is writable.
fn storage_texture_kernel(format: &str, access: &str) -> String {
    let kind = if format.ends_with("uint") {
        "u32"
    } else if format.ends_with("sint") {
        "i32"
    } else {
        "f32"
    };
    let zero = if kind == "f32" { "0.0" } else { "0" };
    let ty = format!("texture_storage_2d<{format}, {access}>");
    let read = if access == "write" {
        String::new()
    } else {
        format!("    v3: vec4<{kind}> = texture_load v0, v1\n")
    };
    let write = if access == "read" {
        ""
    } else {
        "    texture_store v0, v1, v2\n"
    };
    format!(
        "const c0: i32 = 0\nconst c1: {kind} = {zero}\n\
         global @w: handle {ty} binding(0, 0)\n\
         kernel @main() workgroup_size(1, 1, 1) {{\n\
         block0:\n    v0: {ty} = load @w\n    v1: vec2<i32> = splat c0\n\
         {read}    v2: vec4<{kind}> = splat c1\n{write}    return\n}}\n"
    )
}

#[test]
fn storage_formats_declare_their_capabilities() {
    use rspirv::spirv::ImageFormat;
    // (format, SPIR-V image format, needs StorageImageExtendedFormats), per the SPIR-V
    // specification's capability table for Image Format.
    let cases = [
        ("rgba8unorm", ImageFormat::Rgba8, false),
        ("rgba16uint", ImageFormat::Rgba16ui, false),
        ("r32sint", ImageFormat::R32i, false),
        ("r8unorm", ImageFormat::R8, true),
        ("rg16snorm", ImageFormat::Rg16Snorm, true),
        ("rg32uint", ImageFormat::Rg32ui, true),
        ("rgb10a2unorm", ImageFormat::Rgb10A2, true),
        ("rgb10a2uint", ImageFormat::Rgb10a2ui, true),
        ("r16float", ImageFormat::R16f, true),
    ];
    for (format, image_format, extended) in cases {
        let m = compile(
            &storage_texture_kernel(format, "write"),
            TargetEnv::Vulkan1_1,
        );
        let image = m
            .types_global_values
            .iter()
            .find(|i| i.class.opcode == Op::TypeImage)
            .unwrap_or_else(|| panic!("{format}: no OpTypeImage"));
        assert_eq!(
            image.operands[6],
            Operand::ImageFormat(image_format),
            "{format}"
        );
        let caps = capabilities(&m);
        assert_eq!(
            caps.contains(&Capability::StorageImageExtendedFormats),
            extended,
            "{format}: {caps:?}"
        );
    }
    // bgra8unorm has no SPIR-V image format: Unknown, with the without-format capability
    // of each access the texture has.
    for (access, read, write) in [
        ("write", false, true),
        ("read", true, false),
        ("read_write", true, true),
    ] {
        let m = compile(
            &storage_texture_kernel("bgra8unorm", access),
            TargetEnv::Vulkan1_1,
        );
        let caps = capabilities(&m);
        assert_eq!(
            caps.contains(&Capability::StorageImageReadWithoutFormat),
            read,
            "{access}: {caps:?}"
        );
        assert_eq!(
            caps.contains(&Capability::StorageImageWriteWithoutFormat),
            write,
            "{access}: {caps:?}"
        );
    }
}

#[test]
fn a_kernel_without_images_declares_no_image_or_graphics_capability() {
    let text = "\
const c0: u32 = 0
global @data: storage(read_write) array<f32> binding(0, 0)
kernel @main() workgroup_size(64, 1, 1) {
block0:
    v0: vec3<u32> = dispatch_id
    v1: u32 = extract v0, 0
    v2: ptr<storage(read_write), f32> = access @data, v1
    v3: f32 = load v2
    v4: f32 = sqrt v3
    store v2, v4
    return
}
";
    for env in TargetEnv::ALL {
        let m = compile(text, env);
        assert_eq!(
            capabilities(&m),
            BTreeSet::from([Capability::Shader]),
            "{}",
            env.name()
        );
        assert_eq!(modes(&m), vec![ExecutionMode::LocalSize]);
        // Storage buffers need an extension only under SPIR-V 1.0.
        let exts = m.extensions.len();
        assert_eq!(
            exts,
            usize::from(env == TargetEnv::Vulkan1_0),
            "{}",
            env.name()
        );
    }
}

#[test]
fn interface_lists_follow_the_spirv_version() {
    // Below 1.4: Input and Output variables only; from 1.4: every global the entry uses.
    for env in TargetEnv::ALL {
        let m = compile(FRAGMENT, env);
        let ids = interface(&m, "fs");
        let classes: BTreeSet<StorageClass> =
            ids.iter().filter_map(|&id| storage_class(&m, id)).collect();
        let has_buffer = classes.contains(&StorageClass::StorageBuffer);
        assert_eq!(
            has_buffer,
            env.spirv_version() >= (1, 4),
            "{}: {classes:?}",
            env.name()
        );
        assert!(classes.contains(&StorageClass::Input) && classes.contains(&StorageClass::Output));
        assert_eq!(
            ids.len(),
            ids.iter().collect::<BTreeSet<_>>().len(),
            "no duplicates"
        );
    }
}

#[test]
fn derivative_control_only_for_coarse_and_fine() {
    let frag = |op: &str| {
        format!(
            "fragment @fs(f32 location(0)) -> vec4<f32> location(0) {{\nblock0(v0: f32):\n    v1: f32 = {op} v0\n    v2: vec4<f32> = splat v1\n    return v2\n}}\n"
        )
    };
    let plain = compile(&frag("dpdx"), TargetEnv::Vulkan1_1);
    assert!(!capabilities(&plain).contains(&Capability::DerivativeControl));
    let fine = compile(&frag("dpdy_fine"), TargetEnv::Vulkan1_1);
    assert!(capabilities(&fine).contains(&Capability::DerivativeControl));
    // Derivatives outside fragment shaders are refused before anything is written.
    let kernel = "kernel @main() workgroup_size(1, 1, 1) {\nblock0:\n    v0: vec4<f32> = frag_coord\n    return\n}\n";
    let m = oxir_ir::parser::parse_module(kernel).unwrap();
    let e = write_module(&m, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("frag_coord"), "{e}");
}

#[test]
fn discard_is_kill_below_spirv_1_6_and_terminate_invocation_from_it() {
    let text =
        "fragment @fs(f32 location(0)) -> f32 location(0) {\nblock0(v0: f32):\n    discard\n}\n";
    for env in TargetEnv::ALL {
        let m = compile(text, env);
        let ops: Vec<Op> = m.functions[0]
            .blocks
            .iter()
            .flat_map(|b| b.instructions.iter().map(|i| i.class.opcode))
            .collect();
        let want = if env == TargetEnv::Vulkan1_3 {
            Op::TerminateInvocation
        } else {
            Op::Kill
        };
        assert!(ops.contains(&want), "{}: {ops:?}", env.name());
    }
}

/// The `OpTypeStruct`s of `m` whose members are exactly `members`.
fn structs_of(m: &Module, members: &[u32]) -> Vec<u32> {
    let want: Vec<Operand> = members.iter().map(|&t| Operand::IdRef(t)).collect();
    m.types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::TypeStruct && i.operands == want)
        .filter_map(|i| i.result_id)
        .collect()
}

#[test]
fn declarations_are_shared_unless_their_layout_differs() {
    // Two storage buffers of one struct type, the same struct in private memory, and the
    // constant 2.0 written by two different oxir constants.
    let text = "\
struct %Pair { a: f32, b: f32 }
const c0: u32 = 0
const c1: f32 = 2.0
const c2: f32 = 2.0
global @src: storage(read) %Pair binding(0, 0)
global @dst: storage(read_write) %Pair binding(0, 1)
global @tmp: private %Pair
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: %Pair = load @src
    store @tmp, v0
    v1: ptr<storage(read_write), f32> = access @dst, c0
    v2: ptr<storage(read), f32> = access @src, c0
    v3: f32 = load v2
    v4: f32 = mul v3, c1
    v5: f32 = mul v4, c2
    store v1, v5
    return
}
";
    let m = compile(text, TargetEnv::Vulkan1_1);
    let float = m
        .types_global_values
        .iter()
        .find(|i| i.class.opcode == Op::TypeFloat)
        .and_then(|i| i.result_id)
        .unwrap();
    let pairs = structs_of(&m, &[float, float]);
    // One Block struct with offsets for both buffers, one plain struct for private memory.
    assert_eq!(pairs.len(), 2, "{pairs:?}");
    let (block, plain): (Vec<u32>, Vec<u32>) = pairs
        .iter()
        .partition(|&&id| has(&m, id, Decoration::Block));
    assert_eq!((block.len(), plain.len()), (1, 1), "{pairs:?}");
    let offsets = |id: u32| {
        m.annotations
            .iter()
            .filter(|i| i.class.opcode == Op::MemberDecorate && i.operands[0] == Operand::IdRef(id))
            .count()
    };
    assert_eq!((offsets(block[0]), offsets(plain[0])), (2, 0));
    let twos = m
        .types_global_values
        .iter()
        .filter(|i| {
            i.class.opcode == Op::Constant
                && i.operands == [Operand::LiteralBit32(2.0f32.to_bits())]
        })
        .count();
    assert_eq!(twos, 1, "2.0 is declared once");
}

#[test]
fn unreferenced_globals_and_unused_inputs_are_not_declared() {
    let text = "\
const c0: u32 = 0
global @used: storage(read_write) array<u32> binding(0, 0)
global @unused: storage(read_write) array<u32> binding(0, 1)
global @unused_uniform: uniform vec4<f32> binding(0, 2)
fragment @fs(f32 location(0), u32 location(1, flat, center), f32 location(2, perspective, sample)) -> vec4<f32> location(0) {
block0(v0: f32, v1: u32, v2: f32):
    v3: vec4<f32> = frag_coord
    v4: u32 = sample_index
    v5: ptr<storage(read_write), u32> = access @used, c0
    store v5, v1
    return v3
}
";
    let m = compile(text, TargetEnv::Vulkan1_1);
    let bindings: Vec<u32> = m
        .annotations
        .iter()
        .filter(|i| i.operands[1] == Operand::Decoration(Decoration::Binding))
        .filter_map(|i| match i.operands[2] {
            Operand::LiteralBit32(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(bindings, vec![0], "only the referenced buffer is declared");
    // Location 0 is unused: not declared. Location 1 is read. Location 2 is unused but
    // `sample` interpolation makes the stage run per sample: declared.
    let locations: BTreeSet<u32> = m
        .annotations
        .iter()
        .filter(|i| i.operands[1] == Operand::Decoration(Decoration::Location))
        .filter(|i| match i.operands[0] {
            Operand::IdRef(id) => storage_class(&m, id) == Some(StorageClass::Input),
            _ => false,
        })
        .filter_map(|i| match i.operands[2] {
            Operand::LiteralBit32(l) => Some(l),
            _ => None,
        })
        .collect();
    assert_eq!(locations, BTreeSet::from([1, 2]));
    // An unused `sample_index` is declared for the same reason.
    let _ = builtin(&m, BuiltIn::SampleId);
    assert!(capabilities(&m).contains(&Capability::SampleRateShading));
}

/// `invariant` on a vertex position (WGSL `@invariant`) is the `Invariant` decoration on
/// the `Position` output, and the module passes `spirv-val`.
#[test]
fn invariant_position_is_decorated() {
    let text = VERTEX.replace(
        "-> (vec4<f32> builtin(position),",
        "-> (vec4<f32> builtin(position) invariant,",
    );
    assert_ne!(text, VERTEX);
    let m = compile(&text, TargetEnv::Vulkan1_1);
    let pos = builtin(&m, BuiltIn::Position);
    assert_eq!(storage_class(&m, pos), Some(StorageClass::Output));
    assert!(has(&m, pos, Decoration::Invariant));
    let flat = location(&m, 0, StorageClass::Output);
    assert!(!has(&m, flat, Decoration::Invariant));
    if oxir_test_support::spirv_val::have_spirv_val("invariant_position_is_decorated") {
        let words = rspirv::binary::Assemble::assemble(&m);
        let checked = oxir_test_support::spirv_val::spirv_val(&words, "vulkan1.1");
        assert_eq!(checked, Ok(()));
    }
}
