//! Scans against the real analyzer on a free port: the happy path, a batch it rejects (sent
//! once), the analyzer down (retried, then reported), and input refused before any call.

use crate::support::{
    ANALYZER_TOKEN, absent_analyzer, analyze_calls, file, follow, scanner, spawn_analyzer,
};
use backend::scans::analyzer_client::{AnalyzerClient, RetryPolicy};
use backend::scans::runs::{RunStatus, Runs};
use backend::scans::scanner::FileInput;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn project_files() -> Vec<FileInput> {
    vec![
        file(
            "src/main.rs",
            "fn main() {\n    println!(\"debug\");\n}\n",
            None,
        ),
        file(
            "app.py",
            "def f(password):\n    print(password)\n    logger.info(f\"pw={password}\")\n",
            None,
        ),
        file("web/index.js", "console.log('here');\n", Some("javascript")),
    ]
}

/// The findings the analyzer reports for all of `project_files` in one request.
async fn findings_in_one_request(base: &str) -> u64 {
    let files: Vec<Value> = project_files()
        .into_iter()
        .map(|f| json!({"path": f.path, "content": f.content, "language": f.language}))
        .collect();
    let reply: Value = reqwest::Client::new()
        .post(format!("{base}/analyze"))
        .header("x-analyzer-token", ANALYZER_TOKEN)
        .json(&json!({ "files": files }))
        .send()
        .await
        .expect("the analyzer answers")
        .json()
        .await
        .expect("a JSON reply");
    reply["summary"]["findings"]
        .as_u64()
        .expect("a findings count")
}

#[actix_web::test]
async fn a_scan_runs_every_stage_and_ends_done_with_the_analyzers_count() {
    let base = spawn_analyzer();
    let expected = findings_in_one_request(&base).await;
    assert!(expected > 0, "the sample files have findings");
    let client = AnalyzerClient::new(&base, ANALYZER_TOKEN, RetryPolicy::default());
    let (_dir, store, scanner, hub) = scanner(client, 2);
    let run = scanner
        .start("ws-1", "proj-1", project_files())
        .await
        .expect("the run starts");
    assert_eq!(run.status, RunStatus::Queued);
    let frames = follow(&hub, run.id).await;
    let expected_frames = [
        "PROGRESS: validate: 3 files".to_owned(),
        "PROGRESS: analyze: batch 1/2 (2 files)".to_owned(),
        "PROGRESS: analyze: batch 2/2 (1 files)".to_owned(),
        format!("PROGRESS: store: {expected} findings"),
        "DONE".to_owned(),
    ];
    assert_eq!(frames, expected_frames);
    let stored = Runs::new(store)
        .get(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!(
        (stored.status, stored.findings),
        (RunStatus::Done, expected)
    );
    assert_eq!(stored.frames, expected_frames);
    assert_eq!(
        (stored.workspace_id.as_str(), stored.project_id.as_str()),
        ("ws-1", "proj-1")
    );
}

#[actix_web::test]
async fn a_batch_the_analyzer_rejects_is_sent_once_and_ends_the_run() {
    let base = spawn_analyzer();
    let before = analyze_calls(&base).await;
    let client = AnalyzerClient::new(&base, ANALYZER_TOKEN, RetryPolicy::default());
    let (_dir, _store, scanner, hub) = scanner(client, 50);
    let files = vec![file(
        "legacy/PAYROLL.cbl",
        "DISPLAY 'HELLO'.",
        Some("cobol"),
    )];
    let run = scanner
        .start("ws-1", "proj-1", files)
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: analyze: analyzer rejected the batch (400 unknown_language)")
    );
    assert_eq!(
        analyze_calls(&base).await,
        before + 1,
        "a 400 is never retried"
    );
}

#[actix_web::test]
async fn an_analyzer_that_is_down_is_tried_max_attempts_times_then_reported() {
    let client = AnalyzerClient::new(absent_analyzer(), ANALYZER_TOKEN, RetryPolicy::default());
    let (_dir, _store, scanner, hub) = scanner(client, 50);
    let started = Instant::now();
    let run = scanner
        .start("ws-1", "proj-1", project_files())
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    let elapsed = started.elapsed();
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: analyze: analyzer unavailable after 4 attempts")
    );
    // Three backoffs between four attempts: 100 + 200 + 400 ms, each plus at most 10%.
    assert!(elapsed >= Duration::from_millis(700), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[actix_web::test]
async fn input_without_files_or_content_ends_in_validate_without_calling_the_analyzer() {
    let base = spawn_analyzer();
    let before = analyze_calls(&base).await;
    let client = AnalyzerClient::new(&base, ANALYZER_TOKEN, RetryPolicy::default());
    let (_dir, _store, scanner, hub) = scanner(client, 50);
    let run = scanner
        .start("ws-1", "proj-1", Vec::new())
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames,
        [
            "PROGRESS: validate: 0 files",
            "ERROR: validate: no files to scan"
        ]
    );
    let missing = vec![
        file("a.rs", "", None),
        FileInput {
            path: Some("b.rs".to_owned()),
            ..FileInput::default()
        },
    ];
    let run = scanner
        .start("ws-1", "proj-1", missing)
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: validate: files[1] has no content")
    );
    assert_eq!(analyze_calls(&base).await, before);
}
