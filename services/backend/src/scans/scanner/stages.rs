//! The stages of a scan, in order: `validate` (the files are there and complete), `analyze`
//! (batches to the analyzer), `store` (the findings count onto the run). Each returns a
//! [`Failure`] naming its stage instead of writing a terminal frame itself.
//!
//! A batch's count is every finding the analyzer found, kept in its answer or not; a batch the
//! analyzer stopped at its deadline found at least that many, and the `store` frame says so.

use super::{Analyze, FileInput, Scanner};
use crate::scans::analyzer_client::AnalyzerError;
use crate::scans::runs::{Run, frames};
use analysis::{AnalyzeFile, AnalyzeRequest, Cut};

/// Why a stage gave up: becomes `ERROR: <stage>: <reason>`.
pub(super) struct Failure {
    pub(super) stage: &'static str,
    pub(super) reason: String,
}

impl Failure {
    fn new(stage: &'static str, reason: String) -> Self {
        Self { stage, reason }
    }
}

impl<C: Analyze> Scanner<C> {
    /// Every stage, each announced by a progress frame.
    pub(super) async fn stages(&self, run: &mut Run, files: Vec<FileInput>) -> Result<(), Failure> {
        let detail = format!("{} files", files.len());
        self.hub
            .emit(run, frames::progress("validate", &detail))
            .await;
        let files = validate(files).map_err(|reason| Failure::new("validate", reason))?;
        let (findings, cut_short) = self.analyze(run, &files).await?;
        let detail = if cut_short == 0 {
            format!("{findings} findings")
        } else {
            format!(
                "at least {findings} findings ({cut_short} batch(es) stopped at the \
                 analyzer's deadline)"
            )
        };
        self.hub.emit(run, frames::progress("store", &detail)).await;
        run.findings = findings;
        self.runs
            .save(run)
            .await
            .map_err(|error| Failure::new("store", error.to_string()))
    }

    /// Sends the files in batches; the findings found in all of them, and how many batches
    /// the analyzer stopped at its deadline.
    async fn analyze(&self, run: &mut Run, files: &[AnalyzeFile]) -> Result<(u64, u64), Failure> {
        let batches = files.len().div_ceil(self.batch_size);
        let (mut findings, mut cut_short) = (0, 0);
        for (index, chunk) in files.chunks(self.batch_size).enumerate() {
            let detail = format!("batch {}/{batches} ({} files)", index + 1, chunk.len());
            self.hub
                .emit(run, frames::progress("analyze", &detail))
                .await;
            let batch = AnalyzeRequest {
                files: chunk.to_vec(),
                ..AnalyzeRequest::default()
            };
            let reply = self
                .client
                .analyze(&batch)
                .await
                .map_err(|error| Failure::new("analyze", analyze_reason(&error)))?;
            findings += reply.summary.found();
            let reason = reply.summary.truncation.map(|cut| cut.reason);
            cut_short += u64::from(reason == Some(Cut::Deadline));
        }
        Ok((findings, cut_short))
    }
}

/// The `analyze` stage's words for a failed call.
fn analyze_reason(error: &AnalyzerError) -> String {
    match error {
        AnalyzerError::Rejected { status, error } => {
            format!("analyzer rejected the batch ({status} {error})")
        }
        other => other.to_string(),
    }
}

/// The files as the analyzer takes them, or the first reason they cannot be scanned.
fn validate(files: Vec<FileInput>) -> Result<Vec<AnalyzeFile>, String> {
    if files.is_empty() {
        return Err("no files to scan".to_owned());
    }
    files
        .into_iter()
        .enumerate()
        .map(|(index, file)| {
            let path = file
                .path
                .filter(|path| !path.trim().is_empty())
                .ok_or_else(|| format!("files[{index}] has no path"))?;
            let content = file
                .content
                .ok_or_else(|| format!("files[{index}] has no content"))?;
            Ok(AnalyzeFile {
                path,
                content,
                language: file.language,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{FileInput, validate};

    fn file(path: Option<&str>, content: Option<&str>) -> FileInput {
        FileInput {
            path: path.map(str::to_owned),
            content: content.map(str::to_owned),
            language: None,
        }
    }

    #[test]
    fn validation_names_the_first_incomplete_file() {
        assert_eq!(validate(Vec::new()).unwrap_err(), "no files to scan");
        let files = vec![file(Some("a.rs"), Some("")), file(Some("  "), Some("x"))];
        assert_eq!(validate(files).unwrap_err(), "files[1] has no path");
        let files = vec![file(Some("a.rs"), None)];
        assert_eq!(validate(files).unwrap_err(), "files[0] has no content");
        assert_eq!(
            validate(vec![file(Some("a.rs"), Some(""))]).unwrap().len(),
            1
        );
    }
}
