//! The gatekeeper (a CI key as a bearer or in `X-CI-Key`, its own budget), `/internal/**`
//! (a token, never metered) and the analytics summary (never metered).

use crate::helpers::{fail_body, header};
use crate::scans_support::{ScanApp, sample_files, spawn_analyzer};
use serde_json::{Value, json};

const INTERNAL_TOKEN: &str = "internal-token-for-tests-0123456789";

async fn check(app: &ScanApp, key_header: (&str, String), body: &Value) -> reqwest::Response {
    let request = app.app.client.post(app.app.url("/api/v1/gatekeeper/check"));
    let request = request.header(key_header.0, key_header.1).json(body);
    request.send().await.expect("the backend answers")
}

#[actix_web::test]
async fn a_ci_key_checks_files_and_has_its_own_budget() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[("RATE_LIMIT_CI", "2/1h")]).await;
    let secret = app.alice.ci_secret.clone();
    let body = json!({ "files": sample_files() });
    let verdict = check(&app, ("authorization", format!("Bearer {secret}")), &body).await;
    assert_eq!(verdict.status(), 200);
    let verdict: Value = verdict.json().await.expect("a verdict");
    assert_eq!(
        (&verdict["passed"], &verdict["blocking"]),
        (&json!(false), &json!(1)),
        "{verdict}"
    );
    assert!(
        verdict["findings"].as_u64().expect("a count") >= 2,
        "{verdict}"
    );
    let clean = json!({ "files": [{"path": "lib.rs", "content": "fn f() {}\n"}] });
    let verdict: Value = check(&app, ("x-ci-key", secret.clone()), &clean)
        .await
        .json()
        .await
        .expect("a verdict");
    assert_eq!(
        verdict,
        json!({ "passed": true, "findings": 0, "blocking": 0 })
    );
    let refused = check(&app, ("x-ci-key", secret), &clean).await;
    assert_eq!(header(&refused, "retry-after").as_deref(), Some("1800"));
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.text().await.expect("a body"), fail_body(1800));
}

#[actix_web::test]
async fn an_unknown_ci_key_is_401_and_warnings_can_fail_a_check() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let body = json!({ "files": sample_files(), "failOn": "warning" });
    let unknown = check(&app, ("x-ci-key", "ci_unknown".to_owned()), &body).await;
    assert_eq!(unknown.status(), 401);
    assert_eq!(
        unknown.text().await.expect("a body"),
        r#"{"status":"UNAUTHORIZED","message":"invalid CI key"}"#
    );
    let verdict: Value = check(&app, ("x-ci-key", app.bob.ci_secret.clone()), &body)
        .await
        .json()
        .await
        .expect("a verdict");
    assert_eq!(verdict["blocking"], verdict["findings"], "{verdict}");
}

#[actix_web::test]
async fn internal_routes_need_the_token_and_are_never_metered() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[("INTERNAL_TOKEN", INTERNAL_TOKEN)]).await;
    let body = json!({ "projectId": app.alice.project_id, "files": sample_files() });
    let accepted: Value = app
        .post("/api/v1/scan/initiate", &app.alice.token, &body)
        .await
        .json()
        .await
        .expect("a 202 body");
    let run_id = accepted["runId"].as_str().expect("a run id").to_owned();
    app.socket(&run_id, &app.alice.token).await;
    let url = app.app.url(&format!("/internal/runs/{run_id}"));
    for token in [None, Some("wrong")] {
        let mut request = app.app.client.get(&url);
        if let Some(token) = token {
            request = request.header("x-internal-token", token);
        }
        let refused = request.send().await.expect("the backend answers");
        assert_eq!(refused.status(), 401);
        assert_eq!(header(&refused, "ratelimit"), None);
    }
    let request = app
        .app
        .client
        .get(&url)
        .header("x-internal-token", INTERNAL_TOKEN);
    let run = request.send().await.expect("the backend answers");
    assert_eq!(run.status(), 200);
    assert_eq!(
        (header(&run, "ratelimit"), header(&run, "ratelimit-policy")),
        (None, None)
    );
    let run: Value = run.json().await.expect("the run");
    assert_eq!(run["status"], "DONE");
    let summary = app.get("/api/v1/analytics/summary", &app.alice.token).await;
    assert_eq!(header(&summary, "ratelimit"), None);
    let summary: Value = summary.json().await.expect("a summary");
    let findings = run["findings"].clone();
    assert_eq!(
        summary,
        json!({ "runs": {"total": 1, "done": 1, "error": 0, "running": 0}, "findings": findings })
    );
}

#[actix_web::test]
async fn without_internal_token_every_internal_request_is_401() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let url = app
        .app
        .url("/internal/runs/00000000-0000-4000-8000-000000000000");
    for token in ["", "anything"] {
        let request = app.app.client.get(&url).header("x-internal-token", token);
        let refused = request.send().await.expect("the backend answers");
        assert_eq!(refused.status(), 401);
    }
}
