//! Bad bodies on every route that takes one, as the OpenAPI document lists them (so a new
//! route is covered the day it is documented): malformed JSON, the wrong JSON type, the wrong
//! content type and an oversized body each get a 4xx in the envelope of the route's controller,
//! never a 5xx, sent with a valid workspace-scoped owner token so the body is what is judged.
//! Budgets are raised so the filters stay out of the way; the real analyzer answers the
//! EXPENSIVE routes.

use crate::helpers::TestApp;
use crate::scans_support::{ANALYZER_TOKEN, spawn_analyzer};
use crate::tenancy_support::{account, switch, workspace};
use serde_json::Value;

const HIGH: &str = "100000/1h";

/// Routes that take no body, so a bad one cannot make them fail: only "never a 5xx" holds.
const BODILESS: [&str; 1] = ["/api/v1/user/password-reset"];

/// Every POST and PUT of the served document, with its parameters filled in.
async fn operations(app: &TestApp) -> Vec<(String, String)> {
    let response = app.client.get(app.url("/v3/api-docs")).send().await;
    let document: Value = response.expect("served").json().await.expect("JSON");
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        let concrete: Vec<&str> = path
            .split('/')
            .map(|segment| {
                if segment.starts_with('{') {
                    "sample"
                } else {
                    segment
                }
            })
            .collect();
        for method in item.as_object().expect("operations").keys() {
            if method == "post" || method == "put" {
                found.push((method.to_uppercase(), concrete.join("/")));
            }
        }
    }
    found
}

/// The answer is a 4xx in the path's envelope (for a bodiless route: not a 5xx).
fn assert_refused(method: &str, path: &str, case: &str, status: u16, text: &str) {
    let at = format!("{method} {path} ({case}): {status} {text}");
    if path.starts_with("/api/v1/auth/mfa/passkey/") {
        return assert_eq!(status, 501, "{at}");
    }
    assert!(status < 500, "{at}");
    if BODILESS.contains(&path) {
        return;
    }
    assert!((400..500).contains(&status), "{at}");
    let body: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("JSON: {at}"));
    let expected_status = if path.starts_with("/api/v1/auth/") {
        Value::from(status)
    } else {
        let reason = reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|code| code.canonical_reason())
            .unwrap_or_default();
        Value::from(reason.to_uppercase().replace([' ', '-'], "_"))
    };
    assert_eq!(body["status"], expected_status, "{at}");
    assert!(body["message"].is_string(), "{at}");
}

#[actix_web::test]
async fn every_route_that_takes_a_body_refuses_bad_ones_with_a_4xx() {
    let analyzer = spawn_analyzer();
    let mut settings = vec![
        ("ANALYZER_URL", analyzer.as_str()),
        ("ANALYZER_TOKEN", ANALYZER_TOKEN),
    ];
    for budget in [
        "RATE_LIMIT_EMAIL",
        "RATE_LIMIT_EMAIL_RECIPIENT",
        "RATE_LIMIT_CREDENTIAL",
        "RATE_LIMIT_EXPENSIVE",
        "AUTH_RATE_LIMIT_CREDENTIAL",
        "AUTH_RATE_LIMIT_ONE_TIME_CODE",
        "AUTH_RATE_LIMIT_EMAIL",
        "AUTH_RATE_LIMIT_BACKSTOP",
    ] {
        settings.push((budget, HIGH));
    }
    let app = TestApp::spawn(&settings).await;
    let owner = account(&app, "ada@example.com").await;
    let workspace_id = workspace(&app, &owner, "Acme").await;
    let token = switch(&app, &owner, &workspace_id).await;
    let oversized = format!(r#"{{"email":"{}@example.com"}}"#, "x".repeat(3 << 20));
    let cases = [
        ("malformed", "application/json", "{".to_owned()),
        ("wrong type", "application/json", "[1,2]".to_owned()),
        ("not JSON", "text/plain", "email=a@example.com".to_owned()),
        ("oversized", "application/json", oversized),
    ];
    let operations = operations(&app).await;
    assert!(operations.len() >= 25, "{operations:?}");
    for (method, path) in &operations {
        for (case, content_type, body) in &cases {
            let request = app
                .client
                .request(method.parse().expect("a method"), app.url(path))
                .bearer_auth(&token)
                .header("content-type", *content_type)
                .body(body.clone());
            let response = request.send().await.expect("the backend answers");
            let status = response.status().as_u16();
            let text = response.text().await.expect("a body");
            assert_refused(method, path, case, status, &text);
        }
    }
}
