//! The table, path by path: what meters each request, and what never is.

use super::*;

fn groups(method: &str, path: &str) -> Option<Vec<String>> {
    table()
        .matching(method, path)
        .map(|rule| rule.groups().to_vec())
}

/// Every guarded path and the buckets it meets, in order.
const GUARDED: &[(&str, &str, &[&str])] = &[
    (
        "POST",
        "/api/v1/auth/signup",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/auth/pre-register",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/auth/resend-otp",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/auth/forgot-password",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/auth/magic-link",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/auth/mfa/send-otp",
        &[EMAIL, EMAIL_RECIPIENT, AUTH_EMAIL],
    ),
    (
        "POST",
        "/api/v1/user/password/change",
        &[EMAIL, EMAIL_RECIPIENT],
    ),
    ("POST", "/api/v1/auth/login", &[CREDENTIAL, AUTH_CREDENTIAL]),
    (
        "POST",
        "/api/v1/auth/reset-password/abc",
        &[CREDENTIAL, AUTH_CREDENTIAL],
    ),
    (
        "POST",
        "/api/v1/auth/verify-otp",
        &[CREDENTIAL, AUTH_ONE_TIME_CODE],
    ),
    (
        "POST",
        "/api/v1/auth/verify-magic",
        &[CREDENTIAL, AUTH_ONE_TIME_CODE],
    ),
    (
        "POST",
        "/api/v1/auth/mfa/verify",
        &[CREDENTIAL, AUTH_ONE_TIME_CODE],
    ),
    (
        "POST",
        "/api/v1/auth/mfa/passkey/register",
        &[CREDENTIAL, AUTH_BACKSTOP],
    ),
    (
        "POST",
        "/api/v1/auth/workspace",
        &[CREDENTIAL, AUTH_BACKSTOP],
    ),
    ("GET", "/api/v1/auth/workspace", &[CREDENTIAL]),
    ("POST", "/api/v1/user/password-reset", &[CREDENTIAL]),
    (
        "POST",
        "/api/v1/workspace/invitations/t0k3n/accept",
        &[CREDENTIAL],
    ),
    ("POST", "/api/v1/auth/refresh", &[AUTH_BACKSTOP]),
    ("POST", "/api/v1/analyzer", &[EXPENSIVE]),
    ("POST", "/api/v1/generator/run", &[EXPENSIVE]),
    ("POST", "/api/v1/code-analysis", &[EXPENSIVE]),
    ("POST", "/api/v1/codeFixes", &[EXPENSIVE]),
    ("POST", "/api/v1/scan/initiate", &[EXPENSIVE]),
    ("POST", "/api/v1/gatekeeper/check", &[CI]),
];

#[test]
fn every_guarded_path_meets_its_buckets() {
    for (method, path, expected) in GUARDED {
        let expected: Vec<String> = expected.iter().map(|g| (*g).to_owned()).collect();
        assert_eq!(groups(method, path), Some(expected), "{method} {path}");
    }
}

#[test]
fn what_must_survive_any_budget_is_never_metered() {
    let cases = [
        ("GET", "/actuator/health"),
        ("GET", "/actuator/prometheus"),
        ("POST", "/internal/scan-results"),
        ("GET", "/api/v1/analytics/summary"),
        ("GET", "/api/v1/runs/42"),
        ("GET", "/ws/runs/42"),
        ("GET", "/api/v1/projects/7"),
        ("GET", "/api/v1/auth/me"),
        ("GET", "/swagger-ui.html"),
    ];
    for (method, path) in cases {
        assert_eq!(groups(method, path), None, "{method} {path}");
    }
}
