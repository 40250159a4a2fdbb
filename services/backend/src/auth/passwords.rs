//! Password hashing with argon2id at the `argon2` crate's defaults, which are OWASP's
//! recommendation (m = 19 456 KiB, t = 2, p = 1), in PHC string form so the parameters travel
//! with each hash.
//!
//! Every login verifies a hash, whether or not the account exists: for an unknown address
//! [`verify_or_dummy`] verifies against a dummy hash made once with the same parameters, so
//! the answer's timing does not tell an attacker which addresses have accounts.
//!
//! Hashing and verifying take tens of milliseconds of CPU each: these functions are sync, and
//! async callers run them on the blocking pool (`tokio::task::spawn_blocking`).

use super::AuthError;
use argon2::password_hash::phc::PasswordHash;
use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use std::sync::LazyLock;

/// The shortest password accepted, in characters.
pub const MIN_PASSWORD_CHARS: usize = 8;
/// The longest password accepted, in characters (it bounds the hashing input too).
pub const MAX_PASSWORD_CHARS: usize = 128;

/// A hash of a random password that no one knows, verified when there is no account so that
/// path costs the same as a real one. Hashing a short password at the default parameters does
/// not fail; if it ever did, the empty dummy still verifies as `false`.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    let unguessable: [u8; 32] = rand::random();
    hash(&hex::encode(unguessable)).unwrap_or_default()
});

/// The argon2id PHC string of `password`, with a fresh random salt.
pub fn hash(password: &str) -> Result<String, AuthError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|hash| hash.to_string())
        .map_err(|_| AuthError::Hashing)
}

/// Whether `password` matches `hash`; `false` for a hash that does not parse.
pub fn verify(hash: &str, password: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| {
        Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok()
    })
}

/// [`verify`] when there is an account (`Some(hash)`); otherwise the same work against the
/// dummy hash, and `false`.
pub fn verify_or_dummy(hash: Option<&str>, password: &str) -> bool {
    match hash {
        Some(hash) => verify(hash, password),
        None => {
            verify(&DUMMY_HASH, password);
            false
        }
    }
}

/// Whether `password` may be set: 8 to 128 characters, and not one character repeated.
pub fn check_policy(password: &str) -> Result<(), AuthError> {
    let length = password.chars().count();
    if length < MIN_PASSWORD_CHARS {
        return Err(AuthError::WeakPassword(
            "Password must be at least 8 characters",
        ));
    }
    if length > MAX_PASSWORD_CHARS {
        return Err(AuthError::WeakPassword(
            "Password must be at most 128 characters",
        ));
    }
    let mut characters = password.chars();
    let first = characters.next();
    if characters.all(|c| Some(c) == first) {
        return Err(AuthError::WeakPassword(
            "Password must not be one character repeated",
        ));
    }
    Ok(())
}
