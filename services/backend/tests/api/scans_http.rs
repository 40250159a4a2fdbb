//! Scans where a client meets them, against the real backend and the real analyzer: the 202,
//! the socket's frames to its terminal one and its close, the run over HTTP, and every way a
//! scan gives up ending in an `ERROR: …` frame on the socket — never a silent socket.

use crate::scans_support::{ScanApp, absent_analyzer, access_token, sample_files, spawn_analyzer};
use awc::ws::CloseCode;
use serde_json::{Value, json};

const SCAN_NOT_FOUND: &str = r#"{"status":"NOT_FOUND","message":"scan not found"}"#;

/// Starts a scan of `files` in `project_id` as `token`; the run id (after checking the 202).
async fn initiate(app: &ScanApp, token: &str, project_id: &str, files: Value) -> String {
    let body = json!({ "projectId": project_id, "files": files });
    let response = app.post("/api/v1/scan/initiate", token, &body).await;
    assert_eq!(response.status(), 202);
    let accepted: Value = response.json().await.expect("a JSON body");
    let run_id = accepted["runId"].as_str().expect("a run id").to_owned();
    assert_eq!(
        accepted,
        json!({
            "runId": run_id,
            "status": "QUEUED",
            "progress": format!("/api/v1/runs/{run_id}"),
            "socket": format!("/ws/runs/{run_id}"),
        })
    );
    run_id
}

/// The socket's messages, after checking it closed normally.
async fn frames_then_normal_close(app: &ScanApp, run_id: &str, token: &str) -> Vec<String> {
    let (frames, close) = app.socket(run_id, token).await;
    assert_eq!(
        close.map(|reason| reason.code),
        Some(CloseCode::Normal),
        "{frames:?}"
    );
    frames
}

#[actix_web::test]
async fn a_scan_streams_its_frames_to_done_and_the_run_shows_its_findings() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let run_id = initiate(&app, &token, &app.alice.project_id, sample_files()).await;
    let frames = frames_then_normal_close(&app, &run_id, &token).await;
    assert_eq!(
        frames.first().map(String::as_str),
        Some("PROGRESS: validate: 2 files")
    );
    assert_eq!(frames.last().map(String::as_str), Some("DONE"));
    let run: Value = app
        .get(&format!("/api/v1/runs/{run_id}"), &token)
        .await
        .json()
        .await
        .expect("the run");
    assert_eq!(run["status"], "DONE");
    assert_eq!(run["projectId"], app.alice.project_id.as_str());
    assert!(run["findings"].as_u64().expect("a count") >= 2, "{run}");
    assert_eq!(run["frames"], json!(frames));
    // A finished run replays the same frames to a late subscriber, then closes.
    assert_eq!(
        frames_then_normal_close(&app, &run_id, &token).await,
        frames
    );
}

#[actix_web::test]
async fn an_analyzer_that_is_down_ends_the_socket_with_an_error_frame() {
    let app = ScanApp::spawn(&absent_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let run_id = initiate(&app, &token, &app.alice.project_id, sample_files()).await;
    let frames = frames_then_normal_close(&app, &run_id, &token).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: analyze: analyzer unavailable after 4 attempts")
    );
}

#[actix_web::test]
async fn a_batch_the_analyzer_refuses_ends_the_socket_with_its_400() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let cobol = json!([{"path": "PAYROLL.cbl", "content": "DISPLAY 'HI'.", "language": "cobol"}]);
    let run_id = initiate(&app, &token, &app.alice.project_id, cobol).await;
    let frames = frames_then_normal_close(&app, &run_id, &token).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: analyze: analyzer rejected the batch (400 unknown_language)")
    );
}

#[actix_web::test]
async fn an_unknown_or_foreign_project_gets_its_202_and_one_terminal_frame() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let token = app.alice.token.clone();
    let unknown = "00000000-0000-4000-8000-000000000000";
    for project_id in [unknown, app.bob.project_id.as_str(), "not-a-uuid"] {
        let run_id = initiate(&app, &token, project_id, sample_files()).await;
        let frames = frames_then_normal_close(&app, &run_id, &token).await;
        assert_eq!(
            frames,
            ["ERROR: validate: project not found"],
            "{project_id}"
        );
        let run: Value = app
            .get(&format!("/api/v1/runs/{run_id}"), &token)
            .await
            .json()
            .await
            .expect("the run");
        assert_eq!(run["status"], "ERROR");
    }
}

#[actix_web::test]
async fn another_workspaces_run_is_not_found_in_the_same_words() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let run_id = initiate(&app, &app.bob.token, &app.bob.project_id, sample_files()).await;
    let alice = app.alice.token.clone();
    let unknown = "00000000-0000-4000-8000-000000000000";
    for id in [run_id.as_str(), unknown, "not-a-uuid"] {
        for path in [format!("/api/v1/runs/{id}"), format!("/ws/runs/{id}")] {
            let response = app.get(&path, &alice).await;
            assert_eq!(response.status(), 404, "{path}");
            assert_eq!(
                response.text().await.expect("a body"),
                SCAN_NOT_FOUND,
                "{path}"
            );
        }
        assert_eq!(app.refused_upgrade(id, &alice).await, 404, "{id}");
    }
}

#[actix_web::test]
async fn runs_and_sockets_need_a_scoped_access_token() {
    let app = ScanApp::spawn(&spawn_analyzer(), &[]).await;
    let run_id = initiate(
        &app,
        &app.alice.token,
        &app.alice.project_id,
        sample_files(),
    )
    .await;
    assert_eq!(app.refused_upgrade(&run_id, "not-a-token").await, 401);
    let unscoped = access_token(&app.app.store, "user-alice", None).await;
    let response = app.get(&format!("/api/v1/runs/{run_id}"), &unscoped).await;
    assert_eq!(response.status(), 403);
    let response = app
        .post(
            "/api/v1/scan/initiate",
            &unscoped,
            &json!({"projectId": app.alice.project_id}),
        )
        .await;
    assert_eq!(response.status(), 403);
}
