//! Custom rules: validation messages, a hostile pattern, and the whole CRUD cycle.

use crate::helpers::{TestApp, status_and_text};
use serde_json::json;
use std::time::{Duration, Instant};

#[actix_web::test]
async fn validation_names_the_first_problem() {
    let app = TestApp::spawn(&[]).await;
    let cases = [
        (json!({}), "rule.ruleId is mandatory"),
        (json!({ "ruleId": "r1" }), "rule.pattern is mandatory"),
        (
            json!({ "ruleId": "r1", "pattern": "(" }),
            "rule.pattern is not a valid regular expression",
        ),
        (
            json!({ "ruleId": "r1", "pattern": "x", "message": "m", "severity": "fatal" }),
            "rule.severity must be one of info, warning, error",
        ),
    ];
    for (body, message) in cases {
        let (status, text) = status_and_text(app.post("/rules/validate", &body).await).await;
        assert_eq!(status, 400, "{body}");
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            value["error"].as_str().unwrap().starts_with(message),
            "{text}"
        );
    }
    let valid = json!({ "ruleId": "no-todo", "pattern": "TODO", "message": "no TODO in logs" });
    let (status, text) = status_and_text(app.post("/rules/validate", &valid).await).await;
    assert_eq!(status, 200, "{text}");
    assert!(
        text.starts_with(r#"{"rule":"#) || text.contains(r#""valid":true"#),
        "{text}"
    );
}

#[actix_web::test]
async fn a_hostile_pattern_is_refused_quickly() {
    let app = TestApp::spawn(&[]).await;
    for pattern in [
        "(a{1000}){1000}",
        "\\w{1000}{1000}",
        "((((a{100}){100}){100}){100})",
    ] {
        let rule = json!({ "ruleId": "evil", "pattern": pattern, "message": "m" });
        let started = Instant::now();
        let (status, text) = status_and_text(app.post("/rules/validate", &rule).await).await;
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{pattern}: {:?}",
            started.elapsed()
        );
        assert_eq!(
            (status, text.as_str()),
            (400, r#"{"error":"rule.pattern is too complex"}"#),
            "{pattern}"
        );
    }
}

#[actix_web::test]
async fn a_backtracking_bomb_is_accepted_and_runs_in_linear_time() {
    // `(a+)+$` takes exponential time in a backtracking engine; the regex crate's is linear.
    let app = TestApp::spawn(&[]).await;
    let line = format!("log.info(\"{}b\")\n", "a".repeat(20_000));
    let batch = json!({
        "files": [{ "path": "a.py", "content": line }],
        "analysisTypes": ["custom"],
        "rules": [{ "ruleId": "bomb", "pattern": "(a+)+$", "message": "m" }]
    });
    let started = Instant::now();
    let (status, text) = status_and_text(app.post("/analyze", &batch).await).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(status, 200, "{text}");
}

#[actix_web::test]
async fn create_read_apply_replace_delete() {
    let app = TestApp::spawn(&[]).await;
    let rule = json!({ "ruleId": "no-todo", "pattern": "TODO", "message": "no TODO in log messages", "severity": "error" });
    assert_eq!(app.post("/rules", &rule).await.status(), 201);
    let (status, text) = status_and_text(app.post("/rules", &rule).await).await;
    assert_eq!(
        (status, text.as_str()),
        (
            409,
            r#"{"error":"conflict","message":"rule 'no-todo' already exists"}"#
        )
    );
    let listed: serde_json::Value = app.get("/rules").await.json().await.unwrap();
    assert_eq!(listed["rules"][0]["ruleId"], "no-todo");

    let batch = json!({ "files": [{ "path": "a.py", "content": "x = 1\nlog.info('TODO later %s', x)\n" }], "analysisTypes": ["custom"] });
    let found: serde_json::Value = app.post("/analyze", &batch).await.json().await.unwrap();
    assert_eq!(found["findings"][0]["ruleId"], "no-todo");
    assert_eq!(
        (
            found["findings"][0]["line"].as_u64(),
            found["findings"][0]["column"].as_u64()
        ),
        (Some(2), Some(11))
    );

    let replaced = json!({ "pattern": "FIXME", "message": "no FIXME" });
    let put = app
        .authed(reqwest::Method::PUT, "/rules/no-todo")
        .json(&replaced)
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 200);
    let found: serde_json::Value = app.post("/analyze", &batch).await.json().await.unwrap();
    assert_eq!(found["findings"].as_array().unwrap().len(), 0);

    let deleted = app
        .authed(reqwest::Method::DELETE, "/rules/no-todo")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let (status, text) = status_and_text(app.get("/rules/no-todo").await).await;
    assert_eq!(
        (status, text.as_str()),
        (
            404,
            r#"{"error":"not_found","message":"rule 'no-todo' not found"}"#
        )
    );
}
