//! Which worker thread is running: set once by each worker as it starts, read by whatever
//! keeps per-worker state (an origin's idle connections are kept per worker, so a connection
//! never wakes another thread). It knows nothing of the workers themselves, so anything may
//! read it without depending on them.

use std::cell::Cell;

thread_local! {
    static WORKER: Cell<usize> = const { Cell::new(0) };
}

/// The index of the worker running this thread (0 outside workers).
pub fn current() -> usize {
    WORKER.with(Cell::get)
}

/// Records that this thread is worker `index`.
pub fn set(index: usize) {
    WORKER.with(|worker| worker.set(index));
}
