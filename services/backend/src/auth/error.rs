//! The auth domain's one error type. The HTTP layer maps each variant to its envelope in one
//! place; `Display` is safe to show a client, so it never holds a password, a code, a token, a
//! hash or an address.

use crate::store::StoreError;

/// Why an auth operation did not complete.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// An account with this (normalised) e-mail address already exists.
    #[error("an account with this email already exists")]
    EmailTaken,
    /// The address is not one [`normalise`](super::email::normalise) accepts.
    #[error("invalid email address")]
    InvalidEmail,
    /// The password fails the policy; the text says which rule.
    #[error("{0}")]
    WeakPassword(&'static str),
    /// Argon2 refused to hash (it does not with the default parameters; here for completeness).
    #[error("password hashing failed")]
    Hashing,
    /// The store could not answer or holds an unreadable record.
    #[error(transparent)]
    Store(#[from] StoreError),
}
