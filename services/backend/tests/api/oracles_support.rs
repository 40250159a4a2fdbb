//! What the oracle and signup tests share: budgets high enough for their loops, requests from
//! a chosen source address, and mail waited for (it is sent in the background).

use crate::helpers::{MAIL_PATIENCE, TestApp};
use serde_json::Value;
use std::time::{Duration, Instant};

/// Mail-route budgets no test loop here reaches, and the test client as a trusted proxy (so
/// each request can come from its own source address).
pub const BUDGETS: &[(&str, &str)] = &[
    ("TRUSTED_PROXIES", "127.0.0.1/32"),
    ("RATE_LIMIT_EMAIL", "1000/1h"),
    ("RATE_LIMIT_EMAIL_RECIPIENT", "1000/1h"),
    ("AUTH_RATE_LIMIT_EMAIL", "1000/1h"),
    ("AUTH_RATE_LIMIT_ONE_TIME_CODE", "1000/15m"),
];

/// POST JSON as forwarded for `source`.
pub async fn forwarded(app: &TestApp, path: &str, body: &Value, source: &str) -> reqwest::Response {
    app.post(path, body, Some(source)).await
}

/// Every mail to `email` of `kind` so far, oldest first.
fn mails(app: &TestApp, email: &str, kind: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(app.data_dir.join("outbox.jsonl")).unwrap_or_default();
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|mail| mail["to"] == email && mail["kind"] == kind)
        .collect()
}

/// The `count`-th mail (1-based) to `email` of `kind`, once it is in the outbox.
pub async fn nth_mail(app: &TestApp, email: &str, kind: &str, count: usize) -> Value {
    let started = Instant::now();
    loop {
        if let Some(mail) = mails(app, email, kind).into_iter().nth(count - 1) {
            return mail;
        }
        assert!(
            started.elapsed() < MAIL_PATIENCE,
            "mail {count} of kind {kind} to {email} never arrived"
        );
        actix_web::rt::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The code of the first code mail to `email`.
pub async fn code_for(app: &TestApp, email: &str) -> String {
    nth_code(app, email, 1).await
}

/// The code of the `count`-th code mail to `email`.
pub async fn nth_code(app: &TestApp, email: &str, count: usize) -> String {
    let mail = nth_mail(app, email, "otp", count).await;
    mail["code"].as_str().expect("a code").to_owned()
}
