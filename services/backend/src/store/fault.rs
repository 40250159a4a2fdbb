//! Fault injection: a switch that makes every call of one store (and its clones) fail as if
//! the database were gone, so tests can prove that callers fail closed.

use super::{StoreError, StoreResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Turns injected failures on and off. Shared by a store and all its clones; off by default.
#[derive(Clone, Debug, Default)]
pub struct FaultSwitch {
    failing: Arc<AtomicBool>,
}

impl FaultSwitch {
    /// While `on`, every store call returns [`StoreError::Unavailable`].
    pub fn fail(&self, on: bool) {
        self.failing.store(on, Ordering::Relaxed);
    }

    /// The one atomic load every store call pays.
    pub(crate) fn check(&self) -> StoreResult<()> {
        if self.failing.load(Ordering::Relaxed) {
            return Err(StoreError::Unavailable("fault injected".to_owned()));
        }
        Ok(())
    }
}
