//! The store's one error type.
//!
//! `Display` is the only text a caller may show a client, so it never names a key, a command
//! or the database's own message; the `String` inside each variant is the cause, for logs.

/// Why a store call did not answer.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store could not answer: Redis down or slow, the database file unusable, a fault
    /// injected by a test. Callers fail closed (503 with a short Retry-After), and never skip
    /// an attempt ceiling because of it.
    #[error("store unavailable")]
    Unavailable(String),
    /// A record exists but cannot be read: a truncated embedded record, JSON that no longer
    /// matches its type, a counter that is not a number.
    #[error("store record unreadable")]
    Corrupt(String),
}

/// What every store call returns.
pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    pub(crate) fn unavailable(context: &str, cause: impl std::fmt::Display) -> Self {
        Self::Unavailable(format!("{context}: {cause}"))
    }

    pub(crate) fn corrupt(context: &str, cause: impl std::fmt::Display) -> Self {
        Self::Corrupt(format!("{context}: {cause}"))
    }
}
