//! `POST /analyze`: files in, findings out.
//!
//! Admission control (when on) is taken before any work; the analysis itself runs on the
//! blocking pool so a large batch never stalls the event loop serving other callers.

use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use logscan::{CustomRule, Finding, Language, RuleSpec, SourceFile};
use serde::Deserialize;
use serde_json::json;

/// The most files one request may carry.
const MAX_FILES: usize = 2000;
/// The pseudo analysis type that selects custom rules.
const CUSTOM: &str = "custom";

/// One file to analyze.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileInput {
    path: String,
    content: String,
    language: Option<String>,
}

/// The request body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyzeRequest {
    files: Vec<FileInput>,
    #[serde(default)]
    analysis_types: Vec<String>,
    #[serde(default)]
    rules: Vec<RuleSpec>,
}

/// Analyzes the files with the chosen types, the request's rules and the stored ones.
pub async fn analyze(
    state: web::Data<AppState>,
    request: web::Json<AnalyzeRequest>,
) -> Result<HttpResponse, ApiError> {
    let request = request.into_inner();
    let languages = languages(&request.files)?;
    let rules = rules(&state, &request)?;
    let types: Vec<String> = request
        .analysis_types
        .iter()
        .filter(|t| *t != CUSTOM)
        .cloned()
        .collect();
    if types.is_empty() && !request.analysis_types.is_empty() && rules.is_empty() {
        return Ok(respond(request.files.len(), Vec::new()));
    }
    let _admission = state
        .queue
        .admit()
        .await
        .map_err(|refusal| ApiError::Overloaded {
            retry_after: refusal.retry_after(),
        })?;
    let file_count = request.files.len();
    let findings = web::block(move || {
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
        logscan::analyze(&sources, &types, &rules)
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
    Ok(respond(file_count, findings))
}

fn respond(files: usize, findings: Vec<Finding>) -> HttpResponse {
    let summary = json!({ "files": files, "findings": findings.len() });
    HttpResponse::Ok().json(json!({ "findings": findings, "summary": summary }))
}

/// Each file's language: the one named, or the one its extension says.
fn languages(files: &[FileInput]) -> Result<Vec<Language>, ApiError> {
    if files.is_empty() || files.len() > MAX_FILES {
        return Err(ApiError::Invalid {
            code: "invalid_request",
            message: format!("files must hold between 1 and {MAX_FILES} entries"),
        });
    }
    files
        .iter()
        .enumerate()
        .map(|(index, file)| match &file.language {
            Some(name) => Language::from_name(name).ok_or_else(|| {
                unknown_language(format!(
                    "files[{index}].language '{name}' is not supported; use one of {}",
                    supported()
                ))
            }),
            None => Language::from_path(&file.path).ok_or_else(|| {
                unknown_language(format!(
                    "files[{index}]: cannot tell the language of '{}'; set files[{index}].language",
                    file.path
                ))
            }),
        })
        .collect()
}

fn supported() -> String {
    Language::ALL
        .iter()
        .map(|language| language.name())
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_language(message: String) -> ApiError {
    ApiError::Invalid {
        code: "unknown_language",
        message,
    }
}

/// The request's own rules (validated) and, unless types exclude them, the stored ones.
fn rules(state: &AppState, request: &AnalyzeRequest) -> Result<Vec<CustomRule>, ApiError> {
    let mut rules = request
        .rules
        .iter()
        .enumerate()
        .map(|(index, spec)| {
            spec.validate().map_err(|error| ApiError::Invalid {
                code: "invalid_rule",
                message: format!("rules[{index}]: {error}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if request.analysis_types.is_empty() || request.analysis_types.iter().any(|t| t == CUSTOM) {
        rules.extend(state.rules.all());
    }
    Ok(rules)
}
