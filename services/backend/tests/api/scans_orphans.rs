//! A run whose process died before its terminal frame still ends, where a client reads it:
//! the socket gets `ERROR: <stage>: runner stopped` and a normal close, `GET /runs/{id}` and
//! the analytics summary show it as an error. A run whose runner is alive (its lease renewed
//! by another process on the same store) is left alone, however long it takes.
//!
//! The "other process" is the runs repository on the app's own store, with a short lease:
//! what a replica that stored a run and then died leaves behind.

use crate::scans_support::{ScanApp, absent_analyzer};
use awc::ws::CloseCode;
use backend::scans::runs::{LeaseKeeper, Run, RunHub, Runs, frames};
use serde_json::{Value, json};
use std::time::Duration;

const LEASE: Duration = Duration::from_secs(1);

/// A run of alice's, stored by another process with a short lease, after one progress frame.
async fn run_elsewhere(app: &ScanApp) -> (Runs, Run) {
    let runs = Runs::with_lease(app.app.store.clone(), LEASE);
    let mut run = runs
        .create(&app.alice.workspace_id, &app.alice.project_id)
        .await
        .expect("the run is stored");
    let progress = frames::progress("analyze", "batch 1/2 (50 files)");
    RunHub::new(runs.clone()).emit(&mut run, progress).await;
    (runs, run)
}

async fn get_run(app: &ScanApp, run_id: &str) -> Value {
    let response = app
        .get(&format!("/api/v1/runs/{run_id}"), &app.alice.token)
        .await;
    assert_eq!(response.status(), 200);
    response.json().await.expect("the run")
}

#[actix_web::test]
async fn a_run_whose_runner_died_ends_on_the_socket_and_in_the_summary() {
    let app = ScanApp::spawn(&absent_analyzer(), &[]).await;
    let (_runs, run) = run_elsewhere(&app).await;
    let run_id = run.id.to_string();

    let (frames, close) = app.socket(&run_id, &app.alice.token).await;
    assert_eq!(
        frames,
        [
            "PROGRESS: analyze: batch 1/2 (50 files)",
            "ERROR: analyze: runner stopped"
        ]
    );
    assert_eq!(close.map(|reason| reason.code), Some(CloseCode::Normal));
    let stored = get_run(&app, &run_id).await;
    assert_eq!(
        (&stored["status"], &stored["frames"]),
        (&json!("ERROR"), &json!(frames))
    );
    let summary: Value = app
        .get("/api/v1/analytics/summary", &app.alice.token)
        .await
        .json()
        .await
        .expect("a summary");
    assert_eq!(
        summary,
        json!({ "runs": {"total": 1, "done": 0, "error": 1, "running": 0}, "findings": 0 })
    );
}

#[actix_web::test]
async fn a_queued_run_whose_runner_died_is_ended_by_the_first_read() {
    let app = ScanApp::spawn(&absent_analyzer(), &[]).await;
    let runs = Runs::with_lease(app.app.store.clone(), LEASE);
    let run = runs
        .create(&app.alice.workspace_id, &app.alice.project_id)
        .await
        .expect("the run is stored");
    let run_id = run.id.to_string();
    assert_eq!(
        get_run(&app, &run_id).await["status"],
        "QUEUED",
        "leased: left alone"
    );
    tokio::time::sleep(LEASE + Duration::from_millis(200)).await;

    let ended = get_run(&app, &run_id).await;
    assert_eq!(ended["status"], "ERROR");
    assert_eq!(ended["frames"], json!(["ERROR: queue: runner stopped"]));
    let again = get_run(&app, &run_id).await;
    assert_eq!(again, ended, "ended once, the same for every reader");
}

#[actix_web::test]
async fn a_run_whose_runner_is_alive_is_never_ended_by_a_reader() {
    let app = ScanApp::spawn(&absent_analyzer(), &[]).await;
    let (runs, run) = run_elsewhere(&app).await;
    let keeper: LeaseKeeper = runs.keep_leased(run.id);
    let run_id = run.id.to_string();
    for _ in 0..4 {
        tokio::time::sleep(LEASE / 2).await;
        let read = get_run(&app, &run_id).await;
        assert_eq!(read["status"], "RUNNING", "alive at {read}");
    }
    let summary: Value = app
        .get("/api/v1/analytics/summary", &app.alice.token)
        .await
        .json()
        .await
        .expect("a summary");
    assert_eq!(summary["runs"]["running"], 1);

    drop(keeper);
    let (frames, close) = app.socket(&run_id, &app.alice.token).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: analyze: runner stopped")
    );
    assert_eq!(close.map(|reason| reason.code), Some(CloseCode::Normal));
    let mut late = run;
    RunHub::new(runs.clone())
        .emit(&mut late, frames::DONE.to_owned())
        .await;
    assert_eq!(
        late.frames.last().map(String::as_str),
        Some("ERROR: analyze: runner stopped"),
        "a runner back after its lease lapsed writes the same ending, not DONE"
    );
    assert_eq!(get_run(&app, &run_id).await["status"], "ERROR");
}
