//! Signups waiting for their code: what each unverified account's latest signup asked for.
//!
//! Signing up again for an address whose account is still unverified is how its owner gets a
//! fresh code, and may come with another password (the owner forgot the first, or someone
//! else registered the address first). The choice: **the password that survives verification
//! is the one given with the signup whose code was used**, never an earlier signup's. Each
//! signup's name and password hash ([`SignupDetails`]) is bound to the code it sends
//! ([`super::otp::OtpGuard::issue_bound`]) and kept here as the address's latest signup, so a
//! resent code carries it too. Using a code sets what it is bound to, and only while the
//! account is still unverified ([`super::users::Users::complete_signup`]); a verified account
//! is never changed by a signup, and gets no mail from one.
//!
//! So whoever registers an address first cannot keep a password on it: the owner's own signup
//! replaces it with the owner's once the owner's code is used. What it cannot stop: a signup
//! made *after* the owner's and before the owner enters a code sends a newer code, bound to
//! its own password, to the owner's inbox; an owner who enters that newer code verifies that
//! password. Nothing tells anyone when an owner signs up (the answers and their timing are the
//! same for every address), which is what keeps that window closed to a squatter.
//!
//! # Keys (space `Signups`)
//! `{digest}` ([`super::email::key_digest`]) → [`SignupDetails`] (JSON), with no expiry: it
//! lives as long as the account is unverified, and verification deletes it.

use super::email;
use crate::store::{Space, Store, StoreResult};
use serde::{Deserialize, Serialize};

/// What a signup asked for: the name and password its account has once its code is used.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SignupDetails {
    /// The display name, trimmed.
    pub name: String,
    /// The argon2id PHC string of the password.
    pub password_hash: String,
}

/// Everything but the password hash.
impl std::fmt::Debug for SignupDetails {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SignupDetails")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl SignupDetails {
    /// As a code's binding.
    pub fn to_binding(&self) -> StoreResult<String> {
        serde_json::to_string(self)
            .map_err(|error| crate::store::StoreError::Corrupt(format!("signup binding: {error}")))
    }

    /// From a code's binding; `None` for one that is not a signup's.
    pub fn from_binding(binding: &str) -> Option<Self> {
        serde_json::from_str(binding).ok()
    }
}

/// The latest signup of each unverified account: cheap to clone.
#[derive(Clone, Debug)]
pub struct PendingSignups {
    store: Store,
}

impl PendingSignups {
    /// Signups in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Records `details` as the latest signup for `email`.
    pub async fn put(&self, email: &str, details: &SignupDetails) -> StoreResult<()> {
        self.store
            .put_json(Space::Signups, &email::key_digest(email), details, None)
            .await
    }

    /// The latest signup for `email`, if one is waiting.
    pub async fn latest(&self, email: &str) -> StoreResult<Option<SignupDetails>> {
        self.store
            .get_json(Space::Signups, &email::key_digest(email))
            .await
    }

    /// Forgets the signup for `email` (its account is verified).
    pub async fn forget(&self, email: &str) -> StoreResult<()> {
        self.store
            .delete(Space::Signups, &email::key_digest(email))
            .await
            .map(drop)
    }
}
