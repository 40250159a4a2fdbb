//! `POST /analyze`: files in, findings out, within the analysis bounds.
//!
//! Admission control (when on) is taken before any work; the analysis itself runs on the
//! blocking pool so a large batch never stalls the event loop serving other callers. Its
//! deadline starts when it starts there, and its answer is bounded in findings and bytes
//! ([`answer`]); what a request may carry is bounded before any of that ([`request`]).

mod answer;
mod request;

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use logscan::{Bounds, Report, SourceFile};
use request::AnalyzeRequest;

/// Analyzes the files with the chosen types, the request's rules and the stored ones.
pub async fn analyze(
    state: web::Data<AppState>,
    request: web::Json<AnalyzeRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let languages = request::languages(&request)?;
    let rules = request::rules(&request, &state).await?;
    let types = request::built_in_types(&request);
    let file_count = request.files.len();
    let bounds = state.bounds;
    if types.is_empty() && !request.analysis_types.is_empty() && rules.is_empty() {
        let nothing = Report {
            findings: Vec::new(),
            found: 0,
            stopped_at_deadline: false,
        };
        return Ok(answer::respond(
            file_count,
            nothing,
            bounds.max_answer_bytes,
        ));
    }
    let _admission = state
        .queue
        .admit()
        .await
        .map_err(|refusal| ApiError::Overloaded {
            retry_after: refusal.retry_after(),
        })?;
    let clock = state.clock.clone();
    let report = web::block(move || {
        let started = clock.now();
        let deadline_passed = || clock.now().saturating_sub(started) >= bounds.deadline;
        let limits = Bounds {
            max_findings: bounds.max_findings,
            deadline_passed: &deadline_passed,
        };
        let sources: Vec<SourceFile<'_>> = request
            .files
            .iter()
            .zip(&languages)
            .map(|(file, language)| SourceFile {
                path: &file.path,
                content: &file.content,
                language: *language,
            })
            .collect();
        logscan::analyze(&sources, &types, &rules, &limits)
    })
    .await
    .map_err(|error| ApiError::Internal {
        kind: "analysis did not complete",
        cause: error.to_string(),
    })?
    .map_err(|error| ApiError::Invalid {
        code: "unknown_analysis_type",
        message: error.to_string(),
    })?;
    Ok(answer::respond(file_count, report, bounds.max_answer_bytes))
}
