//! The engine's throughput on real code: every source file under a directory (by default the
//! repository's `realcode/`), analyzed with every built-in type in one call, `ROUNDS` times;
//! prints the best round in MB/s of source. Run by `scripts/bench-logscan.sh`, which builds it
//! in release for the working tree and for an earlier commit, to compare the two.

#[path = "support/sources.rs"]
mod support;

use std::env;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use logscan::{Bounds, analyze};
use support::{source_files, sources};

const DEFAULT_ROUNDS: u32 = 10;

fn main() {
    let dir = env::args().nth(1).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../realcode"),
        PathBuf::from,
    );
    let rounds = env::var("ROUNDS")
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS);
    let mut owned = Vec::new();
    sources(&dir, &mut owned);
    let files = source_files(&owned);
    let bytes: usize = files.iter().map(|file| file.content.len()).sum();
    let bounds = Bounds {
        max_findings: usize::MAX,
        deadline_passed: &|| false,
    };
    let mut best = Duration::MAX;
    let mut found = 0;
    for _ in 0..rounds {
        let started = Instant::now();
        let report = analyze(&files, &[], &[], &bounds).expect("every built-in type");
        best = best.min(started.elapsed());
        found = report.findings.len();
    }
    let megabytes = bytes as f64 / 1e6;
    println!(
        "{} files, {megabytes:.1} MB, {found} findings; best of {rounds}: {:.3} s, {:.1} MB/s",
        files.len(),
        best.as_secs_f64(),
        megabytes / best.as_secs_f64()
    );
}
