//! Fault injection: a switch that makes every call of one store (and its clones) fail as if
//! the database were gone, or only the calls that write, so tests can prove that callers fail
//! closed, and fail the same way whatever they had read before the write.

use super::{StoreError, StoreResult};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

const OFF: u8 = 0;
const WRITES: u8 = 1;
const ALL: u8 = 2;

/// Turns injected failures on and off. Shared by a store and all its clones; off by default.
#[derive(Clone, Debug, Default)]
pub struct FaultSwitch {
    mode: Arc<AtomicU8>,
}

impl FaultSwitch {
    /// While `on`, every store call returns [`StoreError::Unavailable`].
    pub fn fail(&self, on: bool) {
        self.mode
            .store(if on { ALL } else { OFF }, Ordering::Relaxed);
    }

    /// While `on`, every call that writes (put, insert, delete, take, increment, expire, set
    /// changes) returns [`StoreError::Unavailable`]; reads still answer.
    pub fn fail_writes(&self, on: bool) {
        self.mode
            .store(if on { WRITES } else { OFF }, Ordering::Relaxed);
    }

    /// The one atomic load every reading store call pays.
    pub(crate) fn check(&self) -> StoreResult<()> {
        self.refuse_if(self.mode.load(Ordering::Relaxed) == ALL)
    }

    /// The one atomic load every writing store call pays.
    pub(crate) fn check_write(&self) -> StoreResult<()> {
        self.refuse_if(self.mode.load(Ordering::Relaxed) != OFF)
    }

    fn refuse_if(&self, failing: bool) -> StoreResult<()> {
        if failing {
            return Err(StoreError::Unavailable("fault injected".to_owned()));
        }
        Ok(())
    }
}
