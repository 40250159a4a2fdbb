//! What a token says: its kind (each signed with its own key), the subject a caller chooses,
//! and the claims as they travel.
//!
//! A session's tokens name it (`sid`), and a refresh token has its own id (`jti`): the backend
//! keeps both in its store, so it can refuse a token whose session has ended, and accept each
//! refresh token once. The other services verify tokens without that store; for them the
//! access token's lifetime is what bounds a token whose session has ended.

use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Lifetime of an access token: also the longest a token whose session has ended still
/// passes a service that verifies tokens without the backend's store.
pub const ACCESS_TTL: Duration = Duration::from_secs(15 * 60);
/// Lifetime of a session: its first refresh token's, which every rotation keeps.
pub const REFRESH_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// Lifetime of the token that carries a login between password and second factor.
pub const MFA_TTL: Duration = Duration::from_secs(5 * 60);
/// Lifetime of an e-mail verification token.
pub const EMAIL_VERIFICATION_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// What a token is for; each kind is signed with its own derived key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// Calls the API (`"access"`).
    Access,
    /// Obtains a new access token (`"refresh"`).
    Refresh,
    /// Carries a login between password and second factor (`"mfa"`).
    Mfa,
    /// Proves an e-mail address (`"email_verification"`).
    EmailVerification,
}

impl TokenKind {
    /// Every kind, in a fixed order.
    pub const ALL: [Self; 4] = [
        Self::Access,
        Self::Refresh,
        Self::Mfa,
        Self::EmailVerification,
    ];

    /// The HKDF label this kind's key is derived under; changing it invalidates every token.
    pub fn label(self) -> &'static str {
        match self {
            Self::Access => "estate/jwt/access/v1",
            Self::Refresh => "estate/jwt/refresh/v1",
            Self::Mfa => "estate/jwt/mfa/v1",
            Self::EmailVerification => "estate/jwt/email-verification/v1",
        }
    }

    /// The default lifetime of a token of this kind.
    pub fn default_ttl(self) -> Duration {
        match self {
            Self::Access => ACCESS_TTL,
            Self::Refresh => REFRESH_TTL,
            Self::Mfa => MFA_TTL,
            Self::EmailVerification => EMAIL_VERIFICATION_TTL,
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            Self::Access => 0,
            Self::Refresh => 1,
            Self::Mfa => 2,
            Self::EmailVerification => 3,
        }
    }
}

/// Who a token speaks for: the claims a caller chooses (the times are the issuer's).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subject {
    /// The user id (`sub`).
    pub sub: String,
    /// The workspace the token is scoped to (`workspaceId`); the only source of tenant scope.
    pub workspace_id: Option<String>,
    /// The user's role in that workspace.
    pub role: Option<String>,
    /// The user's e-mail address.
    pub email: Option<String>,
    /// The session (one login and every token refreshed from it) the token belongs to (`sid`).
    pub session: Option<String>,
    /// The token's own id (`jti`): what makes a refresh token single use.
    pub token_id: Option<String>,
}

impl Subject {
    /// A subject with only a user id.
    pub fn user(sub: impl Into<String>) -> Self {
        Self {
            sub: sub.into(),
            ..Self::default()
        }
    }
}

/// The claims of a verified token, as they travel (`workspaceId` in camelCase).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    /// The user id.
    pub sub: String,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Issue time, seconds since the Unix epoch.
    pub iat: u64,
    /// What the token is for; must match the kind it is verified as.
    pub kind: TokenKind,
    /// The workspace scope, when the token has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workspace_id: Option<String>,
    /// The role in that workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The e-mail address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// The session the token belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// The token's own id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
}
