//! The EXPENSIVE endpoints against the real analyzer: budgets per bearer, the analyzer's 4xx
//! passed through as a 400 in the api envelope, and an analyzer that is down as a 502.

use crate::helpers::{fail_body, header};
use crate::scans_support::{ScanApp, absent_analyzer, sample_files, spawn_analyzer};
use serde_json::{Value, json};

async fn status_and_body(response: reqwest::Response) -> (u16, String) {
    let status = response.status().as_u16();
    (status, response.text().await.expect("a body"))
}

#[actix_web::test]
async fn each_bearer_has_its_own_expensive_budget() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[("RATE_LIMIT_EXPENSIVE", "3/1h")]).await;
    let body = json!({ "files": sample_files() });
    for call in 1..=3 {
        let response = app.post("/api/v1/analyzer", &app.alice.token, &body).await;
        assert_eq!(response.status(), 200, "call {call}");
    }
    let refused = app.post("/api/v1/analyzer", &app.alice.token, &body).await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("1200"));
    assert_eq!(status_and_body(refused).await, (429, fail_body(1200)));
    let other = app.post("/api/v1/analyzer", &app.bob.token, &body).await;
    assert_eq!(other.status(), 200);
    let reply: Value = other.json().await.expect("findings");
    let findings = reply["findings"].as_array().expect("a findings list");
    assert_eq!(reply["summary"]["findings"], json!(findings.len()));
    assert!(
        findings.iter().any(|finding| finding["path"] == "app.py"),
        "{reply}"
    );
}

#[actix_web::test]
async fn the_analyzers_4xx_is_the_callers_400() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let snippet = json!({ "code": "DISPLAY 'HI'.", "language": "cobol" });
    assert_eq!(
        status_and_body(app.post("/api/v1/code-analysis", &token, &snippet).await).await,
        (
            400,
            r#"{"status":"BAD_REQUEST","message":"analyzer rejected the request (400 unknown_language)"}"#
                .to_owned()
        )
    );
    let nameless = json!({ "pattern": "TODO", "message": "no TODOs" });
    assert_eq!(
        status_and_body(app.post("/api/v1/generator", &token, &nameless).await).await,
        (
            400,
            r#"{"status":"BAD_REQUEST","message":"rule.ruleId is mandatory"}"#.to_owned()
        )
    );
    let rule = json!({ "ruleId": "no-todo", "pattern": "TODO", "message": "no TODOs" });
    let verdict = app.post("/api/v1/generator", &token, &rule).await;
    assert_eq!(verdict.status(), 200);
    let verdict: Value = verdict.json().await.expect("a verdict");
    assert_eq!(
        (&verdict["valid"], &verdict["rule"]["ruleId"]),
        (&json!(true), &json!("no-todo"))
    );
}

#[actix_web::test]
async fn snippets_and_fixes_come_back_from_the_analyzer() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let snippet = json!({ "code": "console.log('here');\n", "language": "javascript" });
    let reply: Value = app
        .post("/api/v1/code-analysis", &token, &snippet)
        .await
        .json()
        .await
        .expect("findings");
    assert_eq!(reply["findings"][0]["path"], "snippet", "{reply}");
    let fixes = app
        .post(
            "/api/v1/codeFixes",
            &token,
            &json!({ "files": sample_files() }),
        )
        .await;
    assert_eq!(fixes.status(), 200);
    let fixes: Value = fixes.json().await.expect("fixes");
    let files = fixes["files"].as_array().expect("files");
    let paths: Vec<&str> = files
        .iter()
        .filter_map(|file| file["path"].as_str())
        .collect();
    assert_eq!(paths, ["app.py", "src/main.rs"], "{fixes}");
    for file in files {
        for fix in file["fixes"].as_array().expect("fixes") {
            assert_eq!(
                (&fix["path"], fix["fix"].is_string()),
                (&file["path"], true)
            );
        }
    }
}

#[actix_web::test]
async fn an_analyzer_that_is_down_is_a_502_and_no_bearer_a_401() {
    let app = ScanApp::spawn(&absent_analyzer(), &[]).await;
    let body = json!({ "files": sample_files() });
    assert_eq!(
        status_and_body(app.post("/api/v1/analyzer", &app.alice.token, &body).await).await,
        (
            502,
            r#"{"status":"BAD_GATEWAY","message":"analyzer unavailable"}"#.to_owned()
        )
    );
    let anonymous = app
        .app
        .client
        .post(app.app.url("/api/v1/analyzer"))
        .json(&body);
    let anonymous = anonymous.send().await.expect("the backend answers");
    assert_eq!(
        status_and_body(anonymous).await,
        (
            401,
            r#"{"status":"UNAUTHORIZED","message":"authentication required"}"#.to_owned()
        )
    );
}
