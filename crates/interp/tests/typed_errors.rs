//! Operations the interpreter cannot execute stop the run with a typed, located error
//! (and leave the buffers unwritten) instead of producing a made-up value.

use oxir_interp::{Buffers, ErrorKind, Options};
use oxir_ir::Opcode;

fn run(text: &str) -> (oxir_interp::Error, Buffers) {
    let module = oxir_ir::parser::parse_module(text).expect("the test module parses");
    let mut buffers = Buffers::new();
    buffers.insert((0, 1), vec![0xAB; 4]);
    let e = oxir_interp::dispatch(
        &module,
        "main",
        [1, 1, 1],
        &mut buffers,
        &Options::default(),
    )
    .expect_err("the run must fail");
    (e, buffers)
}

#[test]
fn a_3d_texture_load_is_an_unsupported_texture_error() {
    let (e, buffers) = run("
global @volume: handle texture_3d<f32> binding(0, 0)
global @out: storage(read_write) array<f32> binding(0, 1)
const c0: i32 = 0
const c1: vec3<i32> = [c0, c0, c0]
const c2: u32 = 0
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: texture_3d<f32> = load @volume
    v1: vec4<f32> = texture_load v0, c1, c0
    v2: f32 = extract v1, 0
    v3: ptr<storage(read_write), f32> = access @out, c2
    store v3, v2
    return
}");
    assert_eq!(
        e.kind,
        ErrorKind::UnsupportedTexture {
            op: Opcode::TextureLoad,
            shape: "3d".into()
        }
    );
    let location = e.location.as_ref().expect("a located error");
    assert_eq!(location.function, "main");
    assert_eq!(location.inst.map(|(_, op)| op), Some(Opcode::TextureLoad));
    assert_eq!(
        e.to_string(),
        "unsupported: `texture_load` on 3d textures (only 1D, 2D, 2D-array and multisampled \
         2D textures are interpreted) (at @main, block0, inst1 (texture_load), local \
         invocation 0, workgroup [0, 0, 0])"
    );
    assert_eq!(buffers[&(0, 1)], [0xAB; 4], "nothing was stored");
}

#[test]
fn a_call_of_an_external_function_is_an_external_call_error() {
    let (e, buffers) = run("
global @out: storage(read_write) array<u32> binding(0, 1)
const c0: u32 = 0
external @host(u32) -> u32
kernel @main() workgroup_size(1, 1, 1) {
block0:
    v0: u32 = call @host(c0)
    v1: ptr<storage(read_write), u32> = access @out, c0
    store v1, v0
    return
}");
    assert_eq!(e.kind, ErrorKind::ExternalCall("host".into()));
    assert_eq!(
        e.location.as_ref().and_then(|l| l.inst).map(|(_, op)| op),
        Some(Opcode::Call)
    );
    assert_eq!(
        e.to_string(),
        "call of external function @host (at @main, block0, inst0 (call), local invocation \
         0, workgroup [0, 0, 0])"
    );
    assert_eq!(buffers[&(0, 1)], [0xAB; 4], "nothing was stored");
}
