//! The frame grammar, written in one place: every producer calls these, every reader can
//! rely on them.

/// The terminal frame of a run that finished.
pub const DONE: &str = "DONE";

/// `PROGRESS: <stage>: <detail>`.
pub fn progress(stage: &str, detail: &str) -> String {
    format!("PROGRESS: {stage}: {detail}")
}

/// `ERROR: <stage>: <reason>`, the terminal frame of a run that gave up.
pub fn error(stage: &str, reason: &str) -> String {
    format!("ERROR: {stage}: {reason}")
}

/// The stage a `PROGRESS: <stage>: …` frame announces; `None` for any other frame.
pub fn progress_stage(frame: &str) -> Option<&str> {
    let (stage, _) = frame.strip_prefix("PROGRESS: ")?.split_once(": ")?;
    Some(stage)
}

/// `DONE` or an `ERROR: …` frame: nothing may follow it.
pub fn is_terminal(frame: &str) -> bool {
    frame == DONE || frame.starts_with("ERROR: ")
}

#[cfg(test)]
mod tests {
    use super::{DONE, error, is_terminal, progress, progress_stage};

    #[test]
    fn only_done_and_error_frames_are_terminal() {
        assert_eq!(
            progress("analyze", "batch 1/2"),
            "PROGRESS: analyze: batch 1/2"
        );
        assert_eq!(error("validate", "no files"), "ERROR: validate: no files");
        assert!(is_terminal(DONE));
        assert!(is_terminal(&error("store", "store unavailable")));
        assert!(!is_terminal(&progress("validate", "DONE")));
        assert_eq!(
            progress_stage("PROGRESS: analyze: batch 1/2"),
            Some("analyze")
        );
        assert_eq!(progress_stage("DONE"), None);
    }
}
