//! No spelling of a metered path escapes its meter: for each of the backend's 25 metered
//! operations, once its budget is spent, every other spelling of its path (encodings, case,
//! dot segments, slashes, matrix parameters, …) and every other method is refused or routed
//! nowhere; none reaches a handler unmetered.

use crate::helpers::{SECRET, TestApp, fail_body};
use platform::{JwtKeys, MapEnv, Subject, TokenKind};
use std::time::Duration;
use testkit::raw::{Exchange, RawRequest};
use testkit::sweep::Verdicts;

/// Every group at one request an hour: the second request of any kind is refused.
const TINY_BUDGETS: [(&str, &str); 9] = [
    ("RATE_LIMIT_EMAIL", "1/1h"),
    ("RATE_LIMIT_EMAIL_RECIPIENT", "1/1h"),
    ("RATE_LIMIT_CREDENTIAL", "1/1h"),
    ("RATE_LIMIT_EXPENSIVE", "1/1h"),
    ("RATE_LIMIT_CI", "1/1h"),
    ("AUTH_RATE_LIMIT_CREDENTIAL", "1/1h"),
    ("AUTH_RATE_LIMIT_ONE_TIME_CODE", "1/1h"),
    ("AUTH_RATE_LIMIT_EMAIL", "1/1h"),
    ("AUTH_RATE_LIMIT_BACKSTOP", "1/1h"),
];

/// The 25 metered operations, each as (method, path).
pub const METERED: [(&str, &str); 25] = [
    ("POST", "/api/v1/auth/signup"),
    ("POST", "/api/v1/auth/pre-register"),
    ("POST", "/api/v1/auth/resend-otp"),
    ("POST", "/api/v1/auth/forgot-password"),
    ("POST", "/api/v1/auth/magic-link"),
    ("POST", "/api/v1/auth/mfa/send-otp"),
    ("POST", "/api/v1/user/password/change"),
    ("POST", "/api/v1/auth/login"),
    ("POST", "/api/v1/auth/reset-password/some-token"),
    ("POST", "/api/v1/auth/verify-otp"),
    ("POST", "/api/v1/auth/verify-magic"),
    ("POST", "/api/v1/auth/mfa/verify"),
    ("POST", "/api/v1/auth/mfa/passkey/register"),
    ("POST", "/api/v1/auth/workspace"),
    ("GET", "/api/v1/auth/workspace"),
    ("POST", "/api/v1/user/password-reset"),
    ("POST", "/api/v1/workspace/invitations"),
    ("POST", "/api/v1/workspace/invitations/some-token/accept"),
    ("POST", "/api/v1/auth/refresh"),
    ("POST", "/api/v1/analyzer"),
    ("POST", "/api/v1/generator"),
    ("POST", "/api/v1/code-analysis"),
    ("POST", "/api/v1/codeFixes"),
    ("POST", "/api/v1/scan/initiate"),
    ("POST", "/api/v1/gatekeeper/check"),
];

fn access_token() -> String {
    let env = MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]);
    let keys = JwtKeys::from_env(&env).expect("the test secret is strong");
    let subject = Subject::user("spelling-sweeper");
    keys.issue(TokenKind::Access, &subject, Duration::from_secs(3600))
        .expect("a token")
}

fn refused(exchange: &Exchange) -> bool {
    let wait = exchange
        .header("retry-after")
        .and_then(|secs| secs.parse().ok());
    exchange.status == 429 && wait.is_some_and(|secs| exchange.body == fail_body(secs))
}

fn unrouted(exchange: &Exchange) -> bool {
    exchange.status == 404 && exchange.body.contains(r#""message":"no route for "#)
}

/// The request each operation is spent and swept with: a body every handler refuses (so a
/// spelling that reached one would be seen), a bearer, a CI key.
fn request(method: &str, path: &str, token: &str) -> RawRequest {
    RawRequest::new(method, path)
        .header("authorization", &format!("Bearer {token}"))
        .header("x-ci-key", "ci-sweep-key")
        .json("{}")
}

#[actix_web::test]
async fn no_spelling_of_a_metered_path_reaches_its_handler_unmetered() {
    let app = TestApp::spawn(&TINY_BUDGETS).await;
    let address = app.base.trim_start_matches("http://").to_owned();
    let token = access_token();
    let verdicts = Verdicts {
        refused: &refused,
        unrouted: &unrouted,
    };
    let mut served = Vec::new();
    for (method, path) in METERED {
        let request = request(method, path, &token);
        served.extend(verdicts.spend_and_sweep(&address, &request).await);
    }
    assert!(
        served.is_empty(),
        "served unmetered:\n{}",
        served.join("\n")
    );
}

#[actix_web::test]
async fn the_sweep_covers_every_rule_of_the_table() {
    let table = backend::limits::rules::table();
    for (index, rule) in table.rules().iter().enumerate() {
        let covered = METERED
            .iter()
            .any(|(method, path)| table.position(method, path) == Some(index));
        assert!(
            covered,
            "rule {index} ({:?}) has no swept operation",
            rule.groups()
        );
    }
}
