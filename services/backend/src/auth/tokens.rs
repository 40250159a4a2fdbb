//! Single-use tokens for magic links and password resets: 32 random bytes (256 bits), URL-safe
//! base64 without padding. The store keeps only the SHA-256 of a token (`Tokens` space,
//! `{purpose}:{hex digest}` → the e-mail address, with the TTL), so a copy of the store
//! cannot log anyone in; redeeming is one atomic `take`, so a token works exactly once even
//! when two requests race with it.

use crate::store::{Space, Store, StoreError};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use std::time::Duration;

/// The longest text that can be a token (43 characters encode 32 bytes); longer input is
/// refused before hashing.
const MAX_TOKEN_CHARS: usize = 64;

/// What a token is for; one issued for one purpose never redeems for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenPurpose {
    /// Logs the holder in without a password.
    MagicLink,
    /// Lets the holder set a new password.
    PasswordReset,
}

impl TokenPurpose {
    /// The stable name used in keys.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::MagicLink => "magic_link",
            Self::PasswordReset => "password_reset",
        }
    }
}

/// Issues and redeems tokens: cheap to clone.
#[derive(Clone, Debug)]
pub struct SingleUseTokens {
    store: Store,
}

impl SingleUseTokens {
    /// Tokens in `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// A new token for `email` (pass the normalised address), valid for `ttl`. The caller
    /// mails it and keeps no copy.
    pub async fn issue(
        &self,
        purpose: TokenPurpose,
        email: &str,
        ttl: Duration,
    ) -> Result<String, StoreError> {
        let secret: [u8; 32] = rand::random();
        let token = URL_SAFE_NO_PAD.encode(secret);
        self.store
            .put(
                Space::Tokens,
                &key(purpose, &token),
                email.as_bytes(),
                Some(ttl),
            )
            .await?;
        Ok(token)
    }

    /// The address the token was issued for, consuming it; `None` when it is unknown, expired,
    /// already used or for another purpose.
    pub async fn redeem(
        &self,
        purpose: TokenPurpose,
        token: &str,
    ) -> Result<Option<String>, StoreError> {
        if token.is_empty() || token.len() > MAX_TOKEN_CHARS {
            return Ok(None);
        }
        let Some(email) = self.store.take(Space::Tokens, &key(purpose, token)).await? else {
            return Ok(None);
        };
        String::from_utf8(email)
            .map(Some)
            .map_err(|_| StoreError::Corrupt("token record: not UTF-8".to_owned()))
    }
}

fn key(purpose: TokenPurpose, token: &str) -> String {
    format!(
        "{}:{}",
        purpose.as_str(),
        hex::encode(Sha256::digest(token.as_bytes()))
    )
}
