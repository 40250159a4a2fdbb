//! Custom rules cannot make a request super-linear: each rule is one leftmost search per line
//! (so at most one finding per line per rule), and what a request may carry is bounded.

use crate::helpers::{TestApp, status_and_text};
use serde_json::{Value, json};
use std::time::Duration;

/// Long enough that iterating every match (a search restarted at each position) would take
/// minutes in a debug build.
const LINE_CHARS: usize = 200_000;

fn one_finding(rule_id: &str, path: &str, line: u32, column: u32) -> Value {
    json!({ "ruleId": rule_id, "analysisType": "custom", "severity": "warning", "path": path,
            "line": line, "column": column, "message": "m" })
}

async fn analyze_within(app: &TestApp, batch: &Value, limit: Duration) -> (u16, String) {
    let response = app
        .authed(reqwest::Method::POST, "/analyze")
        .json(batch)
        .timeout(limit)
        .send()
        .await
        .expect("answered within the time limit");
    status_and_text(response).await
}

#[actix_web::test]
async fn patterns_that_are_quadratic_over_every_match_answer_one_finding_per_line() {
    let app = TestApp::spawn(&[]).await;
    let content = format!("{}\n{}\n", "a".repeat(LINE_CHARS), "b".repeat(LINE_CHARS));
    for pattern in ["a*z|a", "\\w*@|\\w", "(?:a*z|a)", "[a-y]*z|[ab]"] {
        let batch = json!({
            "files": [{ "path": "a.py", "content": content }],
            "analysisTypes": ["custom"],
            "rules": [{ "ruleId": "q", "pattern": pattern, "message": "m" }],
        });
        let (status, text) = analyze_within(&app, &batch, Duration::from_secs(10)).await;
        let mut findings = vec![one_finding("q", "a.py", 1, 1)];
        if pattern != "a*z|a" && pattern != "(?:a*z|a)" {
            findings.push(one_finding("q", "a.py", 2, 1));
        }
        let count = findings.len();
        let expected =
            json!({ "findings": findings, "summary": { "files": 1, "findings": count } });
        assert_eq!((status, text), (200, expected.to_string()), "{pattern}");
    }
}

#[actix_web::test]
async fn a_stored_rule_is_bounded_the_same_way() {
    let app = TestApp::spawn(&[]).await;
    let rule = json!({ "ruleId": "q", "pattern": "a*z|a", "message": "m" });
    let (status, text) = status_and_text(app.post("/rules/validate", &rule).await).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(app.post("/rules", &rule).await.status(), 201);
    let batch = json!({
        "files": [{ "path": "a.py", "content": "a".repeat(LINE_CHARS) }],
        "analysisTypes": ["custom"],
    });
    let expected = json!({ "findings": [one_finding("q", "a.py", 1, 1)], "summary": { "files": 1, "findings": 1 } });
    assert_eq!(
        analyze_within(&app, &batch, Duration::from_secs(10)).await,
        (200, expected.to_string())
    );
}

#[actix_web::test]
async fn a_rule_reports_the_leftmost_match_of_each_line_once() {
    let app = TestApp::spawn(&[]).await;
    let batch = json!({
        "files": [{ "path": "a.py", "content": "x = 1\nlog.info('TODO é TODO %s', x)\nTODO\n" }],
        "analysisTypes": ["custom"],
        "rules": [{ "ruleId": "todo", "pattern": "TODO", "message": "m" }],
    });
    let expected = json!({
        "findings": [one_finding("todo", "a.py", 2, 11), one_finding("todo", "a.py", 3, 1)],
        "summary": { "files": 1, "findings": 2 },
    });
    assert_eq!(
        status_and_text(app.post("/analyze", &batch).await).await,
        (200, expected.to_string())
    );
}

#[actix_web::test]
async fn what_one_request_may_carry_is_bounded() {
    let app = TestApp::spawn(&[]).await;
    let rule = |id: usize| json!({ "ruleId": format!("r{id}"), "pattern": "x", "message": "m" });
    let long_path = format!("{}.py", "p".repeat(1024));
    let cases = [
        (
            json!({ "files": [{ "path": long_path, "content": "x" }] }),
            r#"{"error":"invalid_request","message":"files[0].path must be at most 1024 characters"}"#,
        ),
        (
            json!({ "files": [{ "path": "a.py", "content": "x" }],
                    "rules": (0..51).map(rule).collect::<Vec<_>>() }),
            r#"{"error":"invalid_request","message":"rules must hold at most 50 entries"}"#,
        ),
        (
            json!({ "files": [{ "path": "a.py", "content": "x" }],
                    "rules": [{ "ruleId": "r", "pattern": "x", "message": "m".repeat(501) }] }),
            r#"{"error":"invalid_rule","message":"rules[0]: rule.message is longer than 500 characters"}"#,
        ),
    ];
    for (batch, body) in cases {
        assert_eq!(
            status_and_text(app.post("/analyze", &batch).await).await,
            (400, body.to_owned())
        );
    }
    let wordy = json!({ "ruleId": "r", "pattern": "x", "message": "m".repeat(501) });
    assert_eq!(
        status_and_text(app.post("/rules/validate", &wordy).await).await,
        (
            400,
            r#"{"error":"rule.message is longer than 500 characters"}"#.to_owned()
        )
    );
}

#[actix_web::test]
async fn the_rule_store_is_bounded() {
    let app = TestApp::spawn(&[("ANALYZER_RATE_LIMIT_WRITE", "1000/60s")]).await;
    for id in 0..200 {
        let rule = json!({ "ruleId": format!("r{id}"), "pattern": "x", "message": "m" });
        assert_eq!(app.post("/rules", &rule).await.status(), 201, "rule {id}");
    }
    let full =
        r#"{"error":"conflict","message":"at most 200 rules can be stored; delete one first"}"#;
    let one_more = json!({ "ruleId": "r200", "pattern": "x", "message": "m" });
    assert_eq!(
        status_and_text(app.post("/rules", &one_more).await).await,
        (409, full.to_owned())
    );
    let put = app
        .authed(reqwest::Method::PUT, "/rules/r200")
        .json(&one_more)
        .send()
        .await
        .unwrap();
    assert_eq!(status_and_text(put).await, (409, full.to_owned()));
    let replace = app
        .authed(reqwest::Method::PUT, "/rules/r0")
        .json(&json!({ "pattern": "y", "message": "m" }))
        .send()
        .await
        .unwrap();
    assert_eq!(replace.status(), 200, "replacing a stored rule still works");
}
