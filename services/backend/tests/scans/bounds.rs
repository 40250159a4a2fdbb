//! The scan fan-out and its client are bounded: a batch counts every finding found (not only
//! those its answer kept), a batch cut at the analyzer's deadline makes the count a floor the
//! run states, an answer past the read bound is one unreadable answer, and a call that does
//! not end by its deadline is given up.

use crate::stub::{Step, Stub};
use crate::support::{ANALYZER_TOKEN, file, follow, scanner, spawn_analyzer};
use analysis::{AnalyzeFile, AnalyzeRequest};
use backend::scans::analyzer_client::{AnalyzerClient, AnalyzerError, RetryPolicy};
use serde_json::json;
use std::time::{Duration, Instant};

fn one_file() -> AnalyzeRequest {
    AnalyzeRequest {
        files: vec![AnalyzeFile {
            path: "a.py".to_owned(),
            content: "x = 1\n".to_owned(),
            language: None,
        }],
        ..AnalyzeRequest::default()
    }
}

#[actix_web::test]
async fn a_scan_counts_every_finding_found_past_the_cap() {
    let client = AnalyzerClient::new(spawn_analyzer(), ANALYZER_TOKEN, RetryPolicy::default());
    let (_dir, _store, scanner, hub) = scanner(client, 1);
    let bait = "print(password)\n".repeat(4000);
    let files = vec![file("a.py", &bait, None), file("b.py", &bait, None)];
    let run = scanner
        .start("ws-1", "proj-1", files)
        .await
        .expect("starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames[frames.len() - 2..],
        ["PROGRESS: store: 8000 findings", "DONE"],
        "each batch's answer kept 1000"
    );
}

#[actix_web::test]
async fn a_batch_cut_at_the_deadline_makes_the_count_a_floor() {
    let cut = json!({ "findings": [], "summary": { "files": 1, "findings": 0,
        "truncated": true, "reason": "deadline", "found": 7 } });
    let whole = json!({ "findings": [], "summary": { "files": 1, "findings": 2 } });
    let stub = Stub::spawn(vec![Step::new(200, cut), Step::new(200, whole)]);
    let (_dir, _store, scanner, hub) = scanner(stub.client(RetryPolicy::default()), 1);
    let files = vec![file("a.py", "x", None), file("b.py", "y", None)];
    let run = scanner
        .start("ws-1", "proj-1", files)
        .await
        .expect("starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames[frames.len() - 2..],
        [
            "PROGRESS: store: at least 9 findings (1 batch(es) stopped at the analyzer's deadline)",
            "DONE"
        ]
    );
}

#[actix_web::test]
async fn an_answer_past_the_read_bound_is_unreadable_and_not_retried() {
    // A reply that would parse, but past the 4 MiB the client reads.
    let huge = json!({ "findings": [], "summary": { "files": 1, "findings": 0 },
                       "padding": "x".repeat(5 * 1024 * 1024) });
    let stub = Stub::spawn(vec![Step::new(200, huge)]);
    let error = stub
        .client(RetryPolicy::default())
        .analyze(&one_file())
        .await
        .expect_err("too large to read");
    assert_eq!(error, AnalyzerError::BadResponse);
    assert_eq!(stub.calls(), 1, "the same request would get it again");
}

#[actix_web::test]
async fn a_call_ends_at_its_deadline_whatever_the_attempts_would_take() {
    let slow = Step::new(200, json!({})).delayed(Duration::from_secs(20));
    let stub = Stub::spawn(vec![slow]);
    let policy = RetryPolicy {
        deadline: Duration::from_millis(300),
        ..RetryPolicy::default()
    };
    let started = Instant::now();
    let error = stub
        .client(policy)
        .analyze(&one_file())
        .await
        .expect_err("no answer in time");
    assert_eq!(
        (error.to_string(), error),
        (
            "analyzer gave no answer within 300 ms".to_owned(),
            AnalyzerError::TimedOut {
                after: Duration::from_millis(300)
            }
        )
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}
