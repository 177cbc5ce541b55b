//! naga run contained: every call into naga's parsers and validator goes through
//! [`contained`], so that a bug in naga is an error about the input, never a crash of oxir.
//!
//! - **Panics.** The work runs under [`std::panic::catch_unwind`]; a panic becomes a
//!   [`FrontendError`] of stage [`FrontendStage::Panic`] whose message is
//!   `naga failed on this input: MESSAGE (panic at naga-VERSION/src/FILE:LINE)`.
//! - **The panic hook.** The default hook would print `thread '...' panicked at ...` on
//!   stderr as if oxir had crashed. [`contained`] installs, once per process, a hook that
//!   wraps whichever hook was in place: on a thread running contained naga work (marked by
//!   a thread-local flag) it records the message and location for the error and prints
//!   nothing; on every other thread it calls the previous hook unchanged. Threads running
//!   in parallel (tests, embedders) keep their own panics' output.
//! - **The stack.** The work runs on a fresh thread of [`STACK_BYTES`] (joined before
//!   [`contained`] returns, so it may borrow the input). naga's parsers and validator
//!   recurse once per nesting level of an expression or statement; a stack overflow aborts
//!   the process and cannot be caught, so the text inputs are also checked first against
//!   [`crate::MAX_NESTING`], a bound that keeps naga well inside this stack.
//!   The stack is reserved address space: only the pages naga touches are ever used.
//!
//! What this does NOT do: it does not contain an out-of-memory abort or an endless loop
//! inside naga, and a panic while panicking still aborts (Rust's rule). If the thread
//! cannot be started (address space exhausted), the input is refused with that reason.

use crate::error::{FrontendError, FrontendStage};
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::sync::Once;

/// The stack of the thread naga runs on: 512 MiB of reserved address space.
///
/// Measured on naga 30 (each figure is the deepest input that still passed on an 8 MiB
/// stack, in the worst construct of each language): release builds take about 1.4 KiB
/// of stack per nesting level (GLSL blocks: 4,293 levels per 8 MiB), debug builds about
/// 40 KiB (GLSL unary minus: 198 levels per 8 MiB). At [`crate::MAX_NESTING`]
/// levels a debug build needs about 160 MiB of this stack and a release build 6 MiB.
pub const STACK_BYTES: usize = 512 << 20;

thread_local! {
    /// Set on a thread started by [`on_large_stack`].
    static LARGE_STACK: Cell<bool> = const { Cell::new(false) };
    /// Set while contained naga work runs on this thread.
    static CONTAINED: Cell<bool> = const { Cell::new(false) };
    /// The last panic of contained work on this thread, as the hook saw it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// Runs `work` on a thread with [`STACK_BYTES`] of stack and returns its result; on the
/// calling thread when that is already such a thread. A panic in `work` continues on the
/// calling thread ([`panic::resume_unwind`]), as if `work` had run there. The only error
/// is the operating system's refusal to start the thread; `work` has not run then.
pub fn on_large_stack<T: Send>(work: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    if LARGE_STACK.with(Cell::get) {
        return Ok(work());
    }
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("oxir-large-stack".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                LARGE_STACK.with(|flag| flag.set(true));
                work()
            })?;
        match handle.join() {
            Ok(value) => Ok(value),
            Err(payload) => panic::resume_unwind(payload),
        }
    })
}

/// Runs `work` (a naga parse or validation of the input named `path`) on a large stack
/// with naga's panics caught, turning a panic into a [`FrontendError`] (see the module
/// docs).
pub(crate) fn contained<T: Send>(
    path: &str,
    work: impl FnOnce() -> Result<T, FrontendError> + Send,
) -> Result<T, FrontendError> {
    HOOK.call_once(install_hook);
    let caught = on_large_stack(|| {
        let was_contained = CONTAINED.with(|flag| flag.replace(true));
        let outcome = panic::catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
            LAST_PANIC
                .with(|last| last.borrow_mut().take())
                .unwrap_or_else(|| payload_text(payload.as_ref()))
        });
        CONTAINED.with(|flag| flag.set(was_contained));
        outcome
    });
    match caught {
        Ok(Ok(result)) => result,
        Ok(Err(message)) => Err(unlocated(
            path,
            FrontendStage::Panic,
            format!("naga failed on this input: {message}"),
        )),
        Err(error) => Err(unlocated(
            path,
            FrontendStage::Panic,
            format!("cannot start the thread naga runs on: {error}"),
        )),
    }
}

/// An error with no line and column, rendered `PATH: error: SUMMARY`.
pub(crate) fn unlocated(path: &str, stage: FrontendStage, summary: String) -> FrontendError {
    FrontendError {
        stage,
        rendered: format!("{path}: error: {summary}\n"),
        summary,
        location: None,
    }
}

fn install_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if CONTAINED.with(Cell::get) {
            let text = describe(info);
            LAST_PANIC.with(|last| *last.borrow_mut() = Some(text));
        } else {
            previous(info);
        }
    }));
}

/// `MESSAGE (panic at naga-VERSION/src/FILE:LINE)`: the location from the crate's folder
/// on (the whole path when it is not under a `naga-` folder).
fn describe(info: &PanicHookInfo<'_>) -> String {
    let message = info
        .payload_as_str()
        .unwrap_or("(a panic without a message)");
    match info.location() {
        Some(location) => {
            let file = location.file();
            let short = file.find("naga-").map_or(file, |at| &file[at..]);
            format!("{message} (panic at {short}:{})", location.line())
        }
        None => message.to_string(),
    }
}

fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(a panic without a message)".to_string())
}
