//! Every finding of the built-in types on the source files under a directory, one JSON object
//! per line (the path relative to the directory): how a new set of real code is scored and its
//! findings listed for judging (`realcode/README.md`).
//!
//! `cargo run -p logscan --example findings -- DIR`

#[path = "support/sources.rs"]
mod support;

use std::env;
use std::path::PathBuf;

use logscan::{Bounds, analyze};
use support::{source_files, sources};

fn main() {
    let Some(dir) = env::args().nth(1).map(PathBuf::from) else {
        eprintln!("usage: findings DIR");
        std::process::exit(2);
    };
    let mut owned = Vec::new();
    sources(&dir, &mut owned);
    let files = source_files(&owned);
    let bounds = Bounds {
        max_findings: usize::MAX,
        deadline_passed: &|| false,
    };
    let report = analyze(&files, &[], &[], &bounds).expect("every built-in type");
    let prefix = format!("{}/", dir.display().to_string().trim_end_matches('/'));
    for mut finding in report.findings {
        if let Some(relative) = finding.path.strip_prefix(&prefix) {
            finding.path = relative.to_owned();
        }
        println!(
            "{}",
            serde_json::to_string(&finding).expect("a finding serializes")
        );
    }
}
