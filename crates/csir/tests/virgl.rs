//! virglrenderer accepts every emitted TGSI shader: each accepted vertex and fragment
//! entry point of `tests/shaders` and the corpus is submitted to libvirglrenderer (EGL,
//! surfaceless, llvmpipe) as a shader object with `TGSI_PRINT_SANITY=1`, which runs
//! virglrenderer's TGSI parser, its strict sanity checker and its TGSI-to-GLSL
//! translation; then every vertex shader is linked with every fragment shader of the
//! same file that it links with in CSIR (`LINK_SHADER` makes Mesa compile and link the
//! GLSL). A shader is accepted when the submission returns 0 and no debug message
//! appears (GLSL errors only show as messages).
//!
//! Without `libvirglrenderer.so.1` the test says so and passes, unless
//! `OXIR_REQUIRE_VIRGL=1` (then it fails). Debian packages: `libvirglrenderer1`,
//! `libegl-mesa0`, `libgl1-mesa-dri`, `libepoxy0`.

mod common;

use oxir_csir::tgsi::{emit, Tgsi};
use oxir_csir::{verify, Limits, Shader, Stage};
use std::ffi::{c_char, c_int, c_void};
use std::sync::Mutex;

static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

extern "C" {
    fn vsnprintf(s: *mut c_char, n: usize, fmt: *const c_char, ap: *mut c_void) -> c_int;
}

extern "C" fn debug_callback(fmt: *const c_char, ap: *mut c_void) {
    let mut buf = vec![0u8; 4096];
    // SAFETY: virglrenderer passes a printf format and its va_list; on x86-64 a
    // va_list parameter is a pointer, which vsnprintf takes as it is.
    let n = unsafe { vsnprintf(buf.as_mut_ptr().cast(), buf.len(), fmt, ap) };
    buf.truncate(n.clamp(0, 4095) as usize);
    if let Ok(mut m) = MESSAGES.lock() {
        m.push(String::from_utf8_lossy(&buf).into_owned());
    }
}

extern "C" fn write_fence(_cookie: *mut c_void, _fence: u32) {}

/// `struct virgl_renderer_callbacks`, version 1 (EGL is virglrenderer's own).
#[repr(C)]
struct Callbacks {
    version: c_int,
    write_fence: Option<extern "C" fn(*mut c_void, u32)>,
    create_gl_context: Option<extern "C" fn()>,
    destroy_gl_context: Option<extern "C" fn()>,
    make_current: Option<extern "C" fn()>,
    get_drm_fd: Option<extern "C" fn()>,
    write_context_fence: Option<extern "C" fn()>,
    get_server_fd: Option<extern "C" fn()>,
    get_egl_display: Option<extern "C" fn()>,
}

static mut CALLBACKS: Callbacks = Callbacks {
    version: 1,
    write_fence: Some(write_fence),
    create_gl_context: None,
    destroy_gl_context: None,
    make_current: None,
    get_drm_fd: None,
    write_context_fence: None,
    get_server_fd: None,
    get_egl_display: None,
};
static mut COOKIE: u32 = 1;

const USE_EGL: c_int = 1 << 0;
const USE_SURFACELESS: c_int = 1 << 3;
const CTX: u32 = 1;

type Submit = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;

struct Virgl {
    _lib: libloading::Library,
    submit: Submit,
    next_handle: u32,
}

impl Virgl {
    /// Loads and initialises virglrenderer; `Err` says why not.
    fn open() -> Result<Virgl, String> {
        std::env::set_var("TGSI_PRINT_SANITY", "1");
        // SAFETY: loading a system library with no initialisers of ours.
        let lib = unsafe { libloading::Library::new("libvirglrenderer.so.1") }
            .map_err(|e| e.to_string())?;
        // SAFETY: the symbols have these C signatures in virglrenderer.h (0.10).
        unsafe {
            let set_debug: libloading::Symbol<
                unsafe extern "C" fn(extern "C" fn(*const c_char, *mut c_void)),
            > = lib
                .get(b"virgl_set_debug_callback\0")
                .map_err(|e| e.to_string())?;
            set_debug(debug_callback);
            let init: libloading::Symbol<
                unsafe extern "C" fn(*mut c_void, c_int, *mut Callbacks) -> c_int,
            > = lib
                .get(b"virgl_renderer_init\0")
                .map_err(|e| e.to_string())?;
            let rc = init(
                std::ptr::addr_of_mut!(COOKIE).cast(),
                USE_EGL | USE_SURFACELESS,
                std::ptr::addr_of_mut!(CALLBACKS),
            );
            if rc != 0 {
                return Err(format!(
                    "virgl_renderer_init returned {rc}: {:?}",
                    messages()
                ));
            }
            let create: libloading::Symbol<unsafe extern "C" fn(u32, u32, *const c_char) -> c_int> =
                lib.get(b"virgl_renderer_context_create\0")
                    .map_err(|e| e.to_string())?;
            let rc = create(CTX, 4, c"oxir".as_ptr());
            if rc != 0 {
                return Err(format!("virgl_renderer_context_create returned {rc}"));
            }
            let submit: libloading::Symbol<Submit> = lib
                .get(b"virgl_renderer_submit_cmd\0")
                .map_err(|e| e.to_string())?;
            let submit = *submit;
            Ok(Virgl {
                _lib: lib,
                submit,
                next_handle: 1,
            })
        }
    }

    fn send(&self, mut cmd: Vec<u32>) -> c_int {
        // SAFETY: `cmd` is a complete command stream of `cmd.len()` dwords.
        unsafe { (self.submit)(cmd.as_mut_ptr().cast(), CTX as c_int, cmd.len() as c_int) }
    }

    /// Submits one shader; its handle, or the return code and messages.
    fn shader(&mut self, stage: Stage, tgsi: &Tgsi) -> Result<u32, String> {
        let mut bytes = tgsi.text.as_bytes().to_vec();
        bytes.push(0);
        let len = bytes.len() as u32;
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        let text: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let handle = self.next_handle;
        self.next_handle += 1;
        let ty = match stage {
            Stage::Vertex => 0,
            Stage::Fragment => 1,
        };
        let header = 1 | (4 << 8) | ((5 + text.len() as u32) << 16);
        let mut cmd = vec![header, handle, ty, len, tgsi.token_bound, 0];
        cmd.extend(text);
        let before = messages().len();
        let rc = self.send(cmd);
        let new = messages().split_off(before);
        if rc != 0 || !new.is_empty() {
            return Err(format!("rc {rc}, messages {new:?}"));
        }
        Ok(handle)
    }

    fn link(&self, vs: u32, fs: u32) -> Result<(), String> {
        let before = messages().len();
        let rc = self.send(vec![52 | (6 << 16), vs, fs, 0, 0, 0, 0]);
        let new = messages().split_off(before);
        if rc != 0 || !new.is_empty() {
            return Err(format!("rc {rc}, messages {new:?}"));
        }
        Ok(())
    }
}

fn messages() -> Vec<String> {
    MESSAGES.lock().map(|m| m.clone()).unwrap_or_default()
}

fn tgsi_of(shader: &Shader, remap: Option<&std::collections::BTreeMap<u16, u16>>) -> Tgsi {
    emit(&verify(shader, &Limits::default()).unwrap(), remap)
}

#[test]
fn virglrenderer_accepts_every_emitted_shader() {
    let mut virgl = match Virgl::open() {
        Ok(v) => v,
        Err(why) if std::env::var_os("OXIR_REQUIRE_VIRGL").is_none() => {
            eprintln!("virglrenderer unavailable ({why}): TGSI not validated");
            return;
        }
        Err(why) => panic!("virglrenderer unavailable under OXIR_REQUIRE_VIRGL: {why}"),
    };
    rejects_the_seeds_defects(&mut virgl);
    let entries = common::all_entries();
    let mut failures = Vec::new();
    let (mut shaders, mut links, mut tgsi_instructions) = (0, 0, 0);
    let mut handles = Vec::new();
    for e in &entries {
        let Ok(shader) = &e.csir else { continue };
        let label = e.label();
        let shader = &common::optimized(shader).0;
        let tgsi = tgsi_of(shader, None);
        tgsi_instructions += tgsi.instructions;
        shaders += 1;
        match virgl.shader(shader.stage, &tgsi) {
            Ok(h) => handles.push((e.file.clone(), shader.clone(), h)),
            Err(why) => failures.push(format!("{label}: {why}\n{}", tgsi.text)),
        }
    }
    for (file, vs, vh) in handles.iter().filter(|h| h.1.stage == Stage::Vertex) {
        for (_, fs, _) in handles
            .iter()
            .filter(|h| h.0 == *file && h.1.stage == Stage::Fragment)
        {
            let Ok(link) = oxir_csir::link::link(vs, fs) else {
                continue;
            };
            let fs_tgsi = tgsi_of(fs, Some(&link.remap()));
            let fh = match virgl.shader(Stage::Fragment, &fs_tgsi) {
                Ok(h) => h,
                Err(why) => {
                    failures.push(format!("{} (linked): {why}", fs.name));
                    continue;
                }
            };
            links += 1;
            if let Err(why) = virgl.link(*vh, fh) {
                failures.push(format!("link {} + {}: {why}", vs.name, fs.name));
            }
        }
    }
    eprintln!(
        "virglrenderer: {shaders} shaders submitted ({tgsi_instructions} TGSI instructions), {links} pairs linked, {} failures",
        failures.len()
    );
    assert!(shaders >= common::expected_accepted(), "{shaders}");
    assert!(links >= 1, "no pair linked");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The oracle is real: the seed's `IF TEMP[n].x` and a missing `END` are rejected.
/// (virglrenderer is initialised once per process, so this runs inside the test above.)
fn rejects_the_seeds_defects(virgl: &mut Virgl) {
    let good = "FRAG\nDCL OUT[0], COLOR\nDCL TEMP[0]\nIMM[0] FLT32 {0x3f800000, 0x00000000, 0x00000000, 0x00000000}\nMOV TEMP[0], IMM[0]\nIF TEMP[0].xxxx\nKILL\nENDIF\nMOV OUT[0], TEMP[0]\nEND\n";
    let tgsi = |text: &str| Tgsi {
        text: text.into(),
        instructions: 6,
        token_bound: 512,
    };
    assert!(virgl.shader(Stage::Fragment, &tgsi(good)).is_ok());
    let bad_if = good.replace("IF TEMP[0].xxxx", "IF TEMP[0].x");
    assert!(virgl.shader(Stage::Fragment, &tgsi(&bad_if)).is_err());
    let no_end = good.replace("END\n", "");
    assert!(virgl.shader(Stage::Fragment, &tgsi(&no_end)).is_err());
}
