//! Synchronisation of one workgroup's invocation threads.
//!
//! - [`WorkgroupSync::wait`] (the kernel's barrier) returns when every invocation has
//!   arrived at a barrier or finished the workgroup ([`WorkgroupSync::finish`]): a GPU
//!   counts exited threads as arrived, and so no early `return` hangs the others.
//! - [`WorkgroupSync::end_workgroup`] waits for every invocation to finish; one of them
//!   then runs the reset (zeroing workgroup memory) before any starts the next workgroup.
//! - The kernel calls the barrier through a C callback, [`barrier_callback`], which finds
//!   its thread's workgroup through a thread-local set by [`enter`].
//!
//! Invariant: `arrived + finished <= size`; a generation counter tells waiters a barrier
//! has released.

use std::cell::RefCell;
use std::sync::{Arc, Barrier, Condvar, Mutex, MutexGuard};

#[derive(Default)]
struct State {
    arrived: usize,
    finished: usize,
    generation: u64,
}

/// The barriers of one workgroup of `size` invocations.
pub(crate) struct WorkgroupSync {
    size: usize,
    state: Mutex<State>,
    released: Condvar,
    between: Barrier,
}

impl WorkgroupSync {
    pub(crate) fn new(size: usize) -> Self {
        WorkgroupSync {
            size,
            state: Mutex::new(State::default()),
            released: Condvar::new(),
            between: Barrier::new(size),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn release_if_complete(&self, s: &mut State) {
        if s.arrived > 0 && s.arrived + s.finished >= self.size {
            s.arrived = 0;
            s.generation += 1;
            self.released.notify_all();
        }
    }

    /// The kernel's barrier.
    pub(crate) fn wait(&self) {
        let mut s = self.lock();
        s.arrived += 1;
        let generation = s.generation;
        self.release_if_complete(&mut s);
        while s.generation == generation {
            s = self.released.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// This invocation has finished the workgroup.
    pub(crate) fn finish(&self) {
        let mut s = self.lock();
        s.finished += 1;
        self.release_if_complete(&mut s);
    }

    /// Waits for every invocation to finish the workgroup; one runs `reset` while the
    /// others wait for it.
    pub(crate) fn end_workgroup(&self, reset: impl FnOnce()) {
        if self.between.wait().is_leader() {
            reset();
            self.lock().finished = 0;
        }
        self.between.wait();
    }
}

/// Whether the invocation threads may start (all were spawned) or must return.
#[derive(Default)]
pub(crate) struct Gate {
    open: Mutex<Option<bool>>,
    changed: Condvar,
}

impl Gate {
    pub(crate) fn set(&self, open: bool) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = Some(open);
        self.changed.notify_all();
    }

    /// Waits until the gate is set; whether it opened.
    pub(crate) fn wait_open(&self) -> bool {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(o) = *open {
                return o;
            }
            open = self.changed.wait(open).unwrap_or_else(|e| e.into_inner());
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<WorkgroupSync>>> = const { RefCell::new(None) };
}

/// Makes `sync` the workgroup of this thread's barrier callbacks.
pub(crate) fn enter(sync: Arc<WorkgroupSync>) {
    CURRENT.with(|c| *c.borrow_mut() = Some(sync));
}

/// The context's barrier: waits at this thread's workgroup barrier (set by [`enter`]).
pub(crate) extern "C" fn barrier_callback(_ctx: *mut crate::HostContext) {
    CURRENT.with(|c| {
        if let Some(sync) = c.borrow().as_ref() {
            sync.wait();
        }
    });
}

#[cfg(test)]
mod tests {
    use super::WorkgroupSync;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Invocations that return early count as arrived; a barrier orders the writes
    /// before it against the reads after it; the reset runs once per workgroup.
    #[test]
    fn barriers_wait_for_all_and_count_finished_invocations() {
        let sync = WorkgroupSync::new(4);
        let before = AtomicUsize::new(0);
        let resets = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for i in 0..4 {
                let (sync, before, resets) = (&sync, &before, &resets);
                s.spawn(move || {
                    for _ in 0..3 {
                        if i != 0 {
                            before.fetch_add(1, Ordering::SeqCst);
                            sync.wait();
                            assert!(before.load(Ordering::SeqCst) % 3 == 0);
                            sync.wait();
                        }
                        sync.finish();
                        sync.end_workgroup(|| {
                            resets.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                });
            }
        });
        assert_eq!(before.load(Ordering::SeqCst), 9);
        assert_eq!(resets.load(Ordering::SeqCst), 3);
    }
}
