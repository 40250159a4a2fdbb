//! No account-existence oracle in the account mail flows: a taken and a free address meet the
//! same one-time-code ceiling, and with the store failing writes a known and an unknown
//! address get the same answer on every mail-sending route (the differing work is done in the
//! background, after the answer).

use crate::auth_support::{status_and_body, verified_account};
use crate::helpers::{TestApp, header};
use crate::oracles_support::{BUDGETS, code_for, forwarded};
use serde_json::json;

const INVALID_CODE: &str = r#"{"status":400,"message":"Invalid or expired code"}"#;
const EXHAUSTED: &str =
    r#"{"status":429,"message":"Too many incorrect codes. Request a new code."}"#;
const UNAVAILABLE: &str =
    r#"{"status":"SERVICE_UNAVAILABLE","message":"service temporarily unavailable"}"#;

/// One answer as a client sees it: status, `Retry-After`, `RateLimit` and body.
type Seen = (u16, Option<String>, Option<String>, String);

async fn seen(answer: reqwest::Response) -> Seen {
    let (retry_after, ratelimit) = (header(&answer, "retry-after"), header(&answer, "ratelimit"));
    let (status, body) = status_and_body(answer).await;
    (status, retry_after, ratelimit, body)
}

/// Six wrong codes for `email` from one source (its own, so the per-IP budgets and their
/// headers start equal for every address).
async fn six_wrong_codes(app: &TestApp, email: &str, wrong: &str, source: &str) -> Vec<Seen> {
    let mut answers = Vec::new();
    for _ in 0..6 {
        let body = json!({ "email": email, "code": wrong });
        answers.push(seen(forwarded(app, "/api/v1/auth/verify-otp", &body, source).await).await);
    }
    answers
}

#[actix_web::test]
async fn a_taken_and_a_free_address_meet_the_same_code_ceiling() {
    let app = TestApp::spawn(BUDGETS).await;
    verified_account(&app, "taken@example.com", "correct horse battery").await;
    let mut answers = Vec::new();
    for (n, email) in ["taken@example.com", "free@example.com"].iter().enumerate() {
        let signup = json!({ "email": email, "password": "another long one", "name": "X" });
        let source = format!("198.51.100.{}", n + 1);
        let created = forwarded(&app, "/api/v1/auth/signup", &signup, &source).await;
        assert_eq!(created.status(), 201);
        // Never the real code: the free address's one is in the outbox, the taken one has none.
        let real = if *email == "free@example.com" {
            Some(code_for(&app, email).await)
        } else {
            None
        };
        let wrong = if real.as_deref() == Some("000000") {
            "111111"
        } else {
            "000000"
        };
        answers.push(six_wrong_codes(&app, email, wrong, &source).await);
    }
    let seen: Vec<(u16, Option<String>, String)> = answers[1]
        .iter()
        .map(|(status, retry_after, _, body)| (*status, retry_after.clone(), body.clone()))
        .collect();
    let invalid = (400, None, INVALID_CODE.to_owned());
    let expected = vec![
        invalid.clone(),
        invalid.clone(),
        invalid.clone(),
        invalid.clone(),
        (429, None, EXHAUSTED.to_owned()),
        invalid,
    ];
    assert_eq!(seen, expected, "a free address (a code was sent)");
    assert!(answers[1].iter().all(|seen| seen.2.is_some()), "metered");
    assert_eq!(
        answers[0], answers[1],
        "a taken address: the same answers, headers too"
    );
}

#[actix_web::test]
async fn with_writes_failing_a_known_and_an_unknown_address_get_the_same_answer() {
    let app = TestApp::spawn(BUDGETS).await;
    verified_account(&app, "known@example.com", "correct horse battery").await;
    let unverified =
        json!({ "email": "fresh@example.com", "password": "a-long-password", "name": "F" });
    assert_eq!(
        app.post("/api/v1/auth/signup", &unverified, None)
            .await
            .status(),
        201
    );
    code_for(&app, "fresh@example.com").await;
    app.faults.fail_writes(true);
    let paths = [
        "/api/v1/auth/forgot-password",
        "/api/v1/auth/magic-link",
        "/api/v1/auth/resend-otp",
        "/api/v1/auth/pre-register",
        "/api/v1/auth/signup",
    ];
    let mut source = 10;
    for path in paths {
        let mut answers = Vec::new();
        for email in [
            "known@example.com",
            "fresh@example.com",
            "nobody@example.com",
        ] {
            let body = json!({ "email": email, "password": "a-long-password", "name": "N" });
            source += 1;
            answers.push(
                seen(forwarded(&app, path, &body, &format!("198.51.100.{source}")).await).await,
            );
        }
        let (status, retry_after, _, body) = &answers[2];
        assert_eq!(
            (*status, retry_after.as_deref(), body.as_str()),
            (503, Some("5"), UNAVAILABLE),
            "{path}: an unknown address fails closed like any other"
        );
        assert_eq!(answers[0], answers[2], "{path}: known and unknown");
        assert_eq!(answers[1], answers[2], "{path}: unverified and unknown");
    }
}
