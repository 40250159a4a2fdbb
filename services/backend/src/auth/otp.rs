//! One-time codes: 6 uniformly random digits (20 bits, ASVS 4.0.3 §2.7), stored only as an
//! HMAC-SHA256 under a server pepper, expiring after the TTL (10 minutes), single use, and
//! **destroyed** by the `OTP_MAX_ATTEMPTS`-th (5th) wrong answer.
//!
//! Destroying rather than locking is the point (this is the one 429 that deliberately has no
//! `Retry-After`): a lock only costs an attacker time, while a burned code forces a new one to
//! the real inbox. No wait makes the old code work again, so the HTTP layer answers
//! [`OtpOutcome::Exhausted`] with a 429 that carries **no** `Retry-After`.
//!
//! # The count belongs to the address, not to a code
//! Wrong answers are counted per address and purpose **whether or not a code is live**, and a
//! new code does not zero the count: only the ceiling (which also destroys any live code) and
//! a right answer do. Otherwise the ceiling would tell who has an account: a signup for a free
//! address sends a code and a signup for a taken one does not, so the fifth wrong answer
//! would be a 429 for the first and a 400 for the second; and a resend, which sends a code
//! only to an unverified account, would reset the count for some addresses and not others.
//! Verifying costs the same either way (the presented code is hashed even with no code to
//! compare it to).
//!
//! # Keys
//! Keyed by purpose and [`super::email::key_digest`]: `Codes` holds `{purpose}:{digest}` →
//! hex HMAC of `purpose|email|code`, followed (after a newline) by the code's binding when it
//! has one ([`OtpGuard::issue_bound`]); `Attempts` holds `otp:{purpose}:{digest}`, the wrong
//! answers, expiring the TTL after the first of them. A new code replaces the old one.

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
    /// The answer was counted like a wrong one, below the ceiling.
    NoCode,
}

/// What one answer did, and what the code was bound to when it was the right one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redeemed {
    /// What the answer did.
    pub outcome: OtpOutcome,
    /// The binding the accepted code was issued with ([`OtpGuard::issue_bound`]).
    pub binding: Option<String>,
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
        self.issue_bound(email, purpose, None).await
    }

    /// [`OtpGuard::issue`], with `binding` kept beside the code and handed back when the code
    /// is used ([`OtpGuard::redeem`]): what the request that sent the code asked for (a
    /// signup's password), so that using the code grants exactly that and nothing a later
    /// request wrote.
    pub async fn issue_bound(
        &self,
        email: &str,
        purpose: OtpPurpose,
        binding: Option<&str>,
    ) -> Result<String, StoreError> {
        let code = format!(
            "{:0width$}",
            rand::random_range(0..1_000_000u32),
            width = CODE_DIGITS
        );
        let keys = Keys::new(email, purpose);
        let mut record = self.hash(email, purpose, &code).into_bytes();
        if let Some(binding) = binding {
            record.push(BINDING_SEPARATOR);
            record.extend_from_slice(binding.as_bytes());
        }
        self.store
            .put(Space::Codes, &keys.code, &record, Some(self.ttl))
            .await?;
        Ok(code)
    }

    /// Checks `code`; a malformed one (not 6 ASCII digits) is a wrong answer like any other.
    pub async fn verify(
        &self,
        email: &str,
        purpose: OtpPurpose,
        code: &str,
    ) -> Result<OtpOutcome, StoreError> {
        Ok(self.redeem(email, purpose, code).await?.outcome)
    }

    /// [`OtpGuard::verify`], and the accepted code's binding.
    pub async fn redeem(
        &self,
        email: &str,
        purpose: OtpPurpose,
        code: &str,
    ) -> Result<Redeemed, StoreError> {
        let keys = Keys::new(email, purpose);
        let stored = self.store.get(Space::Codes, &keys.code).await?;
        let presented = well_formed(code).then(|| self.hash(email, purpose, code));
        let outcome = match stored {
            Some(stored) if presented.is_some_and(|hash| matches(&stored, &hash)) => {
                return self.consume(&keys, &stored).await;
            }
            Some(_) => self
                .count_wrong(&keys)
                .await?
                .map_or(OtpOutcome::Exhausted, |remaining| OtpOutcome::Wrong {
                    remaining,
                }),
            None => self
                .count_wrong(&keys)
                .await?
                .map_or(OtpOutcome::Exhausted, |_| OtpOutcome::NoCode),
        };
        Ok(Redeemed {
            outcome,
            binding: None,
        })
    }

    /// Takes the code atomically, so of concurrent right answers exactly one is accepted.
    async fn consume(&self, keys: &Keys, expected: &[u8]) -> Result<Redeemed, StoreError> {
        let outcome = match self.store.take(Space::Codes, &keys.code).await? {
            Some(taken) if bool::from(taken.ct_eq(expected)) => {
                self.store.delete(Space::Attempts, &keys.failures).await?;
                return Ok(Redeemed {
                    outcome: OtpOutcome::Accepted,
                    binding: binding_of(&taken),
                });
            }
            Some(newer) => {
                // A new code was issued between our read and our take: put it back; the code
                // this caller holds is the replaced one.
                self.store
                    .insert_new(Space::Codes, &keys.code, &newer, Some(self.ttl))
                    .await?;
                OtpOutcome::NoCode
            }
            None => OtpOutcome::NoCode,
        };
        Ok(Redeemed {
            outcome,
            binding: None,
        })
    }

    /// Counts a wrong answer: the answers left below the ceiling, or `None` when this one
    /// reached it and any live code was destroyed.
    async fn count_wrong(&self, keys: &Keys) -> Result<Option<u32>, StoreError> {
        let wrong = self
            .store
            .increment(Space::Attempts, &keys.failures, self.ttl)
            .await?;
        let max_attempts = u64::from(self.max_attempts);
        if wrong < max_attempts {
            return Ok(Some(u32::try_from(max_attempts - wrong).unwrap_or(0)));
        }
        self.store.delete(Space::Codes, &keys.code).await?;
        self.store.delete(Space::Attempts, &keys.failures).await?;
        tracing::info!(
            key = keys.code,
            "one-time code ceiling reached; any live code destroyed"
        );
        Ok(None)
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

/// What separates a stored code's HMAC from its binding (hex never holds it).
const BINDING_SEPARATOR: u8 = b'\n';

/// Whether the stored record's HMAC is `presented`'s.
fn matches(stored: &[u8], presented: &str) -> bool {
    let mac = stored
        .split(|byte| *byte == BINDING_SEPARATOR)
        .next()
        .unwrap_or_default();
    bool::from(mac.ct_eq(presented.as_bytes()))
}

/// The binding stored after the HMAC, if any.
fn binding_of(stored: &[u8]) -> Option<String> {
    let position = stored.iter().position(|byte| *byte == BINDING_SEPARATOR)?;
    String::from_utf8(stored[position + 1..].to_vec()).ok()
}
