//! The embedded store's record format and wall clock: an 8-byte big-endian expiry in unix
//! milliseconds (0: never) followed by the payload.
//!
//! The wall clock, not a monotonic one, because expiries are written to disk and must mean
//! the same after a restart.

use super::{StoreError, StoreResult};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const HEADER_LEN: usize = 8;

/// A decoded record, borrowing its payload.
pub(crate) struct Record<'a> {
    pub(crate) expires_at_ms: u64,
    pub(crate) payload: &'a [u8],
}

impl<'a> Record<'a> {
    pub(crate) fn decode(bytes: &'a [u8]) -> StoreResult<Self> {
        let (header, payload) = bytes
            .split_first_chunk::<HEADER_LEN>()
            .ok_or_else(|| StoreError::Corrupt(format!("record of {} bytes", bytes.len())))?;
        Ok(Self {
            expires_at_ms: u64::from_be_bytes(*header),
            payload,
        })
    }

    pub(crate) fn encode(expires_at_ms: u64, payload: &[u8]) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
        bytes.extend_from_slice(&expires_at_ms.to_be_bytes());
        bytes.extend_from_slice(payload);
        bytes
    }

    pub(crate) fn is_live(&self, now_ms: u64) -> bool {
        self.expires_at_ms == 0 || self.expires_at_ms > now_ms
    }

    /// Time left, or `None` for a record that never expires (or already has).
    pub(crate) fn remaining(&self, now_ms: u64) -> Option<Duration> {
        (self.expires_at_ms != 0 && self.is_live(now_ms))
            .then(|| Duration::from_millis(self.expires_at_ms - now_ms))
    }
}

/// Milliseconds since the unix epoch by the wall clock (0 for a clock set before 1970): what
/// record timestamps and the embedded store's expiries are written in.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, millis)
}

/// The expiry field for a TTL starting now: 0 for none, never 0 for some.
pub(crate) fn expiry(ttl: Option<Duration>, now_ms: u64) -> u64 {
    ttl.map_or(0, |ttl| now_ms.saturating_add(ttl_millis(ttl)))
}

/// A TTL in whole milliseconds, at least 1 (a zero TTL would mean "never" here and is an
/// error in Redis).
pub(crate) fn ttl_millis(ttl: Duration) -> u64 {
    millis(ttl).max(1)
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
