//! The account mails: a one-time code, a password-reset link, a sign-in link. Each issues its
//! secret (stored only as a digest) and returns the mail that carries it.

use crate::auth::otp::{OtpGuard, OtpPurpose};
use crate::auth::outbox::{Mail, MailKind};
use crate::auth::tokens::{SingleUseTokens, TokenPurpose};
use crate::store::StoreResult;
use std::time::Duration;

/// How long a password-reset link works.
pub const RESET_TTL: Duration = Duration::from_secs(30 * 60);
/// How long a magic link works.
pub const MAGIC_LINK_TTL: Duration = Duration::from_secs(15 * 60);

/// A fresh code for `purpose` (bound to `binding`, see [`OtpGuard::issue_bound`]) to `email`.
pub async fn code(
    otp: &OtpGuard,
    email: &str,
    purpose: OtpPurpose,
    binding: Option<&str>,
) -> StoreResult<Mail> {
    let code = otp.issue_bound(email, purpose, binding).await?;
    Ok(Mail {
        to: email.to_owned(),
        kind: MailKind::Otp,
        code: Some(code),
        link: None,
    })
}

/// A single-use reset link (`/reset-password/<token>`, [`RESET_TTL`]) to `email`.
pub async fn reset_link(tokens: &SingleUseTokens, email: &str) -> StoreResult<Mail> {
    let token = tokens
        .issue(TokenPurpose::PasswordReset, email, RESET_TTL)
        .await?;
    Ok(link(
        email,
        MailKind::PasswordReset,
        format!("/reset-password/{token}"),
    ))
}

/// A single-use sign-in link (`/magic-link/<token>`, [`MAGIC_LINK_TTL`]) to `email`.
pub async fn magic_link(tokens: &SingleUseTokens, email: &str) -> StoreResult<Mail> {
    let token = tokens
        .issue(TokenPurpose::MagicLink, email, MAGIC_LINK_TTL)
        .await?;
    Ok(link(
        email,
        MailKind::MagicLink,
        format!("/magic-link/{token}"),
    ))
}

fn link(email: &str, kind: MailKind, path: String) -> Mail {
    Mail {
        to: email.to_owned(),
        kind,
        code: None,
        link: Some(path),
    }
}
