//! One-time codes: 6 uniformly random digits (20 bits, ASVS 4.0.3 §2.7), stored only as an
//! HMAC-SHA256 under a server pepper, expiring after the TTL (10 minutes), single use, and
//! **destroyed** by the `OTP_MAX_ATTEMPTS`-th (5th) wrong answer.
//!
//! Destroying rather than locking is the point (seed, "The one 429 that deliberately has no
//! Retry-After"): a lock only costs an attacker time, while a burned code forces a new one to
//! the real inbox. No wait makes the old code work again, so the HTTP layer answers
//! [`OtpOutcome::Exhausted`] with a 429 that carries **no** `Retry-After`.
//!
//! # Keys
//! Keyed by purpose and [`super::email::key_digest`]: `Codes` holds `{purpose}:{digest}` →
//! hex HMAC of `purpose|email|code`; `Attempts` holds `otp:{purpose}:{digest}`, the code's
//! wrong answers, expiring with it. A new code replaces the old one and zeroes the count.

use super::email;
use crate::store::{Space, Store, StoreError};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use std::time::Duration;
use subtle::ConstantTimeEq;

/// How many digits a code has.
pub const CODE_DIGITS: usize = 6;

/// What a code proves; a code issued for one purpose never verifies for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OtpPurpose {
    /// Proving the address at sign-up.
    Signup,
    /// The second factor at login.
    Mfa,
    /// Confirming a password change.
    PasswordChange,
}

impl OtpPurpose {
    /// The stable name used in keys and in the HMAC input.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Signup => "signup",
            Self::Mfa => "mfa",
            Self::PasswordChange => "password_change",
        }
    }
}

/// What one answer did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtpOutcome {
    /// Right: the code is consumed.
    Accepted,
    /// Wrong; this many more wrong answers destroy the code.
    Wrong {
        /// Wrong answers left before the code is destroyed.
        remaining: u32,
    },
    /// Wrong, and the ceiling: the code is destroyed (429, no `Retry-After`).
    Exhausted,
    /// There is no live code (never sent, expired, used or destroyed): a new one must be sent.
    NoCode,
}

/// Issues and checks one-time codes: cheap to clone.
#[derive(Clone)]
pub struct OtpGuard {
    store: Store,
    mac: Hmac<Sha256>,
    max_attempts: u32,
    ttl: Duration,
}

impl OtpGuard {
    /// A guard whose codes live `ttl` and survive `max_attempts - 1` wrong answers (at least 1
    /// answer is always allowed). `pepper` keys the HMAC: without it a stolen store cannot
    /// test the million candidates.
    pub fn new(store: Store, pepper: [u8; 32], max_attempts: u32, ttl: Duration) -> Self {
        Self {
            store,
            mac: Hmac::new(&pepper_key(pepper)),
            max_attempts: max_attempts.max(1),
            ttl,
        }
    }

    /// A fresh code for `email` and `purpose`, replacing any earlier one. Send it and forget it.
    pub async fn issue(&self, email: &str, purpose: OtpPurpose) -> Result<String, StoreError> {
        let code = format!(
            "{:0width$}",
            rand::random_range(0..1_000_000u32),
            width = CODE_DIGITS
        );
        let keys = Keys::new(email, purpose);
        let hashed = self.hash(email, purpose, &code);
        self.store
            .put(Space::Codes, &keys.code, hashed.as_bytes(), Some(self.ttl))
            .await?;
        self.store.delete(Space::Attempts, &keys.failures).await?;
        Ok(code)
    }

    /// Checks `code`; a malformed one (not 6 ASCII digits) is a wrong answer like any other.
    pub async fn verify(
        &self,
        email: &str,
        purpose: OtpPurpose,
        code: &str,
    ) -> Result<OtpOutcome, StoreError> {
        let keys = Keys::new(email, purpose);
        let Some(stored) = self.store.get(Space::Codes, &keys.code).await? else {
            return Ok(OtpOutcome::NoCode);
        };
        let presented = well_formed(code).then(|| self.hash(email, purpose, code));
        if presented.is_some_and(|hash| matches(&stored, &hash)) {
            return self.consume(&keys, &stored).await;
        }
        self.count_wrong(&keys).await
    }

    /// Takes the code atomically, so of concurrent right answers exactly one is accepted.
    async fn consume(&self, keys: &Keys, expected: &[u8]) -> Result<OtpOutcome, StoreError> {
        match self.store.take(Space::Codes, &keys.code).await? {
            Some(taken) if bool::from(taken.ct_eq(expected)) => {
                self.store.delete(Space::Attempts, &keys.failures).await?;
                Ok(OtpOutcome::Accepted)
            }
            Some(newer) => {
                // A new code was issued between our read and our take: put it back; the code
                // this caller holds is the replaced one.
                self.store
                    .insert_new(Space::Codes, &keys.code, &newer, Some(self.ttl))
                    .await?;
                Ok(OtpOutcome::NoCode)
            }
            None => Ok(OtpOutcome::NoCode),
        }
    }

    async fn count_wrong(&self, keys: &Keys) -> Result<OtpOutcome, StoreError> {
        let wrong = self
            .store
            .increment(Space::Attempts, &keys.failures, self.ttl)
            .await?;
        let max_attempts = u64::from(self.max_attempts);
        if wrong < max_attempts {
            let remaining = u32::try_from(max_attempts - wrong).unwrap_or(0);
            return Ok(OtpOutcome::Wrong { remaining });
        }
        self.store.delete(Space::Codes, &keys.code).await?;
        self.store.delete(Space::Attempts, &keys.failures).await?;
        tracing::info!(
            key = keys.code,
            "one-time code ceiling reached; code destroyed"
        );
        Ok(OtpOutcome::Exhausted)
    }

    fn hash(&self, email: &str, purpose: OtpPurpose, code: &str) -> String {
        let canonical = email::normalise(email).unwrap_or_else(|| email.trim().to_lowercase());
        let mut mac = self.mac.clone();
        for part in [purpose.as_str(), "|", &canonical, "|", code] {
            mac.update(part.as_bytes());
        }
        hex::encode(mac.finalize().into_bytes())
    }
}

/// Everything but the pepper.
impl std::fmt::Debug for OtpGuard {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("OtpGuard")
            .field("store", &self.store)
            .field("max_attempts", &self.max_attempts)
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

/// The two store keys of one address's code for one purpose.
struct Keys {
    code: String,
    failures: String,
}

impl Keys {
    fn new(email: &str, purpose: OtpPurpose) -> Self {
        let code = format!("{}:{}", purpose.as_str(), email::key_digest(email));
        let failures = format!("otp:{code}");
        Self { code, failures }
    }
}

/// HMAC keys shorter than the hash's block are zero-padded to it (RFC 2104 §2), so this is
/// HMAC under the 32-byte pepper itself, built without the fallible any-length constructor.
fn pepper_key(pepper: [u8; 32]) -> hmac::digest::Key<Hmac<Sha256>> {
    let mut key = hmac::digest::Key::<Hmac<Sha256>>::default();
    key[..pepper.len()].copy_from_slice(&pepper);
    key
}

fn well_formed(code: &str) -> bool {
    code.len() == CODE_DIGITS && code.bytes().all(|byte| byte.is_ascii_digit())
}

fn matches(stored: &[u8], presented: &str) -> bool {
    bool::from(stored.ct_eq(presented.as_bytes()))
}
