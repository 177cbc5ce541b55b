//! libvirglrenderer (0.10) through libloading: initialisation (EGL, surfaceless), one
//! context, its command stream (layouts of `virgl_protocol.h`, as `vrend_decode.c`
//! reads them), resources and transfers.

use oxir_csir::tgsi::Tgsi;
use oxir_csir::Stage;
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

/// `struct virgl_renderer_resource_create_args`.
#[repr(C)]
struct CreateArgs {
    handle: u32,
    target: u32,
    format: u32,
    bind: u32,
    width: u32,
    height: u32,
    depth: u32,
    array_size: u32,
    last_level: u32,
    nr_samples: u32,
    flags: u32,
}

/// `struct virgl_box` (gallium's `pipe_box`: six ints).
#[repr(C)]
struct VBox {
    x: i32,
    y: i32,
    z: i32,
    w: i32,
    h: i32,
    d: i32,
}

impl VBox {
    /// The box `(0, 0, 0)` to `(w, h, 1)`.
    fn whole(w: u32, h: u32) -> VBox {
        VBox {
            x: 0,
            y: 0,
            z: 0,
            w: w as i32,
            h: h as i32,
            d: 1,
        }
    }
}

#[repr(C)]
struct IoVec {
    base: *mut c_void,
    len: usize,
}

impl IoVec {
    /// One iovec over all of `bytes` (valid while `bytes` is neither moved nor dropped).
    fn over(bytes: &mut [u8]) -> IoVec {
        IoVec {
            base: bytes.as_mut_ptr().cast(),
            len: bytes.len(),
        }
    }
}

type CtxCreate = unsafe extern "C" fn(u32, u32, *const c_char) -> c_int;
type Submit = unsafe extern "C" fn(*mut c_void, c_int, c_int) -> c_int;
type ResCreate = unsafe extern "C" fn(*mut CreateArgs, *mut IoVec, u32) -> c_int;
type Attach = unsafe extern "C" fn(c_int, c_int);
type TransferWrite =
    unsafe extern "C" fn(u32, u32, c_int, u32, u32, *mut VBox, u64, *mut IoVec, u32) -> c_int;
type TransferRead =
    unsafe extern "C" fn(u32, u32, u32, u32, u32, *mut VBox, u64, *mut IoVec, c_int) -> c_int;

/// Command numbers (`enum virgl_context_cmd`).
pub mod cmd {
    pub const CREATE_OBJECT: u32 = 1;
    pub const BIND_OBJECT: u32 = 2;
    pub const SET_VIEWPORT_STATE: u32 = 4;
    pub const SET_FRAMEBUFFER_STATE: u32 = 5;
    pub const SET_VERTEX_BUFFERS: u32 = 6;
    pub const CLEAR: u32 = 7;
    pub const DRAW_VBO: u32 = 8;
    pub const SET_SAMPLER_VIEWS: u32 = 10;
    pub const SET_CONSTANT_BUFFER: u32 = 12;
    pub const BIND_SAMPLER_STATES: u32 = 18;
    pub const LINK_SHADER: u32 = 52;
    pub const BIND_SHADER: u32 = 31;
}

/// Object types (`enum virgl_object_type`).
pub mod obj {
    pub const BLEND: u32 = 1;
    pub const RASTERIZER: u32 = 2;
    pub const DSA: u32 = 3;
    pub const SHADER: u32 = 4;
    pub const VERTEX_ELEMENTS: u32 = 5;
    pub const SAMPLER_VIEW: u32 = 6;
    pub const SAMPLER_STATE: u32 = 7;
    pub const SURFACE: u32 = 8;
}

/// `VIRGL_FORMAT_R32G32B32A32_FLOAT`.
pub const RGBA32F: u32 = 31;
const R8_UNORM: u32 = 64;
const BIND_RENDER_TARGET: u32 = 1 << 1;
const BIND_SAMPLER_VIEW: u32 = 1 << 3;
const BIND_VERTEX_BUFFER: u32 = 1 << 4;

/// One command: header (`cmd | obj << 8 | len << 16`) and payload.
pub fn command(cmd: u32, obj: u32, payload: &[u32]) -> Vec<u32> {
    let mut v = vec![cmd | (obj << 8) | ((payload.len() as u32) << 16)];
    v.extend_from_slice(payload);
    v
}

/// The shader type of `stage` (`PIPE_SHADER_VERTEX` / `FRAGMENT`).
pub fn shader_type(stage: Stage) -> u32 {
    match stage {
        Stage::Vertex => 0,
        Stage::Fragment => 1,
    }
}

pub struct Virgl {
    _lib: libloading::Library,
    create: CtxCreate,
    /// The context commands go to.
    ctx: u32,
    submit: Submit,
    res_create: ResCreate,
    attach: Attach,
    write: TransferWrite,
    read: TransferRead,
    next_handle: u32,
    next_resource: u32,
}

/// A symbol of `lib` as a plain function pointer.
///
/// # Safety
/// `T` must be the symbol's C signature.
unsafe fn sym<T: Copy>(lib: &libloading::Library, name: &[u8]) -> Result<T, String> {
    // SAFETY: the caller promises `T` is the symbol's signature.
    let s: libloading::Symbol<T> = unsafe { lib.get(name) }.map_err(|e| e.to_string())?;
    Ok(*s)
}

impl Virgl {
    /// Loads and initialises virglrenderer; `Err` says why not.
    pub fn open() -> Result<Virgl, String> {
        std::env::set_var("TGSI_PRINT_SANITY", "1");
        // SAFETY: loading a system library with no initialisers of ours.
        let lib = unsafe { libloading::Library::new("libvirglrenderer.so.1") }
            .map_err(|e| e.to_string())?;
        // SAFETY: the symbols have these C signatures in virglrenderer.h (0.10).
        unsafe {
            let set_debug: unsafe extern "C" fn(extern "C" fn(*const c_char, *mut c_void)) =
                sym(&lib, b"virgl_set_debug_callback\0")?;
            set_debug(debug_callback);
            let init: unsafe extern "C" fn(*mut c_void, c_int, *mut Callbacks) -> c_int =
                sym(&lib, b"virgl_renderer_init\0")?;
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
            let mut v = Virgl {
                create: sym(&lib, b"virgl_renderer_context_create\0")?,
                ctx: 0,
                submit: sym(&lib, b"virgl_renderer_submit_cmd\0")?,
                res_create: sym(&lib, b"virgl_renderer_resource_create\0")?,
                attach: sym(&lib, b"virgl_renderer_ctx_attach_resource\0")?,
                write: sym(&lib, b"virgl_renderer_transfer_write_iov\0")?,
                read: sym(&lib, b"virgl_renderer_transfer_read_iov\0")?,
                _lib: lib,
                next_handle: 1,
                next_resource: 1,
            };
            v.context(1)?;
            Ok(v)
        }
    }

    /// Creates context `id` and sends commands there from now on; the previous one.
    /// (A context that reported an error ignores draws and clears, so tests that
    /// provoke errors use their own.)
    pub fn context(&mut self, id: u32) -> Result<u32, String> {
        // SAFETY: a fresh id and a name of 4 bytes.
        let rc = unsafe { (self.create)(id, 4, c"oxir".as_ptr()) };
        if rc != 0 {
            return Err(format!("virgl_renderer_context_create returned {rc}"));
        }
        Ok(std::mem::replace(&mut self.ctx, id))
    }

    /// Sends commands to the existing context `id` from now on.
    pub fn use_context(&mut self, id: u32) {
        self.ctx = id;
    }

    /// A fresh object handle.
    pub fn handle(&mut self) -> u32 {
        self.next_handle += 1;
        self.next_handle - 1
    }

    fn send(&self, mut cmd: Vec<u32>) -> c_int {
        // SAFETY: `cmd` is a complete command stream of `cmd.len()` dwords.
        unsafe {
            (self.submit)(
                cmd.as_mut_ptr().cast(),
                self.ctx as c_int,
                cmd.len() as c_int,
            )
        }
    }

    /// Submits a command stream; `Err` with the return code and any new messages.
    pub fn submit(&self, cmd: Vec<u32>) -> Result<(), String> {
        let before = messages().len();
        let rc = self.send(cmd);
        let new = messages().split_off(before);
        if rc != 0 || !new.is_empty() {
            return Err(format!("rc {rc}, messages {new:?}"));
        }
        Ok(())
    }

    /// Submits one shader; its handle, or the return code and messages.
    pub fn shader(&mut self, stage: Stage, tgsi: &Tgsi) -> Result<u32, String> {
        let mut bytes = tgsi.text.as_bytes().to_vec();
        bytes.push(0);
        let len = bytes.len() as u32;
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        let handle = self.handle();
        let mut payload = vec![handle, shader_type(stage), len, tgsi.token_bound, 0];
        payload.extend(
            bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
        );
        self.submit(command(cmd::CREATE_OBJECT, obj::SHADER, &payload))?;
        Ok(handle)
    }

    pub fn link(&self, vs: u32, fs: u32) -> Result<(), String> {
        self.submit(command(cmd::LINK_SHADER, 0, &[vs, fs, 0, 0, 0, 0]))
    }

    fn resource(&mut self, args: CreateArgs) -> Result<u32, String> {
        let handle = args.handle;
        let mut args = args;
        // SAFETY: `args` is a complete create-args struct; no backing pages.
        let rc = unsafe { (self.res_create)(&mut args, std::ptr::null_mut(), 0) };
        if rc != 0 {
            return Err(format!("resource_create returned {rc}: {:?}", messages()));
        }
        // SAFETY: the context and the resource exist.
        unsafe { (self.attach)(self.ctx as c_int, handle as c_int) };
        self.next_resource += 1;
        Ok(handle)
    }

    /// A `width` x `height` RGBA32F 2D texture (render target and sampler view).
    pub fn texture(&mut self, width: u32, height: u32) -> Result<u32, String> {
        self.resource(CreateArgs {
            handle: self.next_resource,
            target: 2,
            format: RGBA32F,
            bind: BIND_RENDER_TARGET | BIND_SAMPLER_VIEW,
            width,
            height,
            depth: 1,
            array_size: 1,
            last_level: 0,
            nr_samples: 0,
            flags: 0,
        })
    }

    /// A vertex buffer of `bytes` bytes.
    pub fn vertex_buffer(&mut self, bytes: u32) -> Result<u32, String> {
        self.resource(CreateArgs {
            handle: self.next_resource,
            target: 0,
            format: R8_UNORM,
            bind: BIND_VERTEX_BUFFER,
            width: bytes,
            height: 1,
            depth: 1,
            array_size: 1,
            last_level: 0,
            nr_samples: 0,
            flags: 0,
        })
    }

    /// Writes floats into resource `res`: a `w` x `h` box of RGBA32F texels (textures)
    /// or `w` bytes (buffers, `h == 1`).
    pub fn write(&self, res: u32, w: u32, h: u32, stride: u32, data: &[f32]) -> Result<(), String> {
        let mut bytes: Vec<u8> = data.iter().flat_map(|f| f.to_le_bytes()).collect();
        let mut iov = IoVec::over(&mut bytes);
        let mut b = VBox::whole(w, h);
        // SAFETY: the iovec covers `bytes`, which outlives the call.
        let rc = unsafe { (self.write)(res, self.ctx, 0, stride, 0, &mut b, 0, &mut iov, 1) };
        if rc != 0 {
            return Err(format!("transfer_write returned {rc}: {:?}", messages()));
        }
        Ok(())
    }

    /// Reads a `w` x `h` RGBA32F texture back, rows in memory order.
    pub fn read(&self, res: u32, w: u32, h: u32) -> Result<Vec<[f32; 4]>, String> {
        let mut bytes = vec![0u8; (w * h * 16) as usize];
        let mut iov = IoVec::over(&mut bytes);
        let mut b = VBox::whole(w, h);
        // SAFETY: the iovec covers `bytes`, which outlives the call.
        let rc = unsafe { (self.read)(res, self.ctx, 0, w * 16, 0, &mut b, 0, &mut iov, 1) };
        if rc != 0 {
            return Err(format!("transfer_read returned {rc}: {:?}", messages()));
        }
        Ok(bytes
            .chunks(16)
            .map(|t| {
                std::array::from_fn(|i| f32::from_le_bytes(t[4 * i..4 * i + 4].try_into().unwrap()))
            })
            .collect())
    }
}

pub fn messages() -> Vec<String> {
    MESSAGES.lock().map(|m| m.clone()).unwrap_or_default()
}
