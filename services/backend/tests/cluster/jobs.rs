//! Account-mail jobs from two replicas on one Redis: both tasks see every job, and each job is
//! still worked once (a replica claims a job before working it), so each signup mails exactly
//! one code.

use crate::support::{Node, Redis};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The recipients of the code mails in the outbox, sorted.
fn code_recipients(data_dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(data_dir.join("outbox.jsonl")).unwrap_or_default();
    let mut recipients: Vec<String> = text
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("an outbox line"))
        .filter(|mail| mail["kind"] == "otp")
        .map(|mail| mail["to"].as_str().expect("a recipient").to_owned())
        .collect();
    recipients.sort();
    recipients
}

#[actix_web::test]
async fn two_replicas_work_each_job_once() {
    let Some(redis) = Redis::start().await else {
        return;
    };
    let data = tempfile::tempdir().expect("a temporary data directory");
    let budgets = [
        ("AUTH_RATE_LIMIT_EMAIL", "100/1h"),
        ("RATE_LIMIT_EMAIL", "100/1h"),
    ];
    let nodes = [
        Node::start(&redis, data.path(), &budgets).await,
        Node::start(&redis, data.path(), &budgets).await,
    ];
    for n in 0..8 {
        let body = json!({ "email": format!("user{n}@example.com"), "password": "a-long-password", "name": "U" });
        let signup = nodes[n % 2].post("/api/v1/auth/signup", &body).await;
        assert_eq!(signup.status(), 201);
    }
    let expected: Vec<String> = (0..8).map(|n| format!("user{n}@example.com")).collect();
    let started = Instant::now();
    while code_recipients(data.path()).len() < expected.len() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "codes never arrived"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Both tasks poll every second: give a second working of a job time to show up.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(code_recipients(data.path()), expected);
    for node in nodes {
        node.stop().await;
    }
}
