//! Which build was probed: the commit given (`--commit`, `ESTATE_COMMIT`), else what `git`
//! says about the working tree the probe runs in (a container may have no git: then it says so).

use std::process::Command;

/// The commit to print.
pub fn commit(given: Option<&str>) -> String {
    if let Some(commit) = given.map(str::trim).filter(|commit| !commit.is_empty()) {
        return format!("`{commit}`");
    }
    let Some(head) = git(&["rev-parse", "--short=12", "HEAD"]) else {
        return "unknown (no git here; pass --commit or ESTATE_COMMIT)".to_owned();
    };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if !changes.is_empty() => format!("`{head}` (with uncommitted changes)"),
        _ => format!("`{head}`"),
    }
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}
