//! What every module shares: the real analyzer on a free port, stores in temp dirs, and
//! `follow`, which reads a run's frames to the end.

use backend::scans::runs::{RunHub, Runs, frames};
use backend::scans::scanner::{Analyze, FileInput, Scanner};
use backend::store::Store;
use std::time::Duration;
use tempfile::TempDir;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

pub use crate::analyzer_support::{ANALYZER_TOKEN, absent_analyzer, spawn_analyzer};

/// How many requests reached the analyzer's `analyze` group (its limiter's allowed count).
pub async fn analyze_calls(base: &str) -> u64 {
    let metrics = reqwest::Client::new()
        .get(format!("{base}/metrics"))
        .header("x-analyzer-token", ANALYZER_TOKEN)
        .send()
        .await
        .expect("the analyzer answers")
        .text()
        .await
        .expect("a metrics body");
    let prefix =
        r#"limiter_decisions_total{service="analyzer",group="analyze",outcome="allowed"} "#;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .map_or(0, |count| count.trim().parse().expect("a count"))
}

/// Runs and their hub on an embedded store in a fresh directory (keep the directory).
pub fn runs() -> (TempDir, Store, Runs, RunHub) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::embedded(dir.path()).expect("the embedded store opens");
    let runs = Runs::new(store.clone());
    let hub = RunHub::new(runs.clone());
    (dir, store, runs, hub)
}

/// A scanner over fresh runs, `batch_size` files per call.
pub fn scanner<C: Analyze>(client: C, batch_size: usize) -> (TempDir, Store, Scanner<C>, RunHub) {
    let (dir, store, runs, hub) = runs();
    let scanner = Scanner::new(runs, hub.clone(), client, batch_size);
    (dir, store, scanner, hub)
}

/// A file to scan.
pub fn file(path: &str, content: &str, language: Option<&str>) -> FileInput {
    FileInput {
        path: Some(path.to_owned()),
        content: Some(content.to_owned()),
        language: language.map(str::to_owned),
    }
}

/// Every frame of run `run_id`, history then live, until its channel closes (30 s at most);
/// asserts that exactly one frame is terminal and that it is the last.
pub async fn follow(hub: &RunHub, run_id: Uuid) -> Vec<String> {
    let subscription = hub
        .subscribe(run_id)
        .await
        .expect("the store answers")
        .expect("the run exists");
    let mut seen = subscription.frames;
    if let Some(mut live) = subscription.live {
        loop {
            let next = tokio::time::timeout(Duration::from_secs(30), live.recv());
            match next.await.expect("the run ends within 30 s") {
                Ok(frame) => seen.push(frame),
                Err(RecvError::Closed) => break,
                Err(RecvError::Lagged(missed)) => panic!("the follower lagged by {missed}"),
            }
        }
    }
    let terminals: Vec<usize> = (0..seen.len())
        .filter(|&i| frames::is_terminal(&seen[i]))
        .collect();
    assert_eq!(
        terminals,
        vec![seen.len() - 1],
        "one terminal frame, last: {seen:?}"
    );
    seen
}
