//! The relays to the analyzer are bounded: a cut answer keeps its `truncated` marker on every
//! EXPENSIVE route and the gatekeeper, and an analyzer answer past the read bound is refused
//! without being read to its end.

use crate::scans_support::{ScanApp, spawn_analyzer};
use serde_json::{Value, json};
use testkit::Flood;

/// Lines of `print(password)`: one finding each (a secret printed), past the analyzer's cap of
/// 1000.
const LINES: usize = 4000;

fn bait() -> Value {
    json!([{ "path": "bait.py", "content": "print(password)\n".repeat(LINES) }])
}

fn marker(found: usize) -> Value {
    json!({ "truncated": true, "reason": "max_findings", "found": found })
}

async fn json_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

#[actix_web::test]
async fn a_cut_answer_keeps_its_marker_through_the_relay() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let mut summary = json!({ "files": 1, "findings": 1000 });
    summary
        .as_object_mut()
        .unwrap()
        .extend(marker(LINES).as_object().unwrap().clone());
    let batch = json!({ "files": bait() });
    let (status, reply) = json_of(app.post("/api/v1/analyzer", &token, &batch).await).await;
    assert_eq!((status, &reply["summary"]), (200, &summary));
    assert_eq!(reply["findings"].as_array().map(Vec::len), Some(1000));
    assert_eq!(reply["findings"][999]["line"], 1000);

    let snippet = json!({ "code": "print(password)\n".repeat(LINES), "language": "python" });
    let (status, reply) = json_of(app.post("/api/v1/code-analysis", &token, &snippet).await).await;
    assert_eq!((status, &reply["summary"]), (200, &summary));

    let (status, fixes) = json_of(app.post("/api/v1/codeFixes", &token, &batch).await).await;
    assert_eq!(status, 200);
    let mut expected_keys = vec!["files".to_owned()];
    expected_keys.extend(["truncated", "reason", "found"].map(str::to_owned));
    let keys: Vec<String> = fixes.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, expected_keys);
    assert_eq!(fixes["found"], LINES);
    assert_eq!(
        fixes["files"][0]["fixes"].as_array().map(Vec::len),
        Some(1000)
    );
}

#[actix_web::test]
async fn a_cut_answer_never_passes_the_gatekeeper() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    // Warnings only: every finding kept is below `failOn`, but the ones cut were never seen.
    let prints = json!([{ "path": "noisy.py", "content": "print(\"x =\", x)\n".repeat(1500) }]);
    let request = app
        .app
        .client
        .post(app.app.url("/api/v1/gatekeeper/check"))
        .bearer_auth(&app.alice.ci_secret)
        .json(&json!({ "files": prints }));
    let response = request.send().await.expect("the backend answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    assert_eq!(
        (status, text.as_str()),
        (
            200,
            r#"{"passed":false,"findings":1500,"blocking":0,"truncated":true,"reason":"max_findings","found":1500}"#
        )
    );
}

#[actix_web::test]
async fn an_answer_past_the_read_bound_is_refused_unread() {
    let offered = 256 * 1024 * 1024;
    let flood = Flood::spawn(offered);
    let app = ScanApp::spawn(&flood.base, &[]).await;
    let batch = json!({ "files": [{ "path": "a.py", "content": "x = 1\n" }] });
    let response = app.post("/api/v1/analyzer", &app.alice.token, &batch).await;
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    assert_eq!(
        (status, text.as_str()),
        (
            502,
            r#"{"status":"BAD_GATEWAY","message":"analyzer unavailable"}"#
        )
    );
    // The backend reads 4 MiB; loopback socket buffers hold a few more.
    let sent = flood.written();
    assert!(
        sent < 32 * 1024 * 1024,
        "{sent} of {offered} bytes were read"
    );
}
