//! The allow-list of guarded paths: a path is metered only when listed here; first match wins.
//!
//! | path (under /api/v1)                                        | groups                               |
//! |-------------------------------------------------------------|--------------------------------------|
//! | auth/signup, pre-register, resend-otp, forgot-password, magic-link, mfa/send-otp | email + email_recipient + auth_email |
//! | user/password/**                                            | email + email_recipient              |
//! | auth/login, auth/reset-password/**                          | credential + auth_credential         |
//! | auth/verify-otp, auth/verify-magic, auth/mfa/verify         | credential + auth_one_time_code      |
//! | auth/mfa/passkey/**, POST auth/workspace                    | credential + auth_backstop           |
//! | GET auth/workspace (a lookup)                               | credential                           |
//! | user/password-reset, workspace/invitations/**               | credential                           |
//! | any other POST auth/**                                      | auth_backstop                        |
//! | analyzer/**, generator/**, code-analysis/**, codeFixes/**, scan/initiate | expensive                |
//! | gatekeeper/check                                            | ci                                   |

use limiter::RuleTable;
use std::sync::LazyLock;

/// Public filter: per IP.
pub const EMAIL: &str = "email";
/// Public filter: per recipient (hidden from headers: it would say how much mail an inbox got).
pub const EMAIL_RECIPIENT: &str = "email_recipient";
/// Public filter: per IP.
pub const CREDENTIAL: &str = "credential";
/// Public filter: per bearer (the ai-service forwards each user's own).
pub const EXPENSIVE: &str = "expensive";
/// Public filter: per CI key.
pub const CI: &str = "ci";
/// Auth filter: login, reset-password.
pub const AUTH_CREDENTIAL: &str = "auth_credential";
/// Auth filter: one-time codes and magic links.
pub const AUTH_ONE_TIME_CODE: &str = "auth_one_time_code";
/// Auth filter: the e-mail sending paths.
pub const AUTH_EMAIL: &str = "auth_email";
/// Auth filter: every other POST under /auth.
pub const AUTH_BACKSTOP: &str = "auth_backstop";

const AUTH_EMAIL_PATHS: [&str; 6] = [
    "signup",
    "pre-register",
    "resend-otp",
    "forgot-password",
    "magic-link",
    "mfa/send-otp",
];
const ONE_TIME_CODE_PATHS: [&str; 3] = ["verify-otp", "verify-magic", "mfa/verify"];
const EXPENSIVE_PATHS: [&str; 4] = [
    "analyzer/**",
    "generator/**",
    "code-analysis/**",
    "codeFixes/**",
];

static TABLE: LazyLock<RuleTable> = LazyLock::new(build);

/// The backend's table, built once (it is data: printed at start-up, tested path by path).
pub fn table() -> &'static RuleTable {
    &TABLE
}

fn build() -> RuleTable {
    let mut table = RuleTable::new();
    for path in AUTH_EMAIL_PATHS {
        table = table.rule(
            &[],
            &format!("/api/v1/auth/{path}"),
            &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
        );
    }
    table = table
        .rule(&[], "/api/v1/user/password/**", &[EMAIL, EMAIL_RECIPIENT])
        .rule(&[], "/api/v1/auth/login", &[CREDENTIAL, AUTH_CREDENTIAL])
        .rule(
            &[],
            "/api/v1/auth/reset-password/**",
            &[CREDENTIAL, AUTH_CREDENTIAL],
        );
    for path in ONE_TIME_CODE_PATHS {
        table = table.rule(
            &[],
            &format!("/api/v1/auth/{path}"),
            &[CREDENTIAL, AUTH_ONE_TIME_CODE],
        );
    }
    table = table
        .rule(
            &[],
            "/api/v1/auth/mfa/passkey/**",
            &[CREDENTIAL, AUTH_BACKSTOP],
        )
        .rule(
            &["POST"],
            "/api/v1/auth/workspace",
            &[CREDENTIAL, AUTH_BACKSTOP],
        )
        .rule(&[], "/api/v1/auth/workspace", &[CREDENTIAL])
        .rule(&[], "/api/v1/user/password-reset", &[CREDENTIAL])
        .rule(&[], "/api/v1/workspace/invitations/**", &[CREDENTIAL])
        .rule(&["POST"], "/api/v1/auth/**", &[AUTH_BACKSTOP]);
    for path in EXPENSIVE_PATHS {
        table = table.rule(&[], &format!("/api/v1/{path}"), &[EXPENSIVE]);
    }
    table.rule(&[], "/api/v1/scan/initiate", &[EXPENSIVE]).rule(
        &[],
        "/api/v1/gatekeeper/check",
        &[CI],
    )
}

#[cfg(test)]
mod tests;
