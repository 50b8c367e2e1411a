//! Test-only: a global allocator that counts, per thread, the bytes currently allocated and
//! their peak, so that a test can assert how much memory a reader needed.
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: alloc_counter::Counting = alloc_counter::Counting;
//! let (result, peak) = alloc_counter::measure(|| parse(bytes));
//! ```
//!
//! This is the only crate of the workspace with `unsafe` code: implementing [`GlobalAlloc`] is
//! an `unsafe impl` by definition. It forwards every call to [`System`] unchanged and only adds
//! to two thread-local counters, so it cannot break the allocator's contract.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    // `const` initialisers without destructors: reading them never allocates, so they are safe
    // to use inside the allocator.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// The counting allocator: [`System`] plus per-thread counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counting;

fn add(n: usize) {
    let _ = CURRENT.try_with(|c| {
        let now = c.get().saturating_add(n);
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

fn sub(n: usize) {
    let _ = CURRENT.try_with(|c| c.set(c.get().saturating_sub(n)));
}

// SAFETY: every method forwards to `System` with the caller's arguments, unchanged; the
// bookkeeping touches only thread-local `Cell<usize>`s and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (same contract).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (same contract).
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            add(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged (same contract).
        unsafe { System.dealloc(ptr, layout) };
        sub(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged (same contract).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the new block arriving before the old one leaves: a moving realloc
            // really holds both for a moment.
            add(new_size);
            sub(layout.size());
        }
        p
    }
}

/// Runs `f` on this thread and returns its result and the peak number of bytes allocated
/// (on this thread, above what was allocated when `f` started) while it ran. Meaningful only
/// in a binary whose `#[global_allocator]` is [`Counting`].
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = f();
    let peak = PEAK.with(Cell::get);
    (out, peak.saturating_sub(base))
}
